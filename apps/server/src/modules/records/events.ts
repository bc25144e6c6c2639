import { isoSql } from '../../calendar.js';
/**
 * Record events (`record.created`, `record.updated`): what a write stores in the outbox, and what
 * a delivery renders from the stored record when it is sent.
 */
/**
 * The outbox row of a record event: `{event, timestamp, data: {id, record_hash}}`, about a fifth of
 * the delivered body (the `record.created`/`record.updated` of @merma/schema: id, establishment_id,
 * livemode, food_category, weight_kg, created_at, occurred_at, destino_id and causa_id with the names
 * of the cause and destination, product_id, product_name, shift_id, notes, waste_stage, record_hash and, on a correction, supersedes_id, and voided on an undo; how it was measured, edible, tare, the hierarchy's justification and the transfer document when the record said). A record never changes once stored, so the delivery renders the rest from it
 * when it is sent (webhooks/attempt.ts, with RECORD_EVENT_DATA_SQL below) instead of every write storing
 * a copy. `hash` null: the caller fills it in SQL.
 */
export function recordEventRow(type: 'record.created' | 'record.updated', id: string, createdAt: string, hash: string | null) {
  return { event: type, timestamp: createdAt, data: { id, record_hash: hash ?? '' } };
}

/**
 * The data of a record event as the database renders it from a stored record `r` (with its cause `rc` and
 * destination `rd` joined): the same keys and values, the same whenever it is sent
 * (test/webhook-delivery.test.ts checks every field of delivered record events).
 */
export const RECORD_EVENT_DATA_SQL = `jsonb_build_object(
    'id', r.id, 'establishment_id', r.establishment_id, 'livemode', r.livemode, 'food_category', r.food_category,
    'weight_kg', trim_scale(r.weight_kg),
    'created_at', ${isoSql('r.created_at')},
    'occurred_at', ${isoSql('r.occurred_at')},
    'destino_id', r.destino_id, 'causa_id', r.causa_id,
    'cause', rc.nombre, 'destination', coalesce(rd.nombre, ''),
    'product_id', r.product_id, 'product_name', r.product_name, 'shift_id', r.shift_id, 'notes', r.notes,
    'waste_stage', r.waste_stage, 'record_hash', r.record_hash)
  || CASE WHEN r.supersedes_id IS NOT NULL THEN jsonb_build_object('supersedes_id', r.supersedes_id) ELSE '{}'::jsonb END
  || CASE WHEN r.voided THEN jsonb_build_object('voided', true) ELSE '{}'::jsonb END
  || jsonb_strip_nulls(jsonb_build_object('measurement_method', r.measurement_method, 'scale_id', r.scale_id,
       'estimated', r.estimated, 'edible', r.edible, 'tare_kg', trim_scale(r.tare_kg),
       'hierarchy_reason', r.hierarchy_reason, 'hierarchy_note', r.hierarchy_note, 'transfer_document_ref', r.transfer_document_ref))`;
