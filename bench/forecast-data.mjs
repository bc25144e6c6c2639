// Writes bench/data/forecast-generated.csv: two years of daily sales of 12 products of an imaginary
// bakery, with what real shops have and a clean series has not — a weekly closed day, holidays, a
// three-week winter closure, days a product sold out before the demand was met, and products that
// sell a few units a day or none. Deterministic (a fixed seed): the committed file is this script's
// output, and `node bench/forecast-data.mjs` writes it again byte for byte.
//
// Columns: date, product, units (sold), demand (what customers wanted: units, or more on a sold-out
// day; known here because the data is made up), sold_out (1 when units < demand because the product
// ran out), closed (1 when the shop was closed: units and demand 0).
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const OUT = join(dirname(fileURLToPath(import.meta.url)), 'data', 'forecast-generated.csv');
const START = Date.UTC(2024, 0, 1);
const DAYS = 731;

/** mulberry32: a small seeded generator, so the file is the same on every machine. */
export function seeded(seed) {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
/** Poisson by inversion (small means) or a rounded normal (large ones). */
function poisson(mean, random) {
  if (mean <= 0) return 0;
  if (mean > 40) {
    const z = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    return Math.max(0, Math.round(mean + Math.sqrt(mean) * z));
  }
  const limit = Math.exp(-mean);
  let k = 0;
  let p = random();
  while (p > limit) {
    k++;
    p *= random();
  }
  return k;
}
/** Over-dispersed counts (a gamma-mixed Poisson), as sales are: `shape` lower means wilder days. */
export function drawDemand(mean, shape, random) {
  // Gamma(shape, 1/shape) by the sum of exponentials for integer shapes.
  let g = 0;
  for (let i = 0; i < shape; i++) g -= Math.log(1 - random());
  return poisson((mean * g) / shape, random);
}

const iso = (t) => new Date(t).toISOString().slice(0, 10);
const HOLIDAYS = new Set(['2024-01-01', '2024-05-01', '2024-08-15', '2024-12-25', '2025-01-01', '2025-05-01', '2025-08-15', '2025-12-25']);
/** Closed: Wednesdays, holidays, and three weeks in winter (as the bakery this imitates did). */
function isClosed(t) {
  const day = iso(t);
  if (new Date(t).getUTCDay() === 3) return true;
  if (HOLIDAYS.has(day)) return true;
  return day >= '2025-01-13' && day <= '2025-02-02';
}

// name, daily mean, weekday profile (Sun..Sat), summer lift, dispersion, how often it sells out
const PRODUCTS = [
  ['baguette', 140, [1.45, 0.9, 0.95, 1, 0.95, 1.05, 1.3], 0.15, 12, 0.1],
  ['croissant', 60, [1.8, 0.8, 0.85, 1, 0.85, 0.95, 1.4], 0.25, 8, 0.12],
  ['pain au chocolat', 45, [1.7, 0.85, 0.9, 1, 0.9, 0.95, 1.35], 0.2, 8, 0.08],
  ['country loaf', 25, [1.3, 0.9, 1, 1, 1, 1.05, 1.2], -0.1, 6, 0.05],
  ['apple tart', 12, [2, 0.7, 0.8, 1, 0.8, 0.9, 1.6], 0.3, 4, 0.06],
  ['brioche', 18, [1.6, 0.8, 0.9, 1, 0.9, 1, 1.4], 0, 5, 0.05],
  ['sandwich', 30, [0.5, 1.15, 1.2, 1, 1.2, 1.2, 0.8], 0.35, 6, 0.08],
  ['cookie', 15, [1.4, 0.9, 0.9, 1, 0.9, 1, 1.3], 0.1, 3, 0],
  // Few a day, many days none: the intermittent sellers a weekly model overshoots.
  ['birthday cake', 0.6, [2.2, 0.6, 0.6, 1, 0.6, 0.8, 1.6], 0, 2, 0],
  ['quiche', 2.5, [1.2, 1, 1, 1, 1, 1, 1.1], 0.2, 2, 0],
  ['gluten-free loaf', 1.2, [1.3, 1, 0.9, 1, 0.9, 1, 1.1], 0, 2, 0],
  // A product that grows: launched in 2024, its sales climb through the two years.
  ['sourdough', 8, [1.4, 0.9, 0.95, 1, 0.95, 1, 1.3], 0, 5, 0.1],
];

/**
 * The law each day's demand is drawn from: the mean and the dispersion (`shape`) of the
 * gamma-mixed Poisson `drawDemand` samples, for the product `name` on day index `d` (days from
 * 2024-01-01); null on a day the shop is closed. `pnpm bench:forecast` reads it to score an
 * advice that knows every day's true law — the best any forecast could do on this data.
 */
export function demandLaw(name, d) {
  const t = START + d * 86_400_000;
  if (isClosed(t)) return null;
  const [, mean, profile, summer, shape] = PRODUCTS.find((p) => p[0] === name);
  const weekday = new Date(t).getUTCDay();
  const yearPhase = Math.cos((2 * Math.PI * (d - 196)) / 365.25); // 1 in mid-July
  const growth = name === 'sourdough' ? 1 + (2 * d) / DAYS : 1;
  // The first days after the winter closure are slow (customers come back over a week or two).
  const reopening = iso(t) >= '2025-02-03' && iso(t) <= '2025-02-16' ? 0.75 : 1;
  return { mean: mean * profile[weekday] * (1 + summer * yearPhase) * growth * reopening, shape };
}
export const GENERATED_START = iso(START);

function write() {
  const random = seeded(20261128);
  const lines = ['date,product,units,demand,sold_out,closed'];
  for (let d = 0; d < DAYS; d++) {
    const day = iso(START + d * 86_400_000);
    for (const [name, , , , , soldOutRate] of PRODUCTS) {
      const law = demandLaw(name, d);
      if (!law) {
        lines.push(`${day},${name},0,0,0,1`);
        continue;
      }
      const demand = drawDemand(law.mean, law.shape, random);
      // Some days the batch was too small: sold out at a quantity under the demand.
      const soldOut = demand > 2 && random() < soldOutRate;
      const units = soldOut ? Math.max(1, Math.floor(demand * (0.55 + 0.35 * random()))) : demand;
      lines.push(`${day},${name},${units},${demand},${soldOut ? 1 : 0},0`);
    }
  }
  writeFileSync(OUT, `${lines.join('\n')}\n`);
  console.log(`wrote ${lines.length - 1} rows to ${OUT}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) write();
