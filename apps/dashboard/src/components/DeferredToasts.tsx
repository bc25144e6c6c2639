import { lazy, Suspense, useSyncExternalStore } from 'react';
import { onToastsWanted, toastsWanted } from '../lib/notify.ts';

const Toasts = lazy(() => import('./Toasts.tsx'));

/**
 * The notifications' container (Mantine's, with its transitions) mounts when the first
 * notification is shown (lib/notify.ts), not with every page. Once mounted, it stays.
 */
export function DeferredToasts() {
  const wanted = useSyncExternalStore(onToastsWanted, toastsWanted);
  return wanted ? (
    <Suspense>
      <Toasts />
    </Suspense>
  ) : null;
}
