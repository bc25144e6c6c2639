import { createHash, randomUUID } from 'node:crypto';
import type {
  CreateIntegrationInput,
  Integration,
  IntegrationKind,
  IntegrationWithUrl,
  RotateIntegrationInput,
  UpdateIntegrationInput,
} from '@merma/schema/dashboard';
import { randomToken } from '../../auth/keys.js';
import type { AuthContext, DataScope } from '../../context.js';
import type { DbTx } from '../../db/client.js';
import { AppError, validationError } from '../../errors.js';
import type { SecretBox } from '../../secrets/cipher.js';
import { openColumn, sealColumn } from '../../secrets/stored.js';
import { authOf, type Caller, findIntegrationCaller } from '../tenancy/callers.js';
import { assertDeliverableUrl, checkTarget, type TargetPolicy } from '../webhooks/target.js';
import { openRefusedCounts } from './refused.js';
import { VENDORS } from './vendors/index.js';

/**
 * Integrations: a Square seller account or an Odoo database connected to one establishment and
 * mode, each sending to a URL of its own and authenticated the vendor's way, since neither vendor
 * can send `Authorization: Bearer` (Square's webhook subscriptions have no header field; Odoo's
 * webhook action sends only `Content-Type`). Each vendor says which way in the registry
 * (vendors/index.ts, `secret`), and this file keeps, rotates and shows that secret:
 *
 * - Square (`signature-key`): `/api/v1/integrations/square/{id}`. The id is not a secret: every
 *   notification must carry `x-square-hmacsha256-signature`, Square's HMAC-SHA256 of that URL and
 *   the body with the subscription's signature key (vendors/square/receive.ts,
 *   `assertSignedBySquare`). The customer pastes the
 *   key Square shows; it is stored sealed, never shown again, and replaced by a rotation (the key
 *   replaced keeps verifying for the grace period, so notifications signed while the customer
 *   moves between the two consoles are not refused).
 * - Odoo (`url-token`): `/api/v1/integrations/odoo/{token}`, the token (`mit_` and 32 base62 characters, 190
 *   bits) being the only credential Odoo's webhook action can carry. It is shown once, in the
 *   whole URL; only its SHA-256 is stored (as for API keys: the server never needs it back), and
 *   lookups go by the hash through a unique index. A rotation makes a new token; the replaced one
 *   keeps working for the grace period.
 *
 * The credential the server reads the vendor's API with (a Square access token; an Odoo API key,
 * for orders whose lines Odoo sends as ids) is stored sealed and never returned. A revoked
 * integration's URL answers as an unknown one does (Square 404, Odoo 401). Every change is audited by the caller
 * (dashboard.ts).
 */
/** The token of a vendor whose URL carries its credential (`url-token`: Odoo's). */
export const URL_TOKEN_PREFIX = 'mit_';

type Row = {
  id: string;
  establishment_id: string;
  livemode: boolean;
  kind: string;
  name: string;
  status: string;
  token_hash: string | null;
  token_hint: string | null;
  previous_token_hash: string | null;
  previous_token_expires_at: Date | null;
  signature_key: string | null;
  previous_signature_key: string | null;
  previous_signature_key_expires_at: Date | null;
  api_credential: string | null;
  settings: unknown;
  created_at: Date;
  updated_at: Date;
  revoked_at: Date | null;
  last_received_at: Date | null;
  last_error: string | null;
  last_error_at: Date | null;
  failed_count: number;
};
export type IntegrationRow = Row;

export type IntegrationSettings = { location_id?: string; url?: string; database?: string; login?: string; company_id?: number };

export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

const base = (publicUrl: string) => publicUrl.replace(/\/+$/, '');

/** A vendor's URL (http/surfaces/vendors.ts): its last segment is the integration's id, or its token (`url-token`). */
export function integrationUrl(publicUrl: string, kind: string, segment: string): string {
  return `${base(publicUrl)}/api/v1/integrations/${kind}/${segment}`;
}

const settingsOf = (row: Row): IntegrationSettings => (row.settings ?? {}) as IntegrationSettings;

const vendorOfRow = (row: Row) => VENDORS[row.kind as IntegrationKind];

/** The previous secret's expiry, while it is still accepted. */
function previousExpiry(row: Row, now: Date): Date | null {
  const at = vendorOfRow(row).secret === 'signature-key' ? row.previous_signature_key_expires_at : row.previous_token_expires_at;
  return at && at > now ? at : null;
}

