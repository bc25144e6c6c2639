import fc from 'fast-check';
import { cumulativeStdNormalProbability } from 'simple-statistics';
import { describe, expect, it } from 'vitest';
import {
  atLeast,
  type DayMarks,
  type Fit,
  fitHoltWinters,
  forecast,
  MIN_SOLD_OUT_SHARE,
  ROBUST_SPREADS,
  replayForecasts,
} from '../src/modules/predict/model.js';

/**
 * Holt-Winters (predict/model.ts) against a plain transcription of its definition, on random
 * series with closed, sold-out (some early in the day) and empty weeks — as forecast-challengers.test.ts
 * does for the two challengers:
 *
 * - the start: a classical decomposition over the full weeks, closed days filled in with their
 *   weekday's mean (or every open day's), factors averaging 1;
 * - the recursions: closed days stepped over by the trend; a sold-out day learnt as the mean of the
 *   forecast's normal truncated at its floor (its sales scaled to the day), its error not counted;
 *   after the first week of errors, what is learnt held within `ROBUST_SPREADS` spreads;
 * - the fit: the grid's constants and season of least squared error (the first on a tie),
 *   multiplicative only when every week that was open sold; from a nearby fit, the walk to the best
 *   neighbour until none is better.
 *
 * forecast-model.test.ts checks what the model is for on series of known shape; these hold each
 * number it gives.
 */
const SEASON = 7;
type Season = Fit['season'];
type State = { level: number; trend: number; seasonals: number[] };
const mean = (v: readonly number[]) => (v.length ? v.reduce((a, b) => a + b, 0) / v.length : 0);

function startReference(y: readonly number[], length: number, closed: readonly boolean[] | undefined, season: Season): State {
  // A closed day of the first `length` values takes its weekday's mean over their open days.
  const open = (t: number) => !closed?.[t];
  const all = y.slice(0, length).filter((_, t) => open(t));
  const byWeekday = Array.from({ length: SEASON }, (_, i) => y.slice(0, length).filter((_, t) => t % SEASON === i && open(t)));
  const v = y.map((value, t) => {
    if (open(t) || !closed) return value;
    const same = byWeekday[t % SEASON] as number[];
    return same.length ? mean(same) : mean(all);
  });
  const weeks = Math.floor(length / SEASON);
  const weekMeans = Array.from({ length: weeks }, (_, w) => mean(v.slice(w * SEASON, (w + 1) * SEASON)));
  const trend = weeks > 1 ? ((weekMeans[weeks - 1] as number) - (weekMeans[0] as number)) / ((weeks - 1) * SEASON) : 0;
  const level = (weekMeans[0] ?? Number.NaN) + 3 * trend;
  const seasonals = Array.from({ length: SEASON }, (_, i) => {
    const ratios: number[] = [];
    for (let w = 0; w < weeks; w++) {
      const base = (weekMeans[w] as number) + (i - 3) * trend;
      const value = v[w * SEASON + i] as number;
      if (season === 'additive') ratios.push(value - base);
      else if (base > 0) ratios.push(value / base);
    }
    return ratios.length ? mean(ratios) : season === 'additive' ? 0 : 1;
  });
  if (season === 'multiplicative') {
    const m = mean(seasonals);
    if (m > 0) return { level, trend, seasonals: seasonals.map((s) => s / m) };
  }
  return { level, trend, seasonals };
}

/** E[D | D ≥ floor], D normal (mean, spread): written out again, the asymptote z + 1/z past z = 3. */
function truncatedMean(m: number, spread: number, floor: number) {
  if (!(spread > 0)) return Math.max(m, floor);
  const z = (floor - m) / spread;
  const mills = z > 3 ? z + 1 / z : Math.exp(-(z * z) / 2) / Math.sqrt(2 * Math.PI) / (1 - cumulativeStdNormalProbability(z));
  return Math.max(floor, m + spread * mills);
}

