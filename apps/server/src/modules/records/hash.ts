import { hash } from 'node:crypto';
import { isoSql } from '../../calendar.js';
import type { RecordFieldName } from './columns.js';

/**
 * The tamper-evident record chain.
 *
 * Each (establishment, mode) has its own chain. A record's hash is
 *
 *     record_hash = hex(SHA-256(prev_hash + canonical_json(record)))
 *
 * where `prev_hash` is the hash of the previous record of the chain (64 zeros for the first one)
 * and `canonical_json` is the JSON of the fields below with keys sorted and no whitespace. Changing,
 * inserting or deleting a stored record breaks every later link, which `GET /api/v1/records/verify`
 * reports. The database computes the same digest with `sha256()` when it appends a single record,
 * and builds the same canonical JSON itself (CANONICAL_RECORD_JSON_SQL) when it verifies a chain,
 * so every side must keep this definition; test/hash-sql.test.ts proves the two builders equal.
 */
export const GENESIS_HASH = '0'.repeat(64);
export const HASH_ALGORITHM = 'sha256(prev_hash || canonical_json(record)), sorted keys, genesis 0x00*32';

export type HashedFields = {
  id: string;
  establishment_id: string;
  livemode: boolean;
  food_category: string;
  weight_kg: number;
  destino_id: string;
  causa_id: string | null;
  product_name: string | null;
  waste_stage: string | null;
  shift_id: string | null;
  session_id: string | null;
  notes: string | null;
  photo_url: string | null;
  source: string;
  created_at: string;
  /** When the waste happened (ISO, milliseconds, UTC); equal to created_at unless the record said otherwise. */
  occurred_at: string;
  /** Set on a correction only: the record it corrects (inbound waste.updated). */
  supersedes_id?: string | null;
  /** The product of the catalogue, when the record names one. */
  product_id?: string | null;
  /** Set on a correction that voids what it supersedes (an undo): neither record counts. */
  voided?: true;
  /** How the weight was obtained, the scale, whether it is an estimate, edible or not, the tare left out: each when said. */
  measurement_method?: string | null;
  scale_id?: string | null;
  estimated?: boolean | null;
  edible?: string | null;
  tare_kg?: number | null;
  /** Why it went to a lower step of the hierarchy, and the note: each when said. */
  hierarchy_reason?: string | null;
  hierarchy_note?: string | null;
  /** The waste transfer document it was handed over with: when said. */
  transfer_document_ref?: string | null;
};

const HASHED_KEYS = [
  'causa_id',
  'created_at',
  'destino_id',
  'establishment_id',
  'food_category',
  'id',
  'livemode',
  'notes',
  'photo_url',
  'product_name',
  'session_id',
  'shift_id',
  'source',
  'waste_stage',
  'weight_kg',
] as const satisfies readonly (keyof HashedFields)[];

/** Fields of the record hashed only when set (added after records were stored without them). */
const HASHED_WHEN_SET = [
  'product_id',
  'measurement_method',
  'scale_id',
  'estimated',
  'edible',
  'tare_kg',
  'hierarchy_reason',
  'hierarchy_note',
  'transfer_document_ref',
] as const satisfies readonly (keyof HashedFields)[];

/**
 * The record's own fields (columns.ts) are all hashed: a field added there fails to compile here
 * until its place in the hash is decided (docs/new-record-field.md, step 4).
 */
type Unhashed = Exclude<RecordFieldName, (typeof HASHED_KEYS)[number] | (typeof HASHED_WHEN_SET)[number]>;
export const EVERY_RECORD_FIELD_HASHED: [Unhashed] extends [never] ? true : Unhashed = true;

/**
 * Keys in sorted order. Some take part only when they say something: `supersedes_id` when set (a
 * correction carries the link to what it corrects), `voided` when true (a correction that voids
 * what it corrects: `"voided":true`), `occurred_at` when it differs from `created_at` (a record
 * dated by its sender), and each field added to records after records were stored without it
 * (HASHED_WHEN_SET: `product_id`, then how the weight was measured — `measurement_method`,
 * `scale_id`, `estimated` —, `edible`, `tare_kg`, and the hierarchy's justification — `hierarchy_reason`,
 * `hierarchy_note`, and the waste's `transfer_document_ref`) when it is not null.
 * Every other record hashes as records always have, so chains stored before these fields existed
 * still verify — and the rule stays tamper-evident: setting or clearing a stored field of these, or
 * moving a stored `occurred_at` away from `created_at` or onto it, adds the key to the JSON or
 * removes it, and either way the hash no longer matches.
 */
