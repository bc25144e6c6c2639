import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fitTsb, replayTsb, replayWeekdayAverage, WEEKDAY_WEEKS } from '../src/modules/predict/choice.js';
import type { DayMarks } from '../src/modules/predict/model.js';

/**
 * The two challengers of Holt-Winters (predict/choice.ts), each against a plain transcription of
 * its definition, on random series with closed and sold-out days:
 *
 * - the weekday average: the mean (and sample standard deviation) of the same weekday's last
 *   `WEEKDAY_WEEKS` open values known `ahead` days before, from the last 12 weeks; sold-out days
 *   only when the weekday has no other (then `floors`); the last 7 open days when it has none;
 * - TSB (Teunter, Syntetos & Babai): the chance of selling and the quantity on a selling day,
 *   each smoothed on the open days, started from the first four weeks; its constants the pair of
 *   the grid with the least one-step error (the first on a tie).
 *
 * forecast-season.test.ts checks what they are for (the choice on series of known shape); these
 * hold each number they give.
 */
const SEASON = 7;
const mean = (v: readonly number[]) => (v.length ? v.reduce((a, b) => a + b, 0) / v.length : 0);
const sampleSd = (v: readonly number[]) =>
  v.length < 2 ? mean(v) : Math.sqrt(v.reduce((a, b) => a + (b - mean(v)) ** 2, 0) / (v.length - 1));

function weekdayReference(y: readonly number[], from: number, ahead: 1 | 2, marks: Required<Pick<DayMarks, 'closed' | 'soldOut'>>) {
  const steps: { value: number; seasonal: boolean; sigma: number; floors: boolean }[] = [];
  for (let t = Math.max(ahead, from); t < y.length; t++) {
    const last = t - ahead;
    const values: number[] = [];
    const soldOut: number[] = [];
    // Every earlier day of t's weekday known by `last`, newest first, within 12 weeks of t.
    for (let s = t - SEASON; s >= 0 && s > t - 12 * SEASON; s -= SEASON) {
      if (s > last || marks.closed[s]) continue;
      if (values.length === WEEKDAY_WEEKS) break;
      (marks.soldOut[s] ? soldOut : values).push(y[s] as number);
    }
    let known = values;
    let floors = false;
    if (values.length === 0 && soldOut.length > 0) {
      known = soldOut.slice(0, WEEKDAY_WEEKS);
      floors = true;
    } else if (values.length === 0) {
      known = [];
      for (let s = last; s >= 0 && known.length < SEASON; s--) if (!marks.closed[s]) known.unshift(y[s] as number);
    }
    steps.push({ value: mean(known), seasonal: true, sigma: sampleSd(known), floors });
  }
  return steps;
}

const ALPHAS = [0.05, 0.1, 0.2, 0.3, 0.5];
const BETAS = [0.02, 0.05, 0.1, 0.2, 0.3];

function tsbStartReference(y: readonly number[], length: number, closed: readonly boolean[]) {
  const open = y.slice(0, Math.min(length, 4 * SEASON)).filter((_, t) => !closed[t]);
  const sold = open.filter((v) => v > 0);
  return { chance: open.length ? sold.length / open.length : 0, size: mean(sold) };
}

function tsbRunReference(
  y: readonly number[],
  alpha: number,
  beta: number,
  start: { chance: number; size: number },
  closed: readonly boolean[],
) {
  let { chance, size } = start;
  const forecasts: number[] = [];
  let sse = 0;
  let count = 0;
  y.forEach((value, t) => {
    forecasts.push(chance * size);
    if (closed[t]) return;
    sse += (value - chance * size) ** 2;
    count += 1;
    if (value > 0) {
      size = size + alpha * (value - size);
      chance = chance + beta * (1 - chance);
    } else {
      chance = chance - beta * chance;
    }
  });
  return { chance, size, alpha, beta, sigma: Math.sqrt(sse / Math.max(1, count)), forecasts };
}

function fitTsbReference(y: readonly number[], closed: readonly boolean[]) {
  const start = tsbStartReference(y, y.length, closed);
  let best: ReturnType<typeof tsbRunReference> | undefined;
  for (const a of ALPHAS)
    for (const b of BETAS) {
      const run = tsbRunReference(y, a, b, start, closed);
      if (!best || run.sigma < best.sigma) best = run;
    }
  const { forecasts: _, ...fit } = best as ReturnType<typeof tsbRunReference>;
  return fit;
}

/** Sales of an intermittent or a daily seller, with closed and sold-out days. */
const series = fc
  .record({
    length: fc.integer({ min: 3, max: 120 }),
    sells: fc.double({ min: 0.1, max: 1, noNaN: true }),
    seed: fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 1, max: 30 }), fc.integer({ min: 0, max: 19 })), {
      minLength: 120,
      maxLength: 120,
    }),
    ahead: fc.constantFrom(1 as const, 2 as const),
    from: fc.integer({ min: 0, max: 119 }),
  })
  .map(({ length, sells, seed, ahead, from }) => {
    const days = seed.slice(0, length);
    return {
      y: days.map(([p, q]) => (p < sells ? q : 0)),
      closed: days.map(([, , m]) => m === 0),
      soldOut: days.map(([, , m]) => m === 1),
      ahead,
      from: Math.min(from, length - 1),
    };
  });

