import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { settled, TEST_RESULTS } from './browser.js';

/**
 * What the browser tests of the signing page (apps/dashboard/src/sign: a donation's note, a year's
 * certificate) share: a phone held upright and a desktop, a new document for each link opened, the
 * focus, the size of the targets a finger meets, and a signature drawn with a finger or the mouse.
 *
 * On the phone, buttons and choices are pressed with `click()`, not `tap()`: a tap is a gesture the
 * browser recognises on a timer, and on a loaded machine its touchEnd can reach the browser after
 * the long-press timeout, so the tap can become a long press and no click follows (the likeliest
 * reason a CI run saw the consent checkbox never checked after its tap). The page listens for clicks, not touches, so a click is what
 * a finger's tap delivers to it; the signature, which does read touches, is drawn with real touch
 * events (`drawWithFinger`).
 */

export const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };
export const DESKTOP = { viewport: { width: 1280, height: 800 } };

export async function open(
  browser: Browser,
  options: typeof PHONE | typeof DESKTOP,
  locale: string,
): Promise<{ context: BrowserContext; page: Page }> {
  // bypassCSP only lets axe-core be injected (the page allows no inline script).
  const context = await browser.newContext({ ...options, locale, bypassCSP: true, acceptDownloads: true });
  return { context, page: await context.newPage() };
}

/**
 * Opens `url` as a new document: going from the page's address to the same one with a fragment
 * would only scroll (a same-document navigation), as it would in a tab where the link is pasted
 * again after the page removed its fragment.
 */
export async function visit(page: Page, url: string) {
  await page.goto('about:blank');
  return page.goto(url);
}

export const shot = (page: Page, name: string) => page.screenshot({ path: join(TEST_RESULTS, `${name}.png`), fullPage: true });

/** Whether `locator` has the page's focus. */
export const focused = (locator: Locator) =>
  locator.evaluate((el) => el === (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement);

/**
 * Targets smaller than 48×48 px: buttons, links, text fields, and the cards of radios and
 * checkboxes (their label is what a finger meets; the small native box inside it is not measured).
 */
export const smallTargets = async (page: Page) => {
  await settled(page);
  return page.evaluate(() => {
    type El = {
      tagName: string;
      querySelector(s: string): unknown;
      closest(s: string): unknown;
      getBoundingClientRect(): { width: number; height: number };
      textContent: string | null;
      getAttribute(n: string): string | null;
    };
    const doc = (globalThis as unknown as { document: { querySelectorAll(s: string): El[] } }).document;
    return (
      [...doc.querySelectorAll('button, a[href], input:not([type=radio]):not([type=checkbox]), textarea, select, label')]
        .filter((el) => el.tagName !== 'LABEL' || el.querySelector('input[type=radio], input[type=checkbox]') !== null)
        // Not a target: a copy a component measures with (Mantine's autosizing textarea), hidden from everyone.
        .filter((el) => el.closest('[aria-hidden="true"]') === null)
        .map((el) => ({ el, box: el.getBoundingClientRect() }))
        .filter(({ box }) => box.width > 0 && box.height > 0 && Math.min(box.width, box.height) <= 48 - 1 / 64)
        .map(
          ({ el, box }) =>
            `${el.getAttribute('aria-label') ?? el.textContent?.trim() ?? '?'} ${box.width.toFixed(2)}×${box.height.toFixed(2)}`,
        )
    );
  });
};

/** A signature-like path across the canvas: points (x, y) in page pixels. */
async function strokeOver(canvas: Locator): Promise<{ x: number; y: number }[]> {
  await canvas.scrollIntoViewIfNeeded();
  const box = await canvas.boundingBox();
  if (!box) throw new Error('the signature canvas is not on the page');
  const points: { x: number; y: number }[] = [];
  for (let i = 0; i <= 24; i++) {
    const f = i / 24;
    points.push({ x: box.x + box.width * (0.1 + 0.8 * f), y: box.y + box.height * (0.5 + 0.3 * Math.sin(f * Math.PI * 3)) });
  }
  return points;
}

/**
 * Draws with a finger: touch events through the DevTools protocol, as a phone's screen sends them,
 * timed as a hand moves (a point every 20 ms, then held still before lifting). Sent all at once, a
 * stroke reads as a fling, and the screen swallows the next tap as the one that stops it.
 */
export async function drawWithFinger(context: BrowserContext, page: Page, canvas: Locator) {
  const cdp = await context.newCDPSession(page);
  const points = await strokeOver(canvas);
  const last = points.at(-1);
  if (!last) throw new Error('no points');
  const held = [...points, last, last, last];
  // The stroke's times end now: the events' own timestamps, in seconds.
  const start = Date.now() / 1000 - held.length * 0.02 - 0.1;
  const at = (i: number) => start + i * 0.02;
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [held[0] as { x: number; y: number }], timestamp: at(0) });
  for (let i = 1; i < held.length; i++) {
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [held[i] as { x: number; y: number }], timestamp: at(i) });
  }
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [], timestamp: at(held.length) });
  await cdp.detach();
}

/** Draws with the mouse: pressed, moved across the canvas, released. */
export async function drawWithMouse(page: Page, canvas: Locator) {
  const [first, ...rest] = await strokeOver(canvas);
  if (!first) throw new Error('no points');
  await page.mouse.move(first.x, first.y);
  await page.mouse.down();
  for (const p of rest) await page.mouse.move(p.x, p.y, { steps: 2 });
  await page.mouse.up();
}
