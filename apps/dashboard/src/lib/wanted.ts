/**
 * A flag that turns on once and stays on, for `useSyncExternalStore`: what loads a part of the
 * app the first time it is asked for (the notifications' container, the confirmation dialogs'
 * manager) rather than with every page.
 */
export function wantedOnce() {
  const listeners = new Set<() => void>();
  let wanted = false;
  return {
    want() {
      if (wanted) return;
      wanted = true;
      for (const listener of listeners) listener();
    },
    wanted: () => wanted,
    subscribe(listener: () => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
