import {
  addDays,
  DEFAULT_SERVICE_LEVEL,
  type DemandAdvice,
  type DemandPrediction,
  type FoodCategory,
  localDate,
  type ProductDemand,
} from '@merma/schema';
import { probit } from 'simple-statistics';
import { dayStartSql, localDaySql } from '../../calendar.js';
import type { Clock, Tenant } from '../../context.js';
import type { Sql } from '../../db/sql.js';
import { validationError } from '../../errors.js';
import { closedDays } from '../opening/service.js';
import { daysWithSales, type SoldProduct, soldOnDay, soldProducts } from '../sales/totals.js';
import { dayClosesAt, localTime } from '../shifts/service.js';
import { businessDayEnd, type DayEnd, LEARNT_FROM_DAYS } from './business-day.js';
import { type Choice, forecastChosen, type ModelName, replayChosen } from './choice.js';
import { dayRowsOf, readDayRows } from './day-rows.js';
import { type DayMarks, type Forecast, lastOpen, MIN_SEASONAL_HISTORY, SEASON, type StepForecast } from './model.js';
import type { DemandAt, DemandInput, ForecastPool } from './pool.js';
import { getProductionSettings } from './settings.js';

type TodayNote = {
  code: 'today_included' | 'today_excluded';
  message: string;
  // The facts the message says, for a reader to say it in its own language.
  closes_at: string | null;
  reason: 'day_over' | 'day_not_over' | 'not_arrived' | 'until_midnight' | 'unknown';
  basis: DayEnd['basis'];
};

const HISTORY_DAYS = 365;
/** Products in one answer, best sellers (by quantity) first; `product_id` reaches the others. */
export const MAX_PRODUCTS = 200;
/** The advice is replayed over these last days to show what it would have saved. */
export const REPLAY_DAYS = 28;
/**
 * The day-ahead errors that set the advice's margin and the interval come from this many days
 * before today (the replay's 28 and the 28 before them): the 2.5 % and 97.5 % quantiles of 28
 * errors are little more than their extremes, and intervals made from them held 89 % of actuals.
 */
export const ERROR_DAYS = 56;
/** A product of the forecast: one the establishment sold in the last year (sales/totals.ts). */
export type ProductRow = SoldProduct;
export type DayRow = {
  product_id: string;
  day: string;
  units: number;
  kg: number;
  sold_out?: boolean;
  /** When it ran out that day (HH:MM, local; the earliest line's), or null. */
  sold_out_time?: string | null;
};

const round3 = (v: number) => Math.round(v * 1000) / 1000;
const round4 = (v: number) => Math.round(v * 10000) / 10000;

/**
 * Without prices, the advised quantile is the establishment's service level (0.85 by default,
 * `production_settings`) moved by the waste the product is known to leave: up to `WASTE_ADJUSTMENT`
 * above it for a product that is not wasted, down to as much below it for one that loses
 * `FULL_WASTE_SHARE` or more of what is made — at the default, 0.95 down to 0.75: the advice
 * always covers the demand of at least three days in four.
 */
export const WASTE_ADJUSTMENT = 0.1;
export const FULL_WASTE_SHARE = 0.3;

const percent = (v: number) => Math.round(v * 100);

/**
 * The quantile of the forecast to prepare, from the establishment's service level and the share of
 * what was made that ended as waste over the last 4 weeks (waste / (sales + waste)): the more a
 * product is wasted, the lower the quantile, linearly from the level + 0.10 (none) to the level −
 * 0.10 (30 % or more), within 0.05–0.99. This is the newsvendor rule with the cost of waste
 * weighed higher where the kitchen shows it wastes most; no prices are needed. At the default
 * level a kitchen throwing away a fifth of a product is advised its 82 % quantile: enough on about
 * four days in five, much less left over.
 */
