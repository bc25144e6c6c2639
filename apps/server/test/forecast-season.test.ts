import { describe, expect, it } from 'vitest';
import { replayChosen } from '../src/modules/predict/choice.js';
import {
  advisedQuantity,
  conformalQuantile,
  type DayRow,
  type ProductRow,
  pricedQuantile,
  productDemand,
} from '../src/modules/predict/demand.js';
import { forecast } from '../src/modules/predict/model.js';
import { rng } from './series.js';

/**
 * The demand forecast through a season (predict/model.ts, predict/demand.ts), as pure functions on
 * generated series: weekday effects that shrink with the level, margins that shrink with the
 * forecast, closed days learnt from the whole establishment's sales, the conformal index for the
 * quantiles of past errors, sold-out days left out of the margins on both sides, and the last 4
 * weeks set against the 7-day average.
 */

/** Day `i` from Sunday 1 March 2026: index `i % 7` is the weekday, Sunday 0. */
const day = (i: number) => new Date(Date.UTC(2026, 2, 1 + i)).toISOString().slice(0, 10);
const SUNDAY = 0;
const SATURDAY = 6;

/** A standard normal draw from two uniform ones (Box-Muller). */
const normal = (r: () => number) => Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());

const product: ProductRow = {
  id: 'p',
  name: 'Napolitana',
  food_category: 'bakery',
  unit_weight_kg: null,
  lines: 0,
  price: null,
  unit_cost: null,
  salvage_value: null,
};
// Sold at 3 × its cost and worth nothing the next day: the advice aims at its 67 % quantile.
const priced: ProductRow = { ...product, price: 1.2, unit_cost: 0.4 };
const rows = (y: readonly number[]): DayRow[] => y.map((units, i) => ({ product_id: 'p', day: day(i), units, kg: 0 }));
const everyDay = (days: number) => new Set(Array.from({ length: days }, (_, i) => day(i)));

// The end of a season: Sundays sell 1.8 times the level, Mondays 0.6 (the factors average 1);
// the level is 60 for 14 weeks, then falls by two thirds over the last 6 (to 20 on day 140 on).
const FACTORS = [1.8, 0.6, 0.7, 0.8, 0.9, 1.0, 1.2];
const SEASON_DAYS = 140;
const level = (t: number) => (t < 98 ? 60 : t < 140 ? 60 - (40 * (t - 98)) / 42 : 20);
/** Whole units sold: the level × the weekday's factor, with noise of a count's spread (its square root). */
function endOfSeason(seed: number): number[] {
  const r = rng(seed);
  return Array.from({ length: SEASON_DAYS }, (_, t) => {
    const mean = level(t) * (FACTORS[t % 7] as number);
    return Math.max(0, Math.round(mean + Math.sqrt(mean) * normal(r)));
  });
}

describe('weekday effects that follow a falling level', () => {
  it.each([1, 2, 3, 4, 5].map((seed) => ({ seed })))(
    'forecasts the next Sunday and Monday within 20 % of level × factor (seed $seed)',
    ({ seed }) => {
      const y = endOfSeason(seed);
      // Day 140 is a Sunday, 141 a Monday: 20 × 1.8 = 36 and 20 × 0.6 = 12.
      const f = forecast(y, 2);
      const [sunday, monday] = f.values as [number, number];
      expect(Math.abs(sunday / (20 * (FACTORS[SUNDAY] as number)) - 1)).toBeLessThan(0.2);
      expect(Math.abs(monday / (20 * (FACTORS[1] as number)) - 1)).toBeLessThan(0.2);
      // Its weekday effects were fitted both ways: the factors had the least error.
      expect(f.method).toMatch(/^holt-winters multiplicative/);
    },
  );
});

describe('margins that scale with the forecast', () => {
  const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8];
  const mean = (v: readonly number[]) => v.reduce((a, b) => a + b, 0) / v.length;
  /** Tomorrow's point when today is day `n` (the days before it known), for the priced product. */
  const tomorrow = (y: readonly number[], n: number) => {
    const point = productDemand(priced, rows(y.slice(0, n)), new Map(), { today: day(n), horizon: 1, openDays: everyDay(n) }).points[0];
    if (!point) throw new Error('no point');
    return { expected: point.expected, margin: point.advised - point.expected, above: point.upper - point.expected };
  };

  it('the 97.5 % bound above tomorrow narrows with the level: at the end of the season, under 0.7 × its width 8 weeks before', () => {
    // Tomorrow is a Monday both times: day 141 (level 20) and day 85 (level 60, the season's high).
    // The bound is the 97.5 % conformal quantile of past errors over the root of their forecast,
    // times the root of tomorrow's: about √(1/3) = 0.58 of the high's. Errors in units make it the
    // largest error of the last 8 weeks, most of them made at the high: 0.90 on average.
    const ratios = SEEDS.map((seed) => {
      const y = endOfSeason(seed);
      return tomorrow(y, SEASON_DAYS).above / tomorrow(y, SEASON_DAYS - 56).above;
    });
    expect(mean(ratios)).toBeLessThan(0.7);
  });

  it("the advice's margin for a Sunday is about √3 times a Monday's (its forecast is three times larger)", () => {
    // At the season's high (no lag of a falling level in the errors): tomorrow a Sunday (about 108)
    // or a Monday (about 36), each from the 56 errors known that evening. A margin in units would
    // be the same for both (a ratio of 1.04 on average); scaled by the forecast's root, 1.58.
    const ratios = SEEDS.map((seed) => {
      const y = endOfSeason(seed);
      const sunday = tomorrow(y, 83);
      const monday = tomorrow(y, 84);
      expect(sunday.expected / monday.expected).toBeGreaterThan(2.5);
      return sunday.margin / monday.margin;
    });
    expect(mean(ratios)).toBeGreaterThan(1.35);
    // The 97.5 % bound (not rounded to whole units) scales by the root of the forecasts' ratio at
    // the end of the season as well: 37 against 11, √3.4 = 1.83.
    for (const seed of SEEDS) {
      const y = endOfSeason(seed);
      const sunday = tomorrow(y, SEASON_DAYS - 1);
      const monday = tomorrow(y, SEASON_DAYS);
      expect(sunday.above / monday.above).toBeGreaterThan(0.8 * Math.sqrt(sunday.expected / monday.expected));
    }
  });
});

