import { localDate } from '@merma/schema';
import { localDaySql } from '../../calendar.js';
import type { DataScope } from '../../context.js';
import type { DbTx } from '../../db/client.js';
import { type Sql, type SqlParams, sqlParams } from '../../db/sql.js';

/**
 * `record_day_totals`: kg and record count of the records that count (not superseded) per
 * establishment, mode, local day of `occurred_at` (the establishment's zone) and the dimensions
 * the analytics break down by (category, destination, cause, stage). Every write keeps it in its
 * own transaction: a record adds to its bucket; a correction adds itself and takes its original
 * out. Long-range analytics and sector benchmarking read it (a few rows a day) instead of every
 * record; `test/rollup.test.ts` checks it equals the aggregation of the records themselves.
 *
 * An establishment's days are those of its time zone when the record was stored: changing the
 * zone afterwards leaves earlier records on their old days (rebuild with the migration's INSERT).
 */

/** The catalogue filters both `records` and `record_day_totals` carry, as SQL conditions (unqualified columns). */
export type CatalogueFilter = { food_category?: string | undefined; destino_id?: string | undefined; causa_id?: string | undefined };

export function catalogueFiltersSql(filter: CatalogueFilter, p: SqlParams): string {
  let where = '';
  if (filter.food_category) where += ` AND food_category = ${p.add(filter.food_category)}`;
  if (filter.destino_id) where += ` AND destino_id = ${p.add(filter.destino_id)}::uuid`;
  if (filter.causa_id) where += ` AND causa_id = ${p.add(filter.causa_id)}::uuid`;
  return where;
}

/**
 * The one reader of the day totals: a subquery of one establishment and mode's buckets over the
 * local days `from`..`to` (both included; an absent bound is open), with the catalogue filters,
 * without the buckets a correction emptied. Its columns: day, food_category, destino_id, causa_id,
 * waste_stage, kg (numeric) and records; its values are added to `p`. Whoever sums kg over whole
 * local days (the list's totals, the analytics, the forecast, benchmarking, the plan) reads it.
 */
export function dayTotalsSql(scope: DataScope, filter: CatalogueFilter & { from?: string; to?: string }, p: SqlParams): string {
  let where = `establishment_id = ${p.add(scope.establishmentId)}::uuid AND livemode = ${p.add(scope.livemode)} AND records > 0`;
  if (filter.from) where += ` AND day >= ${p.add(filter.from)}::date`;
  if (filter.to) where += ` AND day <= ${p.add(filter.to)}::date`;
  where += catalogueFiltersSql(filter, p);
  return `(SELECT day, food_category, destino_id, causa_id, waste_stage, kg, records FROM record_day_totals WHERE ${where})`;
}

/**
 * How often each category, cause and destination was used by the records of the local days
 * `from`..`today`, and today's record count and kg: what a kitchen station orders its buttons by
 * and shows as the day's total.
 */
export async function usageAndToday(
  sql: Sql,
  scope: DataScope,
  range: { from: string; today: string },
): Promise<{ uses: Map<string, number>; today: { records: number; kg: number } }> {
  const p = sqlParams();
  const source = dayTotalsSql(scope, { from: range.from, to: range.today }, p);
  const today = p.add(range.today);
  // One pass over the buckets: a row per category, per destination, per cause, and the grand total
  // (whose today columns are the day's total).
  const { rows } = await sql.query<{
    food_category: string | null;
    destino_id: string | null;
    causa_id: string | null;
    grouped: number;
    uses: number;
    today_records: number;
    today_kg: number;
  }>(
    // GROUPING(…) tells the sets apart (a cause bucket of records without a cause is all NULLs too):
    // 3 by category, 5 by destination, 6 by cause, 7 the total.
    `SELECT food_category, destino_id::text, causa_id::text, GROUPING(food_category, destino_id, causa_id) AS grouped,
       sum(records)::int AS uses,
       coalesce(sum(records) FILTER (WHERE day = ${today}::date), 0)::int AS today_records,
       coalesce(sum(kg) FILTER (WHERE day = ${today}::date), 0)::float8 AS today_kg
     FROM ${source} t GROUP BY GROUPING SETS ((food_category), (destino_id), (causa_id), ())`,
    p.values,
  );
  const uses = new Map<string, number>();
  let total = { records: 0, kg: 0 };
  for (const r of rows) {
    if (r.grouped === 3) uses.set(`category:${r.food_category}`, r.uses);
    else if (r.grouped === 5) uses.set(`destination:${r.destino_id}`, r.uses);
    else if (r.grouped === 6 && r.causa_id !== null) uses.set(`cause:${r.causa_id}`, r.uses);
    else if (r.grouped === 7) total = { records: r.today_records, kg: Math.round(r.today_kg * 1000) / 1000 };
  }
  return { uses, today: total };
}

