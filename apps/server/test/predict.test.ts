import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createTenant, recordAt, startTestApp, type Tenant, type TestContext } from './helpers.js';
import { series } from './series.js';

describe('GET /api/v1/predict', () => {
  let t: TestContext;
  let tenant: Tenant;
  const NOW = new Date('2026-06-01T10:00:00.000Z');
  beforeAll(async () => {
    t = await startTestApp({ clock: () => NOW });
    tenant = await createTenant(t.db);
    const y = series(56, 42);
    for (const [i, kg] of y.entries()) {
      const day = new Date(Date.UTC(2026, 4, 31 - (55 - i), 10));
      await recordAt(t.db, tenant, day.toISOString(), { weight_kg: Math.round(kg * 1000) / 1000, food_category: 'prepared_meals' });
    }
  });
  afterAll(() => t?.close());

  it('forecasts the next days with intervals, the method and a backtest error', async () => {
    const res = await api(t.app, tenant.key).get('/api/v1/predict?horizon=10');
    expect(res.statusCode).toBe(200);
    const d = res.json().data;
    expect(d).toMatchObject({ type: 'waste', food_category: null, history_days: 56, generated_at: NOW.toISOString() });
    expect(d.method).toMatch(/holt-winters/);
    expect(d.points).toHaveLength(10);
    expect(d.points[0].date).toBe('2026-06-02');
    // The weekly pattern lands on its weekdays: the series' highest effect falls on Saturdays and
    // its lowest on Sundays (its last day, 31 May 2026, was a Sunday).
    const byKg = [...d.points].sort((a: { predicted_kg: number }, b: { predicted_kg: number }) => b.predicted_kg - a.predicted_kg);
    expect(byKg[0].date).toBe('2026-06-06');
    expect(byKg.at(-1).date).toBe('2026-06-07');
    for (const p of d.points) expect(p.lower <= p.predicted_kg && p.predicted_kg <= p.upper).toBe(true);
    expect(d.backtest.metric).toBe('mae');
    expect(d.backtest.value).toBeLessThan(3);
  });

  it('defaults to 7 days and filters by category', async () => {
    const d = (await api(t.app, tenant.key).get('/api/v1/predict?food_category=meat')).json().data;
    expect(d).toMatchObject({ food_category: 'meat', history_days: 0, backtest: { value: null } });
    expect(d.points).toHaveLength(7);
    expect(d.points.every((p: { predicted_kg: number }) => p.predicted_kg === 0)).toBe(true);
  });

  it.each([
    'horizon=0',
    'horizon=29',
    'horizon=abc',
    'type=sales',
    'food_category=candy',
    'product_id=6ccf7d29-f6d9-403d-a9b0-2f907f15477b',
    'type=demand&product_id=bread',
    'type=demand&horizon=29',
  ])('refuses %s with 400', async (qs) => {
    const res = await api(t.app, tenant.key).get(`/api/v1/predict?${qs}`);
    expect(res.statusCode).toBe(400);
    if (qs.startsWith('product_id')) expect(res.json().details).toEqual([{ path: 'product_id', message: 'use type=demand for a product' }]);
  });
});
