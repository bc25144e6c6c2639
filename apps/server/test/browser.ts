import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { deadline } from '@merma/testing';
import type { FastifyInstance } from 'fastify';
import { type Browser, type BrowserContext, type BrowserContextOptions, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, inject } from 'vitest';
import type { DashboardBrowser } from './dashboard-client.js';
import { createTenant, startTestApp, type Tenant, type TestContext } from './helpers.js';

/**
 * What the browser tests share: Debian's chromium (CHROMIUM_PATH to use another), driven by
 * playwright-core; the built dashboard; where screenshots go; and the axe-core check. Without
 * chromium the browser tests are skipped, except in CI, which must have it.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);
if (!hasChromium && process.env.CI) throw new Error(`chromium not found at ${CHROMIUM}; CI must install it`);

/**
 * The built dashboard (turbo builds it before the server's tests), as copied before any test ran
 * (test/global-setup.ts: a build during the run must not pull a page from under a browser test).
 */
export const DASHBOARD_DIST = inject('dashboardDist') ?? resolve(import.meta.dirname, '../../dashboard/dist');
export function requireBuiltDashboard() {
  if (hasChromium && !existsSync(join(DASHBOARD_DIST, 'index.html'))) {
    throw new Error(`build the dashboard first (pnpm build): ${DASHBOARD_DIST} is missing`);
  }
}

/** Screenshots and figures the browser tests write. */
/** Today in `zone` (YYYY-MM-DD), as the dashboard and the API count days. */
export const todayIn = (zone: string) =>
  new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());

/** `date` (YYYY-MM-DD) moved by `days` calendar days. */
export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T12:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

export const TEST_RESULTS = resolve(import.meta.dirname, '../test-results');

/** Serves the app on a loopback port for a browser; its base URL (`http://127.0.0.1:<port>`). */
async function listenForBrowser(app: FastifyInstance): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
}

/**
 * A test app serving the built dashboard on a loopback port (`config` added to its settings), and
 * chromium: what a dashboard browser test starts in beforeAll and `close`s in afterAll.
 */
export function startServedDashboard(config: Record<string, string> = {}) {
  return startServedApp({ DASHBOARD_DIR: DASHBOARD_DIST, ...config });
}

/** A test app on a loopback port (`config` added to its settings), and chromium; `close` ends both. */
export async function startServedApp(config: Record<string, string> = {}) {
  const t: TestContext = await startTestApp({ config });
  const base = await listenForBrowser(t.app);
  const browser = await launchChromium();
  return {
    t,
    base,
    browser,
    async close() {
      await browser.close();
      await t.close();
    },
  };
}

/** What a browser test file works with once its beforeAll ran. */
export type BrowserSuite = { t: TestContext; base: string; browser: Browser; tenant: Tenant };

/**
 * A browser test file's setup: registers its beforeAll, which starts a test app on a loopback port
 * serving the built dashboard (only the app with `dashboard: false`; `config` added to its
 * settings), chromium and a tenant, and hands them to `ready`; and its afterAll, which closes them.
 * Without chromium nothing starts (the file's tests are skipped).
 */
export function startBrowserSuite(
  ready: (suite: BrowserSuite) => void,
  { config = {}, dashboard = true }: { config?: Record<string, string>; dashboard?: boolean } = {},
) {
  if (dashboard) requireBuiltDashboard();
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    if (!hasChromium) return;
    const served = dashboard ? await startServedDashboard(config) : await startServedApp(config);
    close = served.close;
    ready({ t: served.t, base: served.base, browser: served.browser, tenant: await createTenant(served.t.db) });
  });
  afterAll(async () => {
    await close?.();
  });
}

/**
 * A page signed in as `who` (the session cookies of a sign-in over HTTP, handed to a new context),
 * in `locale` and `width` px. bypassCSP only lets axe-core be injected: the page's own CSP allows no
 * inline script. Its `goto` and `reload` resolve once the app has replaced the page's first frame
 * (`appRendered`): the frame shows the page's title and navigation before the app runs, and a test
 * that went on at the title could find, measure or press the frame's copy of them.
 */
export async function signedInPage(
  { browser, base }: { browser: Browser; base: string },
  who: { http: DashboardBrowser },
  locale: string,
  width = 1280,
  /** More of the browser's settings, e.g. `timezoneId` for a browser in another zone than the establishment's. */
  options: Pick<BrowserContextOptions, 'timezoneId'> = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ locale, viewport: { width, height: 900 }, bypassCSP: true, ...options });
  await context.addCookies(
    [...who.http.cookies].map(([name, value]) => ({
      name,
      value,
      url: base,
      httpOnly: name === 'merma_session',
      sameSite: 'Strict' as const,
    })),
  );
  const page = await context.newPage();
  const goto = page.goto.bind(page);
  const reload = page.reload.bind(page);
  page.goto = async (...args) => {
    const response = await goto(...args);
    await appRendered(page);
    return response;
  };
  page.reload = async (...args) => {
    const response = await reload(...args);
    await appRendered(page);
    return response;
  };
  return { context, page };
}

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * What the browser did lately — each answer's status, method and path, refused requests, console
 * errors and uncaught page errors, timed — printed under a failed test, so that a wait that ran
 * out says whether the page asked, what it was answered, or what it threw.
 */
