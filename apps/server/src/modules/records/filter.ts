import type { FoodCategory } from '@merma/schema';
import type { Clock, Tenant } from '../../context.js';
import type { Sql } from '../../db/sql.js';
import { lowerBoundSql, resolveRange, type SqlParams, upperBoundSql } from '../analytics/range.js';

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
};

/** The WHERE clause of a filter over `records` (unqualified columns), its values added to `p`. */
export async function recordFilterSql(
  deps: { pool: Sql; clock: Clock },
  tenant: Tenant,
  filter: RecordFilter,
  p: SqlParams,
): Promise<{ where: string; from: string; to: string }> {
  const { from, to } = await resolveRange(deps.pool, filter, deps.clock(), tenant.timezone);
  let where = `establishment_id = ${p.add(tenant.establishmentId)}::uuid AND livemode = ${p.add(tenant.livemode)}
    AND occurred_at >= ${lowerBoundSql(from, tenant.timezone, p)} AND occurred_at < ${upperBoundSql(to, tenant.timezone, p)}
    AND superseded_by IS NULL`;
  if (filter.food_category) where += ` AND food_category = ${p.add(filter.food_category)}`;
  if (filter.destino_id) where += ` AND destino_id = ${p.add(filter.destino_id)}::uuid`;
  if (filter.causa_id) where += ` AND causa_id = ${p.add(filter.causa_id)}::uuid`;
  if (filter.shift_id) where += ` AND shift_id = ${p.add(filter.shift_id)}::uuid`;
  return { where, from, to };
}
