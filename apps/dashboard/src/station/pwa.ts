/**
 * Registers the station's service worker (built by vite-plugin-pwa, vite.config.ts) for the
 * station's page only. After a new build, the new worker takes over at the next load: the page is
 * not reloaded under a cook's fingers.
 */
export function registerServiceWorker(): void {
  if (!('serviceWorker' in navigator) || import.meta.env.DEV) return;
  navigator.serviceWorker.register('/dashboard/station-sw.js', { scope: '/dashboard/station' }).catch(() => {
    // No worker (a private window, storage blocked): the station still works while online.
  });
}
