import { framePainted } from '../frame/painted.ts';

/**
 * The sign-in page's script (sign-in.html): the page's first frame painted first (the server sends
 * it with the frame), then the page itself (page.tsx), whose scripts download meanwhile. Loaded at
 * once, the page's 100 kB of scripts shared a phone's slow network with the style sheet the first
 * paint waits for.
 */
await framePainted();
await import('./page.tsx');
