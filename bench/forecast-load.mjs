// Reading a data set of daily sales per product for `pnpm bench:forecast` (bench/forecast.mjs), and
// the opening calendar the bench declares for it. Each format comes down to one table: for every
// product and every calendar day from the data's first to its last, the units sold, the demand
// (the units, or more on a sold-out day when the data knows it) and whether the product sold out.
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';

export const addDays = (day, n) => new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
export const daysBetween = (from, to) => Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);

/** The formats (FORECAST_FORMAT): each maps the file's rows to { product, day, units, demand?, soldOut? } and says what it is. */
const FORMATS = {
  // date,product,units[,demand][,sold_out][,closed]: one row per product and day (the generated data).
  long: {
    rows: (text) =>
      parse(text, { columns: true, skip_empty_lines: true, trim: true }).map((r) => ({
        product: r.product,
        day: r.date,
        units: Number(r.units),
        demand: r.demand === undefined || r.demand === '' ? undefined : Number(r.demand),
        soldOut: r.sold_out === '1',
      })),
  },
  // Kaggle's "French Bakery Daily Sales", the transaction file "Bakery sales.csv":
  // ,date,time,ticket_number,article,Quantity,unit_price — one row per article of a ticket. The day's
  // units of an article are the sum of its Quantity; a negative Quantity is a return and counts
  // against the day's sales (a day that comes out below 0 counts 0).
  'french-bakery-transactions': {
    rows: (text) =>
      parse(text, { columns: true, skip_empty_lines: true, trim: true, bom: true }).map((r) => ({
        product: r.article,
        day: r.date,
        units: Number(r.Quantity),
      })),
  },
  // The daily aggregate of the same data set (unique_id,ds,y,unit_price; y the day's revenue).
  'french-bakery-daily': {
    rows: (text) =>
      parse(text, { columns: true, skip_empty_lines: true, trim: true }).map((r) => {
        const price = Number(r.unit_price);
        return { product: r.unique_id, day: r.ds, units: price > 0 ? Math.round(Number(r.y) / price) : 0 };
      }),
  },
  // One row per day, one QTY_<product> column per product (other columns, e.g. PROMO_<product>, are
  // left out): the UCI "Hierarchical Sales Data" of an Italian grocery store's pasta. A day missing
  // from the file (the store's holidays) is a day on which nothing sold.
  'qty-columns': {
    rows: (text) => {
      const out = [];
      for (const r of parse(text, { columns: true, skip_empty_lines: true, trim: true })) {
        for (const [column, value] of Object.entries(r)) {
          if (column.startsWith('QTY_')) out.push({ product: column.slice(4), day: r.DATE, units: Number(value) });
        }
      }
      return out;
    },
  },
};
export const FORMAT_NAMES = Object.keys(FORMATS);

/**
 * The data set: `days` (every calendar day from the first to the last, in order), `products`
 * (name → { units, demand, soldOut }, arrays indexed like `days`) and `shopOpen` (whether the shop
 * sold anything that day: the server's open days).
 */
export function loadSales(path, format) {
  const spec = FORMATS[format];
  if (!spec) throw new Error(`FORECAST_FORMAT=${format}: one of ${FORMAT_NAMES.join(', ')}`);
  const rows = spec.rows(readFileSync(path, 'utf8')).filter((r) => /^\d{4}-\d{2}-\d{2}$/.test(r.day) && Number.isFinite(r.units));
  let first = rows[0]?.day;
  let last = first;
  for (const r of rows) {
    if (r.day < first) first = r.day;
    if (r.day > last) last = r.day;
  }
  const length = daysBetween(first, last) + 1;
  const days = Array.from({ length }, (_, t) => addDays(first, t));
  const products = new Map();
  for (const r of rows) {
    let p = products.get(r.product);
    if (!p) {
      p = { units: new Array(length).fill(0), demand: new Array(length).fill(0), soldOut: new Array(length).fill(false) };
      products.set(r.product, p);
    }
    const t = daysBetween(first, r.day);
    p.units[t] += r.units;
    p.demand[t] += r.demand ?? r.units;
    if (r.soldOut) p.soldOut[t] = true;
  }
  // Returns can outweigh a day's sales of an article: that day sold nothing of it.
  for (const p of products.values()) {
    for (let t = 0; t < length; t++) {
      p.units[t] = Math.max(0, p.units[t]);
      p.demand[t] = Math.max(p.units[t], p.demand[t]);
    }
  }
  const shopOpen = days.map((_, t) => [...products.values()].some((p) => p.units[t] > 0));
  return { days, products, shopOpen };
}

/**
 * The closures a customer would have declared in the opening calendar: runs of at least `minRun`
 * consecutive days on which the shop sold nothing (a winter break, a fortnight's holiday). Single
 * closed days (a weekly closed day, a bank holiday) are not declared: telling them from a day of no
 * demand is the forecast's own job, from the open days it reads.
 */
export function plannedClosures(days, shopOpen, minRun = 3) {
  const closures = [];
  for (let t = 0; t < days.length; ) {
    if (shopOpen[t]) {
      t++;
      continue;
    }
    let end = t;
    while (end + 1 < days.length && !shopOpen[end + 1]) end++;
    if (end - t + 1 >= minRun) closures.push({ starts_on: days[t], ends_on: days[end] });
    t = end + 1;
  }
  return closures;
}