export function canonicalRecordJson(r: HashedFields): string {
  // One object in sorted key order, a key left undefined when it takes no part (JSON.stringify
  // leaves it out): the same shape for every record, which V8 serialises on its fast path, in
  // three quarters of the time of joining 27 pieces, and as one flat string, which the chain hash
  // reads without flattening it first (a batch builds 500 of these). `satisfies` makes a key
  // added to the lists above fail to compile here until it has its place; test/hash.test.ts holds
  // the order, written out.
  return JSON.stringify({
    causa_id: r.causa_id,
    created_at: r.created_at,
    destino_id: r.destino_id,
    edible: r.edible ?? undefined,
    establishment_id: r.establishment_id,
    estimated: r.estimated ?? undefined,
    food_category: r.food_category,
    hierarchy_note: r.hierarchy_note ?? undefined,
    hierarchy_reason: r.hierarchy_reason ?? undefined,
    id: r.id,
    livemode: r.livemode,
    measurement_method: r.measurement_method ?? undefined,
    notes: r.notes,
    occurred_at: r.occurred_at !== r.created_at ? r.occurred_at : undefined,
    photo_url: r.photo_url,
    product_id: r.product_id ?? undefined,
    product_name: r.product_name,
    scale_id: r.scale_id ?? undefined,
    session_id: r.session_id,
    shift_id: r.shift_id,
    source: r.source,
    supersedes_id: r.supersedes_id || undefined,
    tare_kg: r.tare_kg ?? undefined,
    transfer_document_ref: r.transfer_document_ref ?? undefined,
    voided: r.voided === true ? true : undefined,
    waste_stage: r.waste_stage,
    weight_kg: r.weight_kg,
  } satisfies Record<CanonicalKey, unknown>);
}

/** Every key a record's canonical JSON may hold. */
type CanonicalKey = (typeof HASHED_KEYS)[number] | (typeof HASHED_WHEN_SET)[number] | 'occurred_at' | 'supersedes_id' | 'voided';

/** A JSON string of a text column, or null: to_json escapes exactly as JSON.stringify does. */
const textSql = (column: string) => `coalesce(to_json(${column})::text, 'null')`;
/** A JSON string of a uuid column (no character needs escaping), or null. */
const uuidSql = (column: string) => `coalesce('"' || ${column}::text || '"', 'null')`;

/**
 * `canonicalRecordJson` written in SQL over a `records` row aliased `r`, for verification done by
 * the database (verify.ts, verifyRecordChain): the same keys in the same order, the weight with
 * its trailing zeros trimmed (DECIMAL 1.500 → 1.5, as a JS number prints), the dates as
 * toISOString writes them, and the optional keys under the same conditions.
 */
export const CANONICAL_RECORD_JSON_SQL = `('{"causa_id":' || ${uuidSql('r.causa_id')}
  || ',"created_at":"' || ${isoSql('r.created_at')}
  || '","destino_id":"' || r.destino_id::text || '"'
  || CASE WHEN r.edible IS NOT NULL THEN ',"edible":' || to_json(r.edible)::text ELSE '' END
  || ',"establishment_id":"' || r.establishment_id::text || '"'
  || CASE WHEN r.estimated IS NOT NULL THEN ',"estimated":' || CASE WHEN r.estimated THEN 'true' ELSE 'false' END ELSE '' END
  || ',"food_category":' || to_json(r.food_category)::text
  || CASE WHEN r.hierarchy_note IS NOT NULL THEN ',"hierarchy_note":' || to_json(r.hierarchy_note)::text ELSE '' END
  || CASE WHEN r.hierarchy_reason IS NOT NULL THEN ',"hierarchy_reason":' || to_json(r.hierarchy_reason)::text ELSE '' END
  || ',"id":"' || r.id::text
  || '","livemode":' || CASE WHEN r.livemode THEN 'true' ELSE 'false' END
  || CASE WHEN r.measurement_method IS NOT NULL THEN ',"measurement_method":' || to_json(r.measurement_method)::text ELSE '' END
  || ',"notes":' || ${textSql('r.notes')}
  || CASE WHEN date_trunc('milliseconds', r.occurred_at) <> date_trunc('milliseconds', r.created_at)
       THEN ',"occurred_at":"' || ${isoSql('r.occurred_at')} || '"' ELSE '' END
  || ',"photo_url":' || ${textSql('r.photo_url')}
  || CASE WHEN r.product_id IS NOT NULL THEN ',"product_id":"' || r.product_id::text || '"' ELSE '' END
  || ',"product_name":' || ${textSql('r.product_name')}
  || CASE WHEN r.scale_id IS NOT NULL THEN ',"scale_id":' || to_json(r.scale_id)::text ELSE '' END
  || ',"session_id":' || ${uuidSql('r.session_id')}
  || ',"shift_id":' || ${uuidSql('r.shift_id')}
  || ',"source":' || to_json(r.source)::text
  || CASE WHEN r.supersedes_id IS NOT NULL THEN ',"supersedes_id":"' || r.supersedes_id::text || '"' ELSE '' END
  || CASE WHEN r.tare_kg IS NOT NULL THEN ',"tare_kg":' || trim_scale(r.tare_kg)::text ELSE '' END
  || CASE WHEN r.transfer_document_ref IS NOT NULL THEN ',"transfer_document_ref":' || to_json(r.transfer_document_ref)::text ELSE '' END
  || CASE WHEN r.voided THEN ',"voided":true' ELSE '' END
  || ',"waste_stage":' || ${textSql('r.waste_stage')}
  || ',"weight_kg":' || trim_scale(r.weight_kg)::text
  || '}')`;

export function chainHash(prevHash: string, canonicalJson: string): string {
  // Node's one-shot hash of the joined text: no Hash stream object per record (a batch hashes 500),
  // in about 60 % of createHash().update().digest()'s time.
  return hash('sha256', prevHash + canonicalJson, 'hex');
}
