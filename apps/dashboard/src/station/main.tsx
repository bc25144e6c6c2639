import '../mantine-styles.ts';
import { Button, Center, MantineProvider, Stack, Text } from '@mantine/core';
import { Component, type ReactNode, StrictMode, useMemo } from 'react';
import { createRoot } from 'react-dom/client';
import { useTranslation } from 'react-i18next';
import { i18n, i18nReady } from '../i18n/index.ts';
import { buildTheme, cssVariablesResolver } from '../theme.ts';
import { registerServiceWorker } from './pwa.ts';
import { StationApp } from './StationApp.tsx';

/**
 * The kitchen station's page (`/dashboard/station`, station.html): its own entry of the dashboard's
 * build, with the dashboard's theme and messages but none of its pages, router or tRPC client.
 */
const container = document.getElementById('root');
if (!container) throw new Error('station.html has no #root element');

/**
 * A fault of the page shows a way back instead of a blank screen: what waits to be sent is in
 * IndexedDB, not in the page, so reloading loses nothing.
 */
class Recover extends Component<{ children: ReactNode }, { failed: boolean }> {
  override state = { failed: false };
  static getDerivedStateFromError() {
    return { failed: true };
  }
  override render() {
    if (!this.state.failed) return this.props.children;
    return <Crashed />;
  }
}

function Crashed() {
  const { t } = useTranslation('station');
  return (
    <Center h="100vh" p="md">
      <Stack align="center">
        <Text size="xl" ta="center">
          {t('station.errors.crashed')}
        </Text>
        <Button size="xl" h={64} onClick={() => location.reload()}>
          {t('station.errors.reload')}
        </Button>
      </Stack>
    </Center>
  );
}

function App() {
  const { t } = useTranslation();
  const theme = useMemo(() => buildTheme(t), [t]);
  return (
    <MantineProvider theme={theme} defaultColorScheme="light" cssVariablesResolver={cssVariablesResolver}>
      <Recover>
        <StationApp />
      </Recover>
    </MantineProvider>
  );
}

// The station's words load beside the language's main messages, not after them: asked for before
// i18next's first load starts (it starts a task after `init`), the namespace joins that load, and
// a phone waits one round trip for its words instead of two.
await Promise.all([i18n.loadNamespaces('station'), i18nReady]);
createRoot(container).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
registerServiceWorker();
