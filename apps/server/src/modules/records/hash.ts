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
 * Keys in sorted order. `supersedes_id` takes part only when set, so corrections carry the link
 * to what they correct inside their hash while every other record hashes as it always has.
 */
export function canonicalRecordJson(r: HashedFields): string {
  const keys: (keyof HashedFields)[] = r.supersedes_id
    ? ([...HASHED_KEYS, 'supersedes_id'].sort() as (keyof HashedFields)[])
    : [...HASHED_KEYS];
  const parts = keys.map((k) => `${JSON.stringify(k)}:${JSON.stringify(r[k])}`);
  return `{${parts.join(',')}}`;
}

export function chainHash(prevHash: string, canonicalJson: string): string {
  return createHash('sha256').update(prevHash).update(canonicalJson).digest('hex');
}