export function adviceQuantile(wasteShare: number | null, serviceLevel = DEFAULT_SERVICE_LEVEL): { quantile: number; reason: string } {
  const level = percent(serviceLevel);
  const custom = serviceLevel !== DEFAULT_SERVICE_LEVEL;
  if (wasteShare === null) {
    return {
      quantile: serviceLevel,
      reason: `waste of this product in its sales unit unknown: the ${level} % quantile${custom ? ", the establishment's service level" : ''}`,
    };
  }
  const shift = WASTE_ADJUSTMENT - 2 * WASTE_ADJUSTMENT * Math.min(1, wasteShare / FULL_WASTE_SHARE);
  const quantile = Math.round(Math.min(MAX_PRICED_QUANTILE, Math.max(MIN_PRICED_QUANTILE, serviceLevel + shift)) * 100) / 100;
  const pct = Math.round(wasteShare * 1000) / 10;
  return {
    quantile,
    reason: `${pct} % of what was made was wasted over the last 4 weeks: the ${percent(quantile)} % quantile${custom ? ` (the establishment's service level, ${level} %, ${quantile < serviceLevel ? 'lowered for the waste' : quantile > serviceLevel ? 'raised for the waste' : 'unchanged by the waste'})` : ''}`,
  };
}

/** The quantile a product's prices make sense of is kept within these (a 0 % or 100 % service level is no advice). */
export const MIN_PRICED_QUANTILE = 0.05;
export const MAX_PRICED_QUANTILE = 0.99;

const euros = (v: number) => `€${v.toFixed(2)}`;

/**
 * The newsvendor's quantile when the product has a price and a unit cost: prepare so as to cover the
 * demand on the share of days (price − cost) / (price − salvage) — the critical ratio, where one
 * more unit made is as likely to pay its margin (price − cost) as to lose what a leftover costs
 * (cost − salvage). A croissant sold at €1.20 that costs €0.40 to make and is worth nothing the
 * next day: 0.80 / 1.20, cover 67 % of days. Null without both prices, or with a price not above
 * the cost (nothing to gain by making it; the waste rule then applies).
 */
export function pricedQuantile(
  product: Pick<ProductRow, 'price' | 'unit_cost' | 'salvage_value'>,
): { quantile: number; reason: string; prices: { leftover_cost: number; missed_sale_cost: number } } | null {
  const { price, unit_cost: cost } = product;
  if (price === null || cost === null || !(price > cost)) return null;
  const salvage = Math.min(product.salvage_value ?? 0, cost);
  const ratio = (price - cost) / (price - salvage);
  const quantile = Math.round(Math.min(MAX_PRICED_QUANTILE, Math.max(MIN_PRICED_QUANTILE, ratio)) * 100) / 100;
  const leftover = cost - salvage;
  const missed = price - cost;
  return {
    quantile,
    prices: { leftover_cost: round4(leftover), missed_sale_cost: round4(missed) },
    reason: `aims to cover ${Math.round(quantile * 100)} % of days: a leftover costs ${euros(leftover)}${salvage > 0 ? ` (${euros(cost)} to make, ${euros(salvage)} recovered)` : ''} and a missed sale ${euros(missed)}`,
  };
}

/** Errors (actual − forecast) of at least this many past day-ahead forecasts set the advice's margin. */
export const MIN_ERRORS = 14;

/**
 * How far above (or below) the expected value to prepare so as to cover the demand on `quantile`
 * of days: the `quantile` of the errors of the day-ahead forecasts made so far (actual − forecast,
 * each made before its day) once there are `MIN_ERRORS` of them, else a normal error of scale
 * `sigma`. Past errors are what the model really misses by, bias and all; the fit's own error
 * scale is optimistic.
 */
export function adviceMargin(errors: readonly number[], sigma: number, quantile: number): number {
  return errors.length >= MIN_ERRORS ? conformalQuantile(errors, quantile) : probit(quantile) * sigma;
}

/**
 * The `q` quantile of a sample of past errors as a bound a new error stays under with probability
 * at least `q` (split conformal prediction): the ⌈(n + 1)·q⌉-th smallest of the n errors (for `q`
 * under one half, the ⌊(n + 1)·q⌋-th). The sample quantile, the 2nd largest of 56 errors for 97.5 %,
 * held about 93 % of new values; this index holds 95 %. When it falls beyond the sample (n under 39
 * for 97.5 %), the tail of a normal fitted to it (mean ± t·sd·√(1 + 1/n), a prediction interval's),
 * never inside the sample's extreme.
 */
export function conformalQuantile(errors: readonly number[], q: number): number {
  // (Student's t for the fitted tail: the mean and spread are themselves estimated from n errors.)
  const sorted = [...errors].sort((a, b) => a - b);
  const n = sorted.length;
  if (n === 0) return 0;
  const k = q >= 0.5 ? Math.ceil((n + 1) * q - 1e-9) : Math.floor((n + 1) * q + 1e-9);
  if (k >= 1 && k <= n) return sorted[k - 1] as number;
  const mean = sorted.reduce((a, b) => a + b, 0) / n;
  const sd = n > 1 ? Math.sqrt(sorted.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1)) : 0;
  const tail = mean + studentT(q, n - 1) * sd * Math.sqrt(1 + 1 / n);
  return q >= 0.5 ? Math.max(sorted[n - 1] as number, tail) : Math.min(sorted[0] as number, tail);
}

/**
 * The `q` quantile of Student's t with `df` degrees of freedom, from the normal's by the
 * Cornish–Fisher expansion (within 0.3 % of the exact value from 10 degrees of freedom; the normal's
 * when `df` is under 1).
 */
export function studentT(q: number, df: number): number {
  const z = probit(q);
  if (df < 1) return z;
  return z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2);
}

/** The quantity to prepare: `value` plus `margin`, rounded up to whole units or to 0.1 kg, never negative. */
export function advisedQuantity(value: number, margin: number, unit: 'unit' | 'kg'): number {
  const q = value + margin;
  return Math.max(0, unit === 'unit' ? Math.ceil(q - 1e-9) : Math.ceil(q * 10 - 1e-9) / 10);
}

/**
 * Demand forecast per product from the sales received (`sales.recorded`, their daily
 * totals read through sales/totals.ts): the last year up to yesterday, local days, days without sales counting 0 from
 * the product's first sale (or to today, once today's sales are complete). The model is chosen per
 * product each evening among Holt-Winters (the waste forecast's), a weekday average and TSB by their
 * day-ahead error (choice.ts; a 7-day mean under 14 days of history), and `backtest` is its rolling
 * evaluation beside seasonal naive and the 7-day average. A product
 * is counted in units, or in kg when it is sold by weight (sales in the other measure are converted
 * with `unit_weight_kg` when the product has one). Advice per day: the quantile of `pricedQuantile`
 * when the product has a price and a unit cost, else of `adviceQuantile` (from the establishment's
 * service level, its production settings, and the product's recorded waste); its replay
 * over the last 28 days compares what the advice would have left over with the waste recorded for
 * the product (waste records naming it by `product_id`, or else whose `product_name` is its name, case aside).
 */
