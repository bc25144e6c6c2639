// The rivals of the served advice in `pnpm bench:forecast` (bench/forecast.mjs): what a kitchen
// would do without us, from the same evening's knowledge as the server (a product's sales up to the
// evening, and which days the shop sold anything at all). Each rule steps over the days the shop
// sold nothing, so that a closed day never reads as a day of no demand — the rules get the calendar
// for free, which makes them stronger rivals, not weaker ones.
import ARIMA from 'arima';

export const RULES = ['yesterday', '7-day average', 'seasonal naive', 'SARIMA'];

/** The last `count` open days at or before index `t` (most recent first). */
function openDaysBack(shopOpen, t, count) {
  const out = [];
  for (let i = t; i >= 0 && out.length < count; i--) if (shopOpen[i]) out.push(i);
  return out;
}

/** The same weekday as `target`, the most recent open one at or before `t`. */
function sameWeekdayBack(shopOpen, target, t) {
  for (let i = target - 7; i >= 0; i -= 7) if (i <= t && shopOpen[i]) return i;
  return -1;
}

/**
 * The SARIMA(0,1,1)(0,1,1)₇ rival, the "airline" model: the most accurate and the fastest of the
 * orders tried on the last 60 days of both committed data sets (WAPE 32.5 % and 51.7 %;
 * (1,0,0)(1,0,0)₇ 38.8 % and 52.1 %; (1,0,1)(0,1,1)₇ and (2,0,1)(1,0,1)₇ diverged on some fits).
 * Fitted each evening on the last `window` calendar days (the days the shop sold nothing filled
 * with the same weekday a week before, so that a holiday is not learnt as demand), forecasting
 * `steps` days ahead. The `arima` package (a WebAssembly build, offline).
 */
export function sarimaForecast(units, shopOpen, t, steps = 1, window = 364) {
  const start = Math.max(0, t - window + 1);
  const series = [];
  for (let i = start; i <= t; i++) {
    const k = i - start;
    series.push(shopOpen[i] ? units[i] : k >= 7 ? series[k - 7] : 0);
  }
  if (series.length < 28) return Number.NaN;
  const model = new ARIMA({ p: 0, d: 1, q: 1, P: 0, D: 1, Q: 1, s: 7, verbose: false }).train(series);
  const [predicted] = model.predict(steps);
  const value = predicted?.[steps - 1];
  // A fit that diverged (a forecast beyond twice the window's largest day) is not used: the rule
  // falls back to seasonal naive that evening, as anyone reading the number would (counted).
  if (!Number.isFinite(value) || value > 2 * Math.max(...series)) {
    sarimaForecast.diverged++;
    return Number.NaN;
  }
  return Math.max(0, value);
}
sarimaForecast.diverged = 0;

/**
 * Each rule's forecast for day `target` from `units[0..known]`, the sales known that evening
 * (`sarima`: whether to fit SARIMA, the slow one).
 */
export function ruleForecasts(units, shopOpen, known, target, sarima) {
  const last = openDaysBack(shopOpen, known, 7);
  const seasonal = sameWeekdayBack(shopOpen, target, known);
  const out = {
    yesterday: last.length > 0 ? units[last[0]] : Number.NaN,
    '7-day average': last.length === 7 ? last.reduce((a, i) => a + units[i], 0) / 7 : Number.NaN,
    'seasonal naive': seasonal >= 0 ? units[seasonal] : Number.NaN,
  };
  out.SARIMA = sarima ? sarimaForecast(units, shopOpen, known, target - known) : Number.NaN;
  if (!Number.isFinite(out.SARIMA)) out.SARIMA = out['seasonal naive'];
  // A rule that cannot answer yet falls back to yesterday's sales, as a kitchen would.
  for (const r of RULES) if (!Number.isFinite(out[r])) out[r] = out.yesterday;
  return out;
}

/**
 * The empirical margin of a rule at quantile `q`: the ⌈(n + 1)q⌉-th smallest of its last n day-ahead
 * errors (sales − forecast), the split-conformal quantile (the largest when that index passes n).
 * The fair rival of a quantile advice is the rule with its own margin at the same quantile.
 */
export function conformalMargin(errors, q) {
  if (errors.length === 0) return 0;
  const sorted = [...errors].sort((a, b) => a - b);
  const k = Math.ceil((sorted.length + 1) * q);
  return sorted[Math.min(sorted.length, Math.max(1, k)) - 1];
}

/** The quantity a rule says to prepare: its forecast, plus a margin, rounded up (never below 0). */
export const ruleQuantity = (forecast, margin = 0) => Math.max(0, Math.ceil(forecast + margin - 1e-9));
