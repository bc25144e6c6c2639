import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deadline } from '@merma/testing';
import { parse } from 'csv-parse/sync';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importProducts } from '../src/admin/service.js';
import {
  addDays,
  appRendered,
  DASHBOARD_DIST,
  expectAccessible,
  hasChromium,
  launchChromium,
  requireBuiltDashboard,
  TEST_RESULTS,
  todayIn,
} from './browser.js';
import { createMember, PASSWORD } from './dashboard-client.js';
import {
  addKey,
  api,
  CAUSA_CADUCIDAD,
  createTenant,
  DESTINO_DONATION,
  DESTINO_LANDFILL,
  startTestApp,
  type Tenant,
  type TestContext,
  validRecord,
} from './helpers.js';

/**
 * The waste pages in a real browser (Debian's chromium, playwright-core) on the built app: a tenant
 * with five weeks of records sent through the API (the app's clock set back a day at a time, so
 * they land on their days), then, as a kitchen manager would: the overview's totals equal
 * `GET /api/v1/analytics` for the same range; the records table filtered, a record's chain details
 * opened, the chain verified, and the filtered CSV downloaded — its rows equal the API's list; the
 * language switched to Spanish; the prevention plan generated and read in Spanish, and printed
 * without the app's frame; the forecast, and tomorrow's production from three weeks of sales sent as
 * `sales.recorded` events (the advised quantities equal `GET /api/v1/predict?type=demand`), and what
 * the advice would have cost over the last 4 weeks against the 7-day average (in euros, in units
 * without prices), in Spanish and English at 1280 and 390 px; a night shift added. axe-core checks every page (no serious or critical issue). The overview and plan are
 * saved as screenshots, and the first contentful paint and the overview's load time are written to
 * test-results/dashboard-perf.json.
 */
requireBuiltDashboard();
const DIST = DASHBOARD_DIST;
const OUT = TEST_RESULTS;
const DAYS = 35;
const ZONE = 'Europe/Madrid';
const SALES_DAYS = 21;
const CATALOGUE = [
  'name;food_category;ean;pos_ref;unit_weight_kg;price;unit_cost',
  // Croissants have prices: their advice aims at the critical ratio, and the page says what weighs.
  'Croissant;bakery;8410000000023;;0,06;1,20;0,40',
  'Pan de barra;bakery;8410000000016;;0,25;;',
  'Pollo asado;prepared_meals;8410000000030;;;;',
].join('\n');

let t: TestContext;
let tenant: Tenant;
let browser: Browser;
let base: string;
/** Set back while seeding, so each day's batch is stored on its day; 0 afterwards. */
let offsetMs = 0;

const today = () => todayIn(ZONE);