export async function predictDemand(
  deps: { sql: Sql; clock: Clock; forecasts?: ForecastPool | undefined },
  auth: Tenant,
  query: { horizon: number; food_category?: FoodCategory | undefined; product_id?: string | undefined },
): Promise<DemandPrediction> {
  const now = deps.clock();
  const today = localDate(now, auth.timezone);
  const start = addDays(today, -HISTORY_DAYS);
  if (query.product_id) {
    const { rows } = await deps.sql.query('SELECT 1 FROM products WHERE id = $1::uuid AND organization_id = $2::uuid', [
      query.product_id,
      auth.organizationId,
    ]);
    if (rows.length === 0) throw validationError('Unknown product', [{ path: 'product_id', message: 'no product of this organisation' }]);
  }
  const { calendar, settings, openHours, dayComplete, closesAt, todayNote } = await establishmentDay(deps.sql, auth, {
    now,
    today,
    start,
    horizon: query.horizon,
  });
  const end = dayComplete ? addDays(today, 1) : today;
  const replayStart = addDays(end, -REPLAY_DAYS);
  const products = await soldProducts(deps.sql, auth, {
    start,
    end,
    productId: query.product_id ?? null,
    foodCategory: query.food_category ?? null,
    limit: MAX_PRODUCTS,
  });
  const ids = products.map((p) => p.id);
  const [daysOf, wasteOf, open] = await Promise.all([
    // Each product's days as one text (day-rows.ts): 200 rows for the loop to read, not 73,000.
    readDayRows(deps.sql, auth, { start, end, productIds: ids }),
    // The products' recorded waste of the replayed days, by local day.
    recordedWaste(deps.sql, auth, { start: replayStart, end, productIds: ids }),
    // The days of the history on which the establishment sold anything at all: open days. A
    // product that sold nothing on such a day had a demand of 0 (an intermittent seller's usual
    // day); a day on which nothing at all sold was a closed shop (an index-only scan).
    daysWithSales(deps.sql, auth, { start, end }),
  ]);
  const openDays = new Set(open);

  return {
    type: 'demand',
    product_id: query.product_id ?? null,
    food_category: query.food_category ?? null,
    // The fits on the forecast pool's threads (pool.ts), or here without a pool.
    products: await demandOf(
      deps.forecasts,
      products.map((p) => ({ product: p, days: daysOf.get(p.id) ?? '', wasteKg: wasteOf.get(p.id) ?? new Map<string, number>() })),
      {
        today,
        horizon: query.horizon,
        openDays,
        closedOn: calendar.closedOn,
        reopening: calendar.reopening,
        serviceLevel: settings.service_level,
        ...(openHours ? { openHours } : {}),
        ...(dayComplete ? { dayComplete, closedAt: closesAt } : {}),
        todayNote,
      },
    ),
    generated_at: now.toISOString(),
  };
}

/**
 * What the forecast needs to know of the establishment's day and calendar: the opening calendar
 * over the history and the days forecast (`start` to the horizon), its production settings, its
 * open hours (from its shifts), and whether today's sales are complete (and why they are or not).
 */
async function establishmentDay(sql: Sql, auth: Tenant, day: { now: Date; today: string; start: string; horizon: number }) {
  const { now, today, start } = day;
  // Today's sales count once the establishment's day is over (the end of its last shift) and its
  // sales of today have arrived (a POS that sends the day at night has sent nothing yet: today is
  // then left out rather than read as a day of no sales): tomorrow's advice, asked for in the
  // evening, then knows what today sold.
  const [shifts, soldToday, calendar, settings] = await Promise.all([
    sql.query<{ start_time: string; end_time: string }>(
      'SELECT start_time, end_time FROM shifts WHERE establishment_id = $1::uuid AND livemode = $2 AND archived_at IS NULL',
      [auth.establishmentId, auth.livemode],
    ),
    soldOnDay(sql, auth, today),
    // The opening calendar over the history and the days forecast.
    closedDays(sql, auth, start, addDays(today, day.horizon + 1)),
    // The service level the advice aims at for products without prices.
    getProductionSettings(sql, auth),
  ]);
  const shiftsEnd = dayClosesAt(shifts.rows);
  // The establishment's open day, from its first shift's start to its last one's end (none with an
  // overnight shift): what a product's sold-out time is a share of.
  const opensAt = shifts.rows.map((s) => s.start_time).sort()[0];
  const openHours = shiftsEnd !== null && opensAt !== undefined && opensAt < shiftsEnd ? { opens: opensAt, closes: shiftsEnd } : null;
  // When its day of sales ends: its shifts, or (a shift past midnight, or none) its sales' times.
  const dayEnd = await businessDayEnd(sql, auth, today, shifts.rows);
  const closesAt = dayEnd.closesAt;
  const dayComplete = closesAt !== null && localTime(now, auth.timezone) >= closesAt && soldToday;
  const todayNote = todayNoteOf(dayEnd, dayComplete, soldToday);
  return { calendar, settings, openHours, dayComplete, closesAt, todayNote };
}

/**
 * The products' recorded waste (kg) of the local days [`start`, `end`), by product and day: a record
 * that names its product (product_id) counts for it; one that does not, by its product_name.
 */
async function recordedWaste(
  sql: Sql,
  auth: Tenant,
  range: { start: string; end: string; productIds: readonly string[] },
): Promise<Map<string, Map<string, number>>> {
  const waste = await sql.query<{ product_id: string; day: string; kg: number }>(
    `SELECT p.id::text AS product_id, to_char(${localDaySql('r.occurred_at', '$5')}, 'YYYY-MM-DD') AS day, sum(r.weight_kg)::float8 AS kg
       FROM records r JOIN products p ON p.id = ANY($6::uuid[])
         AND (r.product_id = p.id OR (r.product_id IS NULL AND lower(p.name) = lower(trim(r.product_name))))
       WHERE r.establishment_id = $1::uuid AND r.livemode = $2 AND r.superseded_by IS NULL
         AND r.occurred_at >= ${dayStartSql('$3::date', '$5')} AND r.occurred_at < ${dayStartSql('$4::date', '$5')}
       GROUP BY 1, 2`,
    [auth.establishmentId, auth.livemode, range.start, range.end, auth.timezone, range.productIds],
  );
  const wasteOf = new Map<string, Map<string, number>>();
  for (const row of waste.rows) {
    const byDay = wasteOf.get(row.product_id) ?? new Map<string, number>();
    byDay.set(row.day, row.kg);
    wasteOf.set(row.product_id, byDay);
  }
  return wasteOf;
}

