import { Center, Loader } from '@mantine/core';
import { useState } from 'react';
import { DonationScreen } from './screens/DonationScreen.tsx';
import { PairScreen } from './screens/PairScreen.tsx';
import { RecordingScreen } from './screens/RecordingScreen.tsx';
import { useStation } from './useStation.ts';

/**
 * The kitchen station (docs/decisions/0007-the-kitchen-station.md): a paired tablet at the bin.
 * A record is category → cause → destination → weight → Save: four taps and the weight. Every
 * record goes to the outbox first, so the station works the same with the network down.
 *
 * This shell holds the station's state and chooses the screen (screens/); the pieces the screens are
 * made of are in parts/, the record being made in flow.ts.
 */
export function StationApp() {
  const station = useStation();
  const [donating, setDonating] = useState(false);
  if (!station) {
    return (
      <Center h="100vh">
        <Loader aria-label="…" />
      </Center>
    );
  }
  if (!station.pairing || station.status.unpaired) return <PairScreen station={station} />;
  if (donating) return <DonationScreen station={station} onDone={() => setDonating(false)} />;
  return <RecordingScreen station={station} onDonate={() => setDonating(true)} />;
}