describe('closed days learnt from the whole establishment', () => {
  it('a summer of closed Saturdays (nothing sold at all, none declared) does not make the reopened Saturday 0', () => {
    // 28 weeks from 1 March; the shop sells nothing on the 10 Saturdays from 4 July to 5 September
    // (days 125…188) and opens again on Saturday 12 September (day 195, tomorrow).
    const r = rng(11);
    const WEEK = [80, 30, 30, 35, 40, 50, 70];
    const closedSaturdays = new Set(Array.from({ length: 10 }, (_, w) => 125 + 7 * w));
    const today = 194;
    const sales: DayRow[] = [];
    for (let t = 0; t < today; t++) {
      if (closedSaturdays.has(t)) continue;
      sales.push({ product_id: 'p', day: day(t), units: Math.round((WEEK[t % 7] as number) + (r() - 0.5) * 10), kg: 0 });
    }
    expect(day(125)).toBe('2026-07-04');
    expect(day(today + 1)).toBe('2026-09-12');
    expect((today + 1) % 7).toBe(SATURDAY);
    const openDays = new Set(sales.map((s) => s.day));
    const demand = productDemand(product, sales, new Map(), { today: day(today), horizon: 1, openDays });
    const saturday = demand.points[0];
    expect(saturday?.date).toBe('2026-09-12');
    expect(saturday?.expected).toBeGreaterThan(0.5 * (WEEK[SATURDAY] as number));
  });
});

describe('the conformal quantile of past errors', () => {
  /** The inverse of a Laplace distribution's CDF at a uniform draw (scale 1). */
  const laplace = (r: () => number) => {
    const u = r() - 0.5;
    return -Math.sign(u) * Math.log(1 - 2 * Math.abs(u));
  };

  it('takes the ⌈(n + 1)q⌉-th smallest: the largest of 56 for 97.5 %, the 2nd largest of 79', () => {
    const ascending = (n: number) => Array.from({ length: n }, (_, i) => i + 1).reverse();
    expect(conformalQuantile(ascending(56), 0.975)).toBe(56);
    expect(conformalQuantile(ascending(56), 0.025)).toBe(1);
    expect(conformalQuantile(ascending(79), 0.975)).toBe(78);
    expect(conformalQuantile(ascending(79), 0.025)).toBe(2);
    // 67 % of 56: the ⌈57 × 0.67⌉ = 39th.
    expect(conformalQuantile(ascending(56), 0.67)).toBe(39);
  });

  // From 56 errors the bounds are the smallest and the largest: 55 / 57 = 96.5 % of fresh errors
  // fall between them, whatever their distribution (the sample quantile's 2nd smallest and 2nd
  // largest held 53 / 57 = 93 %). From 30 or 14 the index falls beyond the sample and the bounds
  // are a normal's tail fitted to it (never inside the extremes). From 14 that tail (z, not
  // Student's t) holds about 93 % of normal errors and 92 % of Laplace ones: under 95 %, above the
  // sample quantile's extremes (13 / 15 = 87 %).
  it.each([
    { shape: 'normal', n: 56, least: 0.94 },
    { shape: 'laplace', n: 56, least: 0.94 },
    { shape: 'normal', n: 30, least: 0.94 },
    { shape: 'laplace', n: 30, least: 0.94 },
    { shape: 'normal', n: 14, least: 0.9 },
    { shape: 'laplace', n: 14, least: 0.9 },
  ] as const)('holds at least $least of fresh $shape errors between its 2.5 % and 97.5 % bounds from $n errors', ({ shape, n, least }) => {
    const r = rng(n * 31 + shape.length);
    const draw = shape === 'normal' ? () => normal(r) : () => laplace(r);
    const SAMPLES = 20_000;
    const FRESH = 5;
    let inside = 0;
    for (let s = 0; s < SAMPLES; s++) {
      const errors = Array.from({ length: n }, draw);
      const lower = conformalQuantile(errors, 0.025);
      const upper = conformalQuantile(errors, 0.975);
      for (let k = 0; k < FRESH; k++) {
        const e = draw();
        if (e >= lower && e <= upper) inside++;
      }
    }
    // 100 000 fresh errors: a standard error of 0.07 points; one point of tolerance below 95 %.
    expect(inside / (SAMPLES * FRESH)).toBeGreaterThanOrEqual(least);
  });
});