/** Why today's sales are, or are not, part of the forecast: said with every product's answer. */
export function todayNoteOf(dayEnd: DayEnd, complete: boolean, soldToday: boolean): TodayNote {
  const { closesAt, basis } = dayEnd;
  const why =
    basis === 'shifts'
      ? 'the end of its last shift'
      : `its shifts run past midnight or it has none: the later of the end of its shifts that end the same day and a minute after its latest sale of the last ${LEARNT_FROM_DAYS} days`;
  const facts = { closes_at: closesAt, basis };
  if (complete)
    return {
      code: 'today_included',
      message: `today's sales are included: the establishment's day ended at ${closesAt} (${why})`,
      ...facts,
      reason: 'day_over',
    };
  if (closesAt === null)
    return {
      code: 'today_excluded',
      message: `today's sales are not included: the establishment has a shift past midnight or none, and no sales in the last ${LEARNT_FROM_DAYS} days to learn when its day ends; the forecast is made from the days before`,
      ...facts,
      reason: 'unknown',
    };
  if (closesAt === '24:00')
    return {
      code: 'today_excluded',
      message: `today's sales are not included: the establishment sells until midnight (${why}); the forecast is made from the days before`,
      ...facts,
      reason: 'until_midnight',
    };
  return {
    code: 'today_excluded',
    message: soldToday
      ? `today's sales are not included yet: the establishment's day ends at ${closesAt} (${why})`
      : `today's sales are not included: none has arrived yet (the establishment's day ends at ${closesAt}, ${why})`,
    ...facts,
    reason: soldToday ? 'day_not_over' : 'not_arrived',
  };
}

/** `productDemand` of each product on the forecast pool's threads (pool.ts), or here without a pool. */
async function demandOf(pool: ForecastPool | undefined, inputs: DemandInput[], at: DemandAt): Promise<ProductDemand[]> {
  return pool ? pool.demand(inputs, at) : inputs.map((i) => productDemand(i.product, dayRowsOf(i.product.id, i.days), i.wasteKg, at));
}

/** `productDemand`'s `at`: what is the same for every product of an answer. */
export type ProductDemandAt = {
  today: string;
  horizon: number;
  /**
   * Days of the history on which the establishment sold anything: the others are closed days
   * (not observations of demand). Without it, a day the product sold nothing counts as closed in
   * the error window, and as a day of no demand in the fit.
   */
  openDays?: ReadonlySet<string>;
  /** Today's sales are complete (the establishment has closed for the day) and `sales` include them. */
  dayComplete?: boolean;
  /** Why today's sales are or are not included (`todayNoteOf`): the answer says so. */
  todayNote?: TodayNote;
  /** When today closed (HH:MM, local), for the note that says today's sales are in. */
  closedAt?: string | null;
  /** The establishment's opening calendar: whether it is closed on a day (YYYY-MM-DD). */
  closedOn?: (day: string) => boolean;
  /** The first open days after a closure (YYYY-MM-DD), whose demand is uncertain. */
  reopening?: ReadonlySet<string>;
  /** The establishment's open day (HH:MM, local; its shifts): a sold-out time is read as a share of it. */
  openHours?: { opens: string; closes: string };
  /** The establishment's service level for products without prices (production settings; 0.85 by default). */
  serviceLevel?: number;
  /** The models that compete (choice.ts; all by default): `pnpm bench:forecast` compares them. */
  models?: readonly ModelName[];
};

type Note = ProductDemand['notes'][number];

/**
 * One product's forecast and advice from its daily sales (oldest first, days before `at.today`) and
 * the kg wasted per local day of the last 4 weeks: the whole of the answer for one product, without
 * the database, which is also how `pnpm bench:forecast` replays the served advice day by day.
 *
 * In steps: the product's measure and daily series, the days that are no observation of its demand,
 * the model chosen and its day-ahead forecasts replayed, the last 4 weeks advised as they would
 * have been, and the days ahead.
 */
export function productDemand(product: ProductRow, sales: DayRow[], wasteKg: Map<string, number>, at: ProductDemandAt): ProductDemand {
  const measure = measureOf(product, sales);
  const { first, series } = dailySeries(sales, measure, at);
  const days = dayMarksOf(series, sales, first, at);
  const notes: Note[] = [];
  if (series.length < MIN_SEASONAL_HISTORY) {
    notes.push({
      code: 'short_history',
      message: `${series.length} days of sales history: under ${MIN_SEASONAL_HISTORY}, a mean of the last days without the weekly pattern`,
    });
  }
  if (measure.leftOut) notes.push(measure.leftOut);
  const todayIncluded = todayIncludedNote(at);
  if (todayIncluded) notes.push(todayIncluded);

  const fit = fitReplayed(series, first, days, measure.unit, at);
  const weeks = replayedWeeks(fit, wasteKg, measure);
  if (weeks.wastedInUnit === null) {
    notes.push({
      code: 'no_unit_weight',
      message: 'waste is recorded in kg and the product has no unit_weight_kg: set it to measure the advice',
    });
  }
  // The product's prices decide when it has them; else the waste it is known to leave.
  const priced = pricedQuantile(product);
  const { quantile, reason } = priced ?? adviceQuantile(weeks.wasteShare, at.serviceLevel);
  const outcome = replayAdvice(fit, weeks.counted, quantile);
  const advice = adviceOf({ quantile, reason, priced }, weeks, outcome, measure);
  if (weeks.counted.length > 0 && weeks.wasted === 0) {
    notes.push({
      code: 'no_waste',
      message: 'no waste recorded for this product in the last 4 weeks (records with its product_id, or whose product_name is its name)',
    });
  }

  // Tomorrow's margin from the errors of the model that makes tomorrow's forecast.
  const pastErrors = series.length >= MIN_SEASONAL_HISTORY ? outcome.errors.seasonal : outcome.errors.mean;
  const ahead = daysAhead(fit.forecast, pastErrors, quantile, measure.unit, at);
  if (ahead.reopening.length > 0) {
    notes.push({
      code: 'after_closure',
      message: `${ahead.reopening.join(', ')} ${ahead.reopening.length === 1 ? 'follows' : 'follow'} a closure: demand often differs from before it, prepare with care`,
    });
  }
  return {
    product_id: product.id,
    product_name: product.name,
    food_category: product.food_category,
    unit: measure.unit,
    unit_weight_kg: measure.weight,
    model: series.length < MIN_SEASONAL_HISTORY ? 'recent-mean' : fit.chosen.model,
    method: fit.forecast.method,
    history_days: series.length,
    notes,
    backtest: rollingBacktest(series, fit.replay, fit.errorFrom, fit.ahead, fit.isOpen, days.soldOut, errorScale(measure.unit)),
    points: ahead.points,
    advice,
  };
}

