import '../mantine-styles.ts';
import { MantineProvider } from '@mantine/core';
import { Component, type ReactNode, StrictMode, useMemo } from 'react';
import { createRoot } from 'react-dom/client';
import { cssVariablesResolver, themeWithCloseLabel } from '../theme.ts';
import { CertificateApp } from './certificate/CertificateApp.tsx';
import { createCertificateClient, createSignClient } from './client.ts';
import { setDocumentTitle, useSignI18n } from './i18n.ts';
import { ProblemScreen } from './parts/ProblemScreen.tsx';
import { SignApp } from './SignApp.tsx';
import { browserPlace, forgetToken, type LinkKind, takeLink } from './token.ts';

/**
 * A social entity's signing page (sign.html): a donation's handover note
 * (`/dashboard/sign/{donation_id}#dln_…`) or a year's certificate of Ley 49/2002 art. 24
 * (`/dashboard/sign/certificate/{link_id}#dln_…`). Its own entry of the dashboard's build, with the
 * dashboard's theme but none of its pages, router, tRPC client or messages, and no session. The
 * link is read first of all, before anything is drawn, so the token leaves the address bar at once
 * (token.ts).
 */
const place = browserPlace();
const { target, token } = takeLink(place);
const kind: LinkKind = target?.kind ?? 'donation';
// One client per page, made once: the screens read the document again when theirs changes.
const certificateClient = target?.kind === 'certificate' && token ? createCertificateClient(target.id, token) : null;
const donationClient = target?.kind === 'donation' && token ? createSignClient(target.id, token) : null;
const forget = () => {
  if (target) forgetToken(place, target);
};
if (kind === 'certificate') setDocumentTitle('sign.certificate.documentTitle');

const container = document.getElementById('root');
if (!container) throw new Error('sign.html has no #root element');

/** A fault of the page shows a way back instead of a blank screen: the link is kept in this tab, so reloading loses only the form. */
class Recover extends Component<{ children: ReactNode }, { failed: boolean }> {
  override state = { failed: false };
  static getDerivedStateFromError() {
    return { failed: true };
  }
  override render() {
    if (!this.state.failed) return this.props.children;
    return <ProblemScreen problem="crashed" kind={kind} onRetry={() => location.reload()} />;
  }
}

function Page() {
  const { t } = useSignI18n();
  const theme = useMemo(() => themeWithCloseLabel(t('sign.app.close')), [t]);
  return (
    <MantineProvider theme={theme} defaultColorScheme="light" cssVariablesResolver={cssVariablesResolver}>
      <Recover>
        {kind === 'certificate' ? (
          <CertificateApp client={certificateClient} forget={forget} />
        ) : (
          <SignApp client={donationClient} forget={forget} />
        )}
      </Recover>
    </MantineProvider>
  );
}

createRoot(container).render(
  <StrictMode>
    <Page />
  </StrictMode>,
);
