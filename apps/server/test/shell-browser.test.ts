import { deadline } from '@merma/testing';
import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { appRendered, expectAccessible, hasChromium, signedInPage, startBrowserSuite } from './browser.js';
import { createMember, DashboardBrowser, PASSWORD } from './dashboard-client.js';
import { createTenant, type Tenant, type TestContext } from './helpers.js';

/**
 * The dashboard's frame in a real browser (Debian's chromium through playwright-core, on the built
 * dashboard), in Spanish and English, at 1280 and 390 px: the sign-in page without console errors
 * (`accounts.me` answers null, not 401, without a session); the header fitting a phone, with signing
 * out in the navigation drawer; every page accessible (axe-core, scrollable tables included) and
 * titled after itself; the forecast's empty state; times on the establishment's clock with its
 * zone named whatever the browser's zone, written the en-GB way for an en-GB browser; the live
 * mode's first-record example with the live key prefix and this server's public URL; notifications
 * away from the header.
 */
let t: TestContext;
let tenant: Tenant;
let browser: Browser;
let base: string;
const PUBLIC_URL = 'https://merma.example.com';
startBrowserSuite((suite) => ({ t, tenant, browser, base } = suite), { config: { PUBLIC_URL } });

const WORDS = {
  es: {
    signIn: 'Iniciar sesión',
    openNavigation: 'Abrir la navegación',
    signOut: 'Cerrar sesión',
    accountMenu: /Menú de la cuenta/,
    forecastEmpty: 'Aún no hay previsión',
    pages: [
      ['overview', 'Resumen'],
      ['records', 'Registros'],
      ['forecast', 'Previsión'],
      ['plan', 'Plan de prevención'],
      ['shifts', 'Turnos y sesiones'],
      ['keys', 'Claves de API'],
      ['integrations', 'Integraciones'],
      ['team', 'Equipo'],
      ['audit', 'Registro de actividad'],
    ],
  },
  en: {
    signIn: 'Sign in',
    openNavigation: 'Open navigation',
    signOut: 'Sign out',
    accountMenu: /Account menu/,
    forecastEmpty: 'No forecast yet',
    pages: [
      ['overview', 'Overview'],
      ['records', 'Records'],
      ['forecast', 'Forecast'],
      ['plan', 'Prevention plan'],
      ['shifts', 'Shifts and sessions'],
      ['keys', 'API keys'],
      ['integrations', 'Integrations'],
      ['team', 'Team'],
      ['audit', 'Audit log'],
    ],
  },
} as const;
const LOCALES = { es: 'es-ES', en: 'en-GB' } as const;
/** In the page: the paragraphs and code blocks of <main> that reach past the window, unless inside a scrolling region. */
function textCutAtTheEdge(): string[] {
  type El = { textContent: string | null; parentElement: El | null; getBoundingClientRect(): { right: number } };
  const w = globalThis as unknown as {
    innerWidth: number;
    document: { querySelectorAll(s: string): Iterable<El> };
    getComputedStyle(e: El): { overflowX: string };
  };
  const scrolls = (e: El) => {
    for (let a = e.parentElement; a; a = a.parentElement) if (/auto|scroll/.test(w.getComputedStyle(a).overflowX)) return true;
    return false;
  };
  return [...w.document.querySelectorAll('main p, main pre')]
    .filter((e) => e.getBoundingClientRect().right > w.innerWidth + 1 && !scrolls(e))
    .map((e) => (e.textContent ?? '').slice(0, 60));
}

const CASES = (['es', 'en'] as const).flatMap((language) => [1280, 390].map((width) => ({ language, width })));

const heading = (page: Page, name: string) => page.getByRole('heading', { name, level: 1 });

