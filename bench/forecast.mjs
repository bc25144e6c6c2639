// `pnpm bench:forecast`: the demand forecast and the production advice of
// `GET /api/v1/predict?type=demand`, replayed evening by evening over a whole year of daily sales per
// product, against the rules a kitchen would use instead.
//
// What is measured. For each of the FORECAST_PRODUCTS best sellers (default 16, by units sold before
// the year) and each evening d of the last FORECAST_MONTHS calendar months of the data (default 12,
// ending with the last complete month or FORECAST_UNTIL=YYYY-MM) whose next day the shop opened: the
// served code — `productDemand` in apps/server/src/modules/predict/demand.ts, the function the
// endpoint runs per product, here without the database — is given what the server has that evening
// (the product's sales of the 365 days up to d, as the server reads them, the days the shop sold
// anything up to d, the opening calendar) and its answer for d + 1 is scored against what d + 1 sold
// (or, in the generated data, what was wanted). It is called once per price ratio (1.5, 3 and 5 × a
// unit cost of 1, no salvage value), because the price sets the quantile the advice aims at; the
// forecast and its interval are those of the 3 × call. Printed per calendar month and for the year:
// - WAPE (Σ|error| / Σ sales) of the served forecast and of each rule; MASE (a product's MAE over the
//   in-sample MAE of "same weekday last week" before the year, then the mean over products); the
//   share of sales inside the served 95 % interval;
// - at each price ratio, the total cost (units left over × cost + units short × (price − cost),
//   against the demand) of the served advice, of the best rule as is (its forecast rounded up), and of
//   the best rule with its own empirical margin at the advice's quantile (price − cost) / price: the
//   ⌈(n + 1)q⌉-th smallest of the rule's last 56 day-ahead errors added to its forecast, rounded up.
// The rules (bench/forecast-rules.mjs): yesterday's sales, the 7-day average, seasonal naive (the
// same weekday last week) and SARIMA(0,1,1)(0,1,1)₇ from the `arima` package (0.2.8, WebAssembly,
// offline), each stepping over the days the shop sold nothing. Then the goals, each MET or MISSED
// with its figures; on the generated set, beside each, the same figure for an advice that knows each
// day's true law of demand (`demandLaw` in bench/forecast-data.mjs): whether the goal can be met on
// this data at all.
//
// Why it cannot flatter the product. Every month of a year is scored, not a window that happens to
// suit the model. The rules see the same evening's knowledge and are given the shop's open days, as
// the served code is. "The best rule" is chosen after the fact, per month and per price ratio, as the
// cheapest of the four in that month — a hindsight choice no kitchen could make, so it favours the
// rival; and a quantile advice is also compared with the rules with their own margins at the same
// quantile, so that a safety stock alone cannot pass for a better forecast. Only planned closures
// (3 or more consecutive days on which nothing sold) are declared in the opening calendar
// (`closedOn`), as a customer would declare a winter break; single closed days are left for the
// forecast to recognise. The served code never sees a day after d: its open days grow evening by
// evening. "all goals met" is printed only when each goal holds.
//
// Data: by default bench/data/forecast-generated.csv (committed; made by bench/forecast-data.mjs).
// FORECAST_DATA=<path> FORECAST_FORMAT=<format> reads another (bench/forecast-load.mjs): `long`,
// `qty-columns` (bench/data/forecast-italian-pasta.csv, committed, CC BY 4.0),
// `french-bakery-transactions` (Kaggle's "Bakery sales.csv", not redistributable:
// bench/fetch-forecast-data.mjs puts it in bench/data/external/) and `french-bakery-daily`.
// FORECAST_SET=pasta|french-bakery names the two real sets. FORECAST_PRODUCTS=4 FORECAST_MONTHS=2
// shrink a run.
// Switches: FORECAST_TODAY=out (the evening's advice without the day's sales), FORECAST_CALENDAR=none
// (no closure declared), FORECAST_SOLD_OUT=none, FORECAST_PRICES=none (the advice without prices,
// the service level's quantile), FORECAST_MODELS=holt-winters,… (the models that compete, choice.ts),
// FORECAST_SARIMA=none (leave the slow rival out), FORECAST_VERBOSE=1 (per product).
// Run under tsx (it imports the server's TypeScript): `pnpm bench:forecast`.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { closedDaysOf } from '../apps/server/src/modules/opening/service.ts';
import { productDemand } from '../apps/server/src/modules/predict/demand.ts';
import { demandLaw, drawDemand, GENERATED_START, seeded } from './forecast-data.mjs';
import { daysBetween, loadSales, plannedClosures } from './forecast-load.mjs';
import { conformalMargin, RULES, ruleForecasts, ruleQuantity, sarimaForecast } from './forecast-rules.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const SETS = {
  generated: { path: join(HERE, 'data', 'forecast-generated.csv'), format: 'long' },
  pasta: { path: join(HERE, 'data', 'forecast-italian-pasta.csv'), format: 'qty-columns' },
  'french-bakery': { path: join(HERE, 'data', 'external', 'bakery-sales.csv'), format: 'french-bakery-transactions' },
};
const env = process.env;
const SET = SETS[env.FORECAST_SET ?? 'generated'];
if (!SET) throw new Error(`FORECAST_SET=${env.FORECAST_SET}: one of ${Object.keys(SETS).join(', ')}`);
const CONFIG = {
  data: env.FORECAST_DATA ?? SET.path,
  format: env.FORECAST_FORMAT ?? (env.FORECAST_DATA ? 'long' : SET.format),
  products: Number(env.FORECAST_PRODUCTS ?? 16),
  months: Number(env.FORECAST_MONTHS ?? 12),
  until: env.FORECAST_UNTIL,
  ratios: [1.5, 3, 5],
  goalRatio: 3,
  marginDays: 56,
  dayComplete: env.FORECAST_TODAY !== 'out',
  calendar: env.FORECAST_CALENDAR !== 'none',
  soldOut: env.FORECAST_SOLD_OUT !== 'none',
  prices: env.FORECAST_PRICES !== 'none',
  sarima: env.FORECAST_SARIMA !== 'none',
  models: env.FORECAST_MODELS?.split(','),
  verbose: Boolean(env.FORECAST_VERBOSE),
};
// The server reads a product's sales of the last 365 days (HISTORY_DAYS in apps/server/src/modules/
// predict/demand.ts): the replay gives the served code the same window, not the whole file.
const HISTORY_DAYS = 365;
const GOALS = { monthlyCut: 0.2, yearlyCutVsMargin: 0.1, coverage: 0.95, coverageBand: 0.03, wapePoints: 0.02 };
const rules = CONFIG.sarima ? RULES : RULES.filter((r) => r !== 'SARIMA');
/**
 * The generated set's demand is drawn from a law the bench knows (`demandLaw` in
 * bench/forecast-data.mjs). An advice that knows each day's law — the quantile of the true demand
 * at each price ratio, and its 2.5 % and 97.5 % quantiles as the interval — is the best any
 * forecast could do; printed beside each goal, it shows whether a goal can be met on this data at
 * all. Quantiles by `ORACLE_DRAWS` draws of the same law, with a seed of their own.
 */