export function toIntegration(row: Row, publicUrl: string, now: Date, refusedCount = 0): Integration {
  return {
    id: row.id,
    kind: row.kind as IntegrationKind,
    name: row.name,
    livemode: row.livemode,
    status: row.status as Integration['status'],
    // A token is shown once: afterwards, its last four characters.
    url: integrationUrl(
      publicUrl,
      row.kind,
      vendorOfRow(row).secret === 'url-token' ? `${URL_TOKEN_PREFIX}…${row.token_hint ?? ''}` : row.id,
    ),
    signature_key_set: row.signature_key !== null,
    api_credential_set: row.api_credential !== null,
    settings: settingsOf(row),
    previous_expires_at: previousExpiry(row, now)?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    revoked_at: row.revoked_at?.toISOString() ?? null,
    last_received_at: row.last_received_at?.toISOString() ?? null,
    last_error: row.last_error,
    last_error_at: row.last_error_at?.toISOString() ?? null,
    failed_count: row.failed_count,
    refused_count: refusedCount,
  };
}

/** The settings a create or update may give, every vendor's (each takes its own: vendors/<kind>/index.ts). */
export type IntegrationSettingsInput = Omit<UpdateIntegrationInput, 'establishment_id' | 'livemode' | 'id' | 'name'>;
type Settings = IntegrationSettingsInput;

/**
 * The settings and sealed credential a create or update writes; fields of another vendor are
 * refused. Odoo's URL is where the server will send requests, so it is held to the webhook
 * deliveries' rules when saved (HTTPS in production, no literal internal address here; its name
 * resolved to public addresses in `assertOdooUrl`; checked again at each connection, webhooks/send.ts).
 */
function changesOf(kind: IntegrationKind, id: string, deps: Deps, input: Settings, current: IntegrationSettings) {
  const secrets = deps.secrets;
  const vendor = VENDORS[kind];
  const own = new Set<string>(vendor.settings.fields);
  const others = Object.values(VENDORS).flatMap((v) => v.settings.fields.filter((k) => !own.has(k)));
  const foreign = [...new Set(others)].filter((k) => input[k] !== undefined);
  if (foreign.length > 0) {
    throw validationError(
      `A ${vendor.label} integration has no ${foreign.join(', ')}`,
      foreign.map((k) => ({ path: k, message: `not a setting of a ${kind} integration` })),
    );
  }
  if (input.odoo_url !== undefined) {
    const checked = checkTarget(input.odoo_url, deps.policy);
    if ('refused' in checked) {
      const { reason, code, params } = checked.refused;
      // The detail's code and values let the dashboard word it in the reader's language.
      throw validationError(`Odoo's URL is refused: ${reason}`, [
        { path: 'odoo_url', message: reason, code, ...(params ? { params } : {}) },
      ]);
    }
  }
  const settings = vendor.settings.merge(current, input);
  const credential = input[vendor.settings.apiCredential] as string | undefined;
  return {
    settings,
    ...(credential !== undefined ? { api_credential: sealColumn(secrets, 'integrations', id, 'api_credential', credential) } : {}),
    ...(vendor.secret === 'signature-key' && input.signature_key !== undefined
      ? { signature_key: sealColumn(secrets, 'integrations', id, 'signature_key', input.signature_key) }
      : {}),
  };
}

type Deps = { secrets: SecretBox; publicUrl: string; policy: TargetPolicy };

/**
 * Odoo's URL when saved is held to the rule its first connection uses (webhooks/target.ts,
 * `assertDeliverableUrl`): its name is resolved and every address must be public, so `localhost`
 * or a name of the local network is refused at once rather than at the first read of an order.
 * WEBHOOKS_ALLOW_PRIVATE=true (development, tests) lifts the address check as it does for webhooks.
 */
async function assertOdooUrl(raw: string | undefined, policy: TargetPolicy): Promise<void> {
  if (raw === undefined) return;
  try {
    await assertDeliverableUrl(raw, policy);
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== 'validation_error') throw err;
    const details = (err.details ?? []).map((d) => ({ ...d, path: d.path === 'url' ? 'odoo_url' : d.path }));
    throw validationError(`Odoo's URL is refused: ${err.message}`, details);
  }
}

