import { Container, Loader, Stack, Text } from '@mantine/core';
import type { DonationNote, SignDonationInput } from '@merma/schema';
import { useCallback, useEffect, useState } from 'react';
import { LinkError, type SignClient } from './client.ts';
import { useSignI18n } from './i18n.ts';
import { ProblemScreen, type ScreenProblem } from './parts/ProblemScreen.tsx';
import { SignedNote } from './parts/SignedNote.tsx';
import { SignHeader } from './parts/SignHeader.tsx';
import { SignForm } from './SignForm.tsx';
import classes from './sign.module.css';

type Signed = DonationNote & { signed: NonNullable<DonationNote['signed']> };

type Screen =
  | { kind: 'loading' }
  | { kind: 'problem'; problem: ScreenProblem }
  | { kind: 'form'; note: DonationNote }
  | { kind: 'signed'; note: Signed; alreadySigned: boolean };

/** The screen a note is shown on: signed, still to sign, or answered another way (the kitchen recorded the answer). */
function screenOf(note: DonationNote, alreadySigned: boolean): Screen {
  if (note.signed) return { kind: 'signed', note: note as Signed, alreadySigned };
  if (note.status !== 'offered') return { kind: 'problem', problem: 'answered' };
  return { kind: 'form', note };
}

/**
 * A social entity's signing page (`/dashboard/sign/{donation_id}#dln_…`): loads the donation through
 * the link, shows the form, then the signed note; or says why it cannot (an invalid, expired or
 * replaced link, a donation already signed or answered, no connection). `client` is null when the
 * address holds no link. `forget` drops the kept token once the server says the link is dead.
 */
export function SignApp({ client, forget }: { client: SignClient | null; forget: () => void }) {
  const { t } = useSignI18n();
  const [screen, setScreen] = useState<Screen>(client ? { kind: 'loading' } : { kind: 'problem', problem: 'invalid' });

  const failed = useCallback(
    (error: unknown): Screen => {
      if (!(error instanceof LinkError)) throw error;
      if (error.linkDead) forget();
      return { kind: 'problem', problem: error.problem === 'invalid_input' ? 'server' : error.problem };
    },
    [forget],
  );

  const load = useCallback(
    async (alreadySigned = false) => {
      if (!client) return;
      setScreen({ kind: 'loading' });
      try {
        setScreen(screenOf(await client.note(), alreadySigned));
      } catch (error) {
        setScreen(failed(error));
      }
    },
    [client, failed],
  );

  useEffect(() => {
    void load();
  }, [load]);

  const sign = async (body: SignDonationInput) => {
    if (!client) return;
    try {
      setScreen(screenOf(await client.sign(body), false));
    } catch (error) {
      if (!(error instanceof LinkError)) throw error;
      // Signed already (another phone, a second tap): the signed note, and a word that this one was not kept.
      if (error.problem === 'used') return load(true);
      if (error.linkDead || error.problem === 'answered') return setScreen(failed(error));
      throw error; // the form says it, and keeps the answers to send again
    }
  };

  return (
    <div className={classes.page}>
      <SignHeader />
      <Container size={760} className={classes.main} component="main">
        {screen.kind === 'loading' && (
          <Stack align="center" py="xl" role="status">
            <Loader aria-hidden />
            <Text size="lg">{t('sign.app.loading')}</Text>
          </Stack>
        )}
        {screen.kind === 'problem' && <ProblemScreen problem={screen.problem} onRetry={() => void load()} />}
        {screen.kind === 'form' && <SignForm note={screen.note} onSign={sign} />}
        {screen.kind === 'signed' && client && <SignedNote note={screen.note} alreadySigned={screen.alreadySigned} client={client} />}
      </Container>
    </div>
  );
}
