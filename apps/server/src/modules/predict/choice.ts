import {
  type DayMarks,
  type Forecast,
  forecast as holtWinters,
  lastOpen,
  MIN_SEASONAL_HISTORY,
  replayForecasts,
  SEASON,
  type StepForecast,
} from './model.js';

/**
 * A model per product, chosen by how it would have done. Holt-Winters (model.ts) suits a product
 * sold every day with a weekly pattern and a level that moves; two others compete with it:
 *
 * - **combined**: the mean of Holt-Winters' forecast and the average of the same weekday over the
 *   last `WEEKDAY_WEEKS` open weeks. Averaging two forecasts that err differently is the most
 *   reliable gain the forecasting competitions (M3, M4) found; the weekday average alone is robust
 *   where the level is flat, and loses where it moves.
 * - **TSB** (Teunter, Syntetos & Babai, 2011) for intermittent sellers: the chance of selling on a
 *   day and the quantity on a day it sells, each smoothed exponentially; forecast = chance ×
 *   quantity. Unlike Croston's method it lets the chance decay while a product stops selling, so
 *   a product going out of fashion is not forecast at its old rate for weeks. It competes only
 *   for a product that sold nothing on at least `INTERMITTENT_SHARE` of the days scored (an average
 *   interval between sales above 1.32 days, Syntetos and Boylan's line).
 *
 * The choice is a rolling-origin backtest made every evening: each candidate's day-ahead forecasts
 * of the last `SELECTION_DAYS` known days (the days the establishment was open; sold-out days,
 * whose demand is unknown, left out) are scored by their mean absolute error. Holt-Winters is kept
 * unless another's error is `CHALLENGER_EDGE` lower, and until `MIN_SELECTION_DAYS` days can be
 * scored: over 56 days a small difference is noise, and switching on noise costs accuracy. The
 * replay that sets the advice's margins and the `backtest` field serves each day the model chosen
 * the evening before it, so both measure what the kitchen would really have been told.
 *
 * Measured with `pnpm bench:forecast` (28 Nov 2026), WAPE / cost against the best simple rule,
 * Holt-Winters alone → with the choice: generated data 37.8 % / −25.7 % → 37.7 % / −26.1 %; French
 * bakery 21.8 % / −30.4 % → 21.8 % / −30.8 %. The weekday average as a candidate on its own made
 * both worse (38.2 %, 21.8 % at −24.0 %), and without the edge every combination of candidates
 * did (up to 38.4 % and 22.1 %): the choice is there for the products Holt-Winters serves badly,
 * and on these two data sets there are few.
 */
export type ModelName = 'holt-winters' | 'combined' | 'tsb';
export const MODELS: readonly ModelName[] = ['holt-winters', 'combined', 'tsb'];
export const SELECTION_DAYS = 56;
/** A challenger replaces Holt-Winters when its error is this much lower (5 %). */
export const CHALLENGER_EDGE = 0.05;
/** TSB competes for a product with no sales on this share of the days scored (1 − 1 / 1.32). */
export const INTERMITTENT_SHARE = 0.242;
export const MIN_SELECTION_DAYS = 14;
export const WEEKDAY_WEEKS = 4;

/**
 * The open values of the weekday of day `t` known by index `last` (< t), newest first, at most
 * `WEEKDAY_WEEKS` of them, from the last 12 weeks; days it sold out only when there are no others
 * (their sales are a floor, not the demand).
 */
function sameWeekday(y: readonly number[], t: number, last: number, marks: DayMarks): { values: number[]; floors: boolean } {
  const values: number[] = [];
  const soldOut: number[] = [];
  let s = t - SEASON * Math.ceil((t - last) / SEASON);
  for (; s >= 0 && values.length < WEEKDAY_WEEKS && s > t - SEASON * WEEKDAY_WEEKS * 3; s -= SEASON) {
    if (marks.closed?.[s]) continue;
    // A day it sold out tells only a floor: left out while there are days it did not.
    if (marks.soldOut?.[s]) soldOut.push(y[s] as number);
    else values.push(y[s] as number);
  }
  return values.length > 0 ? { values, floors: false } : { values: soldOut.slice(0, WEEKDAY_WEEKS), floors: soldOut.length > 0 };
}