type Measure = {
  unit: 'unit' | 'kg';
  /** The product's unit weight in kg, or null without one. */
  weight: number | null;
  /** A day's sales in `unit`. */
  inUnit: (r: DayRow) => number;
  /** The note that sales in the other measure are left out, when they cannot be converted. */
  leftOut: Note | null;
};

/**
 * The measure a product is forecast in: counted, unless most days' sales were by weight; the other
 * measure is converted with the unit weight, or left out (and said) when the product has none.
 */
function measureOf(product: ProductRow, sales: readonly DayRow[]): Measure {
  const weight = product.unit_weight_kg && product.unit_weight_kg > 0 ? product.unit_weight_kg : null;
  const units = sales.reduce((a, r) => a + r.units, 0);
  const kg = sales.reduce((a, r) => a + r.kg, 0);
  const unit: 'unit' | 'kg' = sales.filter((r) => r.units > 0).length >= sales.filter((r) => r.kg > 0).length ? 'unit' : 'kg';
  const leftOut: Note | null =
    units > 0 && kg > 0 && weight === null
      ? { code: 'measure_left_out', message: `sales in ${unit === 'unit' ? 'kg' : 'units'} left out: the product has no unit_weight_kg` }
      : null;
  const inUnit = (r: DayRow) => (unit === 'unit' ? r.units + (weight ? r.kg / weight : 0) : r.kg + (weight ? r.units * weight : 0));
  return { unit, weight, inUnit, leftOut };
}

/** The place of `day` (YYYY-MM-DD) in a daily series that starts on `first`. */
const dayIndex = (first: string, day: string) =>
  Math.round((Date.parse(`${day}T00:00:00Z`) - Date.parse(`${first}T00:00:00Z`)) / 86_400_000);

/** The daily series in the product's measure from the first day with sales to yesterday, or to today once today is complete. */
function dailySeries(sales: readonly DayRow[], measure: Measure, at: ProductDemandAt): { first: string; series: number[] } {
  const end = at.dayComplete ? addDays(at.today, 1) : at.today;
  const first = sales[0]?.day ?? end;
  const series = new Array<number>(Math.max(0, dayIndex(first, end))).fill(0);
  for (const r of sales) series[dayIndex(first, r.day)] = (series[dayIndex(first, r.day)] ?? 0) + measure.inUnit(r);
  return { first, series };
}

type Days = {
  /** Whether the establishment sold anything on each day (`at.openDays`); null when not known. */
  shopOpen: boolean[] | null;
  /** Days that are no observation of demand: closed, declared or detected. */
  closed: boolean[];
  /** Days the product sold out: their sales are a floor on the demand (censored), not the demand. */
  soldOut: boolean[];
  /** The same for the models, each left undefined where no day is marked. */
  marks: DayMarks;
};

/** Which days of the series are no observation of the product's demand (closed), or only a floor on it (sold out). */
function dayMarksOf(series: readonly number[], sales: readonly DayRow[], first: string, at: ProductDemandAt): Days {
  // Days the calendar says the establishment was closed: not observations of demand. A day it sold
  // on anyway counts as open (the calendar was wrong, or it opened for an event).
  // And days on which the whole establishment sold nothing (`openDays`): a shop that was closed,
  // declared or not — declaring is for the days ahead, detecting is for the days past. Learnt as
  // days of no demand, a summer of closed Saturdays made the reopened Saturdays' forecast 0.
  const shopOpen = at.openDays ? openIndex(first, series.length, at.openDays) : null;
  const closed = series.map((v, t) => v === 0 && (shopOpen?.[t] === false || (at.closedOn?.(addDays(first, t)) ?? false)));
  const soldOut = new Array<boolean>(series.length).fill(false);
  // And how much of the open day had gone by when it did (1: unknown, or at closing).
  const soldOutShare = new Array<number>(series.length).fill(1);
  const minutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
  for (const r of sales) {
    if (!r.sold_out) continue;
    const t = dayIndex(first, r.day);
    soldOut[t] = true;
    if (r.sold_out_time && at.openHours) {
      const { opens, closes } = at.openHours;
      soldOutShare[t] = Math.min(1, Math.max(0, (minutes(r.sold_out_time) - minutes(opens)) / (minutes(closes) - minutes(opens))));
    }
  }
  const marks: DayMarks = {
    closed: closed.some(Boolean) ? closed : undefined,
    soldOut: soldOut.some(Boolean) ? soldOut : undefined,
    soldOutShare: soldOutShare.some((s) => s < 1) ? soldOutShare : undefined,
  };
  return { shopOpen, closed, soldOut, marks };
}