const trail: string[] = [];
const TRAIL_LINES = 80;
function note(line: string) {
  trail.push(`${new Date().toISOString().slice(11, 23)} ${line}`);
  if (trail.length > TRAIL_LINES) trail.shift();
}
const pathOf = (url: string) => {
  const u = new URL(url);
  return u.protocol.startsWith('http') ? `${u.pathname}${u.search}` : url.slice(0, 80);
};
afterEach((ctx) => {
  if (ctx.task.result?.state === 'fail' && trail.length > 0) {
    console.error(`The browser's last ${trail.length} events before "${ctx.task.name}" failed:\n  ${trail.join('\n  ')}`);
  }
  trail.length = 0;
});

/**
 * Every context's waits (Playwright's own default is 30 s, whatever the machine) on the suite's one
 * scale of deadlines — shorter than a test's own, so that a wait that runs out names its locator —
 * and its events in the trail above.
 */
function watched(context: BrowserContext): BrowserContext {
  context.setDefaultTimeout(deadline(15_000));
  context.setDefaultNavigationTimeout(deadline(15_000));
  context.on('response', (r) => {
    // The built dashboard's files, served whole, say nothing; every other answer is noted.
    if (!(r.ok() && r.url().includes('/dashboard/assets/'))) note(`${r.status()} ${r.request().method()} ${pathOf(r.url())}`);
  });
  context.on('requestfailed', (r) => note(`failed ${r.method()} ${pathOf(r.url())}: ${r.failure()?.errorText ?? '?'}`));
  context.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') note(`console.${m.type()} ${m.text().slice(0, 300)}`);
  });
  context.on('weberror', (e) => note(`page error ${e.error().message.slice(0, 300)}`));
  return context;
}

export async function launchChromium(): Promise<Browser> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  // browser.newPage() makes its context through newContext too.
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (options?: BrowserContextOptions) => watched(await newContext(options));
  return browser;
}

/**
 * Chromium with a profile on disk (in `dir`), as a person's browser is: what only a real profile
 * allows (installing a web app: an incognito context never may) is judged as it would be there.
 */
export function launchPersistentChromium(dir: string, options: Pick<BrowserContextOptions, 'viewport' | 'locale'> = {}) {
  return chromium.launchPersistentContext(dir, { executablePath: CHROMIUM, args: CHROMIUM_ARGS, ...options }).then(watched);
}

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * Waits until no transition or finite animation runs on the page (a dialog fading in or out, a
 * notification sliding in), checking again after two frames in case one was about to start; at most
 * `timeoutMs`. Endless animations (a loader) are not waited for.
 */
export async function settled(page: Page, timeoutMs = deadline(5_000)): Promise<void> {
  await page.evaluate(async (timeout) => {
    // The page's own globals (this project's TypeScript has no DOM library).
    type Animation = {
      playState: string;
      finished: Promise<unknown>;
      effect: { getComputedTiming(): { endTime?: number | string } } | null;
    };
    const page = globalThis as unknown as { requestAnimationFrame(f: () => void): number; document: { getAnimations(): Animation[] } };
    const deadline = performance.now() + timeout;
    const frame = () => new Promise<void>((resolve) => page.requestAnimationFrame(() => resolve()));
    while (performance.now() < deadline) {
      await frame();
      await frame();
      const moving = page.document
        .getAnimations()
        .filter((a) => a.playState === 'running' && Number.isFinite(Number(a.effect?.getComputedTiming().endTime ?? 0)));
      if (moving.length === 0) return;
      const left = Math.max(0, deadline - performance.now());
      await Promise.race([Promise.all(moving.map((a) => a.finished.catch(() => undefined))), new Promise((r) => setTimeout(r, left))]);
    }
  }, timeoutMs);
}

/**
 * axe-core's serious and critical findings on the page once it has settled (see `settled`): a dialog
 * half faded out has text of too little contrast for a moment, which is not what a person reads. The
 * page's context must be created with `bypassCSP: true` (only so that axe can be injected: the app
 * allows no inline script).
 */
export async function accessibilityProblems(page: Page): Promise<string[]> {
  await settled(page);
  await page.addScriptTag({ content: AXE });
  return page.evaluate(async () => {
    type Violation = { id: string; impact: string; nodes: { target: unknown }[] };
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: Violation[] }> } }).axe;
    const { violations } = await axe.run();
    return violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`);
  });
}

export async function expectAccessible(page: Page, what: string) {
  await appRendered(page);
  expect(await accessibilityProblems(page), what).toEqual([]);
}

/**
 * Resolves once the app has replaced the page's first frame, the HTML the server sent with it
 * (apps/dashboard/scripts/prerender.tsx), which shows the page's title before the app runs: a test
 * that waits for a title may otherwise go on while the frame is still there.
 */
export async function appRendered(page: Page) {
  await page.locator('[data-first-frame]').waitFor({ state: 'detached' });
}