const mean = (v: readonly number[]) => (v.length === 0 ? 0 : v.reduce((a, b) => a + b, 0) / v.length);
const sd = (v: readonly number[]) => {
  if (v.length < 2) return mean(v);
  const m = mean(v);
  return Math.sqrt(v.reduce((a, b) => a + (b - m) ** 2, 0) / (v.length - 1));
};

/**
 * The weekday average's forecast of day `t` from the values up to index `last`: the 7-day mean when
 * the weekday was never open. `floors`: every value of the weekday was a sold-out day's, a floor on
 * its demand — the average then knows less than Holt-Winters, which reads them as censored.
 */
function weekdayStep(y: readonly number[], t: number, last: number, marks: DayMarks): StepForecast & { floors: boolean } {
  const { values, floors } = sameWeekday(y, t, last, marks);
  const known = values.length > 0 ? values : lastOpen(y, last + 1, marks.closed);
  return { value: mean(known), seasonal: true, sigma: sd(known), floors };
}

/** Holt-Winters' forecast and the weekday average's, averaged; Holt-Winters' alone where the weekday only sold out. */
const combine = (hw: number, weekday: StepForecast & { floors: boolean }) => (weekday.floors ? hw : (hw + weekday.value) / 2);

export function replayWeekdayAverage(
  y: readonly number[],
  from: number,
  ahead: 1 | 2,
  marks: DayMarks = {},
): (StepForecast & { floors: boolean })[] {
  const steps: (StepForecast & { floors: boolean })[] = [];
  for (let t = Math.max(ahead, from); t < y.length; t++) steps.push(weekdayStep(y, t, t - ahead, marks));
  return steps;
}

type TsbState = { chance: number; size: number };
export type TsbFit = TsbState & { alpha: number; beta: number; sigma: number };

/** The starting chance and size: over the first (up to) 4 weeks' open days. */
function tsbStart(y: readonly number[], length: number, closed?: readonly boolean[]): TsbState {
  const open: number[] = [];
  for (let t = 0; t < Math.min(length, 4 * SEASON); t++) if (!closed?.[t]) open.push(y[t] as number);
  const sold = open.filter((v) => v > 0);
  return { chance: open.length === 0 ? 0 : sold.length / open.length, size: mean(sold) };
}

/**
 * TSB's recursions over `y` from `start`: the quantity on a selling day smoothed by `alpha` on the
 * days it sells, the chance of selling by `beta` on every open day (towards 1 or 0). `onStep` sees
 * the forecast of `y[t]` before it is learnt. Closed days are stepped over; a sold-out day counts as
 * a day it sold, its sales as they are (a floor: the model learns a little low).
 */
function tsbRun(
  y: readonly number[],
  alpha: number,
  beta: number,
  start: TsbState,
  closed?: readonly boolean[],
  onStep?: (t: number, forecast: number) => void,
): TsbFit {
  let { chance, size } = start;
  let sse = 0;
  let count = 0;
  for (let t = 0; t < y.length; t++) {
    const forecast = chance * size;
    if (onStep) onStep(t, forecast);
    if (closed?.[t]) continue;
    const value = y[t] as number;
    sse += (value - forecast) ** 2;
    count++;
    if (value > 0) {
      size += alpha * (value - size);
      chance += beta * (1 - chance);
    } else chance -= beta * chance;
  }
  return { chance, size, alpha, beta, sigma: Math.sqrt(sse / Math.max(1, count)) };
}

const TSB_ALPHAS = [0.05, 0.1, 0.2, 0.3, 0.5];
const TSB_BETAS = [0.02, 0.05, 0.1, 0.2, 0.3];

/** TSB's constants of least one-step squared error over the open days of `y`. */
export function fitTsb(y: readonly number[], closed?: readonly boolean[]): TsbFit {
  const start = tsbStart(y, y.length, closed);
  let best: TsbFit | undefined;
  let bestSigma = Number.POSITIVE_INFINITY;
  for (const a of TSB_ALPHAS)
    for (const b of TSB_BETAS) {
      const f = tsbRun(y, a, b, start, closed);
      if (f.sigma < bestSigma) {
        best = f;
        bestSigma = f.sigma;
      }
    }
  return best as TsbFit;
}

