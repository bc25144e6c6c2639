import { framePainted } from './frame/painted.ts';
import { warmIntl } from './warm-intl.ts';

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
// While React downloads: ICU's set-up, on a thread of its own (warm-intl.ts).
const intl = warmIntl();
await Promise.all([react, intl]);
await nextTask();
await import('./main.tsx');
