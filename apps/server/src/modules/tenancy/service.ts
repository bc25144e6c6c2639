import type { Plan, Sector } from '@merma/schema';
import type { AuthContext, Tenant } from '../../context.js';
import type { Db } from '../../db/client.js';
import { AppError } from '../../errors.js';

/**
 * Who a caller is, as the data they may touch: an API key (REST) or a signed-in user with the
 * establishment they picked (the dashboard) resolved to a `Tenant` — one establishment's data of
 * one mode, with the time zone, sector and plan its figures depend on. The two surfaces read the
 * same columns through the same row shape; the HTTP layer (http/auth.ts: the header, the cache)
 * and the procedure builders (trpc/dashboard-base.ts: the session, the roles) run no SQL of their own.
 */
type EstablishmentRow = { establishment_id: string; organization_id: string; name: string; timezone: string; sector: string; plan: string };

/** An establishment with what its figures depend on: its time zone, its sector and its organisation's plan. */
export type Establishment = { id: string; name: string; organizationId: string; timezone: string; sector: Sector; plan: Plan };

const establishmentFromRow = (row: EstablishmentRow): Establishment => ({
  id: row.establishment_id,
  name: row.name,
  organizationId: row.organization_id,
  timezone: row.timezone,
  sector: row.sector as Sector,
  plan: row.plan as Plan,
});

/** The data of one establishment and mode (`livemode`), with its time zone, sector and plan. */
export function tenantOf(establishment: Establishment, livemode: boolean): Tenant {
  const { id, organizationId, plan, timezone, sector } = establishment;
  return { establishmentId: id, livemode, organizationId, plan, timezone, sector };
}

/** An API key found by its hash: its caller, and whether it may still be used. */
export type KeyCaller = { auth: AuthContext; revoked: boolean; canceled: boolean };

/** The key with this SHA-256 (the only form stored), with its establishment and organisation; undefined when none has it. */
export async function findKeyCaller(db: Db, keyHash: string): Promise<KeyCaller | undefined> {
  const [row] = await db.$queryRaw<
    (EstablishmentRow & { id: string; livemode: boolean; permissions: string[]; revoked: boolean; canceled: boolean })[]
  >`
    SELECT k.id::text, k.establishment_id::text, e.organization_id::text, e.name, k.livemode, k.permissions,
      k.revoked_at IS NOT NULL AS revoked, o.plan, o.canceled_at IS NOT NULL AS canceled, e.timezone, e.sector
    FROM api_keys k
    JOIN establishments e ON e.id = k.establishment_id
    JOIN organizations o ON o.id = e.organization_id
    WHERE k.key_hash = ${keyHash}`;
  if (!row) return undefined;
  const tenant = tenantOf(establishmentFromRow(row), row.livemode);
  return { auth: { ...tenant, keyId: row.id, permissions: row.permissions }, revoked: row.revoked, canceled: row.canceled };
}

/** An establishment by its id alone, for a background job that carries it; undefined once deleted. */
export async function establishmentById(db: Db, id: string): Promise<Establishment | undefined> {
  const [row] = await db.$queryRaw<EstablishmentRow[]>`
    SELECT e.id::text AS establishment_id, e.organization_id::text, e.name, e.timezone, e.sector, o.plan
    FROM establishments e JOIN organizations o ON o.id = e.organization_id
    WHERE e.id = ${id}::uuid`;
  return row ? establishmentFromRow(row) : undefined;
}

/** One establishment of an organisation (404 when it is another's, or none). */
export async function findEstablishment(db: Db, organizationId: string, id: string): Promise<Establishment> {
  const [row] = await db.$queryRaw<EstablishmentRow[]>`
    SELECT e.id::text AS establishment_id, e.organization_id::text, e.name, e.timezone, e.sector, o.plan
    FROM establishments e JOIN organizations o ON o.id = e.organization_id
    WHERE e.id = ${id}::uuid AND e.organization_id = ${organizationId}::uuid`;
  if (!row) throw new AppError('not_found', `No establishment ${id} in this organisation`);
  return establishmentFromRow(row);
}
