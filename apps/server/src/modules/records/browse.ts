import { encodeKeysetCursor, type KeysetPosition } from '@merma/schema';
import type { RecordDetail, RecordsPage, RecordsPageRow } from '@merma/schema/dashboard';
import type { Clock, DataScope, Tenant } from '../../context.js';
import type { Sql } from '../../db/sql.js';
import { sqlParams } from '../../db/sql.js';
import { AppError } from '../../errors.js';
import { type RecordFilter, recordFilterSql, recordTotals } from './filter.js';
import { RECORD_COLUMNS_TEXT, type RecordRow, toRecord } from './rows.js';

/**
 * The dashboard's record table and its export. Pages go by keyset (`occurred_at DESC, id DESC`, the
 * order of the records index), so the thousandth page costs what the first does; an offset would
 * read and drop every row before it. The page cursor is @merma/schema's keyset cursor, checked and
 * parsed by `RecordsPageInput` before it gets here.
 */

type Row = Omit<RecordRow, 'chain_seq'> & { superseded_by: string | null };

/** Up to `take` rows of the filter after the cursor. */
async function pageRows(deps: { sql: Sql; clock: Clock }, tenant: Tenant, filter: RecordFilter, take: number, after?: KeysetPosition) {
  const p = sqlParams();
  let { where } = await recordFilterSql(deps, tenant, filter, p);
  if (after) where += ` AND (occurred_at, id) < (${p.add(after.at)}::timestamptz, ${p.add(after.id)}::uuid)`;
  const { rows } = await deps.sql.query<Row>(
    `SELECT ${RECORD_COLUMNS_TEXT}, superseded_by::text FROM records WHERE ${where} ORDER BY occurred_at DESC, records.id DESC LIMIT ${p.add(take)}`,
    p.values,
  );
  return rows;
}

const toPageRow = (r: Row): RecordsPageRow => ({ ...toRecord(r), superseded_by: r.superseded_by });

/**
 * One page of the filtered records, newest first. `total` and `total_kg` (the count and kg of the
 * whole filter, summed in SQL with the same WHERE as the rows: filter.ts) come with the first page
 * only; later pages pass the cursor of the one before.
 */
export async function listRecordsPage(
  deps: { sql: Sql; clock: Clock },
  tenant: Tenant,
  filter: RecordFilter & { limit: number; cursor?: KeysetPosition | undefined },
): Promise<RecordsPage> {
  const after = filter.cursor;
  const rows = await pageRows(deps, tenant, filter, filter.limit + 1, after);
  const more = rows.length > filter.limit;
  const data = (more ? rows.slice(0, filter.limit) : rows).map(toPageRow);
  const last = data.at(-1);
  const totals = after ? null : await recordTotals(deps, tenant, filter);
  return {
    data,
    next_cursor: more && last ? encodeKeysetCursor(last.occurred_at, last.id) : null,
    total: totals?.count ?? null,
    total_kg: totals?.kg ?? null,
  };
}

export const EXPORT_CHUNK = 1000;

/**
 * Every record of the filter, newest first, a chunk of EXPORT_CHUNK at a time (keyset, as the
 * pages): an export of a large establishment holds one chunk in memory, and no transaction or
 * connection stays open between chunks.
 */
export async function* streamRecords(deps: { sql: Sql; clock: Clock }, tenant: Tenant, filter: RecordFilter) {
  // The range is resolved once, so "today" cannot move while the export runs.
  const p = sqlParams();
  const { from, to } = await recordFilterSql(deps, tenant, filter, p);
  const fixed = { ...filter, from, to };
  let after: KeysetPosition | undefined;
  for (;;) {
    const rows = await pageRows(deps, tenant, fixed, EXPORT_CHUNK, after);
    const records = rows.map(toRecord);
    if (records.length) yield records;
    const last = records.at(-1);
    if (records.length < EXPORT_CHUNK || !last) return;
    after = { at: last.occurred_at, id: last.id };
  }
}

/** A record with its place in the chain: sequence number, the hash it links to, and whether a correction replaced it. */
export async function getRecordDetail(sql: Sql, scope: DataScope, id: string): Promise<RecordDetail> {
  const { rows } = await sql.query<RecordRow & { superseded_by: string | null; chain_length: string }>(
    `SELECT ${RECORD_COLUMNS_TEXT}, superseded_by::text,
       (SELECT seq FROM record_chain_heads h WHERE h.establishment_id = r.establishment_id AND h.livemode = r.livemode) AS chain_length
     FROM records r WHERE id = $1::uuid AND establishment_id = $2::uuid AND livemode = $3`,
    [id, scope.establishmentId, scope.livemode],
  );
  const row = rows[0];
  if (!row) throw new AppError('not_found', `No record ${id} in this establishment`);
  return {
    record: toRecord(row),
    chain_seq: Number(row.chain_seq),
    prev_hash: row.prev_hash,
    chain_length: Number(row.chain_length),
    superseded_by: row.superseded_by,
  };
}