export async function createIntegration(
  tx: DbTx,
  scope: DataScope,
  deps: Deps,
  input: CreateIntegrationInput,
  now: Date,
): Promise<IntegrationWithUrl> {
  const id = randomUUID();
  const { establishment_id: _e, livemode: _l, kind, name, ...rest } = input;
  const { settings, ...sealed } = changesOf(kind, id, deps, rest as Settings, {});
  await assertOdooUrl((rest as Settings).odoo_url, deps.policy);
  const vendor = VENDORS[kind];
  const token = vendor.secret === 'url-token' ? randomToken(URL_TOKEN_PREFIX) : null;
  const [active] = await tx.$queryRaw<{ id: string }[]>`
    SELECT id::text FROM integrations
    WHERE establishment_id = ${scope.establishmentId}::uuid AND livemode = ${scope.livemode} AND kind = ${kind} AND status = 'active'`;
  const taken = () =>
    new AppError(
      'conflict',
      `This establishment already has an active ${vendor.label} integration in ${scope.livemode ? 'live' : 'test'} mode: change or rotate it, or revoke it first`,
    );
  if (active) throw taken();
  // Two made at once: the partial unique index refuses the second.
  const row = await tx.integration
    .create({
      data: {
        id,
        establishment_id: scope.establishmentId,
        livemode: scope.livemode,
        kind,
        name,
        settings,
        ...sealed,
        token_hash: token && hashToken(token),
        token_hint: token?.slice(-4) ?? null,
        created_at: now,
        updated_at: now,
      },
    })
    .catch((err: unknown) => {
      throw (err as { code?: string }).code === 'P2002' ? taken() : err;
    });
  return { ...toIntegration(row, deps.publicUrl, now), secret_url: token && integrationUrl(deps.publicUrl, kind, token) };
}

async function activeRow(tx: DbTx, scope: DataScope, id: string): Promise<Row> {
  const [row] = await tx.$queryRaw<Row[]>`
    SELECT * FROM integrations
    WHERE id = ${id}::uuid AND establishment_id = ${scope.establishmentId}::uuid AND livemode = ${scope.livemode}
    FOR UPDATE`;
  if (!row) throw new AppError('not_found', `No integration ${id} in this establishment`);
  if (row.status === 'revoked') throw new AppError('conflict', `Integration ${id} was revoked; create a new one`);
  return row;
}

export async function listIntegrations(db: DbTx, scope: DataScope, publicUrl: string, now: Date): Promise<Integration[]> {
  const rows = await db.integration.findMany({
    where: { establishment_id: scope.establishmentId, livemode: scope.livemode },
    orderBy: [{ created_at: 'desc' }, { id: 'desc' }],
  });
  const refused = await openRefusedCounts(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => toIntegration(r, publicUrl, now, refused.get(r.id) ?? 0));
}

/** An integration as the dashboard shows it after a change, with its count of kept refused lines. */
async function shown(db: DbTx, row: Row, publicUrl: string, now: Date): Promise<Integration> {
  const refused = await openRefusedCounts(db, [row.id]);
  return toIntegration(row, publicUrl, now, refused.get(row.id) ?? 0);
}

export async function updateIntegration(
  tx: DbTx,
  scope: DataScope,
  deps: Deps,
  input: UpdateIntegrationInput,
  now: Date,
): Promise<Integration> {
  const current = await activeRow(tx, scope, input.id);
  const { establishment_id: _e, livemode: _l, id, name, ...rest } = input;
  const changes = changesOf(current.kind as IntegrationKind, id, deps, rest as Settings, settingsOf(current));
  await assertOdooUrl(input.odoo_url, deps.policy);
  const row = await tx.integration.update({
    where: { id },
    data: { ...changes, ...(name !== undefined ? { name } : {}), updated_at: now },
  });
  return shown(tx, row, deps.publicUrl, now);
}

/**
 * Odoo: a new URL token, shown once in `secret_url`. Square: the new signature key Square shows
 * (required). The replaced one keeps working for `grace_period_seconds`; only one is kept.
 */