/** The SQL of a bucket upsert from a row source `src` with the columns named below. */
export const ADD_TO_DAY_TOTALS = `
  INSERT INTO record_day_totals AS t (establishment_id, livemode, day, food_category, destino_id, causa_id, waste_stage, kg, records)
  SELECT establishment_id, livemode, day, food_category, destino_id, causa_id, waste_stage, sum(kg), count(*)::int
  FROM src GROUP BY 1, 2, 3, 4, 5, 6, 7
  ON CONFLICT ON CONSTRAINT record_day_totals_key
  DO UPDATE SET kg = t.kg + excluded.kg, records = t.records + excluded.records`;

/** A quarter of an hour: every UTC offset in use is a whole number of them, and so is every local midnight. */
const SLOT_MS = 15 * 60_000;
/** Slots remembered per zone before that zone's are forgotten (a month of quarter-hours, ~3,000). */
const SLOTS_KEPT = 31 * 96;
/** Per zone, the local date of each quarter-hour of UTC whose first and last millisecond fall on the same date. */
const slotDates = new Map<string, Map<number, string>>();

/**
 * The bucket day of a record: the local date of `occurredAt` in the establishment's zone
 * (`localDate`, the one definition). Formatting a date is costly and every write needs one (500
 * for a batch), so the date is kept per zone for the quarter-hour of UTC the instant falls in, when
 * the quarter-hour's first and last millisecond have the same local date; a quarter-hour that a
 * midnight or a clock change would split (none in today's zones, but a zone's rules may change) is
 * formatted for each instant, never guessed. The server's alone: the dashboard's pages format few
 * dates and would only carry the code.
 */
export function bucketDay(occurredAt: string, timezone: string): string {
  const instant = new Date(occurredAt);
  const time = instant.getTime();
  const slot = Math.floor(time / SLOT_MS);
  // The mutation run leaves out what only decides whether the cache is used (marked below): each
  // such change makes the answer come from localDate more often, which is the same answer, only
  // slower; test/bucket-day.test.ts holds every answer to localDate's.
  let slots = slotDates.get(timezone);
  const kept = slots?.get(slot);
  // Stryker disable next-line ConditionalExpression: a cache not read answers the same.
  if (kept !== undefined) return kept;
  // An invalid instant or an unknown zone throws RangeError, as localDate does.
  // Stryker disable next-line all: an invalid instant throws in localDate on either path.
  if (!Number.isFinite(time)) return localDate(instant, timezone);
  const start = slot * SLOT_MS;
  const first = localDate(new Date(start), timezone);
  // Stryker disable next-line ArithmeticOperator: checking a later millisecond only caches less (so does checking always, the one survivor).
  if (first !== localDate(new Date(start + SLOT_MS - 1), timezone)) return localDate(instant, timezone);
  // Stryker disable next-line all: how much is kept per zone changes only how often it is formatted again.
  if (!slots || slots.size >= SLOTS_KEPT) {
    slots = new Map();
    slotDates.set(timezone, slots);
  }
  // Stryker disable next-line all: a date not kept is formatted again next time.
  slots.set(slot, first);
  return first;
}

/**
 * Marks `originalId` as replaced by `correctionId` and takes it out of its day's totals (the
 * correction added itself when it was stored). The caller holds the original's row lock and has
 * checked that nothing replaced it yet.
 */
export async function supersede(
  tx: DbTx,
  scope: DataScope & { timezone: string },
  originalId: string,
  correctionId: string,
): Promise<void> {
  // The day is found again in SQL (`localDaySql`), as the JavaScript `bucketDay` wrote it.
  await tx.$executeRawUnsafe(
    `WITH old AS (
      UPDATE records SET superseded_by = $1::uuid
      WHERE id = $2::uuid AND establishment_id = $3::uuid AND livemode = $4 AND superseded_by IS NULL
      RETURNING establishment_id, livemode, occurred_at, food_category, destino_id, causa_id, waste_stage, weight_kg
    )
    UPDATE record_day_totals t SET kg = t.kg - old.weight_kg, records = t.records - 1
    FROM old
    WHERE t.establishment_id = old.establishment_id AND t.livemode = old.livemode
      AND t.day = ${localDaySql('old.occurred_at', '$5')}
      AND t.food_category = old.food_category AND t.destino_id = old.destino_id
      AND t.causa_id IS NOT DISTINCT FROM old.causa_id AND t.waste_stage IS NOT DISTINCT FROM old.waste_stage`,
    correctionId,
    originalId,
    scope.establishmentId,
    scope.livemode,
    scope.timezone,
  );
}
