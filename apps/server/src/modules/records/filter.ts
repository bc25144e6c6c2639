import type { FoodCategory } from '@merma/schema';
import { DATE_ONLY, lowerBoundSql, resolveRange, upperBoundSql } from '../../calendar.js';
import type { Clock, Tenant } from '../../context.js';
import type { Sql } from '../../db/sql.js';
import { type SqlParams, sqlParams } from '../../db/sql.js';
import { catalogueFiltersSql, dayTotalsSql } from './rollup.js';

/**
 * Which records count for a list, a page of the dashboard's table or an export: the establishment
 * and mode, records not replaced by a correction, a range of when the waste happened (`occurred_at`)
 * read in the establishment's time zone (by default the last 30 days up to today) and the optional
 * catalogue filters.
 */
export type RecordFilter = {
  from?: string | undefined;
  to?: string | undefined;
  food_category?: FoodCategory | undefined;
  destino_id?: string | undefined;
  causa_id?: string | undefined;
  shift_id?: string | undefined;
  session_id?: string | undefined;
  /** Also the records a correction replaced (the dashboard's table, on request). */
  include_superseded?: boolean | undefined;
};

/** A session's records without `from`/`to`: no range at all. */
const wholeSession = (filter: RecordFilter) => Boolean(filter.session_id) && !filter.from && !filter.to;

/** The WHERE clause over `records` (unqualified columns) of a filter whose range is resolved, its values added to `p`. */
export function recordsWhere(tenant: Tenant, filter: RecordFilter & { from: string; to: string }, p: SqlParams): string {
  let where = `establishment_id = ${p.add(tenant.establishmentId)}::uuid AND livemode = ${p.add(tenant.livemode)}`;
  if (filter.from) where += ` AND occurred_at >= ${lowerBoundSql(filter.from, tenant.timezone, p)}`;
  if (filter.to) where += ` AND occurred_at < ${upperBoundSql(filter.to, tenant.timezone, p)}`;
  if (!filter.include_superseded) where += ' AND superseded_by IS NULL';
  where += catalogueFiltersSql(filter, p);
  if (filter.shift_id) where += ` AND shift_id = ${p.add(filter.shift_id)}::uuid`;
  if (filter.session_id) where += ` AND session_id = ${p.add(filter.session_id)}::uuid`;
  return where;
}

/** The filter's range: resolved (default 30 days), or none (`''`) for a whole session. */
async function filterRange(deps: { sql: Sql; clock: Clock }, tenant: Tenant, filter: RecordFilter) {
  if (wholeSession(filter)) return { from: '', to: '' };
  return resolveRange(deps.sql, filter, deps.clock(), tenant.timezone);
}

/** The WHERE clause of a filter over `records` (unqualified columns), its values added to `p`. */
export async function recordFilterSql(
  deps: { sql: Sql; clock: Clock },
  tenant: Tenant,
  filter: RecordFilter,
  p: SqlParams,
): Promise<{ where: string; from: string; to: string }> {
  const { from, to } = await filterRange(deps, tenant, filter);
  return { where: recordsWhere(tenant, { ...filter, from, to }, p), from, to };
}

/**
 * Whether the day totals hold exactly the records of a filter (rollup.ts): whole days, no shift or
 * session, no replaced records. The one switch between reading the day totals and the records.
 */
export const fromDayTotals = (filter: RecordFilter & { from: string; to: string }) =>
  !filter.shift_id && !filter.session_id && !filter.include_superseded && DATE_ONLY.test(filter.from) && DATE_ONLY.test(filter.to);

/**
 * How many records a filter matches and their kg, as a subquery over `filter`'s resolved range
 * (its values added to `p`) with the columns `n` and `kg`. Ranges of whole days (how lists and the
 * dashboard ask) are summed from the day totals (rollup.ts), which hold the same records bucketed
 * by local day, category, destination and cause: a sum over a few rows a day instead of a read of
 * every record, so the first page of two years of a large kitchen costs what a week does. A range
 * with a time of day, a shift or session filter (neither is in the totals) or replaced records
 * included reads the records.
 */
export function totalsSql(tenant: Tenant, filter: RecordFilter & { from: string; to: string }, p: SqlParams): string {
  if (fromDayTotals(filter)) {
    return `(SELECT coalesce(sum(records), 0) AS n, coalesce(sum(kg), 0)::float8 AS kg FROM ${dayTotalsSql(tenant, filter, p)} t)`;
  }
  return `(SELECT count(*) AS n, coalesce(sum(weight_kg), 0)::float8 AS kg FROM records WHERE ${recordsWhere(tenant, filter, p)})`;
}

/** How many records a filter matches, as a scalar subquery (totalsSql's count). */
export function countSql(tenant: Tenant, filter: RecordFilter & { from: string; to: string }, p: SqlParams): string {
  return `(SELECT n FROM ${totalsSql(tenant, filter, p)} t)`;
}

/** The count and kg of a filter whose range is not resolved yet. */
export async function recordTotals(
  deps: { sql: Sql; clock: Clock },
  tenant: Tenant,
  filter: RecordFilter,
): Promise<{ count: number; kg: number }> {
  const range = await filterRange(deps, tenant, filter);
  const p = sqlParams();
  const { rows } = await deps.sql.query<{ n: string; kg: number }>(
    `SELECT n, kg FROM ${totalsSql(tenant, { ...filter, ...range }, p)} t`,
    p.values,
  );
  // Summed in numeric (grams exactly), rounded to the gram once: no float drift over many records.
  return { count: Number(rows[0]?.n ?? 0), kg: Math.round((rows[0]?.kg ?? 0) * 1000) / 1000 };
}

/** countSql on its own, for a filter whose range is not resolved yet. */
export async function countRecords(deps: { sql: Sql; clock: Clock }, tenant: Tenant, filter: RecordFilter): Promise<number> {
  return (await recordTotals(deps, tenant, filter)).count;
}