const closeTo = (actual: number, expected: number) => Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(expected));
const sameSteps = (actual: readonly Record<string, unknown>[], expected: readonly Record<string, unknown>[]) =>
  actual.length === expected.length &&
  actual.every((a, i) =>
    Object.entries(expected[i] as Record<string, unknown>).every(([k, v]) =>
      typeof v === 'number' ? closeTo(a[k] as number, v) : a[k] === v,
    ),
  ) &&
  actual.every((a, i) => Object.keys(a).length === Object.keys(expected[i] as object).length);

describe('the weekday average', () => {
  it('is the mean and spread of the same weekday’s last open values known the evening before, as defined', () => {
    fc.assert(
      fc.property(series, ({ y, closed, soldOut, ahead, from }) => {
        const got = replayWeekdayAverage(y, from, ahead, { closed, soldOut });
        const want = weekdayReference(y, from, ahead, { closed, soldOut });
        expect(sameSteps(got, want), JSON.stringify({ got: got.slice(0, 3), want: want.slice(0, 3) })).toBe(true);
      }),
      { seed: 20261130, numRuns: 300 },
    );
  });

  it("on a worked example: a Monday's last four open Mondays, a closed one skipped, two days ahead", () => {
    // Thirty-six days; day 35 is a Monday (35 ≡ 0 mod 7). Mondays 0, 7, 14, 21, 28 sold 1, 2, 3, 4, 5; 21 was closed.
    const y = Array.from({ length: 36 }, (_, t) => (t % 7 === 0 ? t / 7 + 1 : 9));
    const closed = y.map((_, t) => t === 21);
    const [step] = replayWeekdayAverage(y, 35, 2, { closed });
    // Known by day 33: Mondays 28, 14, 7, 0 (21 closed) → 5, 3, 2, 1.
    expect(step).toEqual({
      value: 2.75,
      seasonal: true,
      sigma: Math.sqrt(((5 - 2.75) ** 2 + 0.0625 + 0.5625 + 3.0625) / 3),
      floors: false,
    });
  });
});

describe('TSB', () => {
  it('fits the constants of least one-step error, from the first four weeks’ chance and size, as defined', () => {
    fc.assert(
      fc.property(series, ({ y, closed }) => {
        const got = fitTsb(y, closed);
        const want = fitTsbReference(y, closed);
        expect([got.alpha, got.beta]).toEqual([want.alpha, want.beta]);
        for (const k of ['chance', 'size', 'sigma'] as const) expect(closeTo(got[k], want[k]), `${k}: ${got[k]} vs ${want[k]}`).toBe(true);
      }),
      { seed: 20261130, numRuns: 300 },
    );
  });

  it('replays each day from what was known `ahead` days before, its constants fitted on the days known at the start', () => {
    fc.assert(
      fc.property(series, ({ y, closed, ahead, from }) => {
        const first = Math.max(ahead, from);
        const known = first - ahead + 1;
        const fit = fitTsbReference(y.slice(0, known), closed.slice(0, known));
        const run = tsbRunReference(y, fit.alpha, fit.beta, tsbStartReference(y, known, closed), closed);
        const want: { value: number; seasonal: boolean; sigma: number }[] = [];
        run.forecasts.forEach((forecast, t) => {
          const day = t + ahead - 1;
          if (day >= first && day < y.length) want.push({ value: forecast, seasonal: true, sigma: fit.sigma });
        });
        const got = replayTsb(y, from, ahead, { closed });
        expect(sameSteps(got, want), JSON.stringify({ got: got.slice(0, 3), want: want.slice(0, 3) })).toBe(true);
      }),
      { seed: 20261130, numRuns: 300 },
    );
  });

  it('on a worked example: sells two units every other day', () => {
    // Started at chance 1/2 (3 selling days of 6) and size 2; the size never moves (every sale is 2),
    // so every alpha scores the same and the first is kept; the smallest beta moves the chance least,
    // and errs least: 0.5 → 0.51 → 0.4998 → 0.509804 → 0.49960792 → 0.5096157616 → 0.49942344637.
    const fit = fitTsb([2, 0, 2, 0, 2, 0]);
    expect(fit).toMatchObject({ alpha: 0.05, beta: 0.02, size: 2 });
    expect(fit.chance).toBeCloseTo(0.5096157616 * 0.98, 12);
    const forecasts = [1, 1.02, 0.9996, 1.019608, 0.99921584, 1.0192315232];
    const errors = forecasts.map((f, t) => (t % 2 === 0 ? 2 - f : f));
    expect(fit.sigma).toBeCloseTo(Math.sqrt(errors.reduce((a, e) => a + e * e, 0) / 6), 9);
    // Nothing known: nothing forecast, no error.
    expect(fitTsb([])).toMatchObject({ chance: 0, size: 0, sigma: 0 });
  });
});
