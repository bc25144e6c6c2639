import type { FoodCategory, WasteRecord, WasteStage } from '@merma/schema';
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
  created_at: Date;
  occurred_at: Date;
};

/** The columns of a record as the service reads them: one list, for Prisma queries and plain pg. */
export const RECORD_COLUMNS_TEXT = `id::text, establishment_id::text, livemode, chain_seq, food_category,
  weight_kg::float8 AS weight_kg, destino_id::text, causa_id::text, product_name, waste_stage, shift_id::text,
  session_id::text, notes, photo_url, source, prev_hash, record_hash, created_at, occurred_at, supersedes_id::text`;

export function toRecord(r: Omit<RecordRow, 'chain_seq'>): WasteRecord {
  return {
    id: r.id,
    establishment_id: r.establishment_id,
    livemode: r.livemode,
    food_category: r.food_category as FoodCategory,
    weight_kg: r.weight_kg,
    destino_id: r.destino_id,
    causa_id: r.causa_id,
    product_name: r.product_name,
    waste_stage: r.waste_stage as WasteStage | null,
    shift_id: r.shift_id,
    session_id: r.session_id,
    notes: r.notes,
    photo_url: r.photo_url,
    source: r.source,
    record_hash: r.record_hash,
    created_at: r.created_at.toISOString(),
    occurred_at: r.occurred_at.toISOString(),
    supersedes_id: r.supersedes_id ?? null,
  };
}