beforeAll(async () => {
  if (!hasChromium) return;
  t = await startTestApp({ config: { DASHBOARD_DIR: DIST, API_KEY_CACHE_TTL_MS: '0' }, clock: () => new Date(Date.now() - offsetMs) });
  tenant = await createTenant(t.db, { timezone: ZONE });
  const client = api(t.app, tenant.key);
  // A month of waste: bread every day (recorded as "Pan de barra", the product of the catalogue
  // below), fish most days, more on Fridays, a part sent to landfill.
  for (let back = DAYS - 1; back >= 0; back--) {
    offsetMs = back * 86_400_000;
    const weekday = new Date(Date.now() - offsetMs).getUTCDay();
    const records = [
      validRecord({
        food_category: 'bakery',
        product_name: 'Pan de barra',
        weight_kg: 2 + (weekday === 5 ? 3 : 0) + (back % 3) * 0.5,
        destino_id: DESTINO_DONATION,
      }),
      validRecord({ food_category: 'fish', weight_kg: 1.25 + (back % 4) * 0.25, destino_id: DESTINO_LANDFILL, causa_id: CAUSA_CADUCIDAD }),
      validRecord({ food_category: 'prepared_meals', weight_kg: 3.5, destino_id: DESTINO_LANDFILL, waste_stage: 'service' }),
    ];
    const res = await client.post('/api/v1/records/batch', { records });
    expect(res.statusCode, res.body).toBe(200);
  }
  offsetMs = 0;
  // Three weeks of sales from the POS (a day's total per product and day), up to yesterday: bread
  // and croissants every day, more at the weekend; roast chicken only for the last 10 days.
  await importProducts(t.db, { org: tenant.organizationId, csv: CATALOGUE });
  for (let back = SALES_DAYS; back >= 1; back--) {
    const day = addDays(today(), -back);
    const weekend = [0, 6].includes(new Date(`${day}T12:00:00Z`).getUTCDay());
    const sales = [
      { ean: '8410000000016', quantity: 30 + ((back * 7) % 5), sold_at: day },
      { ean: '8410000000023', quantity: 40 + (weekend ? 15 : 0) + ((back * 3) % 7), sold_at: day },
      ...(back <= 10 ? [{ ean: '8410000000030', quantity: 12 + (back % 3), sold_at: day }] : []),
    ];
    const res = await client.post('/api/v1/webhooks/inbound', { event: 'sales.recorded', payload: { source: 'tpv', sales } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.sales).toMatchObject({ stored: sales.length, errors: [] });
  }
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
  browser = await launchChromium();
}, deadline(120_000));

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const heading = (page: Page, name: string) => page.getByRole('heading', { name, level: 1 });
// The dashboard's rule for a total (lib/format.ts): at most one decimal.
const kgFormat = (locale: string) => new Intl.NumberFormat(locale, { style: 'unit', unit: 'kilogram', maximumFractionDigits: 1 });

/** A screenshot of `part` of the whole page, clear of the sticky header (taken from the top). */
async function shoot(page: Page, part: Locator, file: string) {
  await page.evaluate('window.scrollTo(0, 0)');
  const box = await part.boundingBox();
  if (!box) throw new Error(`${file}: nothing to take`);
  await page.screenshot({ path: join(OUT, file), fullPage: true, clip: box });
}

const SIGN_IN = {
  en: { email: 'E-mail', password: 'Password', submit: 'Sign in' },
  es: { email: 'Correo electrónico', password: 'Contraseña', submit: 'Entrar' },
};

async function signIn(page: Page, email: string, language: 'en' | 'es' = 'en') {
  const words = SIGN_IN[language];
  await page.goto(`${base}/dashboard/sign-in`);
  await page.getByLabel(words.email).fill(email);
  await page.getByLabel(words.password, { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: words.submit }).click();
  // The sign-in page loads the app once signed in: what follows works on the app, not a first frame.
  await page.waitForURL((url) => url.pathname !== '/dashboard/sign-in');
  await appRendered(page);
}

describe.skipIf(!hasChromium)('the waste pages in a browser (reason when skipped: no chromium on this machine)', () => {
  it(
    'overview = API analytics; records filtered, verified and exported = API list; Spanish; plan; forecast; shifts',
    async () => {
      mkdirSync(OUT, { recursive: true });
      const owner = await createMember(t.db, tenant.organizationId, 'owner');
      // bypassCSP only lets axe-core be injected: the page's own CSP allows no inline script.
      const context = await browser.newContext({
        locale: 'en-GB',
        viewport: { width: 1400, height: 1000 },
        bypassCSP: true,
        acceptDownloads: true,
      });
      const page = await context.newPage();
      const pageErrors: string[] = [];
      page.on('pageerror', (err) => pageErrors.push(err.message));
      const client = api(t.app, tenant.key);
      try {
        await signIn(page, owner.email);
        await heading(page, 'Overview').waitFor();

        // Load figures of a fresh page: first contentful paint, and the overview with its charts drawn.
        const started = Date.now();
        await page.goto(`${base}/dashboard/overview`);
        await page.getByTestId('range-total').waitFor();
        await page.locator('svg.merma-chart').first().waitFor();
        const overviewMs = Date.now() - started;
        // The paint entry, read through a buffered observer (it may be recorded after the load event).
        const fcp = await page.evaluate(
          () =>
            new Promise<number | null>((resolve) => {
              new PerformanceObserver((list) => {
                const entry = list.getEntriesByName('first-contentful-paint')[0];
                if (entry) resolve(entry.startTime);
              }).observe({ type: 'paint' as 'mark', buffered: true }); // Node's types lack the browser's entry types
              setTimeout(() => resolve(null), 5000);
            }),
        );
        writeFileSync(
          join(OUT, 'dashboard-perf.json'),
          `${JSON.stringify({ first_contentful_paint_ms: fcp, overview_loaded_ms: overviewMs }, null, 2)}\n`,
        );
        console.log(`dashboard: first contentful paint ${fcp?.toFixed(0)} ms; overview with charts ${overviewMs} ms`);

        // The overview's figures are the API's for the same range (the last 30 days, by day).
        const range = { from: addDays(today(), -29), to: today(), group_by: 'day' };
        const analytics = (await client.get('/api/v1/analytics', { query: range })).json().data;
        expect(analytics.total_records).toBe(30 * 3);
        expect(await page.getByTestId('range-total').textContent()).toBe(
          `${kgFormat('en-GB').format(analytics.total_kg)} in ${analytics.total_records} records in this period.`,
        );
        const todayKg = (await client.get('/api/v1/analytics', { query: { from: today(), to: today() } })).json().data.total_kg;
        expect(await page.getByTestId('period-today-kg').textContent()).toBe(
          new Intl.NumberFormat('en-GB', { style: 'unit', unit: 'kilogram', maximumFractionDigits: 1 }).format(todayKg),
        );
        // Each chart is drawn once its container has been measured, a frame or more after the figures arrive.
        await expect.poll(() => page.locator('svg.merma-chart').count()).toBe(5);
        await page.getByText('Recovery rate:').waitFor();
        await page.getByText('The sector comparison comes with').or(page.getByText('You:')).first().waitFor();
        await expectAccessible(page, 'overview');
        await page.screenshot({ path: join(OUT, 'dashboard-overview.png'), fullPage: true });

        // Records: filtered by category; the count and rows are the API's.
        await page.getByRole('link', { name: 'Records' }).click();
        await heading(page, 'Records').waitFor();
        await page.getByRole('combobox', { name: 'Category' }).click();
        await page.getByRole('option', { name: 'Fish', exact: true }).click();
        await page.waitForURL(/category=fish/);
        const fish = (
          await client.get('/api/v1/records', { query: { food_category: 'fish', from: addDays(today(), -29), to: today(), limit: '100' } })
        ).json();
        await page
          .getByTestId('records-count')
          .filter({ hasText: `1–${fish.meta.pagination.total} of ${fish.meta.pagination.total}` })
          .waitFor();
        expect(await page.getByRole('row').count()).toBe(fish.meta.pagination.total + 1);
        await page
          .getByRole('button', { name: /^Show details of record/ })
          .first()
          .click();
        await page.getByText(fish.data[0].record_hash).waitFor();
        await page.getByRole('button', { name: 'Verify the chain' }).click();
        await page.getByText('The chain is intact').waitFor();
        await expectAccessible(page, 'records');

        // The CSV export of the filtered table, in the Spanish spreadsheet form.
        await page.getByRole('button', { name: 'Export CSV' }).click();
        const [download] = await Promise.all([
          page.waitForEvent('download'),
          page.getByRole('menuitem', { name: /spreadsheet in Spanish/ }).click(),
        ]);
        const file = readFileSync(await download.path());
        expect(file.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
        const rows = parse(file, { bom: true, delimiter: ';', columns: true }) as Record<string, string>[];
        // Spanish headers and names in this form (records-export.test.ts checks every column).
        expect(rows.map((r) => r.ID)).toEqual(fish.data.map((r: { id: string }) => r.id));
        expect(rows.map((r) => r['Peso (kg)'])).toEqual(fish.data.map((r: { weight_kg: number }) => String(r.weight_kg).replace('.', ',')));
        expect(new Set(rows.map((r) => r['Categoría']))).toEqual(new Set(['Pescado']));

        // Spanish: the same page, every word in Spanish.
        await page.getByRole('combobox', { name: 'Language' }).selectOption('es');
        await heading(page, 'Registros').waitFor();
        await page
          .getByTestId('records-count')
          .filter({ hasText: `de ${fish.meta.pagination.total}` })
          .waitFor();
        expect(await page.locator('html').getAttribute('lang')).toBe('es');

        // The prevention plan, generated and read in Spanish; printed without the app's frame.
        await page.getByRole('link', { name: 'Plan de prevención' }).click();
        await heading(page, 'Plan de prevención').waitFor();
        await page.getByRole('button', { name: 'Generar el plan' }).click();
        await page.waitForURL(/plan=/);
        // The link of the plan opens it again (and the button is out of its loading state for axe).
        await page.reload();
        const doc = page.getByTestId('plan-document');
        await doc.getByText('Puntos críticos y medidas').waitFor();
        const text = (await doc.textContent()) ?? '';
        expect(text).toContain('Platos preparados');
        expect(text).not.toMatch(/prepared_meals|bakery|fruit_veg|post_service/);
        expect(await t.db.preventionPlan.count({ where: { establishment_id: tenant.establishmentId } })).toBe(1);
        await expectAccessible(page, 'plan');
        await page.screenshot({ path: join(OUT, 'dashboard-plan.png'), fullPage: true });
        await page.emulateMedia({ media: 'print' });
        expect(await page.getByRole('navigation').first().isVisible()).toBe(false);
        expect(await page.getByRole('button', { name: 'Imprimir o guardar en PDF' }).isVisible()).toBe(false);
        expect(await doc.isVisible()).toBe(true);
        await page.screenshot({ path: join(OUT, 'dashboard-plan-print.png') });
        expect(await page.getByTestId('hierarchy').isVisible()).toBe(false);
        expect(await page.getByTestId('esrs').isVisible()).toBe(false);
        await page.emulateMedia({ media: 'screen' });

        // The ESRS E5-5 table printed alone: its card, with whose it is, and nothing else of the page.
        await page.evaluate(() => {
          (globalThis as unknown as { print: () => void }).print = () => {}; // the browser's print dialog, left out
        });
        await page.getByRole('button', { name: /^Imprimir o guardar \d{4} en PDF$/ }).click();
        await page.emulateMedia({ media: 'print' });
        await expect.poll(() => page.getByTestId('esrs').isVisible()).toBe(true);
        expect(await page.getByTestId('esrs-print-heading').textContent()).toMatch(/^.+ · CIF [A-Z0-9]+ · datos de prueba/);
        expect(await doc.isVisible()).toBe(false);
        expect(await page.getByTestId('obligations').isVisible()).toBe(false);
        expect(await page.getByRole('button', { name: /^Imprimir o guardar \d{4} en PDF$/ }).isVisible()).toBe(false);
        await page.screenshot({ path: join(OUT, 'dashboard-esrs-print.png') });
        // Once printed, the page prints as the plan again.
        await page.evaluate(() => (globalThis as unknown as { dispatchEvent: (e: Event) => void }).dispatchEvent(new Event('afterprint')));
        await expect.poll(() => page.getByTestId('esrs').isVisible()).toBe(false);
        expect(await doc.isVisible()).toBe(true);
        await page.emulateMedia({ media: 'screen' });
        expect(await page.getByTestId('esrs-print-heading').isVisible()).toBe(false);

        // The forecast: the chart, the method and its backtest.
        await page.getByRole('link', { name: 'Previsión' }).click();
        await heading(page, 'Previsión').waitFor();
        await page.getByText('Holt-Winters con estacionalidad semanal', { exact: false }).waitFor();
        await expect.poll(() => page.locator('svg[data-chart="forecast"] [data-series="interval"]').count()).toBe(1);
        await page.getByText('4 semanas', { exact: true }).click();
        await page.waitForURL(/weeks=4/);
        await expect.poll(() => page.getByRole('table', { name: 'La previsión día a día' }).getByRole('row').count()).toBe(28 + 1);

        // Tomorrow's production: a row per product sold, most sold first, advising what the API does.
        const demand = (await client.get('/api/v1/predict', { query: { type: 'demand', horizon: '1' } })).json().data;
        expect(demand.products.map((p: { product_name: string }) => p.product_name)).toEqual(['Croissant', 'Pan de barra', 'Pollo asado']);
        const production = page.getByRole('region', { name: 'Producción de mañana' });
        await production.getByRole('row').nth(3).waitFor();
        const productRows = production.getByRole('row');
        expect(await productRows.count()).toBe(3 + 1);
        const units = new Intl.NumberFormat('es-ES', { maximumFractionDigits: 1 });
        for (const [i, product] of demand.products.entries()) {
          const row = productRows.nth(i + 1);
          expect(await row.getByRole('cell').first().textContent()).toContain(product.product_name);
          expect(await row.getByTestId('demand-advised').textContent()).toBe(`${units.format(product.points[0].advised)} u.`);
          expect(await row.getByRole('cell').nth(3).textContent()).toContain(
            `~${new Intl.NumberFormat('es-ES', { style: 'percent', maximumFractionDigits: 1 }).format(product.advice.quantile)} de los días`,
          );
          expect(await row.getByTestId('demand-prices').count()).toBe(product.advice.prices ? 1 : 0);
        }
        expect(demand.products[0].advice).toMatchObject({ quantile: 0.67, prices: { leftover_cost: 0.4, missed_sale_cost: 0.8 } });
        expect(await productRows.nth(1).getByTestId('demand-prices').textContent()).toBe(
          'un sobrante cuesta 0,40\u00a0€ y una venta perdida 0,80\u00a0€',
        );
        // Bread's waste is recorded under its name: what the advice would have saved, in kg and %.
        // Croissants' is not: nothing to compare with, no figure, and the product says why. Chicken
        // has no unit weight, so its waste in kg cannot be set against units: no figure either.
        const kg = new Intl.NumberFormat('es-ES', { style: 'unit', unit: 'kilogram', maximumFractionDigits: 1 });
        const avoidedCell = (i: number) =>
          productRows
            .nth(i + 1)
            .getByRole('cell')
            .nth(4);
        const croissant = demand.products[0].advice.last_4_weeks;
        const bread = demand.products[1].advice.last_4_weeks;
        expect(bread.avoided_kg).toBeGreaterThan(0);
        expect(await avoidedCell(1).textContent()).toBe(
          `${kg.format(bread.avoided_kg)} (${new Intl.NumberFormat('es-ES', { style: 'percent', maximumFractionDigits: 1 }).format(bread.avoided_pct / 100)})`,
        );
        expect(croissant).toMatchObject({ waste_kg: 0, avoided_kg: null, avoided_pct: null });
        expect(await avoidedCell(0).textContent()).toBe('—');
        expect(await productRows.nth(1).getByRole('cell').first().textContent()).toContain(
          'No hay merma registrada con el nombre de este producto',
        );
        expect(await avoidedCell(2).textContent()).toBe('—');
        // Ten days of chicken: the note says why the forecast is simpler.
        await production.getByText('Solo hay 10 días de ventas', { exact: false }).waitFor();
        // Whether today's sales are in is said once, above the table, in Spanish (not the API's English).
        expect(demand.products[0].notes).toContainEqual(expect.objectContaining({ reason: expect.any(String) }));
        expect(await production.getByTestId('demand-today').textContent()).toMatch(/^(Incluye|Sin) las ventas de hoy: /);
        expect(await production.getByRole('table').textContent()).not.toContain("today's sales");
        await expectAccessible(page, 'forecast');

        // The service level, raised to 95 %: the chicken (no prices, its waste not measurable in its
        // unit) is now advised to cover 95 % of days, as the API says; stored, and in the audit log.
        await production.getByText('el 85 % de los días (el valor por defecto)', { exact: false }).waitFor();
        await production.getByRole('button', { name: 'Cambiar' }).click();
        await production.getByLabel('Días que cubrir').fill('95');
        await production.getByRole('button', { name: 'Guardar' }).click();
        await production.getByText('el 95 % de los días (fijado para este establecimiento)', { exact: false }).waitFor();
        const raised = (await client.get('/api/v1/predict', { query: { type: 'demand', horizon: '1' } })).json().data;
        expect(raised.products[2].advice.quantile).toBe(0.95);
        await expect
          .poll(() => productRows.nth(3).getByRole('cell').nth(3).textContent())
          .toContain(`~${new Intl.NumberFormat('es-ES', { style: 'percent' }).format(0.95)} de los días`);
        await expect
          .poll(() => productRows.nth(3).getByTestId('demand-advised').textContent())
          .toBe(`${units.format(raised.products[2].points[0].advised)} u.`);
        expect(
          await t.db.$queryRawUnsafe(
            'SELECT service_level::text FROM production_settings WHERE establishment_id = $1::uuid',
            tenant.establishmentId,
          ),
        ).toEqual([{ service_level: '0.95' }]);
        expect(await t.db.auditEvent.count({ where: { action: 'production_settings.updated', target: '95 %' } })).toBe(1);
        await production.screenshot({ path: join(OUT, 'dashboard-forecast-service-level.png') });
        await expectAccessible(page, 'forecast-service-level');

        // Shifts: an overnight shift added.
        await page.getByRole('link', { name: 'Turnos y sesiones' }).click();
        await heading(page, 'Turnos y sesiones').waitFor();
        await page.getByLabel('Nombre').fill('Noche');
        await page.getByLabel('Empieza').fill('22:00');
        await page.getByLabel('Termina').fill('06:00');
        await page.getByRole('button', { name: 'Añadir turno' }).click();
        await page.getByRole('cell', { name: 'Noche', exact: true }).waitFor();
        await page.getByText('Nocturno', { exact: true }).waitFor();
        expect(
          await t.db.shift.count({
            where: { establishment_id: tenant.establishmentId, name: 'Noche', start_time: '22:00', end_time: '06:00' },
          }),
        ).toBe(1);
        await expectAccessible(page, 'shifts');
        expect(pageErrors).toEqual([]);
      } finally {
        await context.close();
      }
    },
    deadline(180_000),
  );

  it(
    'the production advice of the last 4 weeks against the 7-day average: in euros with prices (and their total), else in units; Spanish and English, 1280 and 390 px',
    async () => {
      mkdirSync(OUT, { recursive: true });
      const client = api(t.app, tenant.key);
      // Bread gets its prices too, for this test only (the tests run in any order): two priced
      // products to add up, the chicken left in units. The catalogue is changed with a live key.
      const live = await addKey(t.db, tenant.establishmentId, 'live');
      const bread = (await client.get('/api/v1/products')).json().data.find((p: { name: string }) => p.name === 'Pan de barra');
      const setBreadPrices = async (prices: { price: number | null; unit_cost: number | null }) => {
        const res = await t.app.inject({
          method: 'PATCH',
          url: `/api/v1/products/${bread.id}`,
          headers: { authorization: `Bearer ${live.key}`, 'content-type': 'application/json' },
          payload: JSON.stringify(prices),
        });
        expect(res.statusCode, res.body).toBe(200);
      };
      await setBreadPrices({ price: 1.5, unit_cost: 0.5 });
      try {
        const demand = (await client.get('/api/v1/predict', { query: { type: 'demand', horizon: '1' } })).json().data;
        type Figures = { left_over: number; short_quantity: number; cost: number | null };
        type Past = Figures & { days: number; seven_day_average: Figures };
        const past = (name: string): Past =>
          demand.products.find((p: { product_name: string }) => p.product_name === name).advice.last_4_weeks;
        const priced = ['Croissant', 'Pan de barra'];
        for (const name of priced) {
          expect(past(name).days).toBeGreaterThan(0);
          expect(past(name).cost).not.toBeNull();
          // Different figures, so that showing one for the other cannot pass.
          expect(past(name).cost).not.toBe(past(name).seven_day_average.cost);
        }
        expect(past('Pollo asado')).toMatchObject({ cost: null, seven_day_average: { cost: null } });
        expect(past('Pollo asado').days).toBeGreaterThan(0);

        // What a kitchen manager reads, in each language, from the API's figures.
        const words = {
          es: {
            locale: 'es-ES',
            overview: 'Resumen',
            heading: 'Previsión',
            region: 'Producción de mañana',
            header: 'Frente a la media de 7 días (4 semanas)',
            units: (n: string) => `${n} u.`,
            quantities: (l: string, s: string) => `sobrante ${l}, faltante ${s}`,
            advice: 'Recomendación',
            average: 'Media de 7 días',
            saved: (e: string, less: boolean) => `${e} ${less ? 'menos' : 'más'} que la media de 7 días`,
            total: (n: number, a: string, m: string, d: string) =>
              `Últimas 4 semanas, en ${n} productos con precio: la recomendación habría costado ${a} en sobrantes y ventas perdidas; la media de 7 días, ${m} — ${d}.`,
            totalSaved: (e: string, less: boolean) => `${e} ${less ? 'menos' : 'más'}`,
          },
          en: {
            locale: 'en-GB',
            overview: 'Overview',
            heading: 'Forecast',
            region: "Tomorrow's production",
            header: 'Against the 7-day average (4 weeks)',
            units: (n: string) => `${n} pcs`,
            quantities: (l: string, s: string) => `${l} left over, ${s} short`,
            advice: 'Advice',
            average: '7-day average',
            saved: (e: string, less: boolean) => `${e} ${less ? 'less' : 'more'} than the 7-day average`,
            total: (n: number, a: string, m: string, d: string) =>
              `Last 4 weeks, over ${n} products with prices: the advice would have cost ${a} in leftovers and missed sales; the 7-day average, ${m} — ${d}.`,
            totalSaved: (e: string, less: boolean) => `${e} ${less ? 'less' : 'more'}`,
          },
        };
        for (const language of ['es', 'en'] as const) {
          const w = words[language];
          const euros = new Intl.NumberFormat(w.locale, { style: 'currency', currency: 'EUR' });
          const number = new Intl.NumberFormat(w.locale, { maximumFractionDigits: 1 });
          const quantities = (f: Figures) => w.quantities(w.units(number.format(f.left_over)), w.units(number.format(f.short_quantity)));
          const member = await createMember(t.db, tenant.organizationId, 'viewer');
          const context = await browser.newContext({ locale: w.locale, viewport: { width: 1280, height: 900 }, bypassCSP: true });
          const page = await context.newPage();
          const pageErrors: string[] = [];
          page.on('pageerror', (err) => pageErrors.push(err.message));
          try {
            await signIn(page, member.email, language);
            await heading(page, w.overview).waitFor();
            await page.goto(`${base}/dashboard/forecast`);
            await heading(page, w.heading).waitFor();
            const production = page.getByRole('region', { name: w.region });
            await production.getByRole('row').nth(3).waitFor();
            await production.getByRole('columnheader', { name: w.header }).waitFor();
            const lines = (name: string) =>
              production.getByRole('row').filter({ hasText: name }).getByTestId('demand-vs-average').locator('> *').allTextContents();
            for (const name of priced) {
              const { seven_day_average: average, ...advice } = past(name);
              const saved = Math.round(((average.cost as number) - (advice.cost as number)) * 100) / 100;
              expect(await lines(name), `${name} in ${language}`).toEqual([
                w.saved(euros.format(Math.abs(saved)), saved > 0),
                `${w.advice}: ${euros.format(advice.cost as number)} (${quantities(advice)})`,
                `${w.average}: ${euros.format(average.cost as number)} (${quantities(average)})`,
              ]);
            }
            const chicken = past('Pollo asado');
            expect(await lines('Pollo asado'), `chicken in ${language}`).toEqual([
              `${w.advice}: ${quantities(chicken)}`,
              `${w.average}: ${quantities(chicken.seven_day_average)}`,
            ]);
            // The total over the products with prices, above the table.
            const advised = priced.reduce((sum, name) => sum + (past(name).cost as number), 0);
            const average = priced.reduce((sum, name) => sum + (past(name).seven_day_average.cost as number), 0);
            const saved = Math.round((average - advised) * 100) / 100;
            expect(await production.getByTestId('demand-vs-average-total').textContent()).toBe(
              w.total(2, euros.format(advised), euros.format(average), w.totalSaved(euros.format(Math.abs(saved)), saved > 0)),
            );
            await expectAccessible(page, `forecast against the average (${language}, 1280 px)`);
            await shoot(page, production, `dashboard-forecast-vs-average-${language}-1280.png`);
            // A phone: the table scrolls sideways; the total and the product names still read.
            await page.setViewportSize({ width: 390, height: 844 });
            await production.getByTestId('demand-vs-average-total').waitFor();
            await expectAccessible(page, `forecast against the average (${language}, 390 px)`);
            await shoot(page, production, `dashboard-forecast-vs-average-${language}-390.png`);
            expect(pageErrors).toEqual([]);
          } finally {
            await context.close();
          }
        }
      } finally {
        await setBreadPrices({ price: null, unit_cost: null });
      }
    },
    deadline(120_000),
  );

  it(
    'a viewer sees every waste page and changes nothing',
    async () => {
      const viewer = await createMember(t.db, tenant.organizationId, 'viewer');
      const context = await browser.newContext({ locale: 'es-ES', viewport: { width: 1280, height: 900 }, bypassCSP: true });
      const page = await context.newPage();
      try {
        await signIn(page, viewer.email, 'es');
        await heading(page, 'Resumen').waitFor();
        await page.getByTestId('range-total').waitFor();
        await page.getByRole('link', { name: 'Plan de prevención' }).click();
        await heading(page, 'Plan de prevención').waitFor();
        expect(await page.getByRole('button', { name: 'Generar el plan' }).count()).toBe(0);
        await page.getByRole('link', { name: 'Turnos y sesiones' }).click();
        await heading(page, 'Turnos y sesiones').waitFor();
        expect(await page.getByRole('button', { name: 'Añadir turno' }).count()).toBe(0);
        await page.getByText('Con el rol de lector se ven los turnos').waitFor();
        await expectAccessible(page, 'shifts as a viewer');
      } finally {
        await context.close();
      }
    },
    deadline(60_000),
  );
});
