import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { PeriodComparison } from '@merma/schema/dashboard';
import { deadline } from '@merma/testing';
import type { Browser, Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { addDays, expectAccessible, hasChromium, signedInPage, startBrowserSuite, TEST_RESULTS, todayIn } from './browser.js';
import { createMember, DashboardBrowser, PASSWORD } from './dashboard-client.js';
import { api, type Tenant, type TestContext, validRecord } from './helpers.js';

/**
 * The records filters' dates typed as a person types them, in a real browser (Debian's chromium
 * through playwright-core, on the built dashboard): a year half typed (`2` makes `0002-…`) or emptied, a
 * "From" after "To" and a date typed by hand in the URL stay in the form with an inline message,
 * and nothing is sent for them (no `/trpc` request carries them, the URL keeps none); a finished
 * date is applied. And the overview's comparison badges show their whole figure at 1280, 1024 and
 * 390 px. In Spanish and English, with axe-core on both pages; screenshots in test-results/.
 */
let t: TestContext;
let tenant: Tenant;
let browser: Browser;
let base: string;
startBrowserSuite((suite) => ({ t, tenant, browser, base } = suite));

const ZONE = 'Europe/Madrid'; // createTenant's zone
const today = () => todayIn(ZONE);

async function owner() {
  const member = await createMember(t.db, tenant.organizationId, 'owner');
  const http = new DashboardBrowser(t.app);
  await http.signIn(member.email, PASSWORD);
  return { ...member, http };
}

const WORDS = {
  es: {
    locale: 'es-ES',
    records: 'Registros',
    overview: 'Resumen',
    filters: 'Filtrar registros',
    from: 'Desde',
    to: 'Hasta',
    tooEarly: 'El año debe ser 1900 o posterior.',
    incomplete: 'Completa una fecha que exista para aplicarla.',
    fromAfterTo: '«Desde» es posterior a «Hasta»: no se aplica.',
    periods: { today: 'Desperdiciado hoy', week: 'Esta semana', month: 'Este mes' },
  },
  en: {
    locale: 'en-GB',
    records: 'Records',
    overview: 'Overview',
    filters: 'Filter records',
    from: 'From',
    to: 'To',
    tooEarly: 'The year must be 1900 or later.',
    incomplete: 'Finish a date that exists to apply it.',
    fromAfterTo: '“From” is after “To”; not applied.',
    periods: { today: 'Wasted today', week: 'This week', month: 'This month' },
  },
} as const;

/** Every `/trpc` request the page makes, its URL decoded (a query's input is in it) plus any body. */
function watchTrpc(page: Page) {
  const sent: string[] = [];
  page.on('request', (req) => {
    if (req.url().includes('/trpc/')) sent.push(decodeURIComponent(req.url()) + (req.postData() ?? ''));
  });
  return sent;
}

/**
 * Types `digits` into the year of a date field as a person does: a click on the field's first
 * segment (headless chromium shows mm/dd/yyyy whatever the locale), two arrows to the right to
 * the year, and the keys one by one.
 */
async function typeYear(field: Locator, digits: string) {
  const box = await field.boundingBox();
  if (!box) throw new Error('the date field is not shown');
  await field.click({ position: { x: 18, y: box.height / 2 } });
  await typeOn(field, ['ArrowRight', 'ArrowRight', ...digits]);
}

/**
 * Keys pressed on the focused field, one after the other as from a keyboard (`locator.press` would
 * focus the field again before each key, which restarts the segment: `2`, `0` would not make `0020`).
 */
async function typeOn(field: Locator, keys: Iterable<string>) {
  for (const key of keys) await field.page().keyboard.press(key, { delay: 20 });
}

const heading = (page: Page, name: string) => page.getByRole('heading', { name, level: 1 });

describe.skipIf(!hasChromium)('records filters and overview badges in a browser (reason when skipped: no chromium on this machine)', () => {
  it(
    'a half-typed year, a From after To and a bad URL stay in the form with a message and are never sent; a finished date applies',
    async () => {
      mkdirSync(TEST_RESULTS, { recursive: true });
      const me = await owner();
      const w = WORDS.es;
      const { context, page } = await signedInPage({ browser, base }, me, w.locale, 1280);
      const pageErrors: string[] = [];
      page.on('pageerror', (err) => pageErrors.push(err.message));
      const sent = watchTrpc(page);
      try {
        await page.goto(`${base}/dashboard/records`);
        await heading(page, w.records).waitFor();
        const form = page.getByRole('search', { name: w.filters });
        const from = form.getByLabel(w.from, { exact: true });
        const to = form.getByLabel(w.to, { exact: true });
        expect(await to.inputValue()).toBe(today());
        expect(await from.inputValue()).toBe(addDays(today(), -29));

        // "2" in the year of "Hasta": the field holds 0002-…, says why, and nothing goes anywhere.
        await typeYear(to, '2');
        await expect.poll(() => to.inputValue()).toBe(`0002-${today().slice(5)}`);
        // The page and its filters are still there, with the message beside the field.
        await heading(page, w.records).waitFor({ timeout: deadline(5000) });
        await form.waitFor({ timeout: deadline(5000) });
        await form.getByText(w.tooEarly).waitFor();
        expect(await to.getAttribute('aria-invalid')).toBe('true');
        expect(page.url()).not.toContain('0002');
        // The year emptied: half a date, said so, not sent.
        await typeOn(to, ['Backspace']);
        await form.getByText(w.incomplete).waitFor();
        expect(await to.inputValue()).toBe('');
        // The whole year typed: 0002, 0020, 0202 are not sent either; 2025 is.
        await typeOn(to, '2025');
        const typed = `2025-${today().slice(5)}`;
        await expect.poll(() => new URL(page.url()).searchParams.get('to')).toBe(typed);
        await form.getByText(w.tooEarly).waitFor({ state: 'detached' });
        expect(await to.getAttribute('aria-invalid')).not.toBe('true');
        // "Desde" is then the 30 days up to "Hasta", and the list was asked for that range.
        await expect.poll(() => from.inputValue()).toBe(addDays(typed, -29));
        await expect.poll(() => sent.some((s) => s.includes('records.list') && s.includes(`"to":"${typed}"`))).toBe(true);
        await page.getByTestId('records-count').filter({ hasText: 'Ningún registro' }).waitFor();
        for (const bad of ['0002-', '0020-', '0202-'])
          expect(
            sent.filter((s) => s.includes(bad)),
            bad,
          ).toEqual([]);

        // "Desde" typed after "Hasta": an inline message, the URL and the requests unchanged.
        const after = `2026-${addDays(typed, -29).slice(5)}`;
        await typeYear(from, '2026');
        await form.getByText(w.fromAfterTo).waitFor();
        expect(await from.inputValue()).toBe(after);
        expect(await from.getAttribute('aria-invalid')).toBe('true');
        expect(new URL(page.url()).searchParams.get('from')).toBeNull();
        expect(sent.filter((s) => s.includes(`"from":"${after}","to":"${typed}"`))).toEqual([]);
        await expectAccessible(page, 'records, From after To (es)');
        await page.screenshot({ path: join(TEST_RESULTS, 'records-filters-range-es-1280.png') });
        // "Hasta" put after it again: both are applied.
        await typeYear(to, '2026');
        await expect.poll(() => Object.fromEntries(new URL(page.url()).searchParams)).toMatchObject({ from: after, to: today() });
        await form.getByText(w.fromAfterTo).waitFor({ state: 'detached' });
        await expect.poll(() => sent.some((s) => s.includes(`"from":"${after}"`) && s.includes(`"to":"${today()}"`))).toBe(true);
        expect(pageErrors).toEqual([]);
      } finally {
        await context.close();
      }
    },
    deadline(90_000),
  );

  for (const language of ['es', 'en'] as const) {
    it(
      `a bad date typed in the URL shows the filters with the message, not an error page, and is not sent (${language})`,
      async () => {
        const me = await owner();
        const w = WORDS[language];
        for (const width of [1280, 390]) {
          const { context, page } = await signedInPage({ browser, base }, me, w.locale, width);
          const pageErrors: string[] = [];
          page.on('pageerror', (err) => pageErrors.push(err.message));
          const sent = watchTrpc(page);
          try {
            await page.goto(`${base}/dashboard/records?to=0002-11-25`);
            await heading(page, w.records).waitFor();
            const form = page.getByRole('search', { name: w.filters });
            await form.getByText(w.tooEarly).waitFor();
            const to = form.getByLabel(w.to, { exact: true });
            expect(await to.inputValue()).toBe('0002-11-25');
            expect(await to.getAttribute('aria-invalid')).toBe('true');
            await page.getByTestId('records-count').waitFor();
            expect(sent.filter((s) => s.includes('0002-11-25'))).toEqual([]);
            await expectAccessible(page, `records with a bad URL (${language}, ${width} px)`);
            await page.screenshot({ path: join(TEST_RESULTS, `records-filters-url-${language}-${width}.png`), fullPage: true });

            // A range the wrong way round in the URL: the message, and that range not asked for.
            const reversed = { from: today(), to: addDays(today(), -3) };
            await page.goto(`${base}/dashboard/records?from=${reversed.from}&to=${reversed.to}`);
            await heading(page, w.records).waitFor();
            await form.getByText(w.fromAfterTo).waitFor();
            await page.getByTestId('records-count').waitFor();
            expect(sent.filter((s) => s.includes(`"from":"${reversed.from}","to":"${reversed.to}"`))).toEqual([]);
            expect(pageErrors).toEqual([]);
          } finally {
            await context.close();
          }
        }
      },
      deadline(90_000),
    );
  }

  it(
    'the overview comparison badges show their whole figure at 1280, 1024 and 390 px, in Spanish and English',
    async () => {
      mkdirSync(TEST_RESULTS, { recursive: true });
      const me = await owner();
      // Today, yesterday, a week ago and the first of last month: every period has a stretch before.
      const day = today();
      const at = (date: string) => `${date}T10:00:00+01:00`;
      const monthStart = `${day.slice(0, 7)}-01`;
      const lastMonthStart = `${addDays(monthStart, -1).slice(0, 7)}-01`;
      const records = [
        validRecord({ weight_kg: 1.345, occurred_at: new Date(Date.now() - 60_000).toISOString() }),
        validRecord({ weight_kg: 1, occurred_at: at(addDays(day, -1)) }),
        validRecord({ weight_kg: 1.5, occurred_at: at(addDays(day, -7)) }),
        validRecord({ weight_kg: 3.5, occurred_at: at(lastMonthStart) }),
      ];
      const res = await api(t.app, tenant.key).post('/api/v1/records/batch', { records });
      expect(res.statusCode, res.body).toBe(200);
      const periods = (await me.http.query('analytics.periods', {
        establishment_id: tenant.establishmentId,
        livemode: false,
      })) as PeriodComparison[];
      expect(periods.every((p) => p.previous_kg > 0)).toBe(true);

      for (const language of ['es', 'en'] as const) {
        const w = WORDS[language];
        const percent = new Intl.NumberFormat(language, { style: 'percent', maximumFractionDigits: 1 });
        for (const width of [1280, 1024, 390]) {
          const { context, page } = await signedInPage({ browser, base }, me, w.locale, width);
          try {
            await page.goto(`${base}/dashboard/overview`);
            await heading(page, w.overview).waitFor();
            for (const p of periods) {
              const badge = page.getByRole('region', { name: w.periods[p.period] }).locator('.mantine-Badge-root');
              const figure = percent.format(Math.abs((p.kg - p.previous_kg) / p.previous_kg));
              expect(await badge.textContent(), `${p.period} ${language} ${width}`).toContain(figure);
              // Neither the badge nor its label cut the text (no ellipsis, nothing hidden).
              const cut = await badge.evaluate((root) =>
                [root, ...root.querySelectorAll('.mantine-Badge-label')].map((el) => el.scrollWidth - el.clientWidth),
              );
              expect(cut, `${p.period} ${language} ${width}: px cut`).toEqual(cut.map(() => 0));
            }
            if (width !== 1024) {
              await expectAccessible(page, `overview (${language}, ${width} px)`);
              await page.screenshot({ path: join(TEST_RESULTS, `overview-badges-${language}-${width}.png`), fullPage: true });
            }
          } finally {
            await context.close();
          }
        }
      }
    },
    deadline(120_000),
  );
});
