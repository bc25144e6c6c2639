import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorBodyProblems } from './contract.js';
import {
  addKey,
  api,
  createTenant,
  DESTINO_DONATION,
  DESTINO_LANDFILL,
  recordAt,
  startTestApp,
  type Tenant,
  type TestContext,
} from './helpers.js';

/**
 * A year's food waste against a baseline (modules/compliance/reduction.ts, `GET
 * /compliance/reduction`).
 *
 * Worked example, by hand (a restaurant in Madrid, NACE 56.10 → food services, −30 % by 2030; test
 * mode; clock 29 November 2026):
 *   2021: 100 kg landfilled on 1 June, and 50 kg donated (not waste) → 100 kg of food waste.
 *   2022: 80 kg landfilled, and 1 kg at 23:30 UTC on 31 December 2022 — 00:30 on 1 January 2023 in
 *         Madrid: 2023's → 2022 is 80 kg; 2023 is 1 kg.
 *   2026: 63 kg landfilled, weighed; 9 kg composted, estimated; 10 kg donated → 72 kg of food
 *         waste, 63 measured and 9 estimated; the year to date (to 29 November), not complete.
 *   Baseline 2021–2023: (100 + 80 + 1) / 3 = 60.333 kg; change (72 − 60.333) / 60.333 = +0.1934;
 *     target 60.333 × 0.7 = 42.233 kg.
 *   Baseline first_year: the first record (1 June 2021) did not begin a year, so 2022: 80 kg;
 *     change (72 − 80) / 80 = −0.1; target 56 kg.
 *   Baseline 2020: no records → none.
 *   Sales of 2026: 400 units of a bread at €2.50 → €1,000, and 30 units of a product with no price
 *     (left out): 72 kg per €1,000.
 *   Not counted: 500 kg of live records, and another restaurant's 300 kg.
 *
 * A bakery factory (NACE 10.71 → processing and manufacturing, −10 % by 2030; test mode):
 *   2022: 1,000 kg of dough scraps to animal feed (not waste) and 400 kg composted, estimated.
 *   2023: 600 kg to energy recovery, weighed.
 *   2026: 450 kg landfilled, counted; 200 kg to animal feed.
 *   Baseline 2021–2023: (400 + 600) / 2 = 500 kg (2021 had no records); change (450 − 500) / 500 =
 *   −0.1; target 500 × 0.9 = 450 kg — met to date. First full year: the first record (1 March
 *   2022) did not begin a year → 2023, 600 kg; change −0.25; target 540 kg. No sales: none.
 */
const COMPOSTING = '51a096c6-196d-41dd-a02a-968cbfa9803f';
const ANIMAL_FEED = 'c780cb3f-4952-4d92-8452-ab822aef0640';
const ENERGY = '76662c15-f435-457d-899c-2ff5d118da82';

let t: TestContext;
let kitchen: Tenant;
let other: Tenant;
let factory: Tenant;

const figures = (query = '', key = kitchen.key) => api(t.app, key).get(`/api/v1/compliance/reduction${query}`);

beforeAll(async () => {
  t = await startTestApp({ clock: () => new Date('2026-11-29T10:00:00.000Z') });
  kitchen = await createTenant(t.db);
  other = await createTenant(t.db);
  factory = await createTenant(t.db);
  const made = (when: string, weight_kg: number, destino_id: string, extra: Record<string, unknown> = {}) =>
    recordAt(t.db, factory, when, { food_category: 'bakery', weight_kg, destino_id, ...extra });
  await made('2022-03-01T12:00:00.000Z', 1000, ANIMAL_FEED);
  await made('2022-04-01T12:00:00.000Z', 400, COMPOSTING, { measurement_method: 'estimate' });
  await made('2023-05-01T12:00:00.000Z', 600, ENERGY, { measurement_method: 'direct_weighing' });
  await made('2026-02-01T12:00:00.000Z', 450, DESTINO_LANDFILL, { measurement_method: 'counting' });
  await made('2026-02-02T12:00:00.000Z', 200, ANIMAL_FEED);
  const factoryActivity = await t.app.inject({
    method: 'PATCH',
    url: `/api/v1/establishments/${factory.establishmentId}`,
    headers: { authorization: `Bearer ${factory.key}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ nace_code: '10.71' }),
  });
  expect(factoryActivity.statusCode, factoryActivity.body).toBe(200);
  const at = (when: string, weight_kg: number, destino_id: string, extra: Record<string, unknown> = {}) =>
    recordAt(t.db, kitchen, when, { food_category: 'bakery', weight_kg, destino_id, ...extra });
  await at('2021-06-01T12:00:00.000Z', 100, DESTINO_LANDFILL);
  await at('2021-06-02T12:00:00.000Z', 50, DESTINO_DONATION);
  await at('2022-03-01T12:00:00.000Z', 80, DESTINO_LANDFILL);
  await at('2022-12-31T23:30:00.000Z', 1, DESTINO_LANDFILL);
  await at('2026-04-01T12:00:00.000Z', 63, DESTINO_LANDFILL, { measurement_method: 'direct_weighing' });
  await at('2026-05-01T12:00:00.000Z', 9, COMPOSTING, { measurement_method: 'estimate' });
  await at('2026-06-01T12:00:00.000Z', 10, DESTINO_DONATION, { measurement_method: 'direct_weighing' });
  await recordAt(t.db, kitchen, '2026-06-01T12:00:00.000Z', { weight_kg: 500, destino_id: DESTINO_LANDFILL }, { livemode: true });
  await recordAt(t.db, other, '2026-06-01T12:00:00.000Z', { weight_kg: 300, destino_id: DESTINO_LANDFILL });
  const activity = await t.app.inject({
    method: 'PATCH',
    url: `/api/v1/establishments/${kitchen.establishmentId}`,
    headers: { authorization: `Bearer ${kitchen.key}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ nace_code: '56.10' }),
  });
  expect(activity.statusCode, activity.body).toBe(200);

  // The catalogue is changed with a live key; sales of the test mode are summed per day.
  const live = await addKey(t.db, kitchen.establishmentId, 'live');
  const product = async (body: Record<string, unknown>) => {
    const created = await api(t.app, live.key).post('/api/v1/products', body);
    expect(created.statusCode, created.body).toBe(201);
    return created.json().data.id as string;
  };
  const bread = await product({ name: 'Barra', food_category: 'bakery', ean: '8410000000023', price: 2.5 });
  const unpriced = await product({ name: 'Bollo', food_category: 'bakery', ean: '8410000000030' });
  for (const [id, units] of [
    [bread, 400],
    [unpriced, 30],
  ] as const) {
    await t.db.$executeRawUnsafe(
      `INSERT INTO sale_day_totals (establishment_id, livemode, product_id, day, units, kg, lines) VALUES ($1::uuid, false, $2::uuid, '2026-10-01', $3, 0, 1)`,
      kitchen.establishmentId,
      id,
      units,
    );
  }
});

