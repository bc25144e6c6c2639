import { API_PLANS, type Plan, type Sector } from '@merma/schema';
import { isoSql } from '../../calendar.js';
import type { AuthContext, Credential, Tenant } from '../../context.js';
import type { Db, DbTx } from '../../db/client.js';
import { type Sql, sqlOfTransaction } from '../../db/sql.js';
import { AppError } from '../../errors.js';
import { findLoginSession, type SignedInUser } from '../accounts/login-sessions.js';

/**
 * Who is calling, resolved from the credential they present — one resolver per kind of credential,
 * all here:
 *
 * | credential | surface (http/surfaces/) | resolver |
 * | --- | --- | --- |
 * | API key (`Authorization: Bearer mk_…`) | api | `findKeyCaller` |
 * | login session (the dashboard's cookie) | dashboard | `findSessionCaller`, then `findEstablishment` for the establishment a call names |
 * | station device token (`Bearer stn_…`) | station | `findStationCaller` |
 * | vendor integration (Square's signed URL, Odoo's URL token) | vendors | `findIntegrationCaller` |
 * | a social entity's signing link (`Bearer dln_…`, from the URL's fragment) | donation-link | `findDonationLinkCaller` |
 *
 * Each gives one `Caller`: the tenant (one establishment's data of one mode, with the time zone,
 * sector and plan its figures depend on), the credential (`{ kind, id }`: which row, never the
 * secret), what it may do, and why it may not call at all (`refusal`, from `refusalOf`: the
 * rules written once). This file is the only one that joins establishments to their organisations
 * for a caller and the only one that builds a `Tenant` or an `AuthContext`
 * (test/callers.test.ts holds every other file of src/ to that). A new kind of credential is a
 * resolver here and a surface in http/surfaces/.
 *
 * Who is refused what (`refusalOf`): the API and the vendors' integrations are features of the
 * Enterprise plans, refused to other plans and to a canceled subscription; the dashboard and the
 * kitchen stations are the product itself and work on every plan and after a cancellation, so that
 * an organisation keeps its records and can still read and export them. A social entity's signing
 * link is the kitchen's, made from any of those, and works on every plan too: an entity must be able
 * to sign for food it was offered whatever the donor's plan. A revoked API key is
 * refused with its own message; revoked devices and integrations are simply not found (a device's
 * or a URL's owner learns nothing from a guess).
 */

/** A caller, as a surface's authentication hook resolves it. */
export type Caller = {
  tenant: Tenant;
  credential: Credential;
  permissions: readonly string[];
  /** Why this caller may not call (a revoked key, a canceled subscription, a plan without the API); null when it may. */
  refusal: AppError | null;
};

/** The caller as procedures and services see it (context.ts). */
export const authOf = (caller: Pick<Caller, 'tenant' | 'credential' | 'permissions'>): AuthContext => ({
  ...caller.tenant,
  credential: caller.credential,
  permissions: caller.permissions,
});

/** An establishment with what its figures depend on: its time zone, its sector and its organisation's plan. */
export type Establishment = { id: string; name: string; organizationId: string; timezone: string; sector: Sector; plan: Plan };

/** The data of one establishment and mode (`livemode`), with its time zone, sector and plan. */
export function tenantOf(establishment: Establishment, livemode: boolean): Tenant {
  const { id, organizationId, plan, timezone, sector } = establishment;
  return { establishmentId: id, livemode, organizationId, plan, timezone, sector };
}

/**
 * The columns of a caller's establishment and organisation, and the join that reads them from a
 * credential's row (aliased `c`, holding `establishment_id`): written once, for every kind. The API
 * key's caller is cached on PostgreSQL until a trigger announces a change to one of these columns or
 * to the key's own (migration `api_key_caller_changes`, http/auth.ts): a column added here is added
 * to those triggers too, and to test/api-key-cache.test.ts.
 */
const TENANT_COLUMNS = `e.id::text AS establishment_id, e.organization_id::text, e.name AS establishment_name, e.timezone, e.sector,
  o.plan, o.canceled_at IS NOT NULL AS canceled`;
