import type { DonationNote, SignDonationInput } from '@merma/schema';
import type { SignClient } from './client.ts';
import { useSignI18n } from './i18n.ts';
import { LinkFrame, Loading } from './parts/LinkFrame.tsx';
import { ProblemScreen } from './parts/ProblemScreen.tsx';
import { SignedNote } from './parts/SignedNote.tsx';
import { SignForm } from './SignForm.tsx';
import { type LinkScreen, useLinkDocument } from './use-link-document.ts';

type Signed = DonationNote & { signed: NonNullable<DonationNote['signed']> };

/** The screen a note is shown on: signed, still to sign, or answered another way (the kitchen recorded the answer). */
function screenOf(note: DonationNote, alreadySigned: boolean): LinkScreen<DonationNote, Signed> {
  if (note.signed) return { kind: 'signed', doc: note as Signed, alreadySigned };
  if (note.status !== 'offered') return { kind: 'problem', problem: 'answered' };
  return { kind: 'form', doc: note };
}

/**
 * A social entity's signing page (`/dashboard/sign/{donation_id}#dln_…`): loads the donation through
 * the link, shows the form, then the signed note; or says why it cannot (an invalid, expired or
 * replaced link, a donation already signed or answered, no connection). `client` is null when the
 * address holds no link. `forget` drops the kept token once the server says the link is dead.
 */
export function SignApp({ client, forget }: { client: SignClient | null; forget: () => void }) {
  const { t } = useSignI18n();
  const { screen, reload, send } = useLinkDocument<DonationNote, Signed, SignDonationInput>({
    read: client?.note ?? null,
    sign: client?.sign ?? null,
    screenOf,
    forget,
  });
  return (
    <LinkFrame subtitle={t('sign.app.subtitle')}>
      {screen.kind === 'loading' && <Loading text={t('sign.app.loading')} />}
      {screen.kind === 'problem' && <ProblemScreen problem={screen.problem} onRetry={reload} />}
      {screen.kind === 'form' && <SignForm note={screen.doc} onSign={send} />}
      {screen.kind === 'signed' && client && <SignedNote note={screen.doc} alreadySigned={screen.alreadySigned} client={client} />}
    </LinkFrame>
  );
}
