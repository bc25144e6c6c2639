import { randomUUID } from 'node:crypto';
import type { ApiKeySummary, CreatedApiKey, KeyMode } from '@merma/schema/dashboard';
import { generateApiKey, hashApiKey } from '../../auth/keys.js';
import type { DbTx } from '../../db/client.js';
import { AppError } from '../../errors.js';

/**
 * API keys of an establishment, as the dashboard (and merma-admin) make, list and revoke them. The
 * full key exists only in the answer to its creation; the table keeps its SHA-256, its prefix and
 * last four characters. A revoked key stops working within API_KEY_CACHE_TTL_MS on every replica
 * (http/auth.ts).
 */
type Row = {
  id: string;
  name: string;
  livemode: boolean;
  prefix: string;
  last4: string;
  permissions: string[];
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
  creator: { id: string; email: string; name: string } | null;
};

const SELECT = {
  id: true,
  name: true,
  livemode: true,
  prefix: true,
  last4: true,
  permissions: true,
  created_at: true,
  last_used_at: true,
  revoked_at: true,
  creator: { select: { id: true, email: true, name: true } },
} as const;

export function toKeySummary(k: Row): ApiKeySummary {
  return {
    id: k.id,
    name: k.name,
    mode: k.livemode ? 'live' : 'test',
    redacted: `${k.prefix}…${k.last4}`,
    permissions: k.permissions,
    created_by: k.creator,
    created_at: k.created_at.toISOString(),
    last_used_at: k.last_used_at?.toISOString() ?? null,
    revoked_at: k.revoked_at?.toISOString() ?? null,
  };
}

export async function createApiKey(
  db: DbTx,
  input: { establishmentId: string; name: string; mode: KeyMode; permissions: readonly string[]; createdBy: string | null; now: Date },
): Promise<CreatedApiKey> {
  const key = generateApiKey(input.mode);
  const row = await db.apiKey.create({
    data: {
      id: randomUUID(),
      establishment_id: input.establishmentId,
      livemode: input.mode === 'live',
      key_hash: hashApiKey(key),
      prefix: key.slice(0, 9),
      last4: key.slice(-4),
      permissions: [...new Set(input.permissions)],
      name: input.name,
      created_by: input.createdBy,
      created_at: input.now,
    },
    select: SELECT,
  });
  return { ...toKeySummary(row), key };
}

/** Newest first, revoked ones included (with `revoked_at`). */
export async function listApiKeys(db: DbTx, establishmentId: string): Promise<ApiKeySummary[]> {
  const rows = await db.apiKey.findMany({
    where: { establishment_id: establishmentId },
    select: SELECT,
    orderBy: [{ created_at: 'desc' }, { id: 'desc' }],
  });
  return rows.map(toKeySummary);
}

/** Revokes a key of the establishment (404 otherwise); revoking it again changes nothing. */
export async function revokeApiKey(db: DbTx, input: { establishmentId: string; id: string; now: Date }): Promise<ApiKeySummary> {
  const found = await db.apiKey.findFirst({ where: { id: input.id, establishment_id: input.establishmentId }, select: SELECT });
  if (!found) throw new AppError('not_found', `No API key ${input.id} in this establishment`);
  if (found.revoked_at) return toKeySummary(found);
  const row = await db.apiKey.update({ where: { id: input.id }, data: { revoked_at: input.now }, select: SELECT });
  return toKeySummary(row);
}

/** A key as its audit entries name it: id, establishment, name and redacted form, never the key. */
export type CreatedKey = { id: string; establishment_id: string; name: string; redacted: string };

/** The active keys `userId` created in the establishments of `organizationId`, by id. */
export async function activeKeysCreatedBy(db: DbTx, input: { organizationId: string; userId: string }): Promise<CreatedKey[]> {
  const establishments = await db.establishment.findMany({ where: { organization_id: input.organizationId }, select: { id: true } });
  const rows = await db.apiKey.findMany({
    where: { created_by: input.userId, revoked_at: null, establishment_id: { in: establishments.map((e) => e.id) } },
    select: { id: true, establishment_id: true, name: true, prefix: true, last4: true },
    orderBy: { id: 'asc' },
  });
  return rows.map((k) => ({ id: k.id, establishment_id: k.establishment_id, name: k.name, redacted: `${k.prefix}…${k.last4}` }));
}

/** Revokes these keys (those already revoked keep their time). */
export async function revokeKeys(db: DbTx, input: { ids: readonly string[]; now: Date }): Promise<void> {
  if (input.ids.length === 0) return;
  await db.apiKey.updateMany({ where: { id: { in: [...input.ids] }, revoked_at: null }, data: { revoked_at: input.now } });
}