/** The note that today's sales are in the forecast, or why not (`at.todayNote`); none when nothing is known of today. */
function todayIncludedNote(at: ProductDemandAt): Note | null {
  if (at.todayNote) return { ...at.todayNote };
  if (!at.dayComplete) return null;
  return {
    code: 'today_included',
    message: `today's sales are included: the establishment's day ended${at.closedAt ? ` at ${at.closedAt}` : ''} (the end of its last shift)`,
  };
}

/** A product's series with the model chosen for it, its day-ahead forecasts replayed, and its forecast of the days ahead. */
type Fit = {
  series: readonly number[];
  first: string;
  unit: 'unit' | 'kg';
  /** Tomorrow is the model's first step from a complete today (1), its second from yesterday (2). */
  ahead: 1 | 2;
  /** Where the error window (the last `ERROR_DAYS`) and the replayed 4 weeks start in the series. */
  errorFrom: number;
  replayFrom: number;
  /** The day-ahead forecasts of the days from `errorFrom`, each as made the evening before. */
  replay: readonly StepForecast[];
  /** The model chosen for tomorrow, with its scores. */
  chosen: Choice;
  /** The days ahead, from tomorrow. */
  forecast: Forecast;
  marks: DayMarks;
  soldOut: readonly boolean[];
  /**
   * Whether day t of the series counts: not a closed day (declared or detected), and a day the
   * establishment was open (it sold something), or, without that knowledge, a day the product sold
   * or was wasted.
   */
  isOpen: (t: number, sold: number, wasted: number) => boolean;
};

/**
 * The model chosen each evening among the candidates by its day-ahead error on the open days
 * before (choice.ts), its forecasts replayed over the error window, and the one chosen for
 * tomorrow's forecast; sold-out days (demand unknown) don't score.
 */
function fitReplayed(series: number[], first: string, days: Days, unit: 'unit' | 'kg', at: ProductDemandAt): Fit {
  const ahead = at.dayComplete ? 1 : 2;
  // The last 4 weeks: sales and waste per day in the product's unit.
  const replayFrom = Math.max(2, series.length - REPLAY_DAYS);
  const errorFrom = Math.max(at.dayComplete ? 1 : 2, series.length - ERROR_DAYS);
  const isOpen = (t: number, sold: number, wasted: number) => !days.closed[t] && (days.shopOpen?.[t] === true || sold > 0 || wasted > 0);
  const scored = series.map((v, t) => !days.soldOut[t] && isOpen(t, v, 0));
  const chosen = replayChosen(series, errorFrom, ahead, days.marks, (t) => scored[t] === true, at.models);
  // Tomorrow is the model's first step from a complete today, its second from yesterday.
  const full = forecastChosen(series, at.horizon + ahead - 1, days.marks, chosen.next);
  const forecast = ahead === 1 ? full : { ...full, values: full.values.slice(1), lower: full.lower.slice(1), upper: full.upper.slice(1) };
  return {
    series,
    first,
    unit,
    ahead,
    errorFrom,
    replayFrom,
    replay: chosen.steps,
    chosen: chosen.next,
    forecast,
    marks: days.marks,
    soldOut: days.soldOut,
    isOpen,
  };
}

/**
 * A sold-out day's error is unknown (the demand was at least the sales): the advice's margins
 * leave it out whichever side of the forecast it fell, or the sample would lose only its low
 * side's errors (a margin biased up).
 */
const censoredOn = (fit: Fit, t: number) => fit.soldOut[t] === true;

type Counted = { sold: number; forecast: StepForecast; censored: boolean; average: number };

type ReplayedWeeks = {
  /** The open days of the last 4 weeks: sold, the forecast made the evening before, the 7-day average then. */
  counted: Counted[];
  /** What those days sold (in the product's measure) and wasted (kg; in the measure, null when kg cannot be converted). */
  sold: number;
  wasted: number;
  wastedInUnit: number | null;
  /** The share of what was made that was wasted; null when unknown. */
  wasteShare: number | null;
};

/** The last 4 weeks' open days, with what they sold and what was wasted. */
function replayedWeeks(fit: Fit, wasteKg: Map<string, number>, measure: Measure): ReplayedWeeks {
  const fromKg = (k: number) => (measure.unit === 'kg' || k === 0 ? k : measure.weight === null ? null : k / measure.weight);
  let sold = 0;
  let wasted = 0; // kg
  let wastedInUnit: number | null = 0;
  const counted: Counted[] = [];
  for (let t = fit.replayFrom; t < fit.series.length; t++) {
    const day = addDays(fit.first, t);
    const s = fit.series[t] as number;
    const w = wasteKg.get(day) ?? 0;
    if (!fit.isOpen(t, s, w)) continue; // closed, or (without the establishment's open days) not made
    sold += s;
    wasted += w;
    const wu = fromKg(w);
    wastedInUnit = wastedInUnit === null || wu === null ? null : wastedInUnit + wu;
    const forecast = fit.replay[t - fit.errorFrom] as StepForecast;
    // The 7-day average that evening: of the last 7 open days known (up to t − ahead).
    const week = lastOpen(fit.series, t - fit.ahead + 1, fit.marks.closed);
    const average = week.length === 0 ? 0 : week.reduce((a, b) => a + b, 0) / week.length;
    counted.push({ sold: s, forecast, censored: censoredOn(fit, t), average });
  }
  // No waste recorded under the product's name is not evidence of none wasted: the share is unknown.
  const wasteShare = wastedInUnit === null || wasted === 0 || sold + wastedInUnit === 0 ? null : wastedInUnit / (sold + wastedInUnit);
  return { counted, sold, wasted, wastedInUnit, wasteShare };
}

