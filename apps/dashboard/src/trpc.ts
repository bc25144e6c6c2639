import type { DashboardRouter } from '@merma/server/dashboard';
import { hashKey, MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { createTRPCClient, httpBatchLink } from '@trpc/client';
import { createTRPCOptionsProxy } from '@trpc/tanstack-react-query';
import { i18n } from './i18n/index.ts';
import { csrfToken } from './lib/csrf.ts';
import { errorText, isTransient, isUnauthorized } from './lib/errors.ts';
import { notifications } from './lib/notify.ts';

/**
 * The one place that talks to the server: the tRPC client, the QueryClient and the options proxy
 * (`trpc.keys.list.queryOptions(...)`) that loaders and pages share. Both go into the router context.
 */

declare module '@tanstack/react-query' {
  interface Register {
    mutationMeta: {
      /** The page shows this mutation's error itself (forms), so no notification is raised. */
      inlineError?: boolean;
    };
  }
}

let unauthorizedHandler: () => void = () => {};

/** What to do when a call answers 401 (the session ended): set once by the app, which knows the router. */
export function onUnauthorized(handler: () => void) {
  unauthorizedHandler = handler;
}

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 30_000,
      retry: (failures, error) => isTransient(error) && failures < 2,
      refetchOnWindowFocus: false,
    },
    mutations: { retry: false },
  },
  queryCache: new QueryCache({
    onError(error) {
      if (isUnauthorized(error)) unauthorizedHandler();
    },
    onSuccess(data, query) {
      // `accounts.me` answers null once the session has ended: the same as a 401 from any other call.
      if (data === null && query.queryHash === meQueryHash()) unauthorizedHandler();
    },
  }),
  mutationCache: new MutationCache({
    onError(error, _variables, _context, mutation) {
      if (isUnauthorized(error) && !mutation.meta?.inlineError) {
        unauthorizedHandler();
        return;
      }
      if (mutation.meta?.inlineError) return;
      notifications.show({ color: 'red', title: i18n.t('errors.title'), message: errorText(i18n, error) });
    },
  }),
});

export const trpcClient = createTRPCClient<DashboardRouter>({
  links: [
    httpBatchLink({
      url: '/trpc',
      headers() {
        const token = csrfToken();
        return token ? { 'x-csrf-token': token } : {};
      },
      fetch(url, options) {
        return fetch(url, { ...options, credentials: 'same-origin' });
      },
    }),
  ],
});

export { csrfToken };

export const trpc = createTRPCOptionsProxy<DashboardRouter>({ client: trpcClient, queryClient });

export type TRPC = typeof trpc;

const meQueryHash = () => hashKey(trpc.accounts.me.queryKey());
