// `pnpm bench:forecast`: how good the demand forecast and the production advice of
// `GET /api/v1/predict?type=demand` are, replayed day by day over daily sales per product.
//
// For each product (the FORECAST_PRODUCTS best sellers by units, default 16) and each of the last
// FORECAST_ORIGINS open days (default 28, "rolling origin"): the evening of day d, the sales up to d
// are known; the advice is for d + 1. The served code (`productDemand`, apps/server/src/modules/
// predict/demand.ts — the function the endpoint runs per product, here without the database) is
// given the sales before `today` = d, exactly as the server would on that evening, and its
// `points[0]` (d + 1) is compared with what d + 1 sold (or, in the generated data, what was wanted).
// Three simple rules a kitchen uses, from the same evening's knowledge, are scored beside it:
// yesterday's sales (d's), the 7-day average (d − 6 … d) and seasonal naive (the same weekday last
// week, d − 6). Closed days are neither forecast nor scored.
//
// Printed: WAPE (Σ|error| / Σ actual); MASE (MAE over the in-sample MAE of the one-week-back
// forecast, per product, then the mean); the share of actuals inside the 95 % interval — all three
// against the sales, which is what the forecast is of; and, judged against the demand (the sales,
// or more on a sold-out day when the data knows it), for
// the advice at a price FORECAST_PRICE_RATIO times the unit cost (default 3, no salvage value),
// units left over, units short, days short and the total cost (leftover × cost + short × margin,
// in units of the unit cost) against each rule's quantity (the rule's forecast, rounded up).
//
// Data: by default bench/data/forecast-generated.csv (committed; made by bench/forecast-data.mjs:
// closures, sold-out days, intermittent sellers). FORECAST_DATA=<path> reads another file, in one of
// these FORECAST_FORMATs:
// - `long` (default): date,product,units[,demand][,sold_out][,closed] — one row per product and day.
// - `french-bakery-daily`: unique_id,ds,y,unit_price — the daily aggregate of Kaggle's "French
//   Bakery Daily Sales" (matthieugimbert), where y is the day's revenue: units = y / unit_price. The
//   data set's page says "Data files © Original Authors": it is not committed here; download it
//   yourself and give its path.
// FORECAST_MODELS=<list> names the models that compete per product (choice.ts: holt-winters,
// combined, tsb; all by default): FORECAST_MODELS=holt-winters scores Holt-Winters alone.
// Run under tsx (it imports the server's TypeScript): `pnpm bench:forecast`.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import { productDemand } from '../apps/server/src/modules/predict/demand.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const DATA = process.env.FORECAST_DATA ?? join(HERE, 'data', 'forecast-generated.csv');
const FORMAT = process.env.FORECAST_FORMAT ?? 'long';
const PRODUCTS = Number(process.env.FORECAST_PRODUCTS ?? 16);
const ORIGINS = Number(process.env.FORECAST_ORIGINS ?? 28);
const PRICE_RATIO = Number(process.env.FORECAST_PRICE_RATIO ?? 3);
// The evening's advice is made after closing, with the day's sales in (as the server does once the
// establishment's last shift has ended); FORECAST_TODAY=out: from the days before only (as before).
const DAY_COMPLETE = process.env.FORECAST_TODAY !== 'out';
// The closed days are declared in the opening calendar, as a customer does (the days on which no
// product sold anything); FORECAST_CALENDAR=none: not declared, learnt as days of no demand.
const CALENDAR = process.env.FORECAST_CALENDAR !== 'none';
// The sold-out days the data knows (the generated data's sold_out column) are sent as such, as a POS
// that says so would; FORECAST_SOLD_OUT=none: not sent.
const SOLD_OUT = process.env.FORECAST_SOLD_OUT !== 'none';
// The models that compete for each product (FORECAST_MODELS=holt-winters,weekday-average,tsb; all by default).
const MODELS = process.env.FORECAST_MODELS?.split(',');
const GOALS = { wape: 0.22, mase: 0.67, costCut: 0.2, coverageBand: 0.03, nominal: 0.95 };

const addDays = (day, n) => new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