function smoothReference(
  y: readonly number[],
  [alpha, beta, gamma]: readonly [number, number, number],
  start: State,
  marks: DayMarks,
  season: Season,
  onStep?: (t: number, forecast: number, next: number) => void,
): Fit {
  let { level, trend } = start;
  const s = [...start.seasonals];
  const errors: number[] = [];
  const times = season === 'multiplicative';
  for (let t = SEASON; t < y.length; t++) {
    const i = t % SEASON;
    const f = times ? (level + trend) * (s[i] as number) : level + trend + (s[i] as number);
    const j = (t + 1) % SEASON;
    onStep?.(t, f, times ? (level + 2 * trend) * (s[j] as number) : level + 2 * trend + (s[j] as number));
    if (marks.closed?.[t]) {
      level = level + trend;
      continue;
    }
    const rms = errors.length ? Math.sqrt(mean(errors.map((e) => e * e))) : Math.max(1, 0.25 * Math.abs(f));
    let learnt = y[t] as number;
    if (marks.soldOut?.[t] === true) {
      const share = Math.min(1, Math.max(MIN_SOLD_OUT_SHARE, marks.soldOutShare?.[t] ?? 1));
      learnt = truncatedMean(f, rms, (y[t] as number) / share);
    } else errors.push(learnt - f);
    if (errors.length > SEASON) {
      const reach = ROBUST_SPREADS * Math.max(rms, Math.abs(f) / 10);
      learnt = Math.max(f - reach, Math.min(f + reach, learnt));
    }
    const before = level;
    const si = s[i] as number;
    if (times) {
      level = alpha * (si > 1e-6 ? learnt / si : learnt) + (1 - alpha) * (level + trend);
      trend = beta * (level - before) + (1 - beta) * trend;
      if (level > 1e-6) s[i] = gamma * (learnt / level) + (1 - gamma) * si;
    } else {
      level = alpha * (learnt - si) + (1 - alpha) * (level + trend);
      trend = beta * (level - before) + (1 - beta) * trend;
      s[i] = gamma * (learnt - level) + (1 - gamma) * si;
    }
  }
  const sse = errors.reduce((a, e) => a + e * e, 0);
  return { season, alpha, beta, gamma, sse, sigma: Math.sqrt(sse / Math.max(1, errors.length)), level, trend, seasonals: s };
}

const ALPHAS = [0.05, 0.1, 0.2, 0.3, 0.5, 0.7];
const BETAS = [0, 0.01, 0.05, 0.1];
const GAMMAS = [0.05, 0.1, 0.2, 0.3, 0.5];

function seasonsReference(y: readonly number[], closed: readonly boolean[] | undefined): Season[] {
  for (let w = 0; w < Math.floor(y.length / SEASON); w++) {
    const days = [0, 1, 2, 3, 4, 5, 6].map((i) => w * SEASON + i).filter((t) => !closed?.[t]);
    if (days.length > 0 && !(days.reduce((a, t) => a + (y[t] as number), 0) > 0)) return ['additive'];
  }
  return ['multiplicative', 'additive'];
}

type Point = { season: Season; a: number; b: number; g: number };
const runAt = (y: readonly number[], marks: DayMarks, p: Point) =>
  smoothReference(
    y,
    [ALPHAS[p.a] as number, BETAS[p.b] as number, GAMMAS[p.g] as number],
    startReference(y, y.length, marks.closed, p.season),
    marks,
    p.season,
  );

function fitReference(y: readonly number[], marks: DayMarks): Fit {
  let best: Fit | undefined;
  for (const season of seasonsReference(y, marks.closed))
    for (let a = 0; a < ALPHAS.length; a++)
      for (let b = 0; b < BETAS.length; b++)
        for (let g = 0; g < GAMMAS.length; g++) {
          const f = runAt(y, marks, { season, a, b, g });
          if (!best || f.sse < best.sse) best = f;
        }
  return best as Fit;
}

/** From `near`'s point of the grid, to the best of its neighbours (the other season, one step of one constant) while it is better. */
function walkReference(y: readonly number[], marks: DayMarks, near: Fit): Fit {
  const seasons = seasonsReference(y, marks.closed);
  let at: Point = { season: near.season, a: ALPHAS.indexOf(near.alpha), b: BETAS.indexOf(near.beta), g: GAMMAS.indexOf(near.gamma) };
  if (!seasons.includes(at.season) || at.a < 0 || at.b < 0 || at.g < 0) return fitReference(y, marks);
  let best = runAt(y, marks, at);
  for (;;) {
    const neighbours: Point[] = [
      ...seasons.filter((s) => s !== at.season).map((season) => ({ ...at, season })),
      ...[-1, 1].map((d) => ({ ...at, a: at.a + d })),
      ...[-1, 1].map((d) => ({ ...at, b: at.b + d })),
      ...[-1, 1].map((d) => ({ ...at, g: at.g + d })),
    ].filter((p) => ALPHAS[p.a] !== undefined && BETAS[p.b] !== undefined && GAMMAS[p.g] !== undefined);
    let moved: { point: Point; fit: Fit } | undefined;
    for (const point of neighbours) {
      const fit = runAt(y, marks, point);
      if (fit.sse < (moved?.fit ?? best).sse) moved = { point, fit };
    }
    if (!moved) return best;
    at = moved.point;
    best = moved.fit;
  }
}