export async function rotateIntegration(
  tx: DbTx,
  scope: DataScope,
  deps: { secrets: SecretBox; publicUrl: string },
  input: RotateIntegrationInput,
  now: Date,
): Promise<IntegrationWithUrl> {
  const current = await activeRow(tx, scope, input.id);
  const grace = input.grace_period_seconds ?? 0;
  const until = grace > 0 ? new Date(now.getTime() + grace * 1000) : null;
  const vendor = vendorOfRow(current);
  if (vendor.secret === 'signature-key') {
    if (!input.signature_key) {
      throw validationError(`Paste the new signature key ${vendor.label} shows for the subscription`, [
        { path: 'signature_key', message: `required to rotate a ${vendor.label} integration` },
      ]);
    }
    const previous =
      until && current.signature_key
        ? sealColumn(
            deps.secrets,
            'integrations',
            current.id,
            'previous_signature_key',
            openColumn(deps.secrets, 'integrations', current.id, 'signature_key', current.signature_key),
          )
        : null;
    const row = await tx.integration.update({
      where: { id: current.id },
      data: {
        signature_key: sealColumn(deps.secrets, 'integrations', current.id, 'signature_key', input.signature_key),
        previous_signature_key: previous,
        previous_signature_key_expires_at: previous ? until : null,
        updated_at: now,
      },
    });
    return { ...(await shown(tx, row, deps.publicUrl, now)), secret_url: null };
  }
  if (input.signature_key !== undefined) {
    throw validationError(`An ${vendor.label} integration has no signature key: its URL is rotated`, [
      { path: 'signature_key', message: `not a setting of an ${vendor.kind} integration` },
    ]);
  }
  const token = randomToken(URL_TOKEN_PREFIX);
  const row = await tx.integration.update({
    where: { id: current.id },
    data: {
      token_hash: hashToken(token),
      token_hint: token.slice(-4),
      previous_token_hash: until ? current.token_hash : null,
      previous_token_expires_at: until,
      updated_at: now,
    },
  });
  return { ...(await shown(tx, row, deps.publicUrl, now)), secret_url: integrationUrl(deps.publicUrl, current.kind, token) };
}

/** Its URL stops working at once (as an unknown one's: Square 404, Odoo 401); its secrets are erased. */
export async function revokeIntegration(tx: DbTx, scope: DataScope, publicUrl: string, id: string, now: Date): Promise<Integration> {
  await activeRow(tx, scope, id);
  const row = await tx.integration.update({
    where: { id },
    data: {
      status: 'revoked',
      revoked_at: now,
      updated_at: now,
      token_hash: null,
      previous_token_hash: null,
      previous_token_expires_at: null,
      signature_key: null,
      previous_signature_key: null,
      previous_signature_key_expires_at: null,
      api_credential: null,
    },
  });
  return shown(tx, row, publicUrl, now);
}

/**
 * An active integration with what receiving for it needs: its caller (modules/tenancy/callers.ts:
 * its tenant, as an API key's, and why its organisation may not receive — a canceled
 * subscription, a plan without the API), the refusal thrown only once the request proved it comes
 * from the vendor, so that nobody learns it from the URL alone.
 */
export type ActiveIntegration = { row: Row; auth: AuthContext; refusal: AppError | null };

const active = (found: { row: Row; caller: Caller } | undefined): ActiveIntegration | undefined =>
  found && { row: found.row, auth: authOf(found.caller), refusal: found.caller.refusal };

export async function findActiveIntegration(db: DbTx, kind: IntegrationKind, id: string): Promise<ActiveIntegration | undefined> {
  return active(await findIntegrationCaller<Row>(db, { kind, id }));
}

/** The Odoo integration whose current token, or previous token still in its grace period, this is. */
export async function findOdooIntegrationByToken(db: DbTx, token: string, now: Date): Promise<ActiveIntegration | undefined> {
  return active(await findIntegrationCaller<Row>(db, { kind: 'odoo', tokenHash: hashToken(token), now }));
}

/** Square's signature keys that verify now: the current one, and the replaced one in its grace period. */
export function signatureKeys(secrets: SecretBox, row: Row, now: Date): string[] {
  const keys: string[] = [];
  if (row.signature_key) keys.push(openColumn(secrets, 'integrations', row.id, 'signature_key', row.signature_key));
  if (row.previous_signature_key && row.previous_signature_key_expires_at && row.previous_signature_key_expires_at > now) {
    keys.push(openColumn(secrets, 'integrations', row.id, 'previous_signature_key', row.previous_signature_key));
  }
  return keys;
}

/** The Square access token or Odoo API key, or null when none was given. */
export function apiCredential(secrets: SecretBox, row: Row): string | null {
  return row.api_credential && openColumn(secrets, 'integrations', row.id, 'api_credential', row.api_credential);
}

export function settingsOfRow(row: Row): IntegrationSettings {
  return settingsOf(row);
}

/** What the Integrations page shows of its traffic: the last time something arrived, the last failure. */
export async function noteReceived(db: DbTx, id: string, now: Date): Promise<void> {
  await db.integration.update({ where: { id }, data: { last_received_at: now } });
}

export async function noteOutcome(db: DbTx, id: string, now: Date, error: string | null): Promise<void> {
  await db.integration.update({
    where: { id },
    data: error === null ? { last_error: null, last_error_at: null } : { last_error: error.slice(0, 1000), last_error_at: now },
  });
}