const ORACLE = !env.FORECAST_DATA && SET === SETS.generated;
const ORACLE_DRAWS = 4000;
const oracleRandom = seeded(7);

/** The months scored: the last `months` calendar months, ending with `until` or the last complete one. */
function scoredMonths(days) {
  const last = days.at(-1);
  const lastComplete = last.slice(5) === new Date(Date.UTC(+last.slice(0, 4), +last.slice(5, 7), 0)).toISOString().slice(5, 10);
  let [y, m] = (CONFIG.until ?? last.slice(0, 7)).split('-').map(Number);
  if (!CONFIG.until && !lastComplete) [y, m] = m === 1 ? [y - 1, 12] : [y, m - 1];
  const months = [];
  for (let i = 0; i < CONFIG.months; i++) {
    months.unshift(`${y}-${String(m).padStart(2, '0')}`);
    [y, m] = m === 1 ? [y - 1, 12] : [y, m - 1];
  }
  return months;
}

/** The product's sale rows as the server reads them (days with sales), and how many fall before each day. */
function saleRows(name, series, days) {
  const rows = [];
  const before = new Array(days.length + 1).fill(0);
  for (let t = 0; t < days.length; t++) {
    before[t] = rows.length;
    if (series.units[t] > 0)
      rows.push({ product_id: name, day: days[t], units: series.units[t], kg: 0, sold_out: CONFIG.soldOut && series.soldOut[t] });
  }
  before[days.length] = rows.length;
  return { rows, before };
}