const close = (actual: number, expected: number) =>
  Object.is(actual, expected) || Math.abs(actual - expected) <= 1e-7 * Math.max(1, Math.abs(expected));
function sameFit(got: Fit, want: Fit) {
  return (
    got.season === want.season &&
    got.alpha === want.alpha &&
    got.beta === want.beta &&
    got.gamma === want.gamma &&
    (['sse', 'sigma', 'level', 'trend'] as const).every((k) => close(got[k], want[k])) &&
    got.seasonals.length === SEASON &&
    got.seasonals.every((s, i) => close(s, want.seasonals[i] as number))
  );
}
const show = (f: Fit) => JSON.stringify({ ...f, seasonals: f.seasonals.map((s) => Math.round(s * 1000) / 1000) });

/**
 * A product's daily sales: a level (near 0 for some), a weekly pattern, noise; some days closed
 * (now and then a whole week), some sold out (some early, with the share of the day gone by),
 * now and then a week without a sale.
 */
const product = fc
  .record({
    length: fc.integer({ min: 14, max: 56 }),
    level: fc.oneof(fc.double({ min: 0, max: 2, noNaN: true }), fc.double({ min: 5, max: 80, noNaN: true })),
    trend: fc.double({ min: -0.5, max: 0.8, noNaN: true }),
    pattern: fc.array(fc.double({ min: 0.3, max: 2, noNaN: true }), { minLength: 7, maxLength: 7 }),
    days: fc.array(
      fc.tuple(fc.double({ min: -1, max: 1, noNaN: true }), fc.integer({ min: 0, max: 29 }), fc.double({ min: 0, max: 1, noNaN: true })),
      {
        minLength: 56,
        maxLength: 56,
      },
    ),
    emptyWeek: fc.integer({ min: -3, max: 7 }),
    closedWeek: fc.integer({ min: -4, max: 7 }),
    spike: fc.integer({ min: 0, max: 55 }),
  })
  .map(({ length, level, trend, pattern, days, emptyWeek, closedWeek, spike }) => {
    const y = days
      .slice(0, length)
      .map(([noise], t) => Math.max(0, Math.round((level + trend * t) * (pattern[t % 7] as number) * (1 + 0.3 * noise) * 10) / 10))
      .map((v, t) => (Math.floor(t / 7) === emptyWeek ? 0 : t === spike ? v * 4 + 20 : v));
    const closed = days.slice(0, length).map(([, m], t) => m === 0 || Math.floor(t / 7) === closedWeek);
    const soldOut = days.slice(0, length).map(([, m]) => m === 1 || m === 2);
    const soldOutShare = days.slice(0, length).map(([, m, share]) => (m === 1 ? share : 1));
    return { y, marks: { closed, soldOut, soldOutShare } satisfies DayMarks };
  });

