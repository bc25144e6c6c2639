/**
 * Registers the station's service worker (built by vite-plugin-pwa, vite.config.ts) for the
 * station's page only, and tells the page when a new version has taken over.
 *
 * A station stays open for weeks: a worker that waited for every station tab to close would
 * never update it. So a new worker takes over at once (`skipWaiting`, `clientsClaim`), and the
 * page reloads itself at the next safe moment — between two records, never under a cook's fingers
 * (StationApp). Nothing is lost by it: what waits to be sent is in IndexedDB.
 */
let updated = false;
const listeners = new Set<() => void>();

export function registerServiceWorker(): void {
  if (!('serviceWorker' in navigator) || import.meta.env.DEV) return;
  // A page opened before any worker is claimed by its first one: that change is not an update;
  // every later one is.
  let firstClaim = navigator.serviceWorker.controller === null;
  navigator.serviceWorker.addEventListener('controllerchange', () => {
    if (firstClaim) {
      firstClaim = false;
      return;
    }
    updated = true;
    for (const listener of listeners) listener();
  });
  navigator.serviceWorker.register('/dashboard/station-sw.js', { scope: '/dashboard/station' }).catch(() => {
    // No worker (a private window, storage blocked): the station still works while online.
  });
}

/** Whether a new version took over since the page loaded; `listener` is called when it does. */
export function onUpdate(listener: () => void): () => void {
  listeners.add(listener);
  if (updated) listener();
  return () => listeners.delete(listener);
}