describe('sold-out days left out of the margins on both sides', () => {
  it("tomorrow's margin is the quantile of the other days' errors when the sold-out days sold far above the forecast", () => {
    const r = rng(5);
    const WEEK = [90, 35, 30, 35, 40, 60, 85];
    const DAYS = 140;
    const y = Array.from({ length: DAYS }, (_, t) => Math.round((WEEK[t % 7] as number) + (r() - 0.5) * 12));
    // Five days of the last 8 weeks sold twice their usual and ran out (a fair, a coach): far above
    // any forecast, so their errors would be the largest of the sample.
    const outliers = [88, 97, 110, 121, 133];
    for (const t of outliers) y[t] = 2 * (WEEK[t % 7] as number);
    const sales = rows(y).map((row, t) => (outliers.includes(t) ? { ...row, sold_out: true } : row));
    const demand = productDemand(priced, sales, new Map(), { today: day(DAYS), horizon: 1, openDays: everyDay(DAYS) });

    // The same replay productDemand makes (the evening before each day; the sold-out days not
    // scored), and its errors over the root of their forecast, the sold-out days left out.
    const soldOut = y.map((_, t) => outliers.includes(t));
    const errorFrom = DAYS - 56;
    const { steps } = replayChosen(y, errorFrom, 2, { soldOut }, (t) => !soldOut[t]);
    const errors: number[] = [];
    steps.forEach((step, i) => {
      const t = errorFrom + i;
      if (!soldOut[t] && step.seasonal) errors.push(((y[t] as number) - step.value) / Math.sqrt(Math.max(1, step.value)));
    });
    expect(errors).toHaveLength(51);
    const point = demand.points[0];
    const v = point?.expected as number;
    const quantile = pricedQuantile(priced)?.quantile as number;
    expect(quantile).toBe(0.67);
    expect(point?.advised).toBe(advisedQuantity(v, conformalQuantile(errors, quantile) * Math.sqrt(v), 'unit'));
    expect(point?.upper).toBeCloseTo(v + conformalQuantile(errors, 0.975) * Math.sqrt(v), 2);
  });
});

describe('the last 4 weeks against the 7-day average', () => {
  const bumped = (saturday: (week: number) => number, days: number) =>
    Array.from({ length: days }, (_, t) => (t % 7 === SATURDAY ? saturday(Math.floor(t / 7)) : 10));

  it('10 a day and 16 on Saturdays: the average, 76 / 7, advises 11 — 1 left over on 24 days, 4 short by 5', () => {
    const y = bumped(() => 16, 84);
    const at = { today: day(84), horizon: 1, openDays: everyDay(84) };
    const withPrices = productDemand(priced, rows(y), new Map(), at).advice.last_4_weeks;
    expect(withPrices.seven_day_average).toEqual({ left_over: 24, short_days: 4, short_quantity: 20, cost: 25.6 });
    // In euros: €0.40 a leftover, €0.80 a missed sale, the advice's own as well.
    expect(withPrices.cost).toBe(Math.round((withPrices.left_over * 0.4 + withPrices.short_quantity * 0.8) * 100) / 100);
    const without = productDemand(product, rows(y), new Map(), at).advice.last_4_weeks;
    expect(without.seven_day_average).toEqual({ left_over: 24, short_days: 4, short_quantity: 20, cost: null });
    expect(without.cost).toBeNull();
  });

  it("each day's average is of the 7 days its evening knew (up to the day before yesterday)", () => {
    // A Saturday that sells 4 more every week (16, 20 … 60), so each evening's 7 days matter.
    const DAYS = 84;
    const y = bumped((week) => 16 + 4 * week, DAYS);
    const { seven_day_average } = productDemand(priced, rows(y), new Map(), {
      today: day(DAYS),
      horizon: 1,
      openDays: everyDay(DAYS),
    }).advice.last_4_weeks;
    const expected = { left_over: 0, short_days: 0, short_quantity: 0 };
    for (let t = DAYS - 28; t < DAYS; t++) {
      const week = y.slice(t - 8, t - 1);
      const advised = Math.ceil(week.reduce((a, b) => a + b, 0) / 7 - 1e-9);
      const sold = y[t] as number;
      expected.left_over += Math.max(0, advised - sold);
      if (advised < sold) {
        expected.short_days++;
        expected.short_quantity += sold - advised;
      }
    }
    const cost = Math.round((expected.left_over * 0.4 + expected.short_quantity * 0.8) * 100) / 100;
    expect(seven_day_average).toEqual({ ...expected, cost });
  });
});
