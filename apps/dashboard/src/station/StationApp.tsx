import { Center, Loader } from '@mantine/core';
import { lazy, Suspense, useState } from 'react';
import { PairScreen } from './screens/PairScreen.tsx';
import { useStation } from './useStation.ts';

// The screens of a paired station are chunks of their own, fetched once the station knows it is
// paired: a tablet opening its pairing link for the first time (on the kitchen's network, often a
// slow one) downloads the pairing screen alone. A paired station loads them from its service
// worker's cache (pwa.ts precaches every chunk), offline too.
const RecordingScreen = lazy(() => import('./screens/RecordingScreen.tsx').then((m) => ({ default: m.RecordingScreen })));
const DonationScreen = lazy(() => import('./screens/DonationScreen.tsx').then((m) => ({ default: m.DonationScreen })));

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
  if (!station) return <Waiting />;
  if (!station.pairing || station.status.unpaired) return <PairScreen station={station} />;
  return (
    <Suspense fallback={<Waiting />}>
      {donating ? (
        <DonationScreen station={station} onDone={() => setDonating(false)} />
      ) : (
        <RecordingScreen station={station} onDonate={() => setDonating(true)} />
      )}
    </Suspense>
  );
}

function Waiting() {
  return (
    <Center h="100vh">
      <Loader aria-label="…" />
    </Center>
  );
}
