import { createHash } from 'node:crypto';

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
 * so both sides must keep this definition.
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

/**
 * Keys in sorted order. Two take part only when they say something: `supersedes_id` when set (a
 * correction carries the link to what it corrects), and `occurred_at` when it differs from
 * `created_at` (a record dated by its sender). Every other record hashes as records always have,
 * so chains stored before these fields existed still verify — and the rule stays tamper-evident:
 * moving a stored `occurred_at` away from `created_at` adds it to the JSON, moving it onto
 * `created_at` removes it, and either way the hash no longer matches.
 */
export function canonicalRecordJson(r: HashedFields): string {
  const extra: (keyof HashedFields)[] = [];
  if (r.supersedes_id) extra.push('supersedes_id');
  if (r.occurred_at !== r.created_at) extra.push('occurred_at');
  const keys: (keyof HashedFields)[] = extra.length ? ([...HASHED_KEYS, ...extra].sort() as (keyof HashedFields)[]) : [...HASHED_KEYS];
  const parts = keys.map((k) => `${JSON.stringify(k)}:${JSON.stringify(r[k])}`);
  return `{${parts.join(',')}}`;
}

export function chainHash(prevHash: string, canonicalJson: string): string {
  return createHash('sha256').update(prevHash).update(canonicalJson).digest('hex');
}
