import { probit } from 'simple-statistics';
import { describe, expect, it } from 'vitest';
import { CHALLENGER_EDGE, forecastChosen, replayChosen, replayTsb } from '../src/modules/predict/choice.js';
import {
  adviceMargin,
  adviceQuantile,
  advisedQuantity,
  conformalQuantile,
  type DayRow,
  type ProductRow,
  pricedQuantile,
  productDemand,
  studentT,
} from '../src/modules/predict/demand.js';
import {
  atLeast,
  backtest,
  fitHoltWinters,
  forecast,
  forecastFromTomorrow,
  meanAbsoluteError,
  replayForecasts,
  seasonalNaive,
  seasonalNaiveBacktest,
} from '../src/modules/predict/model.js';
import { dayClosesAt } from '../src/modules/shifts/service.js';
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
    expect(adviceQuantile(0.2).reason).toBe('20 % of what was made was wasted over the last 4 weeks: the 82 % quantile');
    expect(adviceQuantile(0.123).reason).toBe('12.3 % of what was made was wasted over the last 4 weeks: the 87 % quantile');
    expect(adviceQuantile(null)).toEqual({ quantile: 0.85, reason: 'waste of this product in its sales unit unknown: the 85 % quantile' });
    // The establishment's service level moves the whole rule (±0.10 around it), within 0.05–0.99.
    expect(adviceQuantile(null, 0.6)).toEqual({
      quantile: 0.6,
      reason: "waste of this product in its sales unit unknown: the 60 % quantile, the establishment's service level",
    });
    expect(adviceQuantile(0, 0.6).quantile).toBe(0.7);
    expect(adviceQuantile(0.15, 0.6).quantile).toBe(0.6);
    expect(adviceQuantile(0.3, 0.6)).toEqual({
      quantile: 0.5,
      reason:
        "30 % of what was made was wasted over the last 4 weeks: the 50 % quantile (the establishment's service level, 60 %, lowered for the waste)",
    });
    expect(adviceQuantile(0, 0.95).quantile).toBe(0.99);
    expect(adviceQuantile(0, 0.9).reason).toBe(
      "0 % of what was made was wasted over the last 4 weeks: the 99 % quantile (the establishment's service level, 90 %, raised for the waste)",
    );
  });

  it('says the service level was kept, not raised, when the waste moves the quantile by nothing', () => {
    // 15 % wasted is the middle of the rule: the shift is 0, and the quantile is the level itself.
    expect(adviceQuantile(0.15, 0.6)).toEqual({
      quantile: 0.6,
      reason:
        "15 % of what was made was wasted over the last 4 weeks: the 60 % quantile (the establishment's service level, 60 %, unchanged by the waste)",
    });
    // Either side of it: a little less waste raises the level, a little more lowers it.
    expect(adviceQuantile(0.12, 0.6).reason).toMatch(
      /the 62 % quantile \(the establishment's service level, 60 %, raised for the waste\)$/,
    );
    expect(adviceQuantile(0.18, 0.6).reason).toMatch(
      /the 58 % quantile \(the establishment's service level, 60 %, lowered for the waste\)$/,
    );
  });

  it('aims at the critical ratio (price − cost) / (price − salvage) when the product has a price above its cost, and says why', () => {
    expect(pricedQuantile({ price: 1.2, unit_cost: 0.4, salvage_value: null })).toEqual({
      quantile: 0.67,
      reason: 'aims to cover 67 % of days: a leftover costs €0.40 and a missed sale €0.80',
      prices: { leftover_cost: 0.4, missed_sale_cost: 0.8 },
    });
    // A leftover donated for €0.10 loses less: aim higher, (1.2 − 0.4) / (1.2 − 0.1) = 0.727.
    expect(pricedQuantile({ price: 1.2, unit_cost: 0.4, salvage_value: 0.1 })).toEqual({
      quantile: 0.73,
      reason: 'aims to cover 73 % of days: a leftover costs €0.30 (€0.40 to make, €0.10 recovered) and a missed sale €0.80',
      prices: { leftover_cost: 0.3, missed_sale_cost: 0.8 },
    });
    // A thin margin: prepare for the quiet days. Three times the cost: two days in three.
    expect(pricedQuantile({ price: 1.1, unit_cost: 1, salvage_value: null })?.quantile).toBe(0.09);
    expect(pricedQuantile({ price: 3, unit_cost: 1, salvage_value: null })?.quantile).toBe(0.67);
    // Kept within 0.05..0.99: free to make, or a margin of a cent on a €100 cake.
    expect(pricedQuantile({ price: 2, unit_cost: 0, salvage_value: null })?.quantile).toBe(0.99);
    expect(pricedQuantile({ price: 100.01, unit_cost: 100, salvage_value: null })?.quantile).toBe(0.05);
    // Without both prices, or with nothing to gain: the waste rule decides.
    expect(pricedQuantile({ price: 1.2, unit_cost: null, salvage_value: null })).toBeNull();
    expect(pricedQuantile({ price: null, unit_cost: 0.4, salvage_value: null })).toBeNull();
    expect(pricedQuantile({ price: 1, unit_cost: 1, salvage_value: null })).toBeNull();
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
    // Exactly on a tenth of a kg (or a whole unit) is not rounded up past it.
    expect(advisedQuantity(5, 1.5, 'kg')).toBe(6.5);
    expect(advisedQuantity(50, 9, 'unit')).toBe(59);
    expect(advisedQuantity(0, -3, 'unit')).toBe(0);
  });

  it("takes the conformal index's error, ⌈(n + 1)q⌉-th smallest at a half as well; nothing known, a margin of 0", () => {
    const errors = [9, 2, 14, 5, 11, 1, 7, 13, 4, 10, 3, 12, 6, 8]; // 1 … 14, shuffled
    // (14 + 1) × 0.5 = 7.5: the 8th smallest (the ⌊⌋ of the lower quantiles would take the 7th).
    expect(conformalQuantile(errors, 0.5)).toBe(8);
    expect(conformalQuantile(errors, 0.49)).toBe(7);
    expect(conformalQuantile([], 0.975)).toBe(0);
    expect(conformalQuantile([], 0.025)).toBe(0);
  });

  it('beyond the sample, takes the tail of a normal fitted to the errors: mean ± t(n − 1) · sd · √(1 + 1/n)', () => {
    // Fourteen errors of ±1: mean 0, sample sd √(14/13); (14 + 1) × 0.975 = 14.6 falls beyond them.
    const errors = [1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1];
    const bound = studentT(0.975, 13) * Math.sqrt(14 / 13) * Math.sqrt(1 + 1 / 14);
    // Student's t at 97.5 % with 13 degrees of freedom is 2.1604 (tables): the bound is about 2.32.
    expect(bound / (2.160369 * Math.sqrt(15 / 13))).toBeCloseTo(1, 2);
    expect(conformalQuantile(errors, 0.975)).toBeCloseTo(bound, 12);
    expect(conformalQuantile(errors, 0.025)).toBeCloseTo(-bound, 12);
    // One error: no spread to fit (not a division by n − 1 = 0), the error itself on both sides.
    expect(conformalQuantile([5], 0.975)).toBe(5);
    expect(conformalQuantile([5], 0.025)).toBe(5);
    // Never inside the sample's extreme: thirteen errors of 0 and one of 30 (mean 15/7, sample
    // variance 450/7) fit a tail that reaches only about 20 above: the 30 observed is kept. Below,
    // the fitted tail, about −15.7, is beyond the 0 observed.
    const skewed = [...new Array<number>(13).fill(0), 30];
    const spread = Math.sqrt(450 / 7) * Math.sqrt(1 + 1 / 14);
    expect(15 / 7 + studentT(0.975, 13) * spread).toBeLessThan(21);
    expect(conformalQuantile(skewed, 0.975)).toBe(30);
    expect(conformalQuantile(skewed, 0.025)).toBeCloseTo(15 / 7 + studentT(0.025, 13) * spread, 12);
    expect(conformalQuantile(skewed, 0.025)).toBeCloseTo(-15.75, 1);
  });

  it("approximates Student's t by the Cornish–Fisher expansion, the normal's quantile under 1 degree of freedom", () => {
    // z is the normal quantile the code uses (simple-statistics' probit: 1.9572 at 97.5 %, the exact
    // value being 1.95996), so that the expansion is checked to its last digits.
    const z = probit(0.975);
    expect(z).toBeCloseTo(1.96, 2);
    const expansion = (df: number) => z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2);
    expect(studentT(0.975, 0)).toBe(z);
    expect(studentT(0.975, 0.5)).toBe(z);
    // From 1 degree of freedom on, the expansion (at 1 far from the exact 12.71: it is not used there):
    // 1.9572 + (7.4969 + 1.9572) / 4 + (143.58 + 119.95 + 5.8715) / 96 = 7.1270.
    expect(studentT(0.975, 1)).toBeCloseTo(expansion(1), 12);
    expect(studentT(0.975, 1)).toBeCloseTo(7.127, 3);
    expect(studentT(0.975, 4)).toBeCloseTo(expansion(4), 12);
    expect(studentT(0.025, 4)).toBeCloseTo(-expansion(4), 12);
    // Within 0.3 % of the tables from 10 degrees of freedom: 2.2281 (10), 2.0423 (30), 1.7247 (20, at 95 %).
    expect(Math.abs(studentT(0.975, 10) / 2.228139 - 1)).toBeLessThan(0.003);
    expect(Math.abs(studentT(0.975, 30) / 2.042272 - 1)).toBeLessThan(0.003);
    expect(Math.abs(studentT(0.95, 20) / 1.724718 - 1)).toBeLessThan(0.003);
  });

  it('replays forecasts as made the evening before: each day from the days up to two before it', () => {
    const r = rng(3);
    const y = Array.from({ length: 84 }, (_, t) => (WEEKDAY[t % 7] as number) + (r() - 0.5) * 10);
    const steps = replayForecasts(y, 56);
    expect(steps).toHaveLength(28);
    // Fitted again every week on what its evening knew: days 56–62 on the 55 values known the
    // evening before day 56, days 63–69 on 62 (the search starting from the week before's fit)…
    const first = fitHoltWinters(y.slice(0, 55));
    const second = fitHoltWinters(y.slice(0, 62), {}, first);
    expect(steps.every((s) => s.seasonal)).toBe(true);
    expect(steps.slice(0, 7).map((s) => s.sigma)).toEqual(Array(7).fill(first.sigma));
    expect(steps.slice(7, 14).map((s) => s.sigma)).toEqual(Array(7).fill(second.sigma));
    expect(second.sigma).not.toBe(first.sigma);
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

describe('the forecasting model, exactly', () => {
  // Trend and weekly season with no noise, in integers (so every step is exact in floating point):
  // the model's own form, which it must learn from its first week and then forecast without error.
  const SEASONALS = [3, -1, 0, 2, -4, 1, -1]; // they add up to 0, as the model's weekday effects do
  const exact = (t: number) => 20 + t + (SEASONALS[t % 7] as number);
  const y = Array.from({ length: 28 }, (_, t) => exact(t));

  it('learns a series of its own form without error, and forecasts its continuation with no interval', () => {
    const fit = fitHoltWinters(y);
    expect(fit.sse).toBeCloseTo(0, 9);
    expect(fit.sigma).toBeCloseTo(0, 6);
    expect(fit.level).toBeCloseTo(20 + 27, 9); // the trend line at the last day
    expect(fit.trend).toBeCloseTo(1, 9);
    for (const [i, s] of SEASONALS.entries()) expect(fit.seasonals[i], `weekday ${i}`).toBeCloseTo(s, 9);
    const f = forecast(y, 10);
    expect(f.method).toMatch(/^holt-winters additive, weekly season \(alpha [\d.]+, beta [\d.]+, gamma [\d.]+\)$/);
    f.values.forEach((v, h) => {
      expect(v, `step ${h + 1}`).toBeCloseTo(exact(28 + h), 6);
      expect(f.lower[h], `step ${h + 1}`).toBeCloseTo(v, 6);
      expect(f.upper[h], `step ${h + 1}`).toBeCloseTo(v, 6);
    });
  });

  it('uses the weekly model from 14 days of history on, and the recent mean below', () => {
    expect(forecast(y.slice(0, 14), 3).method).toMatch(/^holt-winters/);
    expect(forecast(y.slice(0, 14), 3).values[0]).toBeCloseTo(exact(14), 6);
    expect(forecast(y.slice(0, 13), 3).method).toBe('mean of the last 7 days (fewer than 14 days of history)');
  });

  it('gives sigma as the root mean square of the one-step errors after the first week, and intervals of 1.96 sigma widening with alpha', () => {
    const noisy = series(56, 11, 3);
    const fit = fitHoltWinters(noisy);
    // The one-step errors are replayed from the fit's own constants: the fit must equal its definition.
    expect(fit.sigma).toBeCloseTo(Math.sqrt(fit.sse / (noisy.length - 7)), 12);
    expect(fit.sigma).toBeGreaterThan(1);
    const f = forecast(noisy, 5);
    expect(f.method).toBe(`holt-winters additive, weekly season (alpha ${fit.alpha}, beta ${fit.beta}, gamma ${fit.gamma})`);
    f.values.forEach((v, i) => {
      const h = i + 1;
      const width = 1.96 * fit.sigma * Math.sqrt(1 + (h - 1) * fit.alpha ** 2);
      expect(v).toBeCloseTo(fit.level + h * fit.trend + (fit.seasonals[(noisy.length + h - 1) % 7] as number), 9);
      expect((f.upper[i] as number) - v, `step ${h}`).toBeCloseTo(width, 9);
      expect(v - (f.lower[i] as number), `step ${h}`).toBeCloseTo(width, 9);
    });
  });

  it('follows a change of slope and a shift of level within a week (the smoothing constants chosen for it)', () => {
    const weekly = (t: number) => SEASONALS[t % 7] as number;
    const cases = [
      // Flat for four weeks, then 2 kg more every day: a model that kept the old trend misses by 5 kg a day and more.
      { change: (t: number) => 40 + (t < 28 ? 0 : 2 * (t - 28)) + weekly(t), within: 1.5 },
      // 20 kg more from the fifth week on.
      { change: (t: number) => 40 + (t < 28 ? 0 : 20) + weekly(t), within: 4 },
    ];
    for (const { change, within } of cases) {
      const known = Array.from({ length: 49 }, (_, t) => change(t));
      const next = Array.from({ length: 7 }, (_, h) => change(49 + h));
      expect(meanAbsoluteError(next, forecast(known, 7).values)).toBeLessThan(within);
    }
  });

  it('falls back to the mean and sample standard deviation of the last 7 days, none below 0', () => {
    const f = forecast([9, 9, 9, 4, 6, 5, 5, 4, 6, 5], 2); // the last 7: mean 5, squares 0+1+1+0+0+1+1 = 4 over 6
    const sd = Math.sqrt(4 / 6);
    expect(f.values).toEqual([5, 5]);
    expect(f.lower[0]).toBeCloseTo(5 - 1.96 * sd, 12);
    expect(f.upper[1]).toBeCloseTo(5 + 1.96 * sd, 12);
    // One day known: its value is its own spread; nothing known: 0.
    expect(forecast([4], 1)).toEqual({
      method: 'mean of the last 1 days (fewer than 14 days of history)',
      values: [4],
      lower: [0],
      upper: [4 + 1.96 * 4],
    });
    expect(forecast([], 1)).toMatchObject({ values: [0], lower: [0], upper: [0] });
  });

  it('forecasts from tomorrow: step 1 of the model (today) left out', () => {
    const today = forecast(y, 4);
    const fromTomorrow = forecastFromTomorrow(y, 3);
    expect(fromTomorrow).toEqual({
      method: today.method,
      values: today.values.slice(1),
      lower: today.lower.slice(1),
      upper: today.upper.slice(1),
    });
  });

  it('seasonal naive repeats the same weekday of the last week, and 0 for days it does not know', () => {
    const days = Array.from({ length: 14 }, (_, t) => t + 1);
    expect(seasonalNaive(days, 9)).toEqual([8, 9, 10, 11, 12, 13, 14, 8, 9]);
    expect(seasonalNaive([1, 2], 7)).toEqual([0, 0, 0, 0, 0, 1, 2]);
  });

  it('backtests on the last days held out, from 14 days of history before them on', () => {
    const line = Array.from({ length: 30 }, (_, t) => t); // 1 kg more every day, no weekly pattern
    // Same weekday last week: 7 kg short in the first held-out week, 14 kg in the second.
    expect(seasonalNaiveBacktest(line, 14)).toBe(10.5);
    expect(seasonalNaiveBacktest(line.slice(0, 28), 14)).toBe(10.5);
    expect(seasonalNaiveBacktest(line.slice(0, 27), 14)).toBeNull();
    const longer = Array.from({ length: 33 }, (_, t) => exact(t));
    expect(backtest(longer, 14)).toBeCloseTo(0, 6);
    expect(backtest(longer, 14)).toBe(meanAbsoluteError(longer.slice(-14), forecast(longer.slice(0, -14), 14).values));
    // 14 days held out from 28: exactly enough history (14 days) before them.
    expect(backtest(y, 14)).not.toBeNull();
    expect(backtest(y, 14)).toBeCloseTo(0, 6);
    expect(backtest(y.slice(1), 14)).toBeNull();
    expect(meanAbsoluteError([1, 2, 3], [2, 2])).toBe((1 + 0 + 3) / 3);
  });

  it('replays the first day of the weekly model as the forecast made that evening, and the days before it from the mean and spread known', () => {
    const noisy = series(70, 5, 3);
    const steps = replayForecasts(noisy, 42);
    // Day 42 was forecast on the evening of day 40, from days 0–40: step 2 of a forecast from them.
    expect(steps[0]?.value).toBe(forecast(noisy.slice(0, 41), 2).values[1]);
    expect(steps).toHaveLength(28);
    const short = replayForecasts([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 2);
    // Day 2 from day 0 alone (its value is its spread); day 8 from days 0–6: mean 4, sample sd of 1…7.
    expect(short[0]).toEqual({ value: 1, seasonal: false, sigma: 1 });
    expect(short[6]?.value).toBe(4);
    expect(short[6]?.sigma).toBeCloseTo(Math.sqrt(28 / 6), 12);
    expect(short).toHaveLength(8);
  });
});

describe('one product, pure (productDemand)', () => {
  const day = (i: number) => new Date(Date.UTC(2026, 8, 1 + i)).toISOString().slice(0, 10);
  const product: ProductRow = {
    id: 'p',
    name: 'Tarta de cumpleaños',
    food_category: 'bakery',
    unit_weight_kg: null,
    lines: 0,
    price: null,
    unit_cost: null,
    salvage_value: null,
  };
  // A cake sold one day in three, in a shop open every day: most days its demand is 0.
  const DAYS = 84;
  const sales: DayRow[] = [];
  for (let i = 0; i < DAYS; i++) if (i % 3 === 0) sales.push({ product_id: 'p', day: day(i), units: 1, kg: 0 });
  const today = day(DAYS);
  const open = new Set(Array.from({ length: DAYS }, (_, i) => day(i)));

  it('counts a day the shop was open and the product sold nothing as a demand of 0, not as a closed day', () => {
    const known = productDemand(product, sales, new Map(), { today, horizon: 1, openDays: open });
    expect(known.advice.last_4_weeks.days).toBe(28);
    // Its errors include the days it sold nothing (forecast above the sales): the interval goes below the forecast.
    const point = known.points[0];
    expect(point?.lower).toBeLessThan((point?.expected ?? 0) - 0.1);
    // Without the shop's open days, only the days it sold count: every past error is a sale the
    // forecast fell short of, and the interval (made from those errors) starts at the forecast.
    const unknown = productDemand(product, sales, new Map(), { today, horizon: 1 });
    expect(unknown.advice.last_4_weeks.days).toBe(9);
    expect(unknown.points[0]?.lower).toBe(unknown.points[0]?.expected);
  });

  it('backtests on a rolling origin beside same-day-last-week and the 7-day average, made the same evening', () => {
    // Twenty weeks of the same week exactly: same-day-last-week is never wrong; the 7-day average
    // is off by each weekday's distance from the week's mean, 148.57 / 7 = 21.224 on average.
    const weekly: DayRow[] = Array.from({ length: 140 }, (_, i) => ({
      product_id: 'p',
      day: day(i),
      units: WEEKDAY[(new Date(`${day(i)}T12:00:00Z`).getUTCDay() + 7) % 7] as number,
      kg: 0,
    }));
    const all = new Set(weekly.map((r) => r.day));
    const { backtest } = productDemand(product, weekly, new Map(), { today: day(140), horizon: 1, openDays: all });
    expect(backtest).toMatchObject({ metric: 'mae', days: 56, seasonal_naive: 0, seven_day_average: 21.224, mase: null });
    expect(backtest.value).toBeLessThan(1);
  });

  it('draws the 95 % interval from the past day-ahead errors once there are 14 of them', () => {
    // Alternating 8 and 12 a day around 10: the errors are about ±2, the interval about 10 ± 2.
    const steady: DayRow[] = Array.from({ length: DAYS }, (_, i) => ({ product_id: 'p', day: day(i), units: i % 2 ? 12 : 8, kg: 0 }));
    const point = productDemand(product, steady, new Map(), { today, horizon: 1, openDays: open }).points[0];
    expect(point?.expected).toBeGreaterThan(9);
    expect(point?.expected).toBeLessThan(11);
    expect((point?.upper ?? 0) - (point?.lower ?? 0)).toBeGreaterThan(3);
    expect((point?.upper ?? 0) - (point?.lower ?? 0)).toBeLessThan(6);
  });
});

describe('the model chosen per product (choice.ts)', () => {
  // A bakery's week whose level swings every few days (weather, events) with large noise: the
  // weekday average steadies what Holt-Winters' smoothing chases.
  const swinging = (seed: number) => {
    const r = rng(seed);
    return Array.from({ length: 150 }, (_, t) => (WEEKDAY[t % 7] as number) * (1 + 0.3 * Math.sin(t / 3)) + (r() - 0.5) * 30);
  };
  const everyDay = () => true;

  it('keeps Holt-Winters where it forecasts best, and says why', () => {
    // A steady trend: the weekday average lags it by weeks.
    const r = rng(7);
    const y = Array.from({ length: 150 }, (_, t) => (WEEKDAY[t % 7] as number) + t * 0.5 + (r() - 0.5) * 6);
    const { next } = replayChosen(y, 94, 1, {}, everyDay);
    expect(next.model).toBe('holt-winters');
    expect(next.days).toBe(56);
    expect(next.mae.combined).toBeGreaterThan(2 * (next.mae['holt-winters'] as number));
    // TSB competes only for intermittent sellers: this one sells every day.
    expect(next.mae.tsb).toBeNull();
    const f = forecastChosen(y, 3, {}, next);
    expect(f.method).toMatch(/^holt-winters additive.*; chosen by the day-ahead error over the last 56 open days: Holt-Winters \d/);
  });

  it('chooses the combination with the weekday average where it is clearly better, and forecasts with it', () => {
    const y = swinging(4);
    const { next } = replayChosen(y, 94, 1, {}, everyDay);
    expect(next.model).toBe('combined');
    expect(next.mae.combined as number).toBeLessThan((next.mae['holt-winters'] as number) * (1 - CHALLENGER_EDGE));
    const f = forecastChosen(y, 7, {}, next);
    expect(f.method).toMatch(/^mean of Holt-Winters and the average of the same weekday over the last 4 open weeks; chosen/);
    // Tomorrow is day 150: the last 4 of its weekday are days 143, 136, 129 and 122.
    const weekday = [(y[143] as number) + (y[136] as number) + (y[129] as number) + (y[122] as number)].map((v) => v / 4)[0] as number;
    const hw = forecast(y, 7).values[0] as number;
    expect(f.values[0]).toBeCloseTo((hw + weekday) / 2, 6);
    expect(f.lower[0]).toBeLessThan(f.values[0] as number);
    expect(f.upper[0]).toBeGreaterThan(f.values[0] as number);
  });

  it('keeps Holt-Winters when a challenger is better by less than the edge (noise)', () => {
    const { next } = replayChosen(swinging(48), 94, 1, {}, everyDay);
    const ratio = (next.mae.combined as number) / (next.mae['holt-winters'] as number);
    expect(ratio).toBeLessThan(1);
    expect(ratio).toBeGreaterThan(1 - CHALLENGER_EDGE);
    expect(next.model).toBe('holt-winters');
  });

  it('waits for 14 scored days, and scores only the days it is told (open, not sold out)', () => {
    const y = swinging(12);
    // Only 13 days of the last 56 may be scored: too few to leave Holt-Winters.
    const few = replayChosen(y, 94, 1, {}, (t) => t >= 137);
    expect(few.next).toMatchObject({ model: 'holt-winters', days: 13, mae: { 'holt-winters': null, combined: null, tsb: null } });
    expect(replayChosen(y, 94, 1, {}, (t) => t >= 136).next.days).toBe(14);
  });

  it('replays each day with the model chosen the evening before, from what was known then', () => {
    const y = swinging(12);
    const { steps } = replayChosen(y, 94, 2, {}, everyDay);
    expect(steps).toHaveLength(56);
    // Changing day 120 changes nothing the evenings before it knew: the forecasts of days up to 121
    // (made from the days up to 119).
    const changed = [...y];
    changed[120] = 900;
    const again = replayChosen(changed, 94, 2, {}, everyDay).steps;
    expect(again.slice(0, 122 - 94).map((s) => s.value)).toEqual(steps.slice(0, 122 - 94).map((s) => s.value));
    expect(again[122 - 94]?.value).not.toBe(steps[122 - 94]?.value);
  });

  it('lets TSB compete for an intermittent seller, and its chance of selling decays when sales stop', () => {
    const r = rng(7);
    const rare = Array.from({ length: 150 }, () => (r() < 0.25 ? 8 + Math.round(r() * 4) : 0));
    const { next } = replayChosen(rare, 94, 1, {}, everyDay);
    expect(next.mae.tsb).not.toBeNull();
    // Sold 10 every day, then nothing: Croston's method would go on forecasting 10; TSB falls.
    const stopped = [...new Array<number>(100).fill(10), ...new Array<number>(30).fill(0)];
    const values = replayTsb(stopped, 100, 1).map((s) => s.value);
    expect(values[0]).toBeCloseTo(10, 6);
    for (let i = 1; i < values.length; i++) expect(values[i]).toBeLessThan(values[i - 1] as number);
    expect(values.at(-1)).toBeLessThan(6);
  });
});

describe('the end of the working day', () => {
  it('is the latest end of the shifts, or none without shifts or with one past midnight', () => {
    expect(dayClosesAt([])).toBeNull();
    expect(
      dayClosesAt([
        { start_time: '06:00', end_time: '14:30' },
        { start_time: '07:00', end_time: '12:00' },
      ]),
    ).toBe('14:30');
    expect(
      dayClosesAt([
        { start_time: '06:00', end_time: '14:30' },
        { start_time: '22:00', end_time: '06:00' },
      ]),
    ).toBeNull();
  });

  it('replays a day from the day before it once days are complete, from two days before otherwise', () => {
    const y = [10, 20, 30, 40, 50];
    // Under 14 days: the mean of what was known the evening before.
    expect(replayForecasts(y, 2, 1).map((s) => s.value)).toEqual([15, 20, 25]);
    expect(replayForecasts(y, 2).map((s) => s.value)).toEqual([10, 15, 20]);
  });
});

describe('atLeast: the demand expected given it was at least the sales of a sold-out day', () => {
  it('is the normal mean truncated at the floor: above both, and the mean itself far below the floor', () => {
    // At the mean: the half-normal's mean, √(2/π) ≈ 0.798 spreads above.
    expect(atLeast(0, 1, 0)).toBeCloseTo(0.798, 2);
    // A floor far under the mean changes almost nothing; far over it, a little more than the floor.
    expect(atLeast(10, 2, 5)).toBeCloseTo(10.035, 2);
    expect(atLeast(0, 1, 4)).toBeCloseTo(4.25, 2);
    // Without a spread: the larger of the two.
    expect(atLeast(7, 0, 9)).toBe(9);
    for (const [mean, spread, floor] of [
      [50, 5, 40],
      [50, 5, 50],
      [50, 5, 60],
      [50, 5, 80],
    ] as const) {
      const v = atLeast(mean, spread, floor);
      expect(v).toBeGreaterThanOrEqual(floor);
      expect(v).toBeGreaterThanOrEqual(mean);
    }
  });
});
