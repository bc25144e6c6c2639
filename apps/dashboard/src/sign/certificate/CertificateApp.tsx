import type { CertificateToSign, SignCertificateInput } from '@merma/schema';
import type { CertificateClient } from '../client.ts';
import { useSignI18n } from '../i18n.ts';
import { LinkFrame, Loading } from '../parts/LinkFrame.tsx';
import { ProblemScreen } from '../parts/ProblemScreen.tsx';
import { type LinkScreen, useLinkDocument } from '../use-link-document.ts';
import { CertificateForm } from './CertificateForm.tsx';
import { SignedCertificate, type SignedCertificateToSign } from './SignedCertificate.tsx';

/** Signed, or still to sign. */
function screenOf(certificate: CertificateToSign, alreadySigned: boolean): LinkScreen<CertificateToSign, SignedCertificateToSign> {
  if (certificate.signed) return { kind: 'signed', doc: certificate as SignedCertificateToSign, alreadySigned };
  return { kind: 'form', doc: certificate };
}

/**
 * The page of a certificate's link (`/dashboard/sign/certificate/{link_id}#dln_…`): the certificate
 * of Ley 49/2002 art. 24 read through the link, its form, then the signed certificate; or why it
 * cannot be shown (an invalid, expired or replaced link, no connection). `client` is null when the
 * address holds no link; `forget` drops the kept token once the server says the link is dead.
 */
export function CertificateApp({ client, forget }: { client: CertificateClient | null; forget: () => void }) {
  const { t } = useSignI18n();
  const { screen, reload, send } = useLinkDocument<CertificateToSign, SignedCertificateToSign, SignCertificateInput>({
    read: client?.certificate ?? null,
    sign: client?.sign ?? null,
    screenOf,
    forget,
  });
  return (
    <LinkFrame subtitle={t('sign.certificate.subtitle')}>
      {screen.kind === 'loading' && <Loading text={t('sign.certificate.loading')} />}
      {screen.kind === 'problem' && <ProblemScreen kind="certificate" problem={screen.problem} onRetry={reload} />}
      {screen.kind === 'form' && <CertificateForm certificate={screen.doc} onSign={send} />}
      {screen.kind === 'signed' && client && (
        <SignedCertificate certificate={screen.doc} alreadySigned={screen.alreadySigned} client={client} />
      )}
    </LinkFrame>
  );
}
