import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importProducts } from '../src/admin/service.js';
import { api, createTenant, recordAt, startTestApp, type Tenant, type TestContext } from './helpers.js';
import { rng } from './series.js';

// Croissants sold by weekday (Sunday first): a bakery's week, busy at the weekend.
const WEEKDAY = [90, 35, 30, 35, 40, 60, 85];
const NOW = new Date('2026-11-24T10:00:00.000Z'); // a Tuesday; Madrid's local day is 2026-11-24
/** The server's clock: NOW, but for the test that waits for the end of the working day. */
let now = NOW;
const HISTORY = 126;
const BAKED = 100; // what the bakery makes every day today, whatever the day
const UNIT_KG = 0.06;
const day = (i: number) => new Date(Date.UTC(2026, 10, 24 - HISTORY + i)).toISOString().slice(0, 10);

describe('GET /api/v1/predict?type=demand', () => {
  let t: TestContext;
  let bakery: Tenant;
  const sold: number[] = [];
  let croissant: string;
  let pollo: string;

  beforeAll(async () => {
    t = await startTestApp({ clock: () => now });
    bakery = await createTenant(t.db);
    await importProducts(t.db, {
      org: bakery.organizationId,
      csv: 'name;food_category;ean;unit_weight_kg\nCroissant;bakery;8410000000023;0,06\nPollo asado;prepared_meals;8410000000030;\n',
    });
    const products = await t.db.product.findMany({ where: { organization_id: bakery.organizationId } });
    croissant = products.find((p) => p.name === 'Croissant')?.id as string;
    pollo = products.find((p) => p.name === 'Pollo asado')?.id as string;
    const r = rng(7);
    for (let i = 0; i < HISTORY; i++) {
      const weekday = new Date(`${day(i)}T12:00:00Z`).getUTCDay();
      sold.push(Math.max(0, Math.round((WEEKDAY[weekday] as number) + (r() - 0.5) * 12)));
    }
    // Ten weeks of daily sales, sent as a day total each evening; roast chicken by weight for 10 days.
    for (let i = 0; i < HISTORY; i++) {
      const sales: object[] = [{ product_id: croissant, quantity: sold[i], sold_at: day(i) }];
      if (i >= HISTORY - 10) sales.push({ product_id: pollo, quantity: 4 + (i % 3), unit: 'kg', sold_at: day(i) });
      const res = await api(t.app, bakery.key).post('/api/v1/webhooks/inbound', {
        event: 'sales.recorded',
        payload: { source: 'tpv', sales },
      });
      expect(res.statusCode).toBe(200);
    }
    // The last 4 weeks: 100 croissants baked every day, what was not sold thrown away (and recorded).
    for (let i = HISTORY - 28; i < HISTORY; i++) {
      const left = BAKED - (sold[i] as number);
      if (left > 0) {
        await recordAt(t.db, bakery, `${day(i)}T19:00:00.000Z`, {
          food_category: 'bakery',
          product_name: 'croissant ',
          weight_kg: Math.round(left * UNIT_KG * 1000) / 1000,
        });
      }
    }
  });
  afterAll(() => t?.close());

  const demand = async (query: string, key = bakery.key) => {
    const res = await api(t.app, key).get(`/api/v1/predict?type=demand&${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data;
  };

  it('forecasts a product with a weekly pattern better than seasonal naive, with intervals', async () => {
    const d = await demand('horizon=7');
    expect(d).toMatchObject({ type: 'demand', product_id: null, food_category: null, generated_at: NOW.toISOString() });
    expect(d.products.map((p: { product_name: string }) => p.product_name)).toEqual(['Croissant', 'Pollo asado']);
    const c = d.products[0];
    expect(c).toMatchObject({ product_id: croissant, unit: 'unit', unit_weight_kg: 0.06, history_days: HISTORY });
    // No shifts: when its day ends is learnt from its sales' times, and today's have not arrived.
    expect(c.notes).toEqual([
      {
        code: 'today_excluded',
        message: expect.stringMatching(/^today's sales are not included: none has arrived yet/),
        closes_at: '12:01', // a minute after its sales: day totals, at noon
        reason: 'not_arrived',
        basis: 'sales',
      },
    ]);
    // The model chosen for it, and why: each candidate's day-ahead error over the open days scored.
    expect(c.model).toBe('holt-winters');
    expect(c.method).toMatch(
      /^holt-winters (multiplicative|additive).*; chosen by the day-ahead error over the last \d+ open days: Holt-Winters [\d.]+, combined [\d.]+ \(MAE\)$/,
    );
    // Rolling origin: each of the last 8 weeks' days forecast the evening before, as the advice is.
    expect(c.backtest).toMatchObject({ metric: 'mae', days: 56 });
    expect(c.backtest.value).toBeLessThan(c.backtest.seasonal_naive);
    expect(c.backtest.value).toBeLessThan(c.backtest.seven_day_average);
    expect(c.backtest.mase).toBeLessThan(1);
    expect(c.backtest.coverage).toBeGreaterThan(0.8);
    expect(c.points.map((p: { date: string }) => p.date)).toEqual([
      '2026-11-25',
      '2026-11-26',
      '2026-11-27',
      '2026-11-28',
      '2026-11-29',
      '2026-11-30',
      '2026-12-01',
    ]);
    const on = (date: string) => c.points.find((p: { date: string }) => p.date === date);
    // Saturday and Sunday well above the Tuesday, as in the sales; each within 8 of the weekday's level.
    expect(on('2026-11-28').expected).toBeGreaterThan(on('2026-12-01').expected + 40);
    for (const p of c.points) {
      const weekday = new Date(`${p.date}T12:00:00Z`).getUTCDay();
      expect(Math.abs(p.expected - (WEEKDAY[weekday] as number)), p.date).toBeLessThan(8);
      expect(p.lower).toBeLessThanOrEqual(p.expected);
      expect(p.upper).toBeGreaterThan(p.expected);
      expect(Number.isInteger(p.advised)).toBe(true);
      expect(p.advised).toBeGreaterThanOrEqual(Math.floor(p.expected));
      expect(p.advised).toBeLessThanOrEqual(Math.ceil(p.upper));
    }
  });

  it("advises from the product's waste, and says what the advice would have saved over the last 4 weeks", async () => {
    const c = (await demand('horizon=1')).products[0];
    const recent = sold.slice(-28);
    const soldUnits = recent.reduce((a, b) => a + b, 0);
    const wastedUnits = recent.reduce((a, s) => a + Math.max(0, BAKED - s), 0);
    const share = wastedUnits / (soldUnits + wastedUnits);
    const quantile = Math.round((0.95 - 0.2 * Math.min(1, share / 0.3)) * 100) / 100;
    expect(c.advice).toMatchObject({ quantile, waste_share: Math.round(share * 1000) / 1000 });
    const w = c.advice.last_4_weeks;
    expect(w.days).toBe(28);
    expect(w.sold).toBe(soldUnits);
    expect(w.waste_kg).toBeCloseTo(wastedUnits * UNIT_KG, 3);
    expect(w.advised_waste_kg + w.avoided_kg).toBeCloseTo(w.waste_kg, 3);
    // Baking to the forecast instead of 100 a day: most of that waste goes, a few days run short.
    expect(w.avoided_kg).toBeGreaterThan(0);
    expect(w.avoided_pct).toBeGreaterThan(50);
    expect(w.avoided_pct).toBeCloseTo((w.avoided_kg / w.waste_kg) * 100, 0);
    // Short on about (1 − quantile) of the days, as a quantile means.
    expect(w.short_days).toBeLessThanOrEqual(Math.ceil(28 * (1 - quantile)) + 3);
    expect(w.short_quantity).toBeGreaterThanOrEqual(w.short_days);
  });

  it('says so under 14 days of history, and counts products sold by weight in kg', async () => {
    const p = (await demand('horizon=3')).products[1];
    expect(p).toMatchObject({ product_id: pollo, unit: 'kg', unit_weight_kg: null, history_days: 10 });
    expect(p.method).toMatch(/mean of the last 7 days/);
    expect(p.model).toBe('recent-mean');
    expect(p.notes.map((n: { code: string }) => n.code)).toEqual(['short_history', 'today_excluded', 'no_waste']);
    expect(p.notes[0].message).toMatch(/10 days of sales history: under 14/);
    // Ten days: two of them have a week known before them to be scored; nothing before the window to scale by.
    expect(p.backtest).toMatchObject({ metric: 'mae', days: 2, mase: null, coverage: null });
    // The mean of the last 7 days' kg (4, 5 and 6 kg in turn), advised at the default quantile.
    const last7 = Array.from({ length: 7 }, (_, k) => 4 + ((HISTORY - 7 + k) % 3));
    expect(p.points[0].expected).toBeCloseTo(last7.reduce((a, b) => a + b, 0) / 7, 3);
    // Replayed from its third day: the evening before the second, no day was complete yet. No waste
    // recorded for it: nothing to compare the advice with (no figure), and the default quantile.
    expect(p.advice).toMatchObject({ quantile: 0.85, waste_share: null });
    expect(p.advice.last_4_weeks).toMatchObject({ days: 8, waste_kg: 0, avoided_kg: null, avoided_pct: null });
    expect(p.advice.last_4_weeks.advised_waste_kg).toBeGreaterThanOrEqual(0);
  });

  it('filters by product or food category', async () => {
    expect((await demand(`product_id=${pollo}`)).products.map((p: { product_id: string }) => p.product_id)).toEqual([pollo]);
    const bread = await demand('food_category=prepared_meals');
    expect(bread).toMatchObject({ food_category: 'prepared_meals' });
    expect(bread.products.map((p: { product_id: string }) => p.product_id)).toEqual([pollo]);
    expect((await demand('food_category=fish')).products).toEqual([]);
  });

  it('keeps tenants apart: another establishment or mode sees no sales, and a foreign product is refused', async () => {
    const sibling = await createTenant(t.db, { organizationId: bakery.organizationId });
    const live = await createTenant(t.db, { organizationId: bakery.organizationId, mode: 'live' });
    const stranger = await createTenant(t.db);
    for (const tenant of [sibling, live, stranger]) expect((await demand('', tenant.key)).products).toEqual([]);
    const res = await api(t.app, stranger.key).get(`/api/v1/predict?type=demand&product_id=${croissant}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toEqual([{ path: 'product_id', message: 'no product of this organisation' }]);
  });

  it("aims at the critical ratio of a product's prices, ahead of its waste, and says why", async () => {
    const shop = await createTenant(t.db);
    await importProducts(t.db, {
      org: shop.organizationId,
      csv: 'name;food_category;ean;price;unit_cost;salvage_value\nPalmera;bakery;8410000000047;1,20;0,40;\nTarta;bakery;8410000000054;;;\nQuiche;prepared_meals;8410000000061;;;\n',
    });
    const rows = await t.db.product.findMany({ where: { organization_id: shop.organizationId }, orderBy: { name: 'asc' } });
    expect(rows.map((p) => [p.name, p.price?.toString() ?? null, p.unit_cost?.toString() ?? null])).toEqual([
      ['Palmera', '1.2', '0.4'],
      ['Quiche', null, null],
      ['Tarta', null, null],
    ]);
    const [palmera, quiche, tarta] = rows.map((p) => p.id) as [string, string, string];
    for (let i = HISTORY - 21; i < HISTORY; i++) {
      const res = await api(t.app, shop.key).post('/api/v1/webhooks/inbound', {
        event: 'sales.recorded',
        payload: {
          source: 'tpv',
          sales: [
            { product_id: palmera, quantity: 20 + (i % 7), sold_at: day(i) },
            // Tarta by the slice, three tickets a day: more sale lines than the palmeras, fewer units.
            ...[1, 2, 3].map((slice) => ({ product_id: tarta, quantity: slice + (i % 7) / 3, sold_at: day(i) })),
            // A quiche every other day: the days between, the shop was open and sold none.
            ...(i % 2 === 0 ? [{ product_id: quiche, quantity: 1, sold_at: day(i) }] : []),
          ],
        },
      });
      expect(res.statusCode).toBe(200);
    }
    const d = await demand('horizon=1', shop.key);
    // Best sellers first by what they sell, not by how many sale lines: palmeras, then tarta, then quiche.
    expect(d.products.map((p: { product_name: string }) => p.product_name)).toEqual(['Palmera', 'Tarta', 'Quiche']);
    const of = (id: string) => d.products.find((p: { product_id: string }) => p.product_id === id);
    expect(of(palmera).advice).toMatchObject({
      quantile: 0.67,
      reason: 'aims to cover 67 % of days: a leftover costs €0.40 and a missed sale €0.80',
      prices: { leftover_cost: 0.4, missed_sale_cost: 0.8 },
    });
    // Without prices, the service level the waste decides (none recorded: the default).
    expect(of(tarta).advice).toMatchObject({ quantile: 0.85, waste_share: null, prices: null });
    // Every day the shop sold anything is a day of the quiche's replay, those it sold none included:
    // its series runs from its first sale (day 50) to yesterday (69), replayed from its third day
    // (52): 18 days, 9 of them with a sale (counting only those would give 9 days).
    expect(of(quiche).advice.last_4_weeks).toMatchObject({ days: 18, sold: 9 });
  });

  it("counts today's sales once the establishment's last shift has ended, and says so", async () => {
    const shop = await createTenant(t.db);
    await importProducts(t.db, { org: shop.organizationId, csv: 'name;food_category;ean\nEnsaimada;bakery;8410000000078\n' });
    const [ensaimada] = (await t.db.product.findMany({ where: { organization_id: shop.organizationId } })).map((p) => p.id) as [string];
    for (const [name, start_time, end_time] of [
      ['Mañana', '06:00', '11:30'],
      ['Mediodía', '10:00', '14:30'],
    ]) {
      expect((await api(t.app, shop.key).post('/api/v1/shifts', { name, start_time, end_time })).statusCode).toBe(201);
    }
    // Three weeks of 20 a day up to yesterday; today, a fair: 80 sold, sent once the day is over.
    const send = async (sales: object[]) => {
      const res = await api(t.app, shop.key).post('/api/v1/webhooks/inbound', {
        event: 'sales.recorded',
        payload: { source: 'tpv', sales },
      });
      expect(res.statusCode, res.body).toBe(200);
    };
    await send(Array.from({ length: 21 }, (_, i) => ({ product_id: ensaimada, quantity: 20, sold_at: day(HISTORY - 21 + i) })));

    // 11:00 in Madrid: the day is not over, today is left out.
    const morning = (await demand('horizon=1', shop.key)).products[0];
    expect(morning).toMatchObject({ history_days: 21, points: [{ date: day(HISTORY + 1) }] });
    expect(morning.notes.map((n: { code: string }) => n.code)).not.toContain('today_included');
    // The facts the message says, for a reader to say it in its own language.
    expect(morning.notes).toContainEqual(
      expect.objectContaining({ code: 'today_excluded', closes_at: '14:30', reason: 'not_arrived', basis: 'shifts' }),
    );
    expect(morning.points[0].expected).toBeCloseTo(20, 0);
    try {
      now = new Date('2026-11-24T13:30:00.000Z'); // 14:30 in Madrid: the last shift has just ended
      // ...but the POS has not sent today's sales yet: today is left out, not taken for a day of none.
      const notYet = (await demand('horizon=1', shop.key)).products[0];
      expect(notYet).toMatchObject({ history_days: 21 });
      expect(notYet.points[0].expected).toBe(morning.points[0].expected);
      await send([{ product_id: ensaimada, quantity: 80, sold_at: day(HISTORY) }]);
      const evening = (await demand('horizon=1', shop.key)).products[0];
      expect(evening).toMatchObject({ history_days: 22, points: [{ date: day(HISTORY + 1) }] });
      expect(evening.notes).toContainEqual({
        code: 'today_included',
        message: "today's sales are included: the establishment's day ended at 14:30 (the end of its last shift)",
        closes_at: '14:30',
        reason: 'day_over',
        basis: 'shifts',
      });
      expect(evening.points[0].expected).toBeGreaterThan(morning.points[0].expected);
      // Today's sales in, but at 11:00 the day is not over: they wait.
      now = NOW;
      const early = (await demand('horizon=1', shop.key)).products[0];
      expect(early).toMatchObject({ history_days: 21 });
      expect(early.notes.map((n: { code: string }) => n.code)).not.toContain('today_included');
      expect(early.notes).toContainEqual(
        expect.objectContaining({ code: 'today_excluded', closes_at: '14:30', reason: 'day_not_over', basis: 'shifts' }),
      );
    } finally {
      now = NOW;
    }
  });

  it.each([
    {
      who: 'a bakery with a night bake (22:00–06:00): its day ends with its shop shift, its last sales before it',
      shifts: [
        ['Tienda', '07:00', '20:00'],
        ['Obrador', '22:00', '06:00'],
      ],
      soldAt: '17:30:00Z', // 18:30 in Madrid
      before: '18:59:00Z', // 19:59
      at: '19:00:00Z', // 20:00
      closes: '20:00',
    },
    {
      who: 'a shop without shifts: its day ends a minute after its latest sale of the last 4 weeks',
      shifts: [],
      soldAt: '12:00:00Z', // 13:00 in Madrid
      before: '12:00:30Z', // 13:00:30
      at: '12:01:00Z', // 13:01
      closes: '13:01',
    },
  ])("counts today's sales for $who, and says why either side of it", async ({ shifts, soldAt, before, at, closes }) => {
    const shop = await createTenant(t.db);
    await importProducts(t.db, { org: shop.organizationId, csv: 'name;food_category;ean\nBarra;bakery;8410000000085\n' });
    const [barra] = (await t.db.product.findMany({ where: { organization_id: shop.organizationId } })).map((p) => p.id) as [string];
    for (const [name, start_time, end_time] of shifts) {
      expect((await api(t.app, shop.key).post('/api/v1/shifts', { name, start_time, end_time })).statusCode).toBe(201);
    }
    const send = async (sales: object[]) => {
      const res = await api(t.app, shop.key).post('/api/v1/webhooks/inbound', {
        event: 'sales.recorded',
        payload: { source: 'tpv', sales },
      });
      expect(res.statusCode, res.body).toBe(200);
    };
    await send(Array.from({ length: 21 }, (_, i) => ({ product_id: barra, quantity: 20, sold_at: `${day(HISTORY - 21 + i)}T${soldAt}` })));
    const why =
      'its shifts run past midnight or it has none: the later of the end of its shifts that end the same day and a minute after its latest sale of the last 28 days';
    try {
      now = new Date(`${day(HISTORY)}T${before}`);
      await send([{ product_id: barra, quantity: 80, sold_at: `${day(HISTORY)}T${soldAt}` }]);
      const early = (await demand('horizon=1', shop.key)).products[0];
      expect(early).toMatchObject({ history_days: 21 });
      expect(early.notes).toContainEqual({
        code: 'today_excluded',
        message: `today's sales are not included yet: the establishment's day ends at ${closes} (${why})`,
        closes_at: closes,
        reason: 'day_not_over',
        basis: 'sales',
      });
      now = new Date(`${day(HISTORY)}T${at}`);
      const evening = (await demand('horizon=1', shop.key)).products[0];
      expect(evening).toMatchObject({ history_days: 22 });
      expect(evening.notes).toContainEqual({
        code: 'today_included',
        message: `today's sales are included: the establishment's day ended at ${closes} (${why})`,
        closes_at: closes,
        reason: 'day_over',
        basis: 'sales',
      });
      expect(evening.points[0].expected).toBeGreaterThan(early.points[0].expected);
    } finally {
      now = NOW;
    }
  });

  it("leaves today's sales out for a bar that sells until midnight, and says so", async () => {
    const bar = await createTenant(t.db);
    await importProducts(t.db, { org: bar.organizationId, csv: 'name;food_category;ean\nTapa;prepared_meals;8410000000092\n' });
    const [tapa] = (await t.db.product.findMany({ where: { organization_id: bar.organizationId } })).map((p) => p.id) as [string];
    expect((await api(t.app, bar.key).post('/api/v1/shifts', { name: 'Noche', start_time: '18:00', end_time: '02:00' })).statusCode).toBe(
      201,
    );
    const sales = Array.from({ length: 22 }, (_, i) => ({ product_id: tapa, quantity: 30, sold_at: `${day(HISTORY - 21 + i)}T22:59:00Z` }));
    try {
      now = new Date(`${day(HISTORY)}T22:59:30Z`); // 23:59:30 in Madrid
      const res = await api(t.app, bar.key).post('/api/v1/webhooks/inbound', {
        event: 'sales.recorded',
        payload: { source: 'tpv', sales },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data.sales).toMatchObject({ received: 22, stored: 22 });
      const late = (await demand('horizon=1', bar.key)).products[0];
      expect(late).toMatchObject({ history_days: 21 });
      expect(late.notes).toContainEqual({
        code: 'today_excluded',
        message: expect.stringMatching(/^today's sales are not included: the establishment sells until midnight/),
        closes_at: '24:00',
        reason: 'until_midnight',
        basis: 'sales',
      });
    } finally {
      now = NOW;
    }
  });

  it("leaves today's sales out when nothing tells when the day ends, and says so", async () => {
    const shop = await createTenant(t.db);
    await importProducts(t.db, { org: shop.organizationId, csv: 'name;food_category;ean\nHogaza;bakery;8410000000108\n' });
    const [hogaza] = (await t.db.product.findMany({ where: { organization_id: shop.organizationId } })).map((p) => p.id) as [string];
    // Only a night bake (its shift runs past midnight), and no sale in the last 4 weeks to learn from.
    expect(
      (await api(t.app, shop.key).post('/api/v1/shifts', { name: 'Obrador', start_time: '22:00', end_time: '06:00' })).statusCode,
    ).toBe(201);
    const sales = Array.from({ length: 14 }, (_, i) => ({
      product_id: hogaza,
      quantity: 10,
      sold_at: `${day(HISTORY - 50 + i)}T10:00:00Z`,
    }));
    const res = await api(t.app, shop.key).post('/api/v1/webhooks/inbound', { event: 'sales.recorded', payload: { source: 'tpv', sales } });
    expect(res.statusCode, res.body).toBe(200);
    const p = (await demand('horizon=1', shop.key)).products[0];
    expect(p.notes).toContainEqual({
      code: 'today_excluded',
      message: expect.stringMatching(/^today's sales are not included: the establishment has a shift past midnight or none, and no sales/),
      closes_at: null,
      reason: 'unknown',
      basis: 'none',
    });
  });

  it('needs the predict:read permission', async () => {
    const limited = await createTenant(t.db, { organizationId: bakery.organizationId, permissions: 'inbound:write' });
    expect((await api(t.app, limited.key).get('/api/v1/predict?type=demand')).statusCode).toBe(403);
  });
});
