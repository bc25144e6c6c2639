import type { FoodCategory, Pagination, WasteRecord } from '@merma/schema';
import type { Clock, Tenant } from '../../context.js';
import { type Sql, sqlParams } from '../../db/sql.js';
import { countRecords, countSql, recordFilterSql } from './filter.js';
import { RECORD_COLUMNS_TEXT, type RecordRow, toRecord } from './rows.js';

export type ListRecordsParsed = {
  from?: string | undefined;
  to?: string | undefined;
  food_category?: FoodCategory | undefined;
  limit: number;
  offset: number;
};

/**
 * Lists the records that count — a corrected record is replaced by its correction, which carries
 * `supersedes_id` (the chain keeps both; GET /records/verify walks all of them) — newest waste
 * first (`occurred_at DESC, records.id DESC`: the column, not the `id::text` the SELECT outputs under the
 * same name, so the matching index gives the order without a sort), with the total in the same
 * round trip (filter.ts, `countSql`: from the day totals for whole days). Dates are read in the establishment's time zone; by default the last 30
 * days up to and including today. Runs on the pg pool directly: this is the hottest read, and its
 * statement is prepared on each connection (its text depends only on which filters are given).
 */
export async function listRecords(
  deps: { sql: Sql; clock: Clock },
  auth: Tenant,
  query: ListRecordsParsed,
): Promise<{ data: WasteRecord[]; pagination: Pagination }> {
  const p = sqlParams();
  const { where, from, to } = await recordFilterSql(deps, auth, query, p);
  const { rows } = await deps.sql.query<Omit<RecordRow, 'chain_seq'> & { total: string }>(
    `SELECT ${RECORD_COLUMNS_TEXT}, ${countSql(auth, { ...query, from, to }, p)} AS total FROM records WHERE ${where}
     ORDER BY occurred_at DESC, records.id DESC
     LIMIT ${p.add(query.limit)} OFFSET ${p.add(query.offset)}`,
    p.values,
    { prepare: true },
  );
  // A page past the end has no row to carry the total.
  const total = rows[0] ? Number(rows[0].total) : await countRecords(deps, auth, { ...query, from, to });
  return {
    data: rows.map(toRecord),
    pagination: { limit: query.limit, offset: query.offset, total, has_more: query.offset + rows.length < total },
  };
}
