import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backtest, forecast, meanAbsoluteError, seasonalNaive } from '../src/modules/predict/model.js';
import { api, createTenant, recordAt, startTestApp, type Tenant, type TestContext } from './helpers.js';

/** A seeded generator, so the synthetic series is the same on every run. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}
const WEEK = [6, 0, -3, 2, 9, 14, -8]; // weekday effects in kg
function series(days: number, seed: number, noise = 2): number[] {
  const r = rng(seed);
  return Array.from({ length: days }, (_, t) => 25 + 0.04 * t + (WEEK[t % 7] as number) + (r() - 0.5) * 2 * noise);
}

describe('the forecasting model', () => {
  it.each([1, 2, 3, 4, 5])('beats the seasonal-naive baseline on a weekly series (seed %d), rolling origin', (seed) => {
    const y = series(168, seed);
    let ours = 0;
    let naive = 0;
    for (const origin of [84, 98, 112, 126, 140, 154]) {
      const train = y.slice(0, origin);
      const actual = y.slice(origin, origin + 14);
      ours += meanAbsoluteError(actual, forecast(train, 14).values);
      naive += meanAbsoluteError(actual, seasonalNaive(train, 14));
    }
    expect(ours).toBeLessThan(naive);
    expect(ours / 6).toBeLessThan(1.6); // uniform noise of ±2 kg has a mean absolute value of 1
  });

  it('falls back to a recent mean with under 14 days', () => {
    const f = forecast([4, 6, 5, 5, 4, 6, 5, 5, 4, 6], 3);
    expect(f.method).toMatch(/mean of the last 7 days/);
    expect(f.values).toEqual([5, 5, 5]);
    expect(f.lower[0]).toBeLessThan(5);
    expect(f.upper[0]).toBeGreaterThan(5);
    expect(backtest([1, 2, 3], 14)).toBeNull();
  });

  it('never predicts negative kg and widens intervals with the horizon', () => {
    expect(
      forecast(
        series(60, 9, 6).map((v) => v - 40),
        28,
      ).values.every((v) => v >= 0),
    ).toBe(true);
    const f = forecast(series(60, 9, 6), 28);
    const width = (h: number) => (f.upper[h] as number) - (f.lower[h] as number);
    expect(width(27)).toBeGreaterThan(width(0));
  });
});

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
