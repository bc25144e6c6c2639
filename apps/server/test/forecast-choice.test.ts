import { describe, expect, it } from 'vitest';
import { type Choice, forecastChosen, replayChosen, replayWeekdayAverage } from '../src/modules/predict/choice.js';
import { fitHoltWinters, forecast, replayForecasts } from '../src/modules/predict/model.js';
import { rng } from './series.js';

/**
 * The choice among Holt-Winters, the combination with the weekday average and TSB
 * (predict/choice.ts) in figures: which days are scored, ties and the minimum of scored days on
 * both sides, the candidates a caller allows, and what the chosen model forecasts — its values,
 * its interval and the method that says why — for a choice given by hand.
 * forecast-model.test.ts and forecast-season.test.ts show the choice on series of known shape.
 */

// Croissants sold by weekday (Sunday first): a bakery's week, busy at the weekend.
const WEEKDAY = [90, 35, 30, 35, 40, 60, 85];
const everyDay = () => true;
const mean = (v: readonly number[]) => v.reduce((a, b) => a + b, 0) / v.length;

/** A bakery's week whose level swings every few days, with large noise: the combination wins on it. */
const swinging = (seed: number) => {
  const r = rng(seed);
  return Array.from({ length: 150 }, (_, t) => (WEEKDAY[t % 7] as number) * (1 + 0.3 * Math.sin(t / 3)) + (r() - 0.5) * 30);
};

/** The bakery's week with a little noise: positive and far from 0, so no interval is clamped. */
const bakery = (days: number, seed: number) => {
  const r = rng(seed);
  return Array.from({ length: days }, (_, t) => (WEEKDAY[t % 7] as number) + (r() - 0.5) * 6);
};

describe('the choice, scored', () => {
  it('keeps Holt-Winters on a tie: a constant series that both forecast without error', () => {
    // Ten a day for six weeks: Holt-Winters' and the weekday average's errors are all 0. A challenger
    // must be better by the edge; equal is not better (a `<=` would switch on nothing at all).
    const y = new Array<number>(42).fill(10);
    expect(forecast(y, 1).values).toEqual([10]);
    const { next, steps } = replayChosen(y, 28, 1, {}, everyDay);
    expect(next).toEqual({ model: 'holt-winters', days: 28, mae: { 'holt-winters': 0, combined: 0, tsb: null } });
    expect(steps.map((s) => s.value)).toEqual(new Array<number>(14).fill(10));
  });

  it('needs 14 scored days to leave Holt-Winters, even for 13 on which the combination is far better', () => {
    // The days of the last 56 on which the combination erred least against Holt-Winters: scored
    // on 13 of them, the choice must wait (and say no scores); on 14, it takes the combination.
    const y = swinging(4);
    const hw = replayForecasts(y, 38, 1);
    const weekday = replayWeekdayAverage(y, 38, 1);
    const gains = Array.from({ length: 56 }, (_, i) => {
      const t = 94 + i;
      const h = (hw[t - 38] as { value: number }).value;
      const combined = (h + (weekday[t - 38] as { value: number }).value) / 2;
      return { t, hw: Math.abs((y[t] as number) - h), combined: Math.abs((y[t] as number) - combined) };
    }).sort((a, b) => a.combined / a.hw - b.combined / b.hw);
    // Over the 14 best days the combination's error is well under 95 % of Holt-Winters'.
    const best = gains.slice(0, 14);
    expect(best.reduce((a, g) => a + g.combined, 0)).toBeLessThan(0.5 * best.reduce((a, g) => a + g.hw, 0));
    const on = (days: readonly { t: number }[]) => (t: number) => days.some((g) => g.t === t);

    const thirteen = replayChosen(y, 94, 1, {}, on(best.slice(0, 13))).next;
    expect(thirteen).toEqual({ model: 'holt-winters', days: 13, mae: { 'holt-winters': null, combined: null, tsb: null } });
    const fourteen = replayChosen(y, 94, 1, {}, on(best)).next;
    expect(fourteen.model).toBe('combined');
    expect(fourteen.days).toBe(14);
    expect(fourteen.mae['holt-winters']).toBeCloseTo(mean(best.map((g) => g.hw)), 9);
    expect(fourteen.mae.combined).toBeCloseTo(mean(best.map((g) => g.combined)), 9);
  });

  it('counts only the days without a sale inside the 56 scored to let TSB compete, not those before them', () => {
    // Sold every third day for 94 days, then 10 every day: the last 56 days (94–149) have no day
    // without a sale, so TSB does not compete; the 37 zeros before them must not count.
    const y = Array.from({ length: 150 }, (_, t) => (t < 94 ? (t % 3 === 0 ? 10 : 0) : 10));
    const { next } = replayChosen(y, 94, 1, {}, everyDay);
    expect(next.days).toBe(56);
    expect(next.mae.tsb).toBeNull();
    expect(next.mae['holt-winters']).not.toBeNull();
    // While those zeros were in the window (the evening after day 120), it did.
    const earlier = replayChosen(y.slice(0, 121), 65, 1, {}, everyDay).next;
    expect(earlier.mae.tsb).not.toBeNull();
  });
});

