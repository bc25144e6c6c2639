import { MantineProvider } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { deadline } from '@merma/testing';
import { QueryClientProvider } from '@tanstack/react-query';
import { createMemoryHistory, RouterProvider } from '@tanstack/react-router';
import { render, screen } from '@testing-library/react';
import userEvent, { PointerEventsCheckLevel } from '@testing-library/user-event';
import { onTestFinished, vi } from 'vitest';
import { i18n } from '../../src/i18n/index.ts';
import { createAppRouter } from '../../src/router.tsx';
import { buildTheme, cssVariablesResolver } from '../../src/theme.ts';
import { queryClient } from '../../src/trpc.ts';

/**
 * The app as main.tsx mounts it (Mantine theme, the app's QueryClient, notifications, the route
 * tree with its guards and loaders), at `path` under /dashboard, in a memory history. Mantine's
 * test environment turns off transitions and portals. Resolves once the page's `<h1>` is shown.
 */
export async function renderApp(path: string) {
  const router = createAppRouter(createMemoryHistory({ initialEntries: [`/dashboard${path}`] }));
  // No check of `pointer-events` before each click: it asks jsdom for every ancestor's computed style, slowly.
  const user = userEvent.setup({ delay: null, pointerEventsCheck: PointerEventsCheckLevel.Never });
  render(
    <MantineProvider theme={buildTheme(i18n.t)} env="test" defaultColorScheme="light" cssVariablesResolver={cssVariablesResolver}>
      <QueryClientProvider client={queryClient}>
        <Notifications />
        <RouterProvider router={router} />
      </QueryClientProvider>
    </MantineProvider>,
  );
  const heading = await screen.findByRole('heading', { level: 1 }, { timeout: deadline(10_000) });
  return {
    router,
    user,
    heading,
    /** The search params of the URL the app is at. */
    search: () => router.state.location.search as Record<string, unknown>,
  };
}

/** A message of the app, in the language shown (English in the tests). */
export const t = i18n.t.bind(i18n);

/**
 * For a test whose page fails on purpose: React and the router log the error their boundary
 * caught (console.error and console.warn); those lines are expected there, so they are not printed.
 */
export function expectRouteError() {
  const error = vi.spyOn(console, 'error').mockImplementation(() => {});
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
  onTestFinished(() => {
    error.mockRestore();
    warn.mockRestore();
  });
}

/** The notification (Mantine's toast, bottom right in the app) that says `text`. */
export async function findNotification(text: string): Promise<HTMLElement> {
  const found = await screen.findByText(text);
  const toast = found.closest<HTMLElement>('.mantine-Notification-root');
  if (!toast) throw new Error(`“${text}” is shown, but not in a notification`);
  return toast;
}

/**
 * A field's accessible name by how it starts: a required field's label ends with Mantine's
 * asterisk, and a field's name may go on with its description.
 */
export function startingWith(text: string): RegExp {
  return new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`);
}