type Outcome = {
  /** What the advice would have left over, and the days and quantity it would have fallen short. */
  leftOver: number;
  shortDays: number;
  short: number;
  /** The same for the 7-day average made whole. */
  rule: { left_over: number; short_days: number; short_quantity: number };
  /** The scaled day-ahead errors by kind of forecast, up to tomorrow: tomorrow's margin comes from them. */
  errors: { seasonal: number[]; mean: number[] };
};

/**
 * Each replayed day advised as it would have been the evening before: its margin from the errors
 * of the days before it that the same model forecast (a 7-day mean misses a weekly pattern by far
 * more than the weekly model does, so its errors would inflate the margin).
 */
function replayAdvice(fit: Fit, counted: readonly Counted[], quantile: number): Outcome {
  let leftOver = 0;
  let shortDays = 0;
  let short = 0;
  const rule = { left_over: 0, short_days: 0, short_quantity: 0 };
  const errors = { seasonal: [] as number[], mean: [] as number[] };
  const { scale, relative } = errorScale(fit.unit);
  // The errors of the four weeks before the replayed ones (days without sales left out, as closed).
  for (let t = fit.errorFrom; t < fit.replayFrom; t++) {
    const s = fit.series[t] as number;
    const forecast = fit.replay[t - fit.errorFrom] as StepForecast;
    if (fit.isOpen(t, s, 0) && !censoredOn(fit, t)) (forecast.seasonal ? errors.seasonal : errors.mean).push(relative(s, forecast.value));
  }
  for (const { sold: s, forecast, censored, average } of counted) {
    const simple = advisedQuantity(average, 0, fit.unit);
    rule.left_over += Math.max(0, simple - s);
    if (simple < s) {
      rule.short_days++;
      rule.short_quantity += s - simple;
    }
    const past = forecast.seasonal ? errors.seasonal : errors.mean;
    const size = scale(forecast.value);
    const advised = advisedQuantity(forecast.value, adviceMargin(past, forecast.sigma / size, quantile) * size, fit.unit);
    leftOver += Math.max(0, advised - s);
    if (advised < s) {
      shortDays++;
      short += s - advised;
    }
    if (!censored) past.push(relative(s, forecast.value));
  }
  return { leftOver, shortDays, short, rule, errors };
}

/** The advice's quantile and why, and what following it over the last 4 weeks would have left over and missed. */
function adviceOf(
  choice: { quantile: number; reason: string; priced: ReturnType<typeof pricedQuantile> },
  weeks: ReplayedWeeks,
  outcome: Outcome,
  measure: Measure,
): DemandAdvice {
  const { priced } = choice;
  const { sold, wasted, wasteShare } = weeks;
  const { leftOver, short, rule } = outcome;
  const toKg = (q: number) => (measure.unit === 'kg' ? q : measure.weight === null ? null : q * measure.weight);
  // In euros, when the product has its prices: a leftover loses its cost less what is recovered, a
  // missed sale its margin.
  const costOf = (left: number, missed: number) =>
    priced ? Math.round((left * priced.prices.leftover_cost + missed * priced.prices.missed_sale_cost) * 100) / 100 : null;
  const advisedWaste = toKg(leftOver);
  // Without recorded waste there is nothing to compare with: what was made is not known.
  const avoided = advisedWaste === null || wasted === 0 ? null : wasted - advisedWaste;
  return {
    quantile: choice.quantile,
    waste_share: wasteShare === null ? null : round3(wasteShare),
    reason: choice.reason,
    prices: priced?.prices ?? null,
    last_4_weeks: {
      days: weeks.counted.length,
      sold: round3(sold),
      waste_kg: round3(wasted),
      advised_waste_kg: advisedWaste === null ? null : round3(advisedWaste),
      avoided_kg: avoided === null ? null : round3(avoided),
      avoided_pct: avoided === null || wasted === 0 ? null : Math.round((avoided / wasted) * 1000) / 10,
      short_days: outcome.shortDays,
      short_quantity: round3(short),
      left_over: round3(leftOver),
      cost: costOf(leftOver, short),
      seven_day_average: {
        left_over: round3(rule.left_over),
        short_days: rule.short_days,
        short_quantity: round3(rule.short_quantity),
        cost: costOf(rule.left_over, rule.short_quantity),
      },
    },
  };
}

/**
 * The days ahead: each one's expected demand, 95 % interval and quantity to prepare, from the
 * errors `pastErrors` of the model that makes tomorrow's forecast; and those that follow a closure.
 */
function daysAhead(
  f: Forecast,
  pastErrors: readonly number[],
  quantile: number,
  unit: 'unit' | 'kg',
  at: ProductDemandAt,
): { points: ProductDemand['points']; reopening: string[] } {
  const { scale } = errorScale(unit);
  const width = (i: number) => (f.upper[i] as number) - (f.values[i] as number);
  // The margins are relative to the forecast's size (see `errorScale`): each day's own.
  const size0 = scale(f.values[0] ?? 0);
  const margin = adviceMargin(pastErrors, width(0) / 1.96 / size0, quantile);
  const widening = (i: number) => (width(0) > 0 ? Math.max(1, width(i) / width(0)) : 1);
  // The 95 % interval from the same past errors as the advice, once there are enough of them: the
  // model's own error scale made intervals that held 97–99 % of actuals (bench:forecast).
  const below = adviceMargin(pastErrors, width(0) / 1.96 / size0, 0.025);
  const above = adviceMargin(pastErrors, width(0) / 1.96 / size0, 0.975);
  const reopening = f.values.map((_, i) => addDays(at.today, i + 1)).filter((d) => at.reopening?.has(d) && !at.closedOn?.(d));
  const points = f.values.map((v, i) => {
    const date = addDays(at.today, i + 1);
    // A closed day: nothing to sell, nothing to prepare.
    if (at.closedOn?.(date)) return { date, expected: 0, lower: 0, upper: 0, advised: 0, closed: true, after_closure: false };
    return {
      date,
      expected: round3(v),
      lower: round3(Math.max(0, Math.min(v, v + below * scale(v) * widening(i)))),
      upper: round3(Math.max(v, v + above * scale(v) * widening(i))),
      // The margin grows with the horizon as the interval does.
      advised: advisedQuantity(v, margin * scale(v) * widening(i), unit),
      closed: false,
      after_closure: at.reopening?.has(date) ?? false,
    };
  });
  return { points, reopening };
}