/** MASE's scale: the in-sample MAE of "same weekday last week" over the open days before `end`. */
function maseScale(units, shopOpen, end) {
  let sum = 0;
  let n = 0;
  for (let t = 7; t < end; t++) {
    if (!shopOpen[t] || !shopOpen[t - 7]) continue;
    sum += Math.abs(units[t] - units[t - 7]);
    n++;
  }
  return n > 0 ? sum / n : 0;
}

function emptyPeriod() {
  const byMethod = () => Object.fromEntries(['served', ...rules].map((m) => [m, 0]));
  const byRule = () => Object.fromEntries(rules.map((r) => [r, 0]));
  return {
    targets: 0,
    sales: 0,
    absErr: byMethod(),
    inside: 0,
    perProduct: new Map(),
    cost: Object.fromEntries(CONFIG.ratios.map((r) => [r, { served: 0, left: 0, short: 0, asIs: byRule(), margin: byRule(), oracle: 0 }])),
    oracle: { absErr: 0, inside: 0 },
  };
}

const costOf = (quantity, demand, ratio) => Math.max(0, quantity - demand) + Math.max(0, demand - quantity) * (ratio - 1);

/** Replays the year and returns { periods: month → totals (and 'year'), timings }. */
function replay({ days, shopOpen }, top, months, calendar) {
  const monthSet = new Set(months);
  const firstTarget = days.indexOf(`${months[0]}-01`);
  const periods = new Map([...months.map((m) => [m, emptyPeriod()]), ['year', emptyPeriod()]]);
  const state = top.map(([name, series]) => ({
    name,
    series,
    ...saleRows(name, series, days),
    scale: maseScale(series.units, shopOpen, firstTarget),
    errors: Object.fromEntries(rules.map((r) => [r, []])),
  }));
  const openDays = new Set();
  const timings = { served: 0, sarima: 0 };
  // The rules' margins need 56 open days of errors before the first scored day: the replay starts earlier.
  let start = firstTarget - 1;
  for (let open = 0; start > 8 && open < CONFIG.marginDays + 7; start--) if (shopOpen[start]) open++;
  for (let t = 0; t < start; t++) if (shopOpen[t]) openDays.add(days[t]);
  for (let t = start; t + 1 < days.length && days[t + 1].slice(0, 7) <= months.at(-1); t++) {
    // The evening of day t: the server's open days run to t once the day's sales are in.
    const known = CONFIG.dayComplete ? t : t - 1;
    if (known >= 0 && shopOpen[known]) openDays.add(days[known]);
    const target = t + 1;
    if (!shopOpen[target]) continue;
    const month = days[target].slice(0, 7);
    const scored = target >= firstTarget && monthSet.has(month);
    for (const p of state) {
      const sarimaStarted = performance.now();
      const forecasts = ruleForecasts(p.series.units, shopOpen, known, target, CONFIG.sarima);
      timings.sarima += performance.now() - sarimaStarted;
      const actual = p.series.units[target];
      if (scored) {
        const served = serveAll(p, days, t, known, openDays, calendar, timings);
        const oracle = ORACLE ? oracleOf(p.name, daysBetween(GENERATED_START, days[target])) : null;
        for (const period of [periods.get(month), periods.get('year')])
          score(period, p, served, forecasts, actual, p.series.demand[target], oracle);
      }
      for (const r of rules) {
        p.errors[r].push(actual - forecasts[r]);
        if (p.errors[r].length > CONFIG.marginDays) p.errors[r].shift();
      }
    }
  }
  return { periods, timings, state };
}