describe('Holt-Winters as defined', () => {
  it('fits the season and constants of least one-step error, its state after the last day, on random series', () => {
    fc.assert(
      fc.property(product, ({ y, marks }) => {
        const got = fitHoltWinters([...y], marks);
        const want = fitReference(y, marks);
        expect(sameFit(got, want), `${show(got)}\n${show(want)}`).toBe(true);
      }),
      { seed: 20261130, numRuns: 150 },
    );
  });

  it('from a nearby fit, walks to the best neighbour until none is better', () => {
    fc.assert(
      fc.property(
        product,
        fc.record({
          season: fc.constantFrom<Season>('multiplicative', 'additive'),
          a: fc.integer({ min: 0, max: 5 }),
          b: fc.integer({ min: 0, max: 3 }),
          g: fc.integer({ min: 0, max: 4 }),
        }),
        ({ y, marks }, p) => {
          // A fit of this series at a point of the grid (what a shorter series' fit would give).
          const near = runAt(y, marks, p);
          const got = fitHoltWinters([...y], marks, near);
          const want = walkReference(y, marks, near);
          expect(sameFit(got, want), `${JSON.stringify(p)}\n${show(got)}\n${show(want)}`).toBe(true);
        },
      ),
      { seed: 20261130, numRuns: 150 },
    );
  });

  it('searches the whole grid when the nearby fit is off it (constants of another grid) or of a season it may not use', () => {
    const y = [5, 8, 9, 7, 12, 20, 18, 6, 9, 8, 8, 13, 21, 17, 5, 9, 10, 7, 12, 22, 19, 6, 8, 9, 8, 12, 20, 18];
    const full = fitReference(y, {});
    const off = { ...runAt(y, {}, { season: 'additive', a: 5, b: 3, g: 4 }), alpha: 0.25 };
    expect(fitHoltWinters(y, {}, off)).toEqual(fitHoltWinters(y, {}));
    expect(sameFit(fitHoltWinters(y, {}, off), full)).toBe(true);
    for (const bad of [{ beta: 0.02 }, { gamma: 0.15 }, { alpha: 0.4 }]) {
      const near = { ...runAt(y, {}, { season: 'additive', a: 0, b: 0, g: 0 }), ...bad };
      expect(sameFit(fitHoltWinters(y, {}, near), full), JSON.stringify(bad)).toBe(true);
    }
    // A week without a sale: multiplicative factors are not fitted, and a multiplicative fit nearby is no start.
    const empty = y.map((v, t) => (t >= 7 && t < 14 ? 0 : v));
    expect(seasonsReference(empty, undefined)).toEqual(['additive']);
    const near = runAt(y, {}, { season: 'multiplicative', a: 0, b: 0, g: 0 });
    expect(sameFit(fitHoltWinters(empty, {}, near), fitReference(empty, {}))).toBe(true);
  });

  it('replays every day as made the evening before, refitted every week, closed and sold-out days marked', () => {
    fc.assert(
      fc.property(product, fc.constantFrom(1 as const, 2 as const), fc.integer({ min: 0, max: 40 }), ({ y, marks }, ahead, from) => {
        const got = replayForecasts([...y], from, ahead, marks);
        // The weekly model from the first day with 14 days known; before, the mean of the 7 known.
        const start = Math.max(ahead, from);
        const seasonalFrom = Math.max(start, 14 + ahead - 1);
        const want: { value: number; seasonal: boolean; sigma: number }[] = [];
        for (let t = start; t < Math.min(y.length, seasonalFrom); t++) {
          const known: number[] = [];
          for (let s = t - ahead; s >= 0 && known.length < 7; s--) if (!marks.closed[s]) known.unshift(y[s] as number);
          const m = mean(known);
          const sd = known.length > 1 ? Math.sqrt(known.reduce((a, v) => a + (v - m) ** 2, 0) / (known.length - 1)) : m;
          want.push({ value: m, seasonal: false, sigma: sd });
        }
        let previous: Fit | undefined;
        for (let block = seasonalFrom; block < y.length; block += 7) {
          const known = block - ahead + 1;
          const part = {
            closed: marks.closed.slice(0, known),
            soldOut: marks.soldOut.slice(0, known),
            soldOutShare: marks.soldOutShare.slice(0, known),
          };
          const fit: Fit = previous ? walkReference(y.slice(0, known), part, previous) : fitReference(y.slice(0, known), part);
          previous = fit;
          const end = Math.min(y.length, block + 7);
          const start0 = startReference(y, known, marks.closed, fit.season);
          smoothReference(y.slice(0, end), [fit.alpha, fit.beta, fit.gamma], start0, marks, fit.season, (t, f, next) => {
            const day = t + ahead - 1;
            if (day >= block && day < end) want.push({ value: Math.max(0, ahead === 1 ? f : next), seasonal: true, sigma: fit.sigma });
          });
        }
        expect(got.length).toBe(want.length);
        got.forEach((g, i) => {
          const w = want[i] as (typeof want)[number];
          expect(g.seasonal, `step ${i}`).toBe(w.seasonal);
          expect(close(g.value, w.value) && close(g.sigma, w.sigma), `step ${i}: ${JSON.stringify(g)} ${JSON.stringify(w)}`).toBe(true);
        });
      }),
      { seed: 20261130, numRuns: 40 },
    );
  });
});