/** The file as { product → Map(day → { units, demand, closed }) }, every day from the first to the last. */
function load() {
  const rows = parse(readFileSync(DATA), { columns: true, skip_empty_lines: true, trim: true });
  const byProduct = new Map();
  const put = (product, day, v) => {
    if (!byProduct.has(product)) byProduct.set(product, new Map());
    const days = byProduct.get(product);
    const prev = days.get(day);
    days.set(
      day,
      prev
        ? {
            units: prev.units + v.units,
            demand: prev.demand + v.demand,
            closed: prev.closed && v.closed,
            soldOut: prev.soldOut || v.soldOut,
          }
        : v,
    );
  };
  for (const r of rows) {
    if (FORMAT === 'french-bakery-daily') {
      const price = Number(r.unit_price);
      const units = price > 0 ? Math.max(0, Math.round(Number(r.y) / price)) : 0;
      put(r.unique_id, r.ds, { units, demand: units, closed: false, soldOut: false });
    } else {
      const units = Number(r.units);
      put(r.product, r.date, {
        units,
        demand: r.demand === undefined || r.demand === '' ? units : Number(r.demand),
        closed: r.closed === '1',
        soldOut: r.sold_out === '1',
      });
    }
  }
  // A day on which no product sold anything is a closed day (the file may not say so).
  const allDays = new Set();
  for (const days of byProduct.values()) for (const d of days.keys()) allDays.add(d);
  const sorted = [...allDays].sort();
  const closed = new Set(sorted.filter((d) => [...byProduct.values()].every((days) => (days.get(d)?.units ?? 0) === 0)));
  return { byProduct, first: sorted[0], last: sorted[sorted.length - 1], closed };
}

const { byProduct, first, last, closed } = load();
const top = [...byProduct.entries()]
  .map(([name, days]) => [name, days, [...days.values()].reduce((a, v) => a + v.units, 0)])
  .sort((a, b) => b[2] - a[2])
  .slice(0, PRODUCTS);

// The origins: the last ORIGINS days d whose next day is open, up to FORECAST_UNTIL (a day, default
// the data's last) — e.g. the weeks after a closure.
const origins = [];
const until = process.env.FORECAST_UNTIL ?? last;
for (let d = addDays(until, -1); origins.length < ORIGINS && d > first; d = addDays(d, -1))
  if (!closed.has(addDays(d, 1))) origins.unshift(d);

// The days the shop sold anything (the server's open days: from every product's sales).
const openDays = new Set();
for (const days of byProduct.values()) for (const [d, v] of days) if (v.units > 0) openDays.add(d);

const rules = ['yesterday', '7-day average', 'seasonal naive'];
const methods = ['served', ...rules];
const totals = Object.fromEntries(methods.map((m) => [m, { absErr: 0, leftover: 0, short: 0, shortDays: 0, cost: 0 }]));
let actualSum = 0;
let inside = 0;
let scored = 0;
const mase = Object.fromEntries(methods.map((m) => [m, []]));
const beats = Object.fromEntries(rules.map((r) => [r, 0]));
const started = performance.now();
// Each product's method on the last origin (FORECAST_VERBOSE).
const chosen = new Map();

for (const [name, days] of top) {
  const unitsOn = (d) => days.get(d)?.units ?? 0;
  const errors = Object.fromEntries(methods.map((m) => [m, 0]));
  let count = 0;
  let productInside = 0;
  for (const d of origins) {
    const target = addDays(d, 1);
    // The forecast is of sales (what the data can show); the advice is judged against demand (what a
    // larger batch would have sold: above the sales on a sold-out day, known in generated data).
    const actual = unitsOn(target);
    const demand = days.get(target)?.demand ?? actual;
    // The server's view on the evening of d: sale rows of the days before d (a day without sales has no row).
    const sales = [];
    for (let day = first; day < (DAY_COMPLETE ? addDays(d, 1) : d); day = addDays(day, 1)) {
      const u = unitsOn(day);
      if (u > 0) sales.push({ product_id: name, day, units: u, kg: 0, sold_out: SOLD_OUT && days.get(day)?.soldOut === true });
    }
    if (sales.length === 0) continue;
    // The products' prices as a customer would set them; FORECAST_PRICES=none: without (the fixed service level).
    const prices =
      process.env.FORECAST_PRICES === 'none'
        ? { price: null, unit_cost: null, salvage_value: null }
        : { price: PRICE_RATIO, unit_cost: 1, salvage_value: null };
    const product = { id: name, name, food_category: 'bakery', unit_weight_kg: null, lines: sales.length, ...prices };
    const answer = productDemand(product, sales, new Map(), {
      today: d,
      horizon: 1,
      openDays,
      dayComplete: DAY_COMPLETE,
      ...(CALENDAR ? { closedOn: (day) => closed.has(day) } : {}),
      ...(MODELS ? { models: MODELS } : {}),
    });
    chosen.set(name, answer.method);
    const served = answer.points[0];
    const week = Array.from({ length: 7 }, (_, i) => unitsOn(addDays(d, -i)));
    const forecasts = {
      served: served.expected,
      yesterday: unitsOn(d),
      '7-day average': week.reduce((a, b) => a + b, 0) / 7,
      'seasonal naive': unitsOn(addDays(d, -6)),
    };
    const quantities = {
      served: served.advised,
      yesterday: forecasts.yesterday,
      '7-day average': Math.ceil(forecasts['7-day average']),
      'seasonal naive': forecasts['seasonal naive'],
    };
    for (const m of methods) {
      const err = Math.abs(actual - forecasts[m]);
      totals[m].absErr += err;
      errors[m] += err;
      const q = quantities[m];
      const left = Math.max(0, q - demand);
      const short = Math.max(0, demand - q);
      totals[m].leftover += left;
      totals[m].short += short;
      if (short > 0) totals[m].shortDays++;
      totals[m].cost += left * 1 + short * (PRICE_RATIO - 1);
    }
    if (actual >= served.lower && actual <= served.upper) {
      inside++;
      productInside++;
    }
    actualSum += actual;
    scored++;
    count++;
  }
  // MASE's scale: the in-sample MAE of "same weekday last week" over the open days before the first origin.
  let scaleSum = 0;
  let scaleN = 0;
  for (let day = addDays(first, 7); day < origins[0]; day = addDays(day, 1)) {
    if (closed.has(day) || closed.has(addDays(day, -7))) continue;
    scaleSum += Math.abs(unitsOn(day) - unitsOn(addDays(day, -7)));
    scaleN++;
  }
  const scale = scaleN > 0 ? scaleSum / scaleN : 0;
  if (count > 0 && scale > 0) for (const m of methods) mase[m].push(errors[m] / count / scale);
  for (const r of rules) if (errors.served < errors[r]) beats[r]++;
  // FORECAST_VERBOSE=1: each product's figures.
  if (process.env.FORECAST_VERBOSE && count > 0) {
    const sold = origins.reduce((a, d) => a + unitsOn(addDays(d, 1)), 0);
    console.log(
      `  ${name.padEnd(24)} sold ${String(sold).padStart(6)}  WAPE ${((errors.served / Math.max(1, sold)) * 100).toFixed(1).padStart(5)} %  coverage ${((productInside / count) * 100).toFixed(0).padStart(3)} %  ${chosen.get(name)}`,
    );
  }
}

