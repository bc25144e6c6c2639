import type { FoodCategory } from '@merma/schema';
import type { Clock, Tenant } from '../../context.js';
import type { Sql } from '../../db/sql.js';
import { DATE_ONLY, lowerBoundSql, resolveRange, type SqlParams, sqlParams, upperBoundSql } from '../analytics/range.js';

/**
 * Which records count for a list, a page of the dashboard's table or an export: the establishment
 * and mode, records not replaced by a correction, a range of when the waste happened (`occurred_at`)
 * read in the establishment's time zone (by default the last 30 days up to today) and the optional
 * catalogue filters. A registration session's records (`session_id`) are all of them, whatever the
 * day they happened (a stock count may be weighed today for last month), unless `from`/`to` narrow
 * them; the `session_id` index finds them.
 */
export type RecordFilter = {
  from?: string | undefined;
  to?: string | undefined;
  food_category?: FoodCategory | undefined;
  destino_id?: string | undefined;
  causa_id?: string | undefined;
  shift_id?: string | undefined;
  session_id?: string | undefined;
};

/** A session's records without `from`/`to`: no range at all. */
const wholeSession = (filter: RecordFilter) => Boolean(filter.session_id) && !filter.from && !filter.to;

/** The catalogue filters both `records` and `record_day_totals` carry. */
function catalogueFilters(filter: RecordFilter, p: SqlParams): string {
  let where = '';
  if (filter.food_category) where += ` AND food_category = ${p.add(filter.food_category)}`;
  if (filter.destino_id) where += ` AND destino_id = ${p.add(filter.destino_id)}::uuid`;
  if (filter.causa_id) where += ` AND causa_id = ${p.add(filter.causa_id)}::uuid`;
  return where;
}

/** The WHERE clause over `records` (unqualified columns) of a filter whose range is resolved, its values added to `p`. */
function recordsWhere(tenant: Tenant, filter: RecordFilter & { from: string; to: string }, p: SqlParams): string {
  let where = `establishment_id = ${p.add(tenant.establishmentId)}::uuid AND livemode = ${p.add(tenant.livemode)}`;
  if (filter.from) where += ` AND occurred_at >= ${lowerBoundSql(filter.from, tenant.timezone, p)}`;
  if (filter.to) where += ` AND occurred_at < ${upperBoundSql(filter.to, tenant.timezone, p)}`;
  where += ` AND superseded_by IS NULL${catalogueFilters(filter, p)}`;
  if (filter.shift_id) where += ` AND shift_id = ${p.add(filter.shift_id)}::uuid`;
  if (filter.session_id) where += ` AND session_id = ${p.add(filter.session_id)}::uuid`;
  return where;
}

/** The filter's range: resolved (default 30 days), or none (`''`) for a whole session. */
async function filterRange(deps: { pool: Sql; clock: Clock }, tenant: Tenant, filter: RecordFilter) {
  if (wholeSession(filter)) return { from: '', to: '' };
  return resolveRange(deps.pool, filter, deps.clock(), tenant.timezone);
}

/** The WHERE clause of a filter over `records` (unqualified columns), its values added to `p`. */
export async function recordFilterSql(
  deps: { pool: Sql; clock: Clock },
  tenant: Tenant,
  filter: RecordFilter,
  p: SqlParams,
): Promise<{ where: string; from: string; to: string }> {
  const { from, to } = await filterRange(deps, tenant, filter);
  return { where: recordsWhere(tenant, { ...filter, from, to }, p), from, to };
}

/**
 * How many records a filter matches, as a scalar subquery over `filter`'s resolved range (its
 * values added to `p`). Ranges of whole days (how lists and the dashboard ask) are counted from
 * the day totals (rollup.ts), which hold the same records bucketed by local day, category,
 * destination and cause: a sum over a few rows a day instead of a count of every record, so the
 * first page of two years of a large kitchen costs what a week does. A range with a time of day,
 * or a shift or session filter (neither is in the totals), counts the records.
 */
export function countSql(tenant: Tenant, filter: RecordFilter & { from: string; to: string }, p: SqlParams): string {
  if (!filter.shift_id && !filter.session_id && DATE_ONLY.test(filter.from) && DATE_ONLY.test(filter.to)) {
    return `(SELECT coalesce(sum(records), 0) FROM record_day_totals
      WHERE establishment_id = ${p.add(tenant.establishmentId)}::uuid AND livemode = ${p.add(tenant.livemode)}
        AND day >= ${p.add(filter.from)}::date AND day <= ${p.add(filter.to)}::date${catalogueFilters(filter, p)})`;
  }
  return `(SELECT count(*) FROM records WHERE ${recordsWhere(tenant, filter, p)})`;
}

/** countSql on its own, for a filter whose range is not resolved yet. */
export async function countRecords(deps: { pool: Sql; clock: Clock }, tenant: Tenant, filter: RecordFilter): Promise<number> {
  const range = await filterRange(deps, tenant, filter);
  const p = sqlParams();
  const { rows } = await deps.pool.query<{ total: string }>(`SELECT ${countSql(tenant, { ...filter, ...range }, p)} AS total`, p.values);
  return Number(rows[0]?.total ?? 0);
}
