import { lazy, Suspense, useSyncExternalStore } from 'react';
import { wantedOnce } from '../lib/wanted.ts';

const Modals = lazy(() => import('./Modals.tsx'));

/**
 * Mantine's modals manager (the confirmation dialogs of `useConfirm`, confirm.tsx), mounted the
 * first time a confirmation is asked for rather than with every page: its provider renders a
 * closed Modal from the start, and with it Mantine's Modal, scroll lock and focus trap (9–10 kB
 * compressed) were part of every signed-in page's first load. `whenModalsReady` mounts it and
 * resolves once it listens for Mantine's open events; it stays mounted after.
 */
const manager = wantedOnce();
let ready = pending();

function pending() {
  let resolve = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Mounts the modals manager if it is not yet, and resolves when it can open a dialog. */
export function whenModalsReady(): Promise<void> {
  manager.want();
  return ready.promise;
}

/** Where the manager mounts (inside the app's MantineProvider): nothing until it is wanted. */
export function DeferredModals() {
  const mounted = useSyncExternalStore(manager.subscribe, manager.wanted);
  return mounted ? (
    <Suspense>
      <Modals
        onReady={() => {
          ready.resolve();
          return () => {
            ready = pending();
          };
        }}
      />
    </Suspense>
  ) : null;
}