/** TSB's forecasts of `y[from..]`, each from the values up to `ahead` days before it (its constants fitted on those known at `from`). */
export function replayTsb(y: readonly number[], from: number, ahead: 1 | 2, marks: DayMarks = {}): StepForecast[] {
  const first = Math.max(ahead, from);
  const known = first - ahead + 1;
  const f = fitTsb(y.slice(0, known), marks.closed?.slice(0, known));
  const steps: StepForecast[] = [];
  tsbRun(y, f.alpha, f.beta, tsbStart(y, known, marks.closed), marks.closed, (t, forecast) => {
    // The forecast is flat: what is known after day t − 1 forecasts t and t + 1 alike.
    const day = t + ahead - 1;
    if (day >= first && day < y.length) steps.push({ value: forecast, seasonal: true, sigma: f.sigma });
  });
  return steps;
}

/** Why the model was chosen: each candidate's MAE over the days scored (null: not enough days). */
export type Choice = { model: ModelName; days: number; mae: Record<ModelName, number | null> };

export type ChosenReplay = {
  /** The day-ahead forecasts of `y[from..]`, each by the model chosen the evening before. */
  steps: StepForecast[];
  /** The model chosen for the days after the series (tomorrow), with its scores. */
  next: Choice;
};

/**
 * The replay of `y[from..]` with the model chosen each evening (see the module's comment), and
 * the choice for the days after `y`. `scored(t)`: whether day t is one the choice may learn from (an
 * open day; not sold out).
 */
export function replayChosen(
  y: readonly number[],
  from: number,
  ahead: 1 | 2,
  marks: DayMarks,
  scored: (t: number) => boolean,
  candidates: readonly ModelName[] = MODELS,
): ChosenReplay {
  const start = Math.max(ahead, from - SELECTION_DAYS);
  const models = MODELS.filter((m) => m === 'holt-winters' || candidates.includes(m));
  // Holt-Winters always: its replay also says which days have a whole history's model.
  const replays = { 'holt-winters': replayForecasts([...y], start, ahead, marks) } as Record<ModelName, StepForecast[]>;
  if (models.includes('combined')) {
    const weekday = replayWeekdayAverage(y, start, ahead, marks);
    replays.combined = replays['holt-winters'].map((h, i) => ({
      value: combine(h.value, weekday[i] as StepForecast & { floors: boolean }),
      seasonal: true,
      sigma: h.sigma,
    }));
  }
  if (models.includes('tsb')) replays.tsb = replayTsb(y, start, ahead, marks);
  const first = Math.max(ahead, start);
  const at = (model: ModelName, t: number) => replays[model][t - first] as StepForecast;
  // Running totals from `first`: each model's absolute error, the days scored and those without a
  // sale, over the days a model of the whole history (not the short-history mean) forecast and
  // `scored` allows; a window's figures are two lookups.
  const length = y.length - first + 1;
  const error = Object.fromEntries(models.map((m) => [m, new Float64Array(length)])) as Record<ModelName, Float64Array>;
  const counted = new Int32Array(length);
  const zero = new Int32Array(length);
  for (let t = first; t < y.length; t++) {
    const i = t - first;
    const use = at('holt-winters', t).seasonal && scored(t);
    counted[i + 1] = (counted[i] as number) + (use ? 1 : 0);
    zero[i + 1] = (zero[i] as number) + (use && y[t] === 0 ? 1 : 0);
    for (const m of models) error[m][i + 1] = (error[m][i] as number) + (use ? Math.abs((y[t] as number) - at(m, t).value) : 0);
  }
  // The choice known the evening after day `last`: scores of the days up to it.
  const choose = (last: number): Choice => {
    const hi = Math.max(0, last - first + 1);
    const lo = Math.max(0, last - SELECTION_DAYS + 1 - first);
    const days = (counted[hi] as number) - (counted[lo] as number);
    const zeros = (zero[hi] as number) - (zero[lo] as number);
    const sums = { 'holt-winters': 0, combined: 0, tsb: 0 } satisfies Record<ModelName, number>;
    for (const m of models) sums[m] = (error[m][hi] as number) - (error[m][lo] as number);
    const competing = models.filter((m) => m !== 'tsb' || zeros >= days * INTERMITTENT_SHARE);
    const enough = days >= MIN_SELECTION_DAYS;
    const mae = Object.fromEntries(MODELS.map((m) => [m, enough && competing.includes(m) ? sums[m] / days : null])) as Choice['mae'];
    let model: ModelName = 'holt-winters';
    let best = sums['holt-winters'] * (1 - CHALLENGER_EDGE);
    if (enough)
      for (const m of competing)
        if (m !== 'holt-winters' && sums[m] < best) {
          model = m;
          best = sums[m];
        }
    return { model, days, mae };
  };
  const steps: StepForecast[] = [];
  for (let t = Math.max(first, from); t < y.length; t++) {
    const step = at('holt-winters', t);
    steps.push(step.seasonal ? at(choose(t - ahead).model, t) : step);
  }
  return { steps, next: choose(y.length - 1) };
}