/** The served answer for day t + 1 at each price ratio: { ratio → point } (one call when prices are off). */
function serveAll(p, days, t, known, openDays, calendar, timings) {
  const sales = p.rows.slice(p.before[Math.max(0, t - HISTORY_DAYS)], p.before[known + 1]);
  const out = {};
  for (const ratio of CONFIG.prices ? CONFIG.ratios : [CONFIG.ratios[0]]) {
    const product = {
      id: p.name,
      name: p.name,
      food_category: 'bakery',
      unit_weight_kg: null,
      lines: sales.length,
      ...(CONFIG.prices ? { price: ratio, unit_cost: 1, salvage_value: null } : { price: null, unit_cost: null, salvage_value: null }),
    };
    const started = performance.now();
    const answer = productDemand(product, sales, new Map(), {
      today: days[t],
      horizon: 1,
      openDays,
      dayComplete: CONFIG.dayComplete,
      ...(calendar ? { closedOn: calendar.closedOn, reopening: calendar.reopening } : {}),
      ...(CONFIG.models ? { models: CONFIG.models } : {}),
    });
    timings.served += performance.now() - started;
    out[ratio] = answer.points[0];
  }
  for (const ratio of CONFIG.ratios) out[ratio] ??= out[CONFIG.ratios[0]];
  return out;
}

/** What an advice knowing the day's law of demand would say: its mean, interval and quantity at each ratio. */
function oracleOf(name, d) {
  const law = demandLaw(name, d);
  if (!law) throw new Error(`the generated set's law says ${name} was closed on day ${d}`);
  const draws = Array.from({ length: ORACLE_DRAWS }, () => drawDemand(law.mean, law.shape, oracleRandom)).sort((a, b) => a - b);
  const at = (q) => draws[Math.min(ORACLE_DRAWS, Math.max(1, Math.ceil(ORACLE_DRAWS * q))) - 1];
  return {
    mean: law.mean,
    lower: at(0.025),
    upper: at(0.975),
    advised: Object.fromEntries(CONFIG.ratios.map((r) => [r, at((r - 1) / r)])),
  };
}

/** Adds one product's day to a period: errors against the sales, costs against the demand. */
function score(period, p, served, forecasts, actual, demand, oracle) {
  if (oracle) {
    period.oracle.absErr += Math.abs(actual - oracle.mean);
    if (actual >= oracle.lower && actual <= oracle.upper) period.oracle.inside++;
    for (const ratio of CONFIG.ratios) period.cost[ratio].oracle += costOf(oracle.advised[ratio], demand, ratio);
  }
  const point = served[CONFIG.goalRatio];
  period.targets++;
  period.sales += actual;
  period.absErr.served += Math.abs(actual - point.expected);
  for (const r of rules) period.absErr[r] += Math.abs(actual - forecasts[r]);
  if (actual >= point.lower && actual <= point.upper) period.inside++;
  const mine = period.perProduct.get(p.name) ?? { n: 0, absErr: 0, scale: p.scale };
  mine.n++;
  mine.absErr += Math.abs(actual - point.expected);
  period.perProduct.set(p.name, mine);
  for (const ratio of CONFIG.ratios) {
    const c = period.cost[ratio];
    const advised = served[ratio].advised;
    c.served += costOf(advised, demand, ratio);
    c.left += Math.max(0, advised - demand);
    c.short += Math.max(0, demand - advised);
    const q = (ratio - 1) / ratio;
    for (const r of rules) {
      c.asIs[r] += costOf(ruleQuantity(forecasts[r]), demand, ratio);
      c.margin[r] += costOf(ruleQuantity(forecasts[r], conformalMargin(p.errors[r], q)), demand, ratio);
    }
  }
}

// ---- Report ----

const pct = (v) => (Number.isFinite(v) ? `${(v * 100).toFixed(1)} %` : '—');
const signed = (v) => (Number.isFinite(v) ? `${v >= 0 ? '+' : ''}${(v * 100).toFixed(1)} %` : '—');
const mase = (period) => {
  const values = [...period.perProduct.values()].filter((v) => v.scale > 0 && v.n > 0).map((v) => v.absErr / v.n / v.scale);
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : Number.NaN;
};
const best = (costs) => rules.reduce((a, b) => (costs[a] <= costs[b] ? a : b));
const label = (key) => (key === 'year' ? 'total' : key);

function printAccuracy(periods) {
  const oracle = ORACLE ? '   WAPE, coverage: true law' : '';
  console.log(`\nmonth     targets   WAPE served  ${rules.map((r) => r.padStart(14)).join(' ')}   MASE served  coverage 95 %${oracle}`);
  for (const [key, p] of periods) {
    if (p.targets === 0) continue;
    console.log(
      `${label(key).padEnd(8)} ${String(p.targets).padStart(8)}   ${pct(p.absErr.served / p.sales).padStart(11)}  ${rules
        .map((r) => pct(p.absErr[r] / p.sales).padStart(14))
        .join(' ')}   ${mase(p).toFixed(2).padStart(11)}  ${pct(p.inside / p.targets).padStart(13)}` +
        (ORACLE ? `   ${pct(p.oracle.absErr / p.sales).padStart(8)}, ${pct(p.oracle.inside / p.targets)}` : ''),
    );
  }
}

