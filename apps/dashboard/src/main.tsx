import './mantine-styles.ts';
import '@mantine/notifications/styles.css';
import { MantineProvider } from '@mantine/core';
import { QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from '@tanstack/react-router';
import { StrictMode, startTransition, useMemo } from 'react';
import { createRoot } from 'react-dom/client';
import { useTranslation } from 'react-i18next';
import { DeferredToasts } from './components/DeferredToasts.tsx';
import { i18nReady } from './i18n/index.ts';
import { router } from './router.tsx';
import { buildTheme, cssVariablesResolver } from './theme.ts';
import { queryClient } from './trpc.ts';

const container = document.getElementById('root');
if (!container) throw new Error('index.html has no #root element');

function App() {
  const { t } = useTranslation();
  const theme = useMemo(() => buildTheme(t), [t]);
  return (
    <MantineProvider theme={theme} defaultColorScheme="light" cssVariablesResolver={cssVariablesResolver}>
      <QueryClientProvider client={queryClient}>
        <DeferredToasts />
        <RouterProvider router={router} />
      </QueryClientProvider>
    </MantineProvider>
  );
}

// The chosen language's messages first (a small chunk loaded beside the app's own).
await i18nReady;
const root = createRoot(container);
startTransition(() => {
  root.render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
});