type ErrorScale = { scale: (forecast: number) => number; relative: (actual: number, forecast: number) => number };

/** The smallest forecast size errors are measured against: a unit, or 100 g. */
const MIN_ERROR_SCALE = { unit: 1, kg: 0.1 } as const;

/**
 * Past errors are measured against the size of their forecast — actual − forecast, over the square
 * root of the forecast (at least one unit or 100 g) — and a margin is that scaled error times the
 * square root of the day's forecast: a product that sells three times less at the end of its season
 * misses by less, and a margin in units learnt over the last 8 weeks would lag every change of
 * level (too wide leaving the season, too narrow entering it). The square root is the spread of
 * counts (a Poisson's). Measured by `pnpm bench:forecast` over every month of a year (28 Nov 2026),
 * against errors in units:
 * - a bakery whose level moves fourfold through the year (generated): the interval within 95 ± 3
 *   in 12 months of 12 (in units: 8, as low as 87.7 % entering the season), the advice's cost at
 *   3 × cost within 1 %;
 * - the generated bakery of the bench: 10 months of 12 (9), cost at 1.5 / 3 / 5 × −1.4 / +0.1 / −0.3 %;
 * - the Italian grocery's pasta (promotions, a flat year): 10 months of 12 (10), cost −4.8 / +2.5 /
 *   +3.6 %.
 * Errors over the forecast itself (not its root) over-corrected: on the pasta, 3.1 % dearer at 3 ×
 * cost than the best rule with its own margin, where the root was 2.1 % cheaper (10 products).
 */
function errorScale(unit: 'unit' | 'kg'): ErrorScale {
  const floor = MIN_ERROR_SCALE[unit];
  const scale = (v: number) => Math.sqrt(Math.max(v, floor));
  return { scale, relative: (actual, forecast) => (actual - forecast) / scale(forecast) };
}

/** Whether each of `length` days from `first` is in `days` (one date walked forward, not `addDays` per day). */
function openIndex(first: string, length: number, days: ReadonlySet<string>): boolean[] {
  const date = new Date(`${first}T00:00:00Z`);
  const open = new Array<boolean>(length);
  for (let t = 0; t < length; t++) {
    open[t] = days.has(date.toISOString().slice(0, 10));
    date.setUTCDate(date.getUTCDate() + 1);
  }
  return open;
}

/**
 * How the forecast did where the advice is used: every open day of the error window (the last
 * `ERROR_DAYS`) forecast the evening before, as `replay` has it (a rolling origin, one day ahead of
 * the evening), beside "same day last week" and the average of the 7 days known that evening,
 * made the same evening; MASE scales the model's error by the in-sample error of "same day last
 * week" before the window; coverage is the share of days inside the 95 % interval as it would have
 * been served that evening (from the errors before it, once there are `MIN_ERRORS`). A day needs a
 * week known before it to be scored.
 */
function rollingBacktest(
  series: readonly number[],
  replay: readonly StepForecast[],
  from: number,
  ahead: 1 | 2,
  isOpen: (t: number, sold: number, wasted: number) => boolean,
  soldOut: readonly boolean[],
  { scale, relative }: ErrorScale,
): ProductDemand['backtest'] {
  let days = 0;
  const sum = { model: 0, naive: 0, average: 0 };
  let covered = 0;
  let inside = 0;
  const past: number[] = [];
  for (let t = from; t < series.length; t++) {
    const s = series[t] as number;
    if (!isOpen(t, s, 0)) continue;
    const value = (replay[t - from] as StepForecast).value;
    if (t - ahead - 6 >= 0) {
      days++;
      sum.model += Math.abs(s - value);
      sum.naive += Math.abs(s - (series[t - SEASON] as number));
      const week = series.slice(t - ahead - 6, t - ahead + 1);
      sum.average += Math.abs(s - week.reduce((a, b) => a + b, 0) / week.length);
      if (past.length >= MIN_ERRORS) {
        covered++;
        const lower = Math.max(0, Math.min(value, value + conformalQuantile(past, 0.025) * scale(value)));
        const upper = Math.max(value, value + conformalQuantile(past, 0.975) * scale(value));
        if (s >= lower && s <= upper) inside++;
      }
    }
    // A sold-out day tells no error for the intervals (its demand is unknown), on either side.
    if (!soldOut[t]) past.push(relative(s, value));
  }
  let naiveError = 0;
  let scaled = 0;
  for (let t = SEASON; t < from; t++) {
    const s = series[t] as number;
    if (!isOpen(t, s, 0)) continue;
    naiveError += Math.abs(s - (series[t - SEASON] as number));
    scaled++;
  }
  const mae = (total: number) => (days === 0 ? null : round3(total / days));
  const model = mae(sum.model);
  return {
    metric: 'mae',
    days,
    value: model,
    seasonal_naive: mae(sum.naive),
    seven_day_average: mae(sum.average),
    mase: model === null || scaled === 0 || naiveError === 0 ? null : round3(model / (naiveError / scaled)),
    coverage: covered === 0 ? null : round3(inside / covered),
  };
}
