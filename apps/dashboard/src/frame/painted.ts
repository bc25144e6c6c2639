/**
 * Resolves once the page's first frame (src/frame/Frame.tsx, written into #root by the build) has
 * been painted, or at once when the page has none: a page's script imports its code after that, so
 * the browser paints the frame before it evaluates that code (a second and more of a mid-range
 * phone's main thread), and the code downloads meanwhile (vite.config.ts's `modulepreload` links
 * are left out of a page sent with its frame). A tab opened in the background paints nothing until
 * shown; it does not wait for that: a second at most.
 */
export async function framePainted(): Promise<void> {
  if (!document.getElementById('root')?.firstElementChild) return;
  await Promise.race([
    new Promise<void>((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0))),
    new Promise<void>((resolve) => setTimeout(resolve, 1_000)),
  ]);
}