describe('the candidates a caller allows', () => {
  it('with Holt-Winters alone, replays its forecasts from 56 days before the first served day, and scores no other', () => {
    const y = swinging(4);
    // On this series the combination wins when it may (forecast-model.test.ts).
    expect(replayChosen(y, 94, 1, {}, everyDay).next.model).toBe('combined');
    for (const candidates of [['holt-winters'] as const, [] as const]) {
      const { steps, next } = replayChosen(y, 94, 1, {}, everyDay, candidates);
      expect(next.model).toBe('holt-winters');
      expect(next.mae.combined).toBeNull();
      expect(next.mae.tsb).toBeNull();
      expect(next.mae['holt-winters']).toBeGreaterThan(0);
      // The replay starts on day 94 − 56 = 38 (its weekly refits aligned on it), and serves days 94 on.
      expect(steps).toEqual(replayForecasts(y, 38, 1).slice(94 - 38));
    }
  });
});

describe('the weekday average, at its limits', () => {
  it('looks back 11 weeks at most: a weekday closed for ten weeks has one value, not the 12th week’s', () => {
    // Day 91's weekday: days 84, 77 … 21 closed; day 14 (11 weeks before) sold 6; days 7 and 0
    // (12 and 13 weeks before) sold 100 — too old to count.
    const y = Array.from({ length: 92 }, (_, t) => (t === 14 ? 6 : t === 7 || t === 0 ? 100 : 50));
    const closed = y.map((_, t) => t % 7 === 0 && t >= 21);
    const [step] = replayWeekdayAverage(y, 91, 1, { closed });
    // One value: its mean, and its own size as its spread.
    expect(step).toEqual({ value: 6, seasonal: true, sigma: 6, floors: false });
  });

  it('averages the newest four of a weekday that sold out every week (floors), not all of them', () => {
    // Day 49's weekday sold out on days 0, 7 … 42, selling 1, 2 … 7: the four newest, 7, 6, 5, 4.
    const y = Array.from({ length: 50 }, (_, t) => (t % 7 === 0 ? t / 7 + 1 : 20));
    const soldOut = y.map((_, t) => t % 7 === 0);
    const [step] = replayWeekdayAverage(y, 49, 1, { soldOut });
    expect(step?.value).toBe(5.5);
    expect(step?.floors).toBe(true);
    expect(step?.sigma).toBeCloseTo(Math.sqrt((1.5 ** 2 + 0.5 ** 2 + 0.5 ** 2 + 1.5 ** 2) / 3), 12);
  });
});