const TENANT_JOIN = 'JOIN establishments e ON e.id = c.establishment_id JOIN organizations o ON o.id = e.organization_id';

type TenantColumns = {
  establishment_id: string;
  organization_id: string;
  establishment_name: string;
  timezone: string;
  sector: string;
  plan: string;
  canceled: boolean;
};

const establishmentFromRow = (row: TenantColumns): Establishment => ({
  id: row.establishment_id,
  name: row.establishment_name,
  organizationId: row.organization_id,
  timezone: row.timezone,
  sector: row.sector as Sector,
  plan: row.plan as Plan,
});

const CANCELED = "The organisation's subscription is canceled";

/** The refusal rules, once for every kind of credential (see the table above). */
export function refusalOf(credential: Credential['kind'], state: { revoked?: boolean; canceled: boolean; plan: string }): AppError | null {
  if (credential === 'api_key' && state.revoked) return new AppError('unauthorized', 'This API key has been revoked');
  if (credential === 'login_session' || credential === 'station_device' || credential === 'donation_link') return null;
  if (state.canceled) return new AppError('plan_required', CANCELED);
  if ((API_PLANS as readonly string[]).includes(state.plan)) return null;
  return new AppError(
    'plan_required',
    credential === 'api_key'
      ? 'The API is available on the Enterprise and Enterprise Multi plans only'
      : 'Integrations are available on the Enterprise and Enterprise Multi plans only',
  );
}

function callerOf(
  row: TenantColumns & { livemode: boolean; revoked?: boolean },
  credential: Credential,
  permissions: readonly string[],
): Caller {
  return {
    tenant: tenantOf(establishmentFromRow(row), row.livemode),
    credential,
    permissions,
    refusal: refusalOf(credential.kind, row),
  };
}

// --- API keys ---

/** The key with this SHA-256 (the only form stored), as a caller; undefined when none has it. */
export async function findKeyCaller(sql: Sql, keyHash: string): Promise<Caller | undefined> {
  const { rows } = await sql.query<TenantColumns & { id: string; livemode: boolean; permissions: string[]; revoked: boolean }>(
    `SELECT c.id::text, c.livemode, c.permissions, c.revoked_at IS NOT NULL AS revoked, ${TENANT_COLUMNS}
     FROM api_keys c ${TENANT_JOIN}
     WHERE c.key_hash = $1`,
    [keyHash],
    { prepare: true },
  );
  const row = rows[0];
  return row ? callerOf(row, { kind: 'api_key', id: row.id }, row.permissions) : undefined;
}

// --- Login sessions (the dashboard) ---

/** A signed-in user's session: the organisation they work in; the establishment is each call's (`findEstablishment`). */
export type SessionCaller = { user: SignedInUser; credential: Credential };

/** The session of a dashboard cookie's token, or null (unknown, expired, or no longer a member). */
export async function findSessionCaller(db: DbTx, token: string, now: Date): Promise<SessionCaller | null> {
  const user = await findLoginSession(db, token, now);
  return user ? { user, credential: { kind: 'login_session', id: user.sessionId } } : null;
}

/** One establishment of an organisation (404 when it is another's, or none). */
export async function findEstablishment(db: Db | DbTx, organizationId: string, id: string): Promise<Establishment> {
  const { rows } = await sqlOfTransaction(db).query<TenantColumns>(
    `SELECT ${TENANT_COLUMNS} FROM (SELECT $1::uuid AS establishment_id) c ${TENANT_JOIN} WHERE e.organization_id = $2::uuid`,
    [id, organizationId],
  );
  const row = rows[0];
  if (!row) throw new AppError('not_found', `No establishment ${id} in this organisation`);
  return establishmentFromRow(row);
}

/** An establishment by its id alone, for a background job that carries it; undefined once deleted. */
export async function establishmentById(db: Db | DbTx, id: string): Promise<Establishment | undefined> {
  const { rows } = await sqlOfTransaction(db).query<TenantColumns>(
    `SELECT ${TENANT_COLUMNS} FROM (SELECT $1::uuid AS establishment_id) c ${TENANT_JOIN}`,
    [id],
  );
  return rows[0] ? establishmentFromRow(rows[0]) : undefined;
}