/** Console errors and uncaught exceptions of a page, and the statuses `accounts.me` answered. */
function watch(page: Page) {
  const errors: string[] = [];
  const me: number[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('response', (response) => {
    if (new URL(response.url()).pathname.includes('accounts.me')) me.push(response.status());
  });
  return { errors, me };
}

/** An owner of a fresh organisation (no records), signed in over HTTP. */
async function owner(org: Tenant = tenant) {
  const member = await createMember(t.db, org.organizationId, 'owner');
  const http = new DashboardBrowser(t.app);
  await http.signIn(member.email, PASSWORD);
  return { ...member, http };
}

describe.skipIf(!hasChromium)('the dashboard shell in a browser (reason when skipped: no chromium on this machine)', () => {
  it.each(CASES)(
    '$language, $width px: the sign-in page logs no error, asks the API nothing, is titled and accessible',
    async ({ language, width }) => {
      const words = WORDS[language];
      const context = await browser.newContext({ locale: LOCALES[language], viewport: { width, height: 900 }, bypassCSP: true });
      const page = await context.newPage();
      const seen = watch(page);
      try {
        // The app's address, without a session: the server sends the sign-in page (apps/dashboard/
        // sign-in.html), which moves to its own address without asking who is signed in (no cookie,
        // nobody). A session that ends inside the app is sign-in-browser.test.ts's.
        await page.goto(`${base}/dashboard/`);
        await page.waitForURL((url) => url.pathname === '/dashboard/sign-in');
        await appRendered(page);
        await heading(page, words.signIn).waitFor();
        expect(seen.me).toEqual([]);
        await page.reload();
        await heading(page, words.signIn).waitFor();
        expect(await page.title()).toBe(`${words.signIn} · Merma`);
        await expectAccessible(page, `sign-in (${language}, ${width} px)`);
        expect(seen.errors).toEqual([]);
      } finally {
        await context.close();
      }
    },
    60_000,
  );

  it.each(['es', 'en'] as const)(
    '%s, 390 px: the header fits the phone; signing out is in the navigation drawer',
    async (language) => {
      const words = WORDS[language];
      const who = await owner();
      const { context, page } = await signedInPage({ browser, base }, who, LOCALES[language], 390);
      const seen = watch(page);
      try {
        await page.goto(`${base}/dashboard/overview`);
        // The header measured and its menu button pressed are the app's, not the first frame's.
        await appRendered(page);
        await heading(page, words.pages[0][1]).waitFor();
        const widths = await page.evaluate(() => {
          type Sized = { scrollWidth: number };
          const doc = (globalThis as unknown as { document: { querySelector(s: string): Sized | null; documentElement: Sized } }).document;
          return { header: doc.querySelector('header')?.scrollWidth, page: doc.documentElement.scrollWidth };
        });
        expect(widths).toEqual({ header: 390, page: 390 });
        // No sliver of an account menu in the header: it is in the drawer.
        expect(await page.getByRole('banner').getByRole('button', { name: words.accountMenu }).count()).toBe(0);
        await page.getByRole('button', { name: words.openNavigation }).click();
        const signOut = page.getByRole('navigation').getByRole('button', { name: words.signOut, exact: true });
        await signOut.click({ trial: true }); // on screen, still (the drawer has slid in) and not covered
        const box = await signOut.boundingBox();
        expect(box && box.x >= 0 && box.x + box.width <= 390 && box.width > 100).toBe(true);
        await page.getByText(who.email, { exact: true }).waitFor();
        await expectAccessible(page, `navigation drawer (${language}, 390 px)`);
        await signOut.click();
        await heading(page, words.signIn).waitFor();
        expect(await t.db.userSession.count({ where: { user_id: who.id } })).toBe(0);
        expect(seen.errors).toEqual([]);
      } finally {
        await context.close();
      }
    },
    60_000,
  );

  it.each(CASES)(
    '$language, $width px: every page is accessible (scrolling tables included) and titled after itself',
    async ({ language, width }) => {
      const words = WORDS[language];
      // An organisation without records: the landing page shows how to send the first one.
      const org = await createTenant(t.db);
      const who = await owner(org);
      const { context, page } = await signedInPage({ browser, base }, who, LOCALES[language], width);
      const seen = watch(page);
      try {
        for (const [path, title] of words.pages) {
          await page.goto(`${base}/dashboard/${path}`);
          await heading(page, title).waitFor();
          await expect.poll(() => page.locator('main .mantine-Loader').count()).toBe(0); // nothing left loading
          await expect.poll(() => page.title()).toBe(`${title} · Merma`);
          if (path === 'forecast') {
            // No record yet: an empty state, not a chart of 0 kg.
            await page.getByText(words.forecastEmpty).waitFor();
            expect(await page.locator('svg.merma-chart').count()).toBe(0);
            expect(await page.getByRole('table').count()).toBe(0);
          }
          // Wide tables scroll inside their region; the page itself never scrolls sideways.
          expect(
            await page.evaluate(
              () =>
                (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth,
            ),
            path,
          ).toBe(width);
          // Nor is any text cut at the screen's edge (outside the regions that scroll).
          expect(await page.evaluate(textCutAtTheEdge), path).toEqual([]);
          await page.mouse.move(0, 0);
          await expectAccessible(page, `${path} (${language}, ${width} px)`);
        }
        expect(seen.errors).toEqual([]);
      } finally {
        await context.close();
      }
    },
    120_000,
  );

  it(
    "en-GB, a browser in New York: times are on the establishment's clock (Madrid), with its zone named, day before month",
    async () => {
      const who = await owner();
      const key = (await who.http.mutate('keys.create', {
        establishment_id: tenant.establishmentId,
        name: 'Zoned',
        mode: 'test',
        permissions: ['*'],
      })) as { id: string };
      const stored = await t.db.apiKey.findUniqueOrThrow({ where: { id: key.id } });
      const { context, page } = await signedInPage({ browser, base }, who, 'en-GB', 1280, { timezoneId: 'America/New_York' });
      try {
        expect(await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone)).toBe('America/New_York');
        const madrid = (at: Date) =>
          new Intl.DateTimeFormat('en-GB', {
            day: 'numeric',
            month: 'short',
            year: 'numeric',
            hour: '2-digit',
            minute: '2-digit',
            timeZoneName: 'short',
            timeZone: 'Europe/Madrid',
          }).format(at);
        const expected = madrid(stored.created_at);
        expect(expected).toMatch(/^\d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2} CES?T$/);

        await page.goto(`${base}/dashboard/keys`);
        await heading(page, 'API keys').waitFor();
        const row = page.getByRole('row').filter({ has: page.getByRole('cell', { name: 'Zoned', exact: true }) });
        await row.getByRole('cell', { name: expected, exact: true }).waitFor();

        // The audit log too: the key's creation, at the same minute on the same clock.
        await page.goto(`${base}/dashboard/audit`);
        await heading(page, 'Audit log').waitFor();
        const created = await t.db.auditEvent.findFirstOrThrow({
          where: { organization_id: tenant.organizationId, action: 'api_key.created' },
          orderBy: { created_at: 'desc' },
        });
        await page
          .getByRole('cell', { name: madrid(created.created_at), exact: true })
          .first()
          .waitFor();
        await expectAccessible(page, 'audit log, en-GB in New York');
      } finally {
        await context.close();
      }
    },
    deadline(60_000),
  );

  it.each([
    { language: 'es', width: 390 },
    { language: 'en', width: 1280 },
  ] as const)(
    '$language, $width px: in live mode the first-record example has a live key prefix and this server’s address',
    async ({ language, width }) => {
      const org = await createTenant(t.db);
      const who = await owner(org);
      const { context, page } = await signedInPage({ browser, base }, who, LOCALES[language], width);
      try {
        await page.goto(`${base}/dashboard/overview?mode=live`);
        await heading(page, WORDS[language].pages[0][1]).waitFor();
        const example = page.locator('pre').filter({ hasText: 'curl' });
        await example.waitFor();
        const text = await example.textContent();
        expect(text).toContain(`curl -X POST ${PUBLIC_URL}/api/v1/records`);
        expect(text).toContain('Bearer svc_live_…');
        expect(text).not.toContain('svc_test_');
        await page.goto(`${base}/dashboard/overview?mode=test`);
        await page.locator('pre').filter({ hasText: 'Bearer svc_test_…' }).waitFor();
        await expectAccessible(page, `overview empty state (${language}, ${width} px)`);
      } finally {
        await context.close();
      }
    },
    60_000,
  );

  it.each([1280, 390])(
    'en, %s px: a notification shows at the bottom right, clear of the header and its test-mode switch',
    async (width) => {
      const who = await owner();
      await who.http.mutate('keys.create', {
        establishment_id: tenant.establishmentId,
        name: `Toast ${width}`,
        mode: 'test',
        permissions: ['*'],
      });
      const { context, page } = await signedInPage({ browser, base }, who, 'en-GB', width);
      try {
        await page.goto(`${base}/dashboard/keys`);
        await heading(page, 'API keys').waitFor();
        await page.getByRole('button', { name: `Revoke key Toast ${width}` }).click();
        const dialog = page.getByRole('dialog');
        await dialog.getByRole('button', { name: 'Revoke', exact: true }).click();
        const toast = page.getByText(`The key “Toast ${width}” was revoked.`);
        await toast.waitFor();
        const [toastBox, switchBox, header] = await Promise.all([
          toast.boundingBox(),
          page.getByRole('switch', { name: 'Test mode' }).boundingBox(),
          page.getByRole('banner').first().boundingBox(), // the app's header (a dialog has one too)
        ]);
        if (!toastBox || !switchBox || !header) throw new Error('not on screen');
        expect(toastBox.y).toBeGreaterThan(header.y + header.height);
        expect(toastBox.y + toastBox.height).toBeGreaterThan(900 / 2);
        expect(toastBox.x + toastBox.width).toBeGreaterThan(width / 2);
        // axe runs once the confirmation has gone, not while it fades out.
        await dialog.waitFor({ state: 'detached' });
        await expectAccessible(page, `keys with a notification (${width} px)`);
      } finally {
        await context.close();
      }
    },
    60_000,
  );
});