describe('the forecast of the model chosen', () => {
  const y = bakery(63, 3);
  const scores = (mae: Partial<Choice['mae']>): Choice['mae'] => ({ 'holt-winters': null, combined: null, tsb: null, ...mae });

  it('says why: each scored model’s MAE to two decimals, in the order of the models; nothing without scores', () => {
    const hw = forecast(y, 3);
    const chosen = forecastChosen(y, 3, {}, { model: 'holt-winters', days: 56, mae: scores({ 'holt-winters': 1.2345, combined: 2.496 }) });
    expect(chosen).toEqual({
      ...hw,
      method: `${hw.method}; chosen by the day-ahead error over the last 56 open days: Holt-Winters 1.23, combined 2.5 (MAE)`,
    });
    // Not enough days scored: Holt-Winters' own method, nothing more.
    expect(forecastChosen(y, 3, {}, { model: 'holt-winters', days: 9, mae: scores({}) })).toEqual(hw);
  });

  it('under 14 days of history forecasts the recent mean whatever was chosen, and says nothing of the choice', () => {
    const short = y.slice(0, 13);
    const fallback = forecast(short, 2);
    expect(fallback.method).toBe('mean of the last 7 days (fewer than 14 days of history)');
    for (const model of ['holt-winters', 'combined'] as const) {
      expect(forecastChosen(short, 2, {}, { model, days: 14, mae: scores({ 'holt-winters': 3, combined: 2 }) })).toEqual(fallback);
    }
    // From 14 days on, the choice is followed and said.
    const fourteen = y.slice(0, 14);
    expect(forecastChosen(fourteen, 2, {}, { model: 'holt-winters', days: 14, mae: scores({ 'holt-winters': 3 }) }).method).toBe(
      `${forecast(fourteen, 2).method}; chosen by the day-ahead error over the last 14 open days: Holt-Winters 3 (MAE)`,
    );
    expect(
      forecastChosen(fourteen, 2, {}, { model: 'combined', days: 14, mae: scores({ 'holt-winters': 3, combined: 2 }) }).method,
    ).toMatch(/^mean of Holt-Winters and the average of the same weekday/);
  });

  it('combined: the mean of Holt-Winters and the weekday average, 1.96 × 1.25 MAE wide, widening as Holt-Winters does', () => {
    // Ten days from day 63 (a Sunday): days 70–72 are their weekday's second week ahead, whose last
    // four known are 14, 21, 28 and 35 days before them.
    const hw = forecast(y, 10);
    const fit = fitHoltWinters(y);
    const f = forecastChosen(y, 10, {}, { model: 'combined', days: 56, mae: scores({ 'holt-winters': 5, combined: 2 }) });
    expect(f.method).toBe(
      'mean of Holt-Winters and the average of the same weekday over the last 4 open weeks; chosen by the day-ahead error over the last 56 open days: Holt-Winters 5, combined 2 (MAE)',
    );
    for (let i = 0; i < 10; i++) {
      const t = 63 + i;
      const back = i < 7 ? [7, 14, 21, 28] : [14, 21, 28, 35];
      const weekday = mean(back.map((d) => y[t - d] as number));
      const value = ((hw.values[i] as number) + weekday) / 2;
      // Holt-Winters' interval grows by √(1 + (h − 1)·alpha²) at step h; the MAE × 1.25 is the spread.
      const half = 1.96 * 2 * 1.25 * Math.sqrt(1 + i * fit.alpha ** 2);
      expect(f.values[i], `step ${i + 1}`).toBeCloseTo(value, 9);
      expect(f.upper[i], `step ${i + 1}`).toBeCloseTo(value + half, 9);
      expect(f.lower[i], `step ${i + 1}`).toBeCloseTo(value - half, 9);
    }
    expect(fit.alpha).toBeGreaterThan(0);
  });

  it('combined after a series Holt-Winters fits exactly: no width of its own to widen by, the MAE’s alone', () => {
    const flat = new Array<number>(42).fill(10);
    expect(forecast(flat, 3).upper).toEqual([10, 10, 10]);
    const f = forecastChosen(flat, 3, {}, { model: 'combined', days: 28, mae: scores({ 'holt-winters': 0.8, combined: 0.8 }) });
    // 1.96 × (0.8 × 1.25) = 1.96 on each side, every day.
    expect(f.values).toEqual([10, 10, 10]);
    for (const u of f.upper) expect(u).toBeCloseTo(11.96, 12);
    for (const l of f.lower) expect(l).toBeCloseTo(8.04, 12);
  });

  describe('TSB', () => {
    // Twenty every other day for two weeks: TSB starts at a chance of 1/2 and a size of 20; the size
    // never moves (every sale is 20, alpha 0.05 the first of a tie), and the smallest beta, 0.02,
    // errs least (forecast-challengers.test.ts has the same worked out on six days).
    const alternate = Array.from({ length: 14 }, (_, t) => (t % 2 === 0 ? 20 : 0));
    let chance = 0.5;
    let sse = 0;
    for (const v of alternate) {
      sse += (v - 20 * chance) ** 2;
      chance = v > 0 ? chance + 0.02 * (1 - chance) : chance - 0.02 * chance;
    }
    const value = 20 * chance;
    const sigma = Math.sqrt(sse / 14);

    it('forecasts chance × size every day, its interval 1.96 × 1.25 MAE wide once scored, and says so', () => {
      expect(Math.round(chance * 100)).toBe(50);
      const f = forecastChosen(alternate, 3, {}, { model: 'tsb', days: 20, mae: scores({ 'holt-winters': 9, combined: 9.5, tsb: 2 }) });
      expect(f.method).toBe(
        'TSB for intermittent sales (alpha 0.05, beta 0.02: sells on 50 % of days, 20 on such a day); chosen by the day-ahead error over the last 20 open days: Holt-Winters 9, combined 9.5, TSB 2 (MAE)',
      );
      expect(f.values).toHaveLength(3);
      for (let i = 0; i < 3; i++) {
        expect(f.values[i]).toBeCloseTo(value, 12);
        expect(f.lower[i]).toBeCloseTo(value - 4.9, 12);
        expect(f.upper[i]).toBeCloseTo(value + 4.9, 12);
      }
    });

    it('without scores, its own one-step error sets the interval (never below 0)', () => {
      const f = forecastChosen(alternate, 2, {}, { model: 'tsb', days: 5, mae: scores({}) });
      expect(f.method).toBe('TSB for intermittent sales (alpha 0.05, beta 0.02: sells on 50 % of days, 20 on such a day)');
      expect(sigma).toBeGreaterThan(9);
      expect(f.values).toHaveLength(2);
      for (let i = 0; i < 2; i++) {
        expect(f.values[i]).toBeCloseTo(value, 12);
        expect(f.lower[i]).toBe(0);
        expect(f.upper[i]).toBeCloseTo(value + 1.96 * sigma, 9);
      }
    });

    it('rounds what it says of the size to a tenth', () => {
      // Sales of 2.34 every other day: "2.3 on such a day".
      const small = alternate.map((v) => (v > 0 ? 2.34 : 0));
      expect(forecastChosen(small, 1, {}, { model: 'tsb', days: 5, mae: scores({}) }).method).toMatch(
        /sells on 50 % of days, 2\.3 on such a day\)$/,
      );
    });
  });
});