// --- Kitchen station devices ---

/** A paired device's own columns, for the station module to show. */
export type DeviceColumns = {
  id: string;
  name: string;
  livemode: boolean;
  establishment_id: string;
  establishment_name: string;
  timezone: string;
};

/** The device of a station token's hash, with its caller; undefined when unknown, unpaired or revoked. */
export async function findStationCaller(sql: Sql, tokenHash: string): Promise<{ device: DeviceColumns; caller: Caller } | undefined> {
  const { rows } = await sql.query<TenantColumns & { id: string; name: string; livemode: boolean }>(
    `SELECT c.id::text, c.name, c.livemode, ${TENANT_COLUMNS}
     FROM station_devices c ${TENANT_JOIN}
     WHERE c.token_hash = $1 AND c.revoked_at IS NULL`,
    [tokenHash],
  );
  const row = rows[0];
  if (!row) return undefined;
  // A station records and reads its establishment's data; its routes check nothing finer.
  return { device: row, caller: callerOf(row, { kind: 'station_device', id: row.id }, []) };
}

// --- Vendor integrations ---

/** What a vendor's integration may do through the API's services: store what it sends. */
export const INTEGRATION_PERMISSIONS: readonly string[] = ['inbound:write'];

/** Which integration a request or a job names: by id and kind, or (Odoo's URL) by its token's hash, the replaced one in its grace period too. */
export type IntegrationMatch = { kind: string; id: string } | { kind: 'odoo'; tokenHash: string; now: Date };

/**
 * The active integration a vendor's request or job names, its row (`R`: the integrations module's
 * row type, every column of `integrations`) and its caller; undefined when none is active.
 */
export async function findIntegrationCaller<R>(db: Db | DbTx, match: IntegrationMatch): Promise<{ row: R; caller: Caller } | undefined> {
  const [where, values] =
    'id' in match
      ? ['c.id = $1::uuid AND c.kind = $2', [match.id, match.kind]]
      : [
          `c.kind = 'odoo' AND (c.token_hash = $1 OR (c.previous_token_hash = $1 AND c.previous_token_expires_at > $2::timestamptz))`,
          [match.tokenHash, match.now],
        ];
  const { rows } = await sqlOfTransaction(db).query<TenantColumns & { livemode: boolean; id: string }>(
    `SELECT c.*, ${TENANT_COLUMNS.replace('e.id::text AS establishment_id, ', '')}
     FROM integrations c ${TENANT_JOIN}
     WHERE ${where} AND c.status = 'active'`,
    values,
  );
  const row = rows[0];
  if (!row) return undefined;
  const { organization_id, establishment_name, timezone, sector, plan, canceled, ...own } = row;
  return { row: own as R, caller: callerOf(row, { kind: 'integration', id: row.id }, INTEGRATION_PERMISSIONS) };
}

/**
 * An integration's caller for a line a dashboard user sends again on its behalf (a refused line
 * mapped to a product): the tenant the user acts in, with the integration as the credential.
 */
export function integrationCaller(tenant: Tenant, integrationId: string): AuthContext {
  return authOf({ tenant, credential: { kind: 'integration', id: integrationId }, permissions: INTEGRATION_PERMISSIONS });
}

// --- A social entity's signing link ---

/** A signing link's own columns (donations/links.ts says when it may be used). */
export type DonationLinkRow = { id: string; donation_id: string; expires_at: string; used_at: string | null; replaced_at: string | null };

/**
 * The link of a token's hash, with its caller (the donation's establishment and mode; no
 * permissions: the door's routes act on that one donation only); undefined when no link has it.
 * Whether it is still usable (expired, replaced, used) is the door's to say, per use (links.ts).
 */