const mean = (a) => (a.length ? a.reduce((x, y) => x + y, 0) / a.length : Number.NaN);
const pct = (v) => `${(v * 100).toFixed(1)} %`;
console.log(
  `data: ${FORMAT === 'long' && !process.env.FORECAST_DATA ? 'bench/data/forecast-generated.csv' : DATA} (${FORMAT}), ${first} … ${last}, ${closed.size} closed days (${CALENDAR ? 'declared in the opening calendar' : 'not declared'}); ${top.length} products × ${origins.length} origins (${origins[0]} … ${origins.at(-1)}) = ${scored} forecasts; price ${PRICE_RATIO} × unit cost; ${Math.round(performance.now() - started)} ms`,
);
console.log('method          WAPE     MASE   left over   short   days short   total cost');
for (const m of methods) {
  const t = totals[m];
  console.log(
    `${m.padEnd(15)} ${pct(t.absErr / actualSum).padStart(7)}  ${mean(mase[m]).toFixed(2).padStart(5)}  ${String(Math.round(t.leftover)).padStart(10)}  ${String(Math.round(t.short)).padStart(6)}  ${String(t.shortDays).padStart(11)}  ${String(Math.round(t.cost)).padStart(11)}`,
  );
}
const coverage = inside / scored;
const bestRule = rules.reduce((a, b) => (totals[a].cost <= totals[b].cost ? a : b));
const costChange = totals.served.cost / totals[bestRule].cost - 1;
console.log(`served forecast better than the rule on: ${rules.map((r) => `${r} ${beats[r]}/${top.length}`).join(', ')} products (MAE)`);
console.log(`95 % interval coverage: ${pct(coverage)}`);
console.log(`advice's total cost vs the best rule (${bestRule}): ${costChange >= 0 ? '+' : ''}${pct(costChange)}`);
const missed = [];
const wape = totals.served.absErr / actualSum;
if (wape > GOALS.wape) missed.push(`WAPE ${pct(wape)} > ${pct(GOALS.wape)}`);
if (mean(mase.served) > GOALS.mase) missed.push(`MASE ${mean(mase.served).toFixed(2)} > ${GOALS.mase}`);
if (costChange > -GOALS.costCut) missed.push(`advice's cost ${pct(costChange)} vs the best rule, goal −${pct(GOALS.costCut)} or lower`);
if (Math.abs(coverage - GOALS.nominal) > GOALS.coverageBand)
  missed.push(`interval coverage ${pct(coverage)}, goal ${pct(GOALS.nominal)} ± 3 points`);
for (const line of missed) console.log(`MISSED ${line}`);
if (missed.length === 0) console.log('all goals met');
