import '@mantine/core/styles.css';
import { MantineProvider } from '@mantine/core';
import { StrictMode, useMemo } from 'react';
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

function App() {
  const { t } = useTranslation();
  const theme = useMemo(() => buildTheme(t), [t]);
  return (
    <MantineProvider theme={theme} defaultColorScheme="light" cssVariablesResolver={cssVariablesResolver}>
      <StationApp />
    </MantineProvider>
  );
}

await i18nReady;
await i18n.loadNamespaces('station');
createRoot(container).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
registerServiceWorker();