export async function findDonationLinkCaller(sql: Sql, tokenHash: string): Promise<{ link: DonationLinkRow; caller: Caller } | undefined> {
  const { rows } = await sql.query<TenantColumns & DonationLinkRow & { livemode: boolean }>(
    `SELECT c.id::text, c.donation_id::text, c.livemode, ${isoSql('c.expires_at')} AS expires_at, ${isoSql('c.used_at')} AS used_at,
       ${isoSql('c.replaced_at')} AS replaced_at, ${TENANT_COLUMNS}
     FROM donation_links c ${TENANT_JOIN}
     WHERE c.token_hash = $1`,
    [tokenHash],
  );
  const row = rows[0];
  if (!row) return undefined;
  const link = { id: row.id, donation_id: row.donation_id, expires_at: row.expires_at, used_at: row.used_at, replaced_at: row.replaced_at };
  return { link, caller: callerOf(row, { kind: 'donation_link', id: row.id }, []) };
}

/** A certificate's signing link's own columns (donations/certificate-links.ts); `replaced_at` etc. as a donation's. */
export type CertificateLinkRow = Omit<DonationLinkRow, 'donation_id'> & {
  organization_id: string;
  livemode: boolean;
  only_establishment_id: string | null;
  entity_id: string;
  year: number;
  cif: string;
};

/**
 * The certificate's link of a token's hash, with its caller: the same kind of credential as a
 * donation's link (the entity's), acting in its maker's establishment and mode; undefined when no
 * certificate link has it.
 */
export async function findCertificateLinkCaller(
  sql: Sql,
  tokenHash: string,
): Promise<{ link: CertificateLinkRow; caller: Caller } | undefined> {
  const { rows } = await sql.query<TenantColumns & CertificateLinkRow>(
    `SELECT c.id::text, c.only_establishment_id::text, c.entity_id::text, c.year, c.cif, c.livemode,
       ${isoSql('c.expires_at')} AS expires_at, ${isoSql('c.used_at')} AS used_at, ${isoSql('c.replaced_at')} AS replaced_at, ${TENANT_COLUMNS}
     FROM certificate_links c ${TENANT_JOIN}
     WHERE c.token_hash = $1`,
    [tokenHash],
  );
  const row = rows[0];
  if (!row) return undefined;
  const link: CertificateLinkRow = {
    id: row.id,
    organization_id: row.organization_id,
    livemode: row.livemode,
    only_establishment_id: row.only_establishment_id,
    entity_id: row.entity_id,
    year: row.year,
    cif: row.cif,
    expires_at: row.expires_at,
    used_at: row.used_at,
    replaced_at: row.replaced_at,
  };
  return { link, caller: callerOf(row, { kind: 'donation_link', id: row.id }, []) };
}

// --- Last use ---

/** The tables whose rows show a "last used" time on the dashboard, by credential kind. */
const LAST_USED_TABLE: Partial<Record<Credential['kind'], string>> = { api_key: 'api_keys', station_device: 'station_devices' };

/** A credential's last use is written at most this often by a process. */
const LAST_USED_EVERY_MS = 60_000;
const MAX_REMEMBERED = 10_000;

/**
 * Notes that a credential was used (the dashboard's "last used" of keys and devices), off the
 * request's path: at most once a minute per credential by this process, and the statement itself
 * skips a row another replica wrote less than a minute ago. Login sessions note their own use
 * (accounts/login-sessions.ts); integrations their last notification (integrations/service.ts).
 */
export function credentialToucher(sql: Sql, log?: { warn(obj: object, msg?: string): void }): (credential: Credential) => void {
  const lastWritten = new Map<string, number>();
  return (credential) => {
    const table = LAST_USED_TABLE[credential.kind];
    if (!table) return;
    const now = Date.now();
    if (now - (lastWritten.get(credential.id) ?? 0) < LAST_USED_EVERY_MS) return;
    if (lastWritten.size >= MAX_REMEMBERED) lastWritten.clear();
    lastWritten.set(credential.id, now);
    sql
      .query(
        `UPDATE ${table} SET last_used_at = now()
         WHERE id = $1::uuid AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
        [credential.id],
      )
      .catch((err: unknown) => log?.warn({ err, credential: credential.kind, id: credential.id }, 'the last use could not be noted'));
  };
}