function printCosts(periods, ratio) {
  console.log(`\nprice ${ratio} × cost (advice's quantile ${((ratio - 1) / ratio).toFixed(3)}): total cost in unit costs`);
  console.log(
    `month      served (left/short)        best rule as is                 best rule + own margin${ORACLE ? '          true law' : ''}`,
  );
  for (const [key, p] of periods) {
    if (p.targets === 0) continue;
    const c = p.cost[ratio];
    const a = best(c.asIs);
    const m = best(c.margin);
    console.log(
      `${label(key).padEnd(8)} ${String(Math.round(c.served)).padStart(7)} (${Math.round(c.left)}/${Math.round(c.short)})`.padEnd(35) +
        `${String(Math.round(c.asIs[a])).padStart(7)} ${a.padEnd(15)} ${signed(c.served / c.asIs[a] - 1).padStart(8)}   ` +
        `${String(Math.round(c.margin[m])).padStart(7)} ${m.padEnd(15)} ${signed(c.served / c.margin[m] - 1).padStart(8)}` +
        (ORACLE
          ? `   ${String(Math.round(c.oracle)).padStart(7)} (rule as is ${signed(c.oracle / c.asIs[a] - 1)}, + margin ${signed(c.oracle / c.margin[m] - 1)})`
          : ''),
    );
  }
  const year = periods.get('year').cost[ratio];
  console.log(
    `each rule over the year, as is / with its margin: ${rules.map((r) => `${r} ${Math.round(year.asIs[r])} / ${Math.round(year.margin[r])}`).join(', ')}`,
  );
}

/** The goals, each MET or MISSED with its figures; "all goals met" only when each holds. */
function printGoals(periods) {
  const months = [...periods].filter(([k, p]) => k !== 'year' && p.targets > 0);
  const year = periods.get('year');
  const r = CONFIG.goalRatio;
  const monthlyCuts = months.map(([k, p]) => [k, p.cost[r].served / p.cost[r].asIs[best(p.cost[r].asIs)] - 1]);
  const missedCut = monthlyCuts.filter(([, v]) => !(v <= -GOALS.monthlyCut));
  const yearMargin = year.cost[r].served / year.cost[r].margin[best(year.cost[r].margin)] - 1;
  const coverages = months.map(([k, p]) => [k, p.inside / p.targets]);
  const missedCoverage = coverages.filter(([, v]) => !(Math.abs(v - GOALS.coverage) <= GOALS.coverageBand));
  const wapeServed = year.absErr.served / year.sales;
  const wapeWeek = year.absErr['7-day average'] / year.sales;
  // The same measures for the advice that knows each day's law (generated set only).
  const bound = (() => {
    if (!ORACLE) return ['', '', '', ''];
    const cuts = months.map(([, p]) => p.cost[r].oracle / p.cost[r].asIs[best(p.cost[r].asIs)] - 1);
    const inBand = months.filter(([, p]) => Math.abs(p.oracle.inside / p.targets - GOALS.coverage) <= GOALS.coverageBand).length;
    const known = "an advice knowing each day's true law of demand";
    return [
      ` [${known}: ${cuts.filter((v) => v <= -GOALS.monthlyCut).length}/${cuts.length} months, from ${signed(Math.min(...cuts))} to ${signed(Math.max(...cuts))}]`,
      ` [${known}: ${signed(year.cost[r].oracle / year.cost[r].margin[best(year.cost[r].margin)] - 1)}]`,
      ` [${known}: ${inBand}/${months.length} months, ${months.map(([k, p]) => `${k.slice(5)} ${pct(p.oracle.inside / p.targets)}`).join(', ')}]`,
      ` [${known}: ${pct(year.oracle.absErr / year.sales)}]`,
    ];
  })();
  const goals = [
    [
      missedCut.length === 0,
      `advice at ${r}× cost ≥ ${pct(GOALS.monthlyCut)} below the best rule as is in every month: ${monthlyCuts.length - missedCut.length}/${monthlyCuts.length} months` +
        (missedCut.length ? `; missed in ${missedCut.map(([k, v]) => `${k} ${signed(v)}`).join(', ')}` : '') +
        bound[0],
    ],
    [
      yearMargin <= -GOALS.yearlyCutVsMargin,
      `advice at ${r}× cost ≥ ${pct(GOALS.yearlyCutVsMargin)} below the best rule with its own margin over the year: ${signed(yearMargin)} (${best(year.cost[r].margin)})${bound[1]}`,
    ],
    [
      missedCoverage.length === 0,
      `95 % interval coverage within ${pct(GOALS.coverage)} ± 3 points in every month: ${coverages.length - missedCoverage.length}/${coverages.length} months` +
        (missedCoverage.length ? `; outside in ${missedCoverage.map(([k, v]) => `${k} ${pct(v)}`).join(', ')}` : '') +
        bound[2],
    ],
    [
      wapeWeek - wapeServed >= GOALS.wapePoints,
      `WAPE ≥ 2 points below the 7-day average over the year: ${pct(wapeServed)} against ${pct(wapeWeek)} (${((wapeWeek - wapeServed) * 100).toFixed(1)} points)${bound[3]}`,
    ],
  ];
  console.log('');
  for (const [met, text] of goals) console.log(`${met ? 'MET   ' : 'MISSED'} ${text}`);
  if (goals.every(([met]) => met)) console.log('all goals met');
}

