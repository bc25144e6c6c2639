import type { Me } from '@merma/schema/dashboard';
import { useRouter } from '@tanstack/react-router';
import { useCallback } from 'react';
import { queryClient, trpc } from '../trpc.ts';

/**
 * After signing in (password, link, invitation, reset) or switching organisation: forget what was
 * cached for the previous session, keep the new `Me`, and go into the app.
 */
export function useEnterApp() {
  const router = useRouter();
  return useCallback(
    async (me: Me, redirectTo?: string) => {
      queryClient.removeQueries();
      queryClient.setQueryData(trpc.accounts.me.queryKey(), me);
      if (redirectTo) await router.navigate({ href: redirectTo, replace: true });
      // The app's index sends each role to its first page (viewers have no keys page).
      else await router.navigate({ to: '/', search: {}, replace: true });
    },
    [router],
  );
}

/** After signing out: nothing of the session stays in memory. */
export function useLeaveApp() {
  const router = useRouter();
  return useCallback(async () => {
    queryClient.clear();
    await router.navigate({ to: '/sign-in', search: {}, replace: true });
  }, [router]);
}
