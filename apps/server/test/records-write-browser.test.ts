import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { deadline } from '@merma/testing';
import type { Browser, Locator, Page } from 'playwright-core';
import { beforeEach, describe, expect, it } from 'vitest';
import { addDays, expectAccessible, hasChromium, signedInPage, startBrowserSuite, TEST_RESULTS, todayIn } from './browser.js';
import { createMember, DashboardBrowser, PASSWORD } from './dashboard-client.js';
import { api, createTenant, DESTINO_DONATION, DESTINO_LANDFILL, type Tenant, type TestContext, validRecord } from './helpers.js';

/**
 * The records page's totals, the overview's figures and writing records by hand, in a real browser
 * (Debian's chromium through playwright-core, on the built dashboard), in Spanish and English at
 * 1280 and 390 px, with axe-core on every state: the count and kg of the whole filtered set under
 * the table, following the filters; each chart's figures visible without hovering (printed beside
 * the bars, and as a table); the sector comparison saying over how many days yours is averaged; a
 * record added through the form (a wrong weight and a date the server refuses answered under their
 * fields) and corrected, the list following both, the corrected record marked with a link to its
 * correction; a viewer sees no button and the server refuses the call anyway. Screenshots in test-results/.
 */
let t: TestContext;
let tenant: Tenant;
let browser: Browser;
let base: string;
startBrowserSuite((suite) => ({ t, tenant, browser, base } = suite));

const ZONE = 'Europe/Madrid'; // createTenant's zone
const today = () => todayIn(ZONE);
const LANGUAGES = ['es', 'en'] as const;
const WIDTHS = [1280, 390] as const;

const WORDS = {
  es: {
    locale: 'es-ES',
    records: 'Registros',
    overview: 'Resumen',
    byCategory: 'Por categoría de alimento',
    byCause: 'Por causa',
    table: 'Tabla',
    bakery: 'Panadería y bollería',
    fish: 'Pescado',
    dairy: 'Lácteos',
    add: 'Añadir registro',
    addTitle: 'Añadir un registro',
    addSubmit: 'Guardar registro',
    correct: 'Corregir',
    correctTitle: 'Corregir el registro',
    correctSubmit: 'Guardar corrección',
    category: 'Categoría',
    weight: 'Peso (kg)',
    destination: 'Destino',
    product: 'Producto',
    occurredAt: 'Cuándo ocurrió',
    weightInvalid: 'Escribe un número de kilos, p. ej. 1,5.',
    showCorrected: 'Mostrar también los registros corregidos',
    superseded: 'Corregido',
    correction: 'Corrección',
    seeCorrection: 'Ver la corrección',
    supersedes: 'Corrige el registro',
    record: 'Registro',
    total: (n: number, kg: string) => `${n} registros · ${kg} en total`,
    totalWithCorrected: (n: number, kg: string) => `${n} registros · ${kg} en total (con los corregidos, que no cuentan en las cifras)`,
    decimal: (text: string) => text.replace('.', ','),
    covered: 'en los últimos 56 días',
    showDetails: 'Mostrar detalles de',
  },
  en: {
    locale: 'en-GB',
    records: 'Records',
    overview: 'Overview',
    byCategory: 'By food category',
    byCause: 'By cause',
    table: 'Table',
    bakery: 'Bakery',
    fish: 'Fish',
    dairy: 'Dairy',
    add: 'Add record',
    addTitle: 'Add a record',
    addSubmit: 'Save record',
    correct: 'Correct',
    correctTitle: 'Correct the record',
    correctSubmit: 'Save correction',
    category: 'Category',
    weight: 'Weight (kg)',
    destination: 'Destination',
    product: 'Product',
    occurredAt: 'When it happened',
    weightInvalid: 'Type a number of kilograms, e.g. 1.5.',
    showCorrected: 'Also show corrected records',
    superseded: 'Corrected',
    correction: 'Correction',
    seeCorrection: 'See the correction',
    supersedes: 'Corrects record',
    record: 'Record',
    total: (n: number, kg: string) => `${n} records · ${kg} in all`,
    totalWithCorrected: (n: number, kg: string) => `${n} records · ${kg} in all (corrected ones included, which the figures do not count)`,
    decimal: (text: string) => text,
    covered: 'over the last 56 days',
    showDetails: 'Show details of',
  },
} as const;

const kgText = (language: string, kg: number, digits = 3) =>
  new Intl.NumberFormat(language, { style: 'unit', unit: 'kilogram', maximumFractionDigits: digits }).format(kg);

