import type { WasteRecord } from '@merma/schema';
import { isoSql } from '../../calendar.js';
import type { Tenant } from '../../context.js';
import type { Sql } from '../../db/sql.js';
import { AppError } from '../../errors.js';
import { RECORD_FIELD_COLUMNS_SQL, type RecordFieldName, recordFieldsOf } from './columns.js';
import type { HashedFields } from './hash.js';

/**
 * A stored record as the service reads it and answers it: the row's shape, the one column list
 * for hand-written SQL, and the mapping to the contract's `WasteRecord`.
 */
/** A `records` row as selected by RECORD_COLUMNS_TEXT: the hashed fields plus chain bookkeeping. */
export type RecordRow = Omit<HashedFields, 'created_at' | 'occurred_at'> & {
  chain_seq: bigint;
  prev_hash: string;
  record_hash: string;
  /** `created_at` and `occurred_at` as the answer writes them (ISO, UTC, milliseconds), formatted by the database. */
  created_iso: string;
  occurred_iso: string;
};

/** The columns of a record as the service reads them: one list, for Prisma queries and plain pg. */
/** The dates come as text under their own names: an ORDER BY occurred_at still means the column (and its index). */
export const RECORD_COLUMNS_TEXT = `id::text, establishment_id::text, livemode, chain_seq, ${RECORD_FIELD_COLUMNS_SQL},
  source, prev_hash, record_hash, ${isoSql('created_at')} AS created_iso, ${isoSql('occurred_at')} AS occurred_iso, supersedes_id::text, voided`;

export function toRecord(r: Omit<RecordRow, 'chain_seq' | 'prev_hash'>): WasteRecord {
  return {
    id: r.id,
    establishment_id: r.establishment_id,
    livemode: r.livemode,
    // The row holds each field as the contract has it (RECORD_FIELD_COLUMNS_SQL casts them).
    ...(recordFieldsOf(r) as Pick<WasteRecord, RecordFieldName>),
    source: r.source,
    record_hash: r.record_hash,
    created_at: r.created_iso,
    occurred_at: r.occurred_iso,
    supersedes_id: r.supersedes_id ?? null,
    // Only on a voiding correction (an undo), as the hash has it.
    ...(r.voided ? { voided: true } : {}),
  };
}

/** A record of the tenant by id, as written (a key's replay; records never change once written). */
export async function storedRecord(sql: Sql, tenant: Pick<Tenant, 'establishmentId' | 'livemode'>, id: string): Promise<WasteRecord> {
  const { rows } = await sql.query<RecordRow>(
    `SELECT ${RECORD_COLUMNS_TEXT} FROM records WHERE id = $1::uuid AND establishment_id = $2::uuid AND livemode = $3`,
    [id, tenant.establishmentId, tenant.livemode],
  );
  const row = rows[0];
  // Records go only with their establishment, and its keys with it.
  if (!row) throw new AppError('internal', 'The record an Idempotency-Key stored is not there');
  return toRecord(row);
}