describe('Holt-Winters in figures', () => {
  // A week of its own form with no trend: 40 a day moved by each weekday's effect.
  const EFFECTS = [12, -9, -10, -5, 0, 4, 8]; // adding up to 0
  const weekly = (t: number) => 40 + (EFFECTS[t % 7] as number);

  it('fills closed days of the first weeks with their weekday’s mean: a pattern learnt without error', () => {
    // Four weeks; days 2, 10 and 15 closed (nothing sold on them); the open days follow the pattern exactly.
    const closedDays = [2, 10, 15];
    const y = Array.from({ length: 28 }, (_, t) => (closedDays.includes(t) ? 0 : weekly(t)));
    const closed = y.map((_, t) => closedDays.includes(t));
    const fit = fitHoltWinters(y, { closed });
    expect(fit.sse).toBeCloseTo(0, 9);
    expect(fit.trend).toBeCloseTo(0, 9);
    const f = forecast(y, 7, { closed });
    for (const [h, v] of f.values.entries()) expect(v, `step ${h + 1}`).toBeCloseTo(weekly(28 + h), 6);
  });

  it('fills a weekday closed every week with the mean of every open day: forecast at the level', () => {
    // Closed every Sunday (t % 7 = 0, recorded as 0): the open days' mean, 40 − 12 / 6 = 38, and no
    // effect of its own; the other days as they sold.
    const y = Array.from({ length: 28 }, (_, t) => (t % 7 === 0 ? 0 : weekly(t)));
    const closed = y.map((_, t) => t % 7 === 0);
    const f = forecast(y, 7, { closed });
    expect(f.values[0]).toBeCloseTo(38, 6);
    for (let h = 1; h < 7; h++) expect(f.values[h], `step ${h + 1}`).toBeCloseTo(weekly(28 + h), 6);
  });

  it('fits a single week and a bit without a trend from it (no slope between weeks to measure)', () => {
    const y = Array.from({ length: 10 }, (_, t) => weekly(t));
    const fit = fitHoltWinters(y);
    expect(fit.trend).toBe(0);
    expect(fit.sse).toBeCloseTo(0, 9);
    expect(fit.level).toBeCloseTo(40, 9);
  });

  it('starts a series closed on every day from nothing (no mean of no open day), and learns nothing', () => {
    // Two weeks with the shop closed throughout: no weekday mean and no overall mean to fill in with.
    const y = new Array<number>(14).fill(5);
    const fit = fitHoltWinters(y, { closed: y.map(() => true) });
    // Both seasons fit it without error; the first, multiplicative, is kept, its factors 1 (no
    // week's line above 0 to measure a factor against).
    expect(fit).toEqual({ ...fit, season: 'multiplicative', sse: 0, sigma: 0, level: 0, trend: 0, seasonals: new Array(7).fill(1) });
  });

  it('learns no weekday factor from a week whose trend line is at 0 on that day (not a division by 0)', () => {
    // Week means 3 and 10: a trend of 1 a day, so the line is 3 − 3 × 1 = 0 on the first day of the
    // first week; its factor comes from the second week alone.
    const y = [1, 2, 3, 4, 3, 4, 4, 7, 8, 9, 10, 11, 12, 13];
    const got = fitHoltWinters(y);
    expect(startReference(y, 14, undefined, 'multiplicative').trend).toBe(1);
    expect(Number.isFinite(got.sse)).toBe(true);
    expect(sameFit(got, fitReference(y, {})), show(got)).toBe(true);
    for (const season of ['multiplicative', 'additive'] as const) {
      const near = runAt(y, {}, { season, a: 0, b: 0, g: 0 });
      expect(Number.isFinite(near.sse)).toBe(true);
    }
  });

  it('learns a sold-out day as at least its sales scaled to the day, never more than 3 times them', () => {
    // Seven weeks of the pattern; day 45 sold out with 20 (its weekday sells 36): at the end of the
    // day, a floor of 20; half of the day gone, of 40; a tenth, of 60 (3 × 20 at most, not 200).
    const y = Array.from({ length: 49 }, (_, t) => (t === 45 ? 20 : weekly(t)));
    const soldOut = y.map((_, t) => t === 45);
    const levels = [1, 0.5, 0.1, 1 / 3].map((share) => {
      const marks = { soldOut, soldOutShare: y.map((_, t) => (t === 45 ? share : 1)) };
      const got = fitHoltWinters(y, marks);
      expect(sameFit(got, fitReference(y, marks)), `share ${share}: ${show(got)}`).toBe(true);
      return got.level;
    });
    // Each floor is learnt differently; a tenth of the day reads as a third of it (the cap).
    expect(new Set(levels.slice(0, 3)).size).toBe(3);
    expect(levels[2]).toBe(levels[3]);
  });
});

describe('atLeast at the switch to the asymptote', () => {
  it('uses the normal’s ratio at z = 3 itself, and z + 1/z only beyond', () => {
    // 1 − Φ(3) from the library's table; z + 1/z = 3.333 would be the asymptote's.
    const ratio = Math.exp(-4.5) / Math.sqrt(2 * Math.PI) / (1 - cumulativeStdNormalProbability(3));
    expect(atLeast(0, 1, 3)).toBeCloseTo(ratio, 9);
    expect(Math.abs(ratio - (3 + 1 / 3))).toBeGreaterThan(0.05);
    expect(atLeast(0, 1, 3.5)).toBeCloseTo(3.5 + 1 / 3.5, 12);
    expect(atLeast(10, 2, 17)).toBeCloseTo(10 + 2 * (3.5 + 1 / 3.5), 12);
  });
});
