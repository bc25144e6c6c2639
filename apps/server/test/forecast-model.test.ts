import { describe, expect, it } from 'vitest';
import { adviceMargin, adviceQuantile, advisedQuantity } from '../src/modules/predict/demand.js';
import { backtest, fitHoltWinters, forecast, meanAbsoluteError, replayForecasts, seasonalNaive } from '../src/modules/predict/model.js';
import { rng, series } from './series.js';

/**
 * The forecasting model (Holt-Winters, predict/model.ts) and the production advice built on it
 * (predict/demand.ts), as pure functions on synthetic series; predict.test.ts and demand.test.ts
 * test them through the API.
 */

// Croissants sold by weekday (Sunday first): a bakery's week, busy at the weekend.
const WEEKDAY = [90, 35, 30, 35, 40, 60, 85];

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

describe('production advice, pure', () => {
  it('chooses the quantile from the waste share, from 0.95 (none) down to 0.75 (30 % or more)', () => {
    expect(adviceQuantile(0).quantile).toBe(0.95);
    expect(adviceQuantile(0.15).quantile).toBe(0.85);
    expect(adviceQuantile(0.2).quantile).toBe(0.82);
    expect(adviceQuantile(0.3).quantile).toBe(0.75);
    expect(adviceQuantile(0.7).quantile).toBe(0.75);
    expect(adviceQuantile(0.2).reason).toMatch(/20 % of what was made was wasted/);
    expect(adviceQuantile(null)).toMatchObject({ quantile: 0.85, reason: expect.stringMatching(/unknown/) });
  });

  it('sets the margin from past errors once there are 14, else from a normal error; rounds up, never negative', () => {
    // Too few errors: the normal quantile, 0.8416 × sigma 10 for the 80 % quantile.
    expect(adviceMargin([1, 2], 10, 0.8)).toBeCloseTo(8.416, 2);
    expect(adviceMargin([4, 5, 6, 7, 8, 9, 10, 4, 5, 6, 7, 8, 9], 10, 0.8)).toBeCloseTo(8.416, 2);
    // Enough: their own quantile, bias included (the model misses by 4 to 10 here).
    expect(adviceMargin([4, 5, 6, 7, 8, 9, 10, 4, 5, 6, 7, 8, 9, 10], 1, 0.5)).toBe(7);
    expect(advisedQuantity(50, 8.416, 'unit')).toBe(59);
    expect(advisedQuantity(50, 0, 'unit')).toBe(50);
    expect(advisedQuantity(5, 1.62, 'kg')).toBe(6.7);
    expect(advisedQuantity(0, -3, 'unit')).toBe(0);
  });

  it('replays forecasts as made the evening before: each day from the days up to two before it', () => {
    const r = rng(3);
    const y = Array.from({ length: 84 }, (_, t) => (WEEKDAY[t % 7] as number) + (r() - 0.5) * 10);
    const steps = replayForecasts(y, 56);
    expect(steps).toHaveLength(28);
    expect(steps.every((s) => s.seasonal && s.sigma === fitHoltWinters(y.slice(0, 55)).sigma)).toBe(true);
    // Changing day 70 changes the forecasts of day 72 on, never of day 71 (its evening did not
    // know day 70 yet) or before.
    const changed = [...y];
    changed[70] = 500;
    const again = replayForecasts(changed, 56).map((s) => s.value);
    expect(again.slice(0, 16)).toEqual(steps.slice(0, 16).map((s) => s.value));
    expect(again[16]).not.toBe(steps[16]?.value);
    // Under 14 days known: the mean of the (up to) 7 known; the weekly model from the 16th day.
    const short = replayForecasts([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17], 8);
    expect(short.map((s) => s.seasonal)).toEqual([false, false, false, false, false, false, false, true, true]);
    expect(short.slice(0, 2).map((s) => s.value)).toEqual([4, 5]);
  });
});
