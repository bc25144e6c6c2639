import '@mantine/core/styles.css';
import { MantineProvider } from '@mantine/core';
import { Component, type ReactNode, StrictMode, useMemo } from 'react';
import { createRoot } from 'react-dom/client';
import { cssVariablesResolver, themeWithCloseLabel } from '../theme.ts';
import { createSignClient } from './client.ts';
import { useSignI18n } from './i18n.ts';
import { ProblemScreen } from './parts/ProblemScreen.tsx';
import { SignApp } from './SignApp.tsx';
import { browserPlace, forgetToken, takeLink } from './token.ts';

/**
 * A social entity's signing page (`/dashboard/sign/{donation_id}#dln_…`, sign.html): its own entry
 * of the dashboard's build, with the dashboard's theme but none of its pages, router, tRPC client
 * or messages, and no session. The link is read first of all, before anything is drawn, so the
 * token leaves the address bar at once (token.ts).
 */
const place = browserPlace();
const link = takeLink(place);
const client = link.donationId && link.token ? createSignClient(link.donationId, link.token) : null;
const forget = () => {
  if (link.donationId) forgetToken(place, link.donationId);
};

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
    return <ProblemScreen problem="crashed" onRetry={() => location.reload()} />;
  }
}

function Page() {
  const { t } = useSignI18n();
  const theme = useMemo(() => themeWithCloseLabel(t('sign.app.close')), [t]);
  return (
    <MantineProvider theme={theme} defaultColorScheme="light" cssVariablesResolver={cssVariablesResolver}>
      <Recover>
        <SignApp client={client} forget={forget} />
      </Recover>
    </MantineProvider>
  );
}

createRoot(container).render(
  <StrictMode>
    <Page />
  </StrictMode>,
);
