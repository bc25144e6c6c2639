import { framePainted } from './frame/painted.ts';

/**
 * The dashboard's page script. When the server sent a page's first frame, the browser paints it
 * before the app's code is evaluated (frame/painted.ts); without a frame (index.html: the addresses
 * that have none), the app starts at once.
 *
 * The app's code is evaluated in two tasks, not one: React and the libraries every page runs
 * first (the `core` chunk), then the rest of the app. Evaluated at once they were the page's
 * longest task on a phone, and a tap in the frame went unanswered until it ended.
 */
const nextTask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

await framePainted();
const react = import('react-dom/client');
// While React downloads: the browser's first date format costs it ICU's set-up (170–200 ms in CPU
// profiles of the records page at a phone's 4× slowdown, whatever the format's language and zone;
// the formats after it cost next to nothing). Every signed-in page formats dates in its
// establishment's zone from its first render (its loader asks for "today" there): the set-up is
// done here, while the network is busy and the main thread idle, not inside the page's first render.
new Intl.DateTimeFormat('en-CA', { timeZone: 'UTC', year: 'numeric', month: '2-digit', day: '2-digit' }).format(0);
await react;
await nextTask();
await import('./main.tsx');