afterAll(async () => {
  await t?.close();
});

describe('food waste against a baseline', () => {
  it('compares the year to date with the 2021–2023 average of the years with records, as worked by hand', async () => {
    const res = await figures();
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({
      establishment_id: kitchen.establishmentId,
      livemode: false,
      stage: 'food_services',
      target: { reduction: 0.3, target_kg: 42.233 },
      year: {
        year: 2026,
        period: { from: '2026-01-01', to: '2026-11-29' },
        complete: false,
        waste_kg: 72,
        measured_kg: 63,
        estimated_kg: 9,
        not_stated_kg: 0,
      },
      baseline: { kind: '2021-2023', years: [2021, 2022, 2023], years_with_records: [2021, 2022, 2023], waste_kg: 60.333 },
      change_share: 0.1934,
      sales: { sales_eur: 1000, unpriced_units: 30, waste_kg_per_1000_eur: 72 },
    });
  });

  it('takes the first full year, or 2020, as the baseline when asked', async () => {
    const first = (await figures('?baseline=first_year')).json().data;
    expect(first.baseline).toEqual({ kind: 'first_year', years: [2022], years_with_records: [2022], waste_kg: 80 });
    expect(first.change_share).toBe(-0.1);
    expect(first.target).toEqual({ reduction: 0.3, target_kg: 56 });
    const y2020 = (await figures('?baseline=2020')).json().data;
    expect(y2020.baseline).toEqual({ kind: '2020', years: [2020], years_with_records: [], waste_kg: null });
    expect(y2020.change_share).toBeNull();
    expect(y2020.target).toEqual({ reduction: 0.3, target_kg: null });
  });

  it('gives a factory the −10 % of processing and manufacturing, as worked by hand', async () => {
    const eu = (await figures('', factory.key)).json().data;
    expect(eu).toMatchObject({
      stage: 'processing_manufacturing',
      target: { reduction: 0.1, target_kg: 450 },
      year: { waste_kg: 450, measured_kg: 450, estimated_kg: 0, not_stated_kg: 0 },
      baseline: { kind: '2021-2023', years: [2021, 2022, 2023], years_with_records: [2022, 2023], waste_kg: 500 },
      change_share: -0.1,
      sales: null,
    });
    const first = (await figures('?baseline=first_year', factory.key)).json().data;
    expect(first).toMatchObject({ baseline: { years: [2023], waste_kg: 600 }, change_share: -0.25, target: { target_kg: 540 } });
  });

  it('a whole past year is complete; a baseline is never the year itself or after it', async () => {
    const y2022 = (await figures('?year=2022&baseline=first_year')).json().data;
    expect(y2022.year).toMatchObject({ year: 2022, period: { from: '2022-01-01', to: '2022-12-31' }, complete: true, waste_kg: 80 });
    expect(y2022.baseline).toEqual({ kind: 'first_year', years: [], years_with_records: [], waste_kg: null });
    const y2023 = (await figures('?year=2023')).json().data;
    // 2023 against 2021–2022 only: the baseline's years before it.
    expect(y2023.baseline).toEqual({ kind: '2021-2023', years: [2021, 2022], years_with_records: [2021, 2022], waste_kg: 90 });
    expect(y2023.year.waste_kg).toBe(1);
  });

  it('refuses a bad year or baseline with a 400, and reads each mode and tenant apart', async () => {
    for (const query of ['?year=2027', '?year=abc', '?baseline=2019', '?baseline=', '?lang=en']) {
      const res = await figures(query);
      expect(res.statusCode, query).toBe(400);
      expect(errorBodyProblems(res), query).toEqual([]);
    }
    const live = await addKey(t.db, kitchen.establishmentId, 'live');
    const liveFigures = (await figures('', live.key)).json().data;
    expect(liveFigures.year.waste_kg).toBe(500);
    expect(liveFigures.baseline.waste_kg).toBeNull();
    expect(liveFigures.sales).toBeNull();
    const theirs = (await figures('', other.key)).json().data;
    // No activity given: no stage, no target.
    expect(theirs).toMatchObject({ stage: null, target: null, year: { waste_kg: 300 }, sales: null });
  });
});