async function member(role: 'owner' | 'viewer') {
  const m = await createMember(t.db, tenant.organizationId, role);
  const http = new DashboardBrowser(t.app);
  await http.signIn(m.email, PASSWORD);
  return { ...m, http };
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Waits until `locator` says exactly `text` (or contains it, `partial`): the browser's own wait, no sleeping. */
const says = (locator: Locator, text: string, partial = false) =>
  locator.filter({ hasText: new RegExp(partial ? escapeRegExp(text) : `^${escapeRegExp(text)}$`) }).waitFor();

const heading = (page: Page, name: string) => page.getByRole('heading', { name, level: 1 });
const scope = () => ({ establishment_id: tenant.establishmentId, livemode: false });

/** The table's totals as the server has them now (what the line under the table must say). */
async function serverTotals(http: DashboardBrowser, filter: Record<string, unknown> = {}) {
  const page = await http.query('records.list', { ...scope(), ...filter });
  return { total: page.total as number, kg: page.total_kg as number };
}

describe.skipIf(!hasChromium)('records totals, chart figures and writing records in a browser (reason when skipped: no chromium)', () => {
  // Each test in an organisation of its own: the totals the first one checks are of its own records,
  // not of those the other one adds.
  beforeEach(async () => {
    tenant = await createTenant(t.db);
  });

  it(
    'the filtered set’s total under the table, the charts’ figures without hovering, the days the comparison covers',
    async () => {
      mkdirSync(TEST_RESULTS, { recursive: true });
      const me = await member('owner');
      const at = (days: number) => `${addDays(today(), -days)}T12:00:00+01:00`;
      // In the last 30 days: bakery 12.5 kg, fish 7.2 kg. 55 days ago, the first record: 56 days covered.
      const records = [
        validRecord({ food_category: 'bakery', weight_kg: 5.25, occurred_at: at(2), destino_id: DESTINO_DONATION }),
        validRecord({ food_category: 'bakery', weight_kg: 7.25, occurred_at: at(5), destino_id: DESTINO_LANDFILL }),
        validRecord({ food_category: 'fish', weight_kg: 3.1, occurred_at: at(3), destino_id: DESTINO_LANDFILL }),
        validRecord({ food_category: 'fish', weight_kg: 4.1, occurred_at: at(9), destino_id: DESTINO_LANDFILL }),
        validRecord({ food_category: 'others', weight_kg: 2, occurred_at: at(55) }),
      ];
      const res = await api(t.app, tenant.key).post('/api/v1/records/batch', { records });
      expect(res.statusCode, res.body).toBe(200);
      const bench = await me.http.query('analytics.benchmark', scope());
      expect(bench.result).toMatchObject({ days_covered: 56 });

      for (const language of LANGUAGES) {
        const w = WORDS[language];
        for (const width of WIDTHS) {
          const { context, page } = await signedInPage({ browser, base }, me, w.locale, width);
          const what = `${language} ${width} px`;
          try {
            await page.goto(`${base}/dashboard/records`);
            await heading(page, w.records).waitFor();
            const total = page.getByTestId('records-total');
            await says(total, w.total(4, kgText(language, 19.7)));
            expect(await serverTotals(me.http)).toEqual({ total: 4, kg: 19.7 });
            await expectAccessible(page, `records (${what})`);
            // A filter: the total follows it.
            await page.goto(`${base}/dashboard/records?category=bakery`);
            await says(total, w.total(2, kgText(language, 12.5)));
            await page.screenshot({ path: join(TEST_RESULTS, `records-total-${language}-${width}.png`), fullPage: true });

            await page.goto(`${base}/dashboard/overview`);
            await heading(page, w.overview).waitFor();
            // Each category's kg printed beside its bar: visible without hovering.
            const categories = page.getByTestId('chart-category');
            await categories.locator('svg.merma-chart').waitFor();
            await categories.getByText(kgText(language, 12.5, 1), { exact: true }).waitFor();
            await categories.getByText(kgText(language, 7.2, 1), { exact: true }).waitFor();
            // Printed in the drawing itself, not in a hover tooltip.
            expect(await categories.locator('svg.merma-chart text', { hasText: kgText(language, 12.5, 1) }).count()).toBe(1);
            // The same figures as a table, named by the chart's caption.
            await categories.getByText(w.table, { exact: true }).click();
            const table = categories.getByRole('table', { name: w.byCategory });
            await table.getByRole('row', { name: new RegExp(`${w.bakery}.*${kgText(language, 12.5).replace('.', '\\.')}`) }).waitFor();
            await table.getByRole('row', { name: new RegExp(`${w.fish}.*${kgText(language, 7.2).replace('.', '\\.')}`) }).waitFor();
            const causes = page.getByTestId('chart-cause');
            await causes.getByText(w.table, { exact: true }).click();
            await causes.getByRole('table', { name: w.byCause }).getByText(kgText(language, 19.7), { exact: true }).waitFor();
            // Yours is averaged over the 56 days since the first record, and says so.
            await says(page.getByTestId('benchmark-yours'), w.covered, true);
            await expectAccessible(page, `overview with tables (${what})`);
            await page.screenshot({ path: join(TEST_RESULTS, `overview-figures-${language}-${width}.png`), fullPage: true });
          } finally {
            await context.close();
          }
        }
      }
    },
    deadline(180_000),
  );

  it(
    'adds a record and corrects it through the form; the list follows; a viewer has no button and is refused',
    async () => {
      mkdirSync(TEST_RESULTS, { recursive: true });
      const me = await member('owner');
      const catalog = (await me.http.query('catalog.get')) as { destinations: { id: string; nombre: string }[] };
      const landfill = catalog.destinations.find((d) => d.id === DESTINO_LANDFILL)?.nombre as string;
      // Two records through the API, so that the table is not empty before the first is added by hand.
      const seeded = await api(t.app, tenant.key).post('/api/v1/records/batch', {
        records: [validRecord({ weight_kg: 1.125 }), validRecord()],
      });
      expect(seeded.json().data.inserted).toBe(2);
      let n = 0;
      for (const language of LANGUAGES) {
        const w = WORDS[language];
        for (const width of WIDTHS) {
          n += 1;
          const what = `${language} ${width} px`;
          const { context, page } = await signedInPage({ browser, base }, me, w.locale, width);
          const pageErrors: string[] = [];
          page.on('pageerror', (err) => pageErrors.push(err.message));
          try {
            await page.goto(`${base}/dashboard/records`);
            await heading(page, w.records).waitFor();
            const before = await serverTotals(me.http);
            const total = page.getByTestId('records-total');
            await says(total, w.total(before.total, kgText(language, before.kg)));

            // Add: a weight that is no number is said under its field; a date the server refuses too.
            await page.getByRole('button', { name: w.add }).click();
            const dialog = page.getByRole('dialog', { name: w.addTitle });
            await dialog.waitFor();
            await dialog.getByLabel(w.category).click();
            await page.getByRole('option', { name: w.dairy, exact: true }).click();
            await dialog.getByLabel(w.destination).click();
            await page.getByRole('option', { name: landfill, exact: true }).click();
            const weight = dialog.getByLabel(w.weight);
            await weight.fill('dos');
            const product = `Yogur ${n}`;
            await dialog.getByLabel(w.product, { exact: true }).fill(product);
            const occurred = dialog.getByLabel(w.occurredAt, { exact: true });
            await occurred.fill(`${addDays(today(), 2)}T10:00`);
            await dialog.getByRole('button', { name: w.addSubmit }).click();
            await dialog.getByText(w.weightInvalid).waitFor();
            expect(await weight.getAttribute('aria-invalid')).toBe('true');
            // 2.75 kg as the language writes it (a decimal comma in Spanish).
            const kg = 2 + n * 0.25;
            await weight.fill(w.decimal(String(kg)));
            await dialog.getByRole('button', { name: w.addSubmit }).click();
            await dialog
              .getByText(/at most 5 minutes ahead/)
              .first()
              .waitFor();
            await dialog.locator('input[type="datetime-local"][aria-invalid="true"]').waitFor();
            expect(await t.db.record.count({ where: { establishment_id: tenant.establishmentId, product_name: product } })).toBe(0);
            await expectAccessible(page, `add record with errors (${what})`);
            await page.screenshot({ path: join(TEST_RESULTS, `records-add-errors-${language}-${width}.png`), fullPage: true });
            // An hour ago, on the establishment's clock.
            const hourAgo = new Date(Date.now() - 3600_000);
            const local = new Intl.DateTimeFormat('sv-SE', { timeZone: ZONE, dateStyle: 'short', timeStyle: 'short' }).format(hourAgo);
            await occurred.fill(local.replace(' ', 'T'));
            await dialog.getByRole('button', { name: w.addSubmit }).click();
            await dialog.waitFor({ state: 'detached' });

            const stored = await t.db.record.findFirstOrThrow({
              where: { establishment_id: tenant.establishmentId, product_name: product },
            });
            expect(stored).toMatchObject({ food_category: 'dairy', destino_id: DESTINO_LANDFILL, source: 'dashboard', livemode: false });
            expect(Number(stored.weight_kg)).toBe(kg);
            expect(Math.abs(stored.occurred_at.getTime() - hourAgo.getTime())).toBeLessThan(60_000);
            const added = await serverTotals(me.http);
            expect(added).toEqual({ total: before.total + 1, kg: Math.round((before.kg + kg) * 1000) / 1000 });
            await says(total, w.total(added.total, kgText(language, added.kg)));
            const row = page.getByRole('row').filter({ hasText: product });
            await row.getByText(kgText(language, kg), { exact: true }).waitFor();

            // Correct it: the new weight replaces it in the list, the total follows, the count stays.
            await row.getByRole('button', { name: new RegExp(w.showDetails) }).click();
            await page.getByRole('button', { name: w.correct, exact: true }).click();
            const correcting = page.getByRole('dialog', { name: w.correctTitle });
            await correcting.waitFor();
            await expectAccessible(page, `correct record (${what})`);
            const fixed = kg + 1;
            await correcting.getByLabel(w.weight).fill(w.decimal(String(fixed)));
            await correcting.getByRole('button', { name: w.correctSubmit }).click();
            await correcting.waitFor({ state: 'detached' });
            // The correction's details open next, naming the record it corrects.
            const shown = page.getByRole('dialog', { name: w.record, exact: true });
            await shown.getByText(w.supersedes).waitFor();
            const correction = await t.db.record.findFirstOrThrow({ where: { supersedes_id: stored.id } });
            expect(Number(correction.weight_kg)).toBe(fixed);
            expect(correction).toMatchObject({ product_name: product, food_category: 'dairy', source: 'dashboard' });
            expect((await t.db.record.findUniqueOrThrow({ where: { id: stored.id } })).superseded_by).toBe(correction.id);
            await page.keyboard.press('Escape');
            await shown.waitFor({ state: 'detached' });
            const corrected = await serverTotals(me.http);
            expect(corrected).toEqual({ total: added.total, kg: Math.round((added.kg + 1) * 1000) / 1000 });
            await says(total, w.total(corrected.total, kgText(language, corrected.kg)));
            const rows = page.getByRole('row').filter({ hasText: product });
            await rows.getByText(kgText(language, fixed), { exact: true }).waitFor();
            await rows.getByText(w.correction, { exact: true }).waitFor();
            expect(await rows.count()).toBe(1);

            // Corrected records on request: the original, marked, links to its correction.
            // A switch the URL holds: clicked, then the page follows the URL.
            await page.getByLabel(w.showCorrected).click();
            const both = page.getByRole('row').filter({ hasText: product });
            const original = both.filter({ hasText: w.superseded });
            await original.waitFor();
            expect(await both.count()).toBe(2);
            await original.getByText(kgText(language, kg), { exact: true }).waitFor();
            const withCorrected = await serverTotals(me.http, { include_superseded: true });
            expect(withCorrected.total).toBe(corrected.total + n);
            await says(total, w.totalWithCorrected(withCorrected.total, kgText(language, withCorrected.kg)));
            await expectAccessible(page, `records with corrected ones (${what})`);
            await page.screenshot({ path: join(TEST_RESULTS, `records-corrected-${language}-${width}.png`), fullPage: true });
            await original.getByRole('link', { name: w.seeCorrection }).click();
            const linked = page.getByRole('dialog', { name: w.record, exact: true });
            await linked.getByText(correction.id, { exact: true }).first().waitFor();
            expect(page.url()).toContain(`record=${correction.id}`);
            expect(pageErrors).toEqual([]);
          } finally {
            await context.close();
          }
        }
      }
      // The chain is intact after every correction.
      const verify = await api(t.app, tenant.key).get('/api/v1/records/verify', { query: { full: 'true' } });
      expect(verify.json().data).toMatchObject({ valid: true });

      // A viewer: no button, and the call the button would make is refused by the server.
      const viewer = await member('viewer');
      const w = WORDS.en;
      const { context, page } = await signedInPage({ browser, base }, viewer, w.locale, 1280);
      try {
        await page.goto(`${base}/dashboard/records`);
        await heading(page, w.records).waitFor();
        await page.getByTestId('records-total').waitFor();
        expect(await page.getByRole('button', { name: w.add }).count()).toBe(0);
        const count = await t.db.record.count({ where: { establishment_id: tenant.establishmentId } });
        const status = await page.evaluate(
          async (input) => {
            // Typed without the DOM's globals (the server's tests have none).
            const { cookie } = (globalThis as unknown as { document: { cookie: string } }).document;
            const csrf = cookie
              .split(';')
              .map((c: string) => c.trim().split('='))
              .find(([name]: string[]) => name === 'merma_csrf' || name === '__Host-merma_csrf')?.[1];
            const res = await fetch('/trpc/records.create', {
              method: 'POST',
              headers: { 'content-type': 'application/json', 'x-csrf-token': decodeURIComponent(csrf ?? '') },
              body: JSON.stringify(input),
            });
            return res.status;
          },
          { ...scope(), ...validRecord() },
        );
        expect(status).toBe(403);
        expect(await t.db.record.count({ where: { establishment_id: tenant.establishmentId } })).toBe(count);
        await expectAccessible(page, 'records as a viewer');
      } finally {
        await context.close();
      }
    },
    deadline(300_000),
  );
});