const LABEL: Record<ModelName, string> = {
  'holt-winters': 'Holt-Winters',
  combined: 'combined',
  tsb: 'TSB',
};
const mae2 = (v: number | null) => (v === null ? '–' : (Math.round(v * 100) / 100).toString());

/**
 * The forecast of the `horizon` days after `y` by the chosen model (Holt-Winters under
 * `MIN_SEASONAL_HISTORY` days, whose fallback is the short-history mean), its method naming why.
 */
export function forecastChosen(y: number[], horizon: number, marks: DayMarks, choice: Choice): Forecast {
  const clamp = (v: number) => Math.max(0, v);
  const why =
    choice.mae[choice.model] === null
      ? ''
      : `; chosen by the day-ahead error over the last ${choice.days} open days: ${MODELS.filter((m) => choice.mae[m] !== null)
          .map((m) => `${LABEL[m]} ${mae2(choice.mae[m])}`)
          .join(', ')} (MAE)`;
  if (choice.model === 'holt-winters' || y.length < MIN_SEASONAL_HISTORY) {
    const f = holtWinters(y, horizon, marks);
    return { ...f, method: `${f.method}${y.length < MIN_SEASONAL_HISTORY ? '' : why}` };
  }
  const sigma = choice.mae[choice.model] === null ? 0 : (choice.mae[choice.model] as number) * 1.25;
  if (choice.model === 'combined') {
    const h = holtWinters(y, horizon, marks);
    const values = h.values.map((v, i) => clamp(combine(v, weekdayStep(y, y.length + i, y.length - 1, marks))));
    // The interval's width grows with the horizon as Holt-Winters' does.
    const widening = (i: number) => {
      const w0 = (h.upper[0] as number) - (h.values[0] as number);
      return w0 > 0 ? Math.max(1, ((h.upper[i] as number) - (h.values[i] as number)) / w0) : 1;
    };
    return {
      method: `mean of Holt-Winters and the average of the same weekday over the last ${WEEKDAY_WEEKS} open weeks${why}`,
      values,
      lower: values.map((v, i) => clamp(v - 1.96 * sigma * widening(i))),
      upper: values.map((v, i) => v + 1.96 * sigma * widening(i)),
    };
  }
  const f = fitTsb(y, marks.closed);
  const value = clamp(f.chance * f.size);
  const width = 1.96 * (sigma || f.sigma);
  return {
    method: `TSB for intermittent sales (alpha ${f.alpha}, beta ${f.beta}: sells on ${Math.round(f.chance * 100)} % of days, ${Math.round(f.size * 10) / 10} on such a day)${why}`,
    values: Array.from({ length: horizon }, () => value),
    lower: Array.from({ length: horizon }, () => clamp(value - width)),
    upper: Array.from({ length: horizon }, () => value + width),
  };
}
