/**
 * The dashboard's page script. When the server sent a page's first frame (src/frame/Frame.tsx, in
 * #root), the browser paints it before the app's code is evaluated (some 1.5 s of a mid-range
 * phone's main thread): the code downloads meanwhile (the page's `modulepreload` links,
 * vite.config.ts), and runs from the task after that paint. Without a frame (index.html: the
 * addresses that have none), the app starts at once. A tab opened in the background paints
 * nothing until shown; it does not wait for that: a second at most.
 *
 * The app's code is evaluated in two tasks, not one: React and the libraries every page runs
 * first (the `core` chunk), then the rest of the app. Evaluated at once they were the page's
 * longest task on a phone, and a tap in the frame went unanswered until it ended.
 */
const nextTask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

if (document.getElementById('root')?.firstElementChild) {
  await Promise.race([
    new Promise<void>((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0))),
    new Promise<void>((resolve) => setTimeout(resolve, 1_000)),
  ]);
}
await import('react-dom/client');
await nextTask();
await import('./main.tsx');

export {};