function main() {
  const started = performance.now();
  const data = loadSales(CONFIG.data, CONFIG.format);
  const { days, products, shopOpen } = data;
  const months = scoredMonths(days);
  const firstTarget = days.indexOf(`${months[0]}-01`);
  if (firstTarget < 28) throw new Error(`not enough history before ${months[0]} (the data starts on ${days[0]})`);
  const closures = CONFIG.calendar ? plannedClosures(days, shopOpen) : [];
  const calendar = CONFIG.calendar ? closedDaysOf([], closures) : null;
  const top = [...products.entries()]
    .map(([name, series]) => [name, series, series.units.slice(0, firstTarget).reduce((a, b) => a + b, 0)])
    .sort((a, b) => b[2] - a[2])
    .slice(0, CONFIG.products);
  const closedSingles = shopOpen.filter((open, t) => !open && !closures.some((c) => c.starts_on <= days[t] && days[t] <= c.ends_on)).length;
  console.log(
    `data: ${CONFIG.data.replace(`${dirname(HERE)}/`, '')} (${CONFIG.format}), ${days[0]} … ${days.at(-1)}; ${top.length} products; ` +
      `scored ${months[0]} … ${months.at(-1)}; ${closures.length} planned closures declared (${closures.map((c) => `${c.starts_on}…${c.ends_on}`).join(', ') || 'none'}), ` +
      `${closedSingles} other days without sales not declared; prices ${CONFIG.prices ? CONFIG.ratios.join(', ') : 'none'} × cost; ` +
      `today's sales ${CONFIG.dayComplete ? 'in' : 'out'}; rivals: ${rules.join(', ')}`,
  );
  const { periods, timings, state } = replay(data, top, months, calendar);
  printAccuracy(periods);
  for (const ratio of CONFIG.ratios) printCosts(periods, ratio);
  if (CONFIG.verbose) printProducts(state, data, firstTarget);
  printGoals(periods);
  console.log(
    `\n${Math.round(performance.now() - started)} ms (served code ${Math.round(timings.served)} ms, rules incl. SARIMA ${Math.round(timings.sarima)} ms` +
      `${CONFIG.sarima ? `; SARIMA diverged on ${sarimaForecast.diverged} fits, seasonal naive used instead` : ''})`,
  );
}

/** FORECAST_VERBOSE=1: each product's units over the year. */
function printProducts(state, { days }, firstTarget) {
  console.log('\nproducts (units sold before the scored year, per open day):');
  for (const p of state) {
    const before = p.series.units.slice(0, firstTarget).reduce((a, b) => a + b, 0);
    console.log(
      `  ${p.name.padEnd(28)} ${String(before).padStart(7)}  ${(before / Math.max(1, daysBetween(days[0], days[firstTarget]))).toFixed(1)}/day`,
    );
  }
}

main();
