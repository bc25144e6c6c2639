import { randomUUID } from 'node:crypto';
import { ALL_PERMISSIONS, API_PLANS, PERMISSIONS, PLANS, type Plan, SECTORS, type Sector } from '@merma/schema';
import { type Db, poolOf } from '../db/client.js';
import { AppError } from '../errors.js';
import { eventPayload, insertEventsSql } from '../events/outbox.js';
import { importProductCsv } from '../modules/catalog/products.js';
import { createApiKey, listApiKeys, revokeApiKey } from '../modules/keys/service.js';
import { GENESIS_HASH } from '../modules/records/hash.js';
import { markActive } from '../modules/webhooks/service.js';
import { type SecretBox, SecretError } from '../secrets/cipher.js';
import { reencryptSecrets } from '../secrets/stored.js';
import { DEMO_OWNER_EMAIL } from './accounts.js';

/**
 * Administration: organisations, establishments, plans, keys and product catalogues. There is no
 * dashboard; the `merma-admin` CLI (src/admin.ts) calls these functions and prints their JSON.
 */
export class AdminError extends Error {}

export async function createOrganization(db: Db, input: { name: string; plan: string; adminEmail?: string }) {
  const name = input.name.trim();
  if (!name) throw new AdminError('--name must not be empty');
  const plan = parsePlan(input.plan);
  if (input.adminEmail !== undefined && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(input.adminEmail)) {
    throw new AdminError(`--admin-email ${input.adminEmail} is not an email address`);
  }
  const org = await db.organization.create({
    data: { id: randomUUID(), name, plan, admin_email: input.adminEmail ?? null },
  });
  return { id: org.id, name: org.name, plan: org.plan, admin_email: org.admin_email };
}

function parsePlan(plan: string): Plan {
  if (!(PLANS as readonly string[]).includes(plan)) throw new AdminError(`--plan must be one of ${PLANS.join(', ')}`);
  return plan as Plan;
}

/**
 * Changes an organisation's plan (and lifts a cancellation). `subscription.changed` is written to
 * the outbox of each of its establishments, in both modes, in the same transaction.
 */
export async function setOrganizationPlan(db: Db, input: { id: string; plan: string }) {
  const plan = parsePlan(input.plan);
  const id = assertUuid(input.id, '--id');
  return db.$transaction(async (tx) => {
    const found = await tx.organization.findUnique({ where: { id } });
    if (!found) throw new AdminError(`No organisation ${input.id}`);
    const org = await tx.organization.update({ where: { id }, data: { plan, canceled_at: null } });
    await emitSubscriptionEvent(tx, 'subscription.changed', {
      organization_id: id,
      plan,
      previous_plan: found.plan as Plan,
      status: 'active',
    });
    return { id: org.id, name: org.name, plan: org.plan, status: 'active' as const };
  });
}

/**
 * Cancels an organisation's subscription: its keys stop working (403 plan_required) and
 * `subscription.canceled` goes to its establishments' subscribers, in the same transaction.
 */
export async function cancelOrganization(db: Db, input: { id: string }) {
  const id = assertUuid(input.id, '--id');
  return db.$transaction(async (tx) => {
    const found = await tx.organization.findUnique({ where: { id } });
    if (!found) throw new AdminError(`No organisation ${input.id}`);
    if (found.canceled_at) throw new AdminError(`Organisation ${id} is already canceled`);
    const org = await tx.organization.update({ where: { id }, data: { canceled_at: new Date() } });
    await emitSubscriptionEvent(tx, 'subscription.canceled', {
      organization_id: id,
      plan: found.plan as Plan,
      previous_plan: found.plan as Plan,
      status: 'canceled',
    });
    return { id: org.id, name: org.name, plan: org.plan, status: 'canceled' as const, canceled_at: org.canceled_at?.toISOString() };
  });
}

async function emitSubscriptionEvent(
  tx: Parameters<Parameters<Db['$transaction']>[0]>[0],
  type: 'subscription.changed' | 'subscription.canceled',
  data: { organization_id: string; plan: Plan; previous_plan: Plan; status: 'active' | 'canceled' },
) {
  const now = new Date().toISOString();
  const payload = JSON.stringify(eventPayload(type, now, data));
  // One event per establishment of the organisation and mode, in one statement.
  await tx.$executeRawUnsafe(
    insertEventsSql(`SELECT e.id AS establishment_id, m.livemode, $1::text AS type, $2::jsonb AS payload, $3::timestamptz AS created_at,
        NULL::text AS trace_parent
      FROM establishments e CROSS JOIN (VALUES (true), (false)) AS m(livemode)
      WHERE e.organization_id = $4::uuid`),
    type,
    payload,
    now,
    data.organization_id,
  );
}

/** Returns a deactivated webhook subscription to `active`, its failure count reset. */
export async function reactivateWebhook(db: Db, input: { id: string }) {
  const id = assertUuid(input.id, '--id');
  const found = await db.webhookSubscription.findUnique({ where: { id } });
  if (!found) throw new AdminError(`No webhook subscription ${id}`);
  const sub = await markActive(db, id);
  return { id: sub.id, url: sub.url, status: sub.status, consecutive_failures: sub.consecutive_failures };
}

/**
 * Key rotation's second step: once the new key is first in MERMA_ENCRYPTION_KEY (the old ones
 * after it), re-encrypts every stored webhook secret with it. `keys_in_use` then lists only the
 * new key, and the old ones can be removed from the variable. Safe to run again, and while the
 * server runs (row locks, batches of 500).
 */
export async function reencryptWebhookSecrets(db: Db, secrets: SecretBox) {
  const client = await poolOf(db).connect();
  try {
    return await reencryptSecrets(client, secrets);
  } catch (err) {
    if (err instanceof SecretError) throw new AdminError(err.message);
    throw err;
  } finally {
    // Closed, not returned to the pool: Prisma ends its pool on disconnect only once it has used
    // it itself, and an idle connection left in it would keep the CLI alive until it times out.
    client.release(true);
  }
}

function assertUuid(value: string, flag: string): string {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)) {
    throw new AdminError(`${flag} must be a UUID`);
  }
  return value.toLowerCase();
}

/**
 * An IANA zone name, stored as Intl spells it (`europe/madrid` becomes `Europe/Madrid`). Offsets
 * (`+01:00`), which Intl accepts, are refused: PostgreSQL reads them as POSIX zones with the sign
 * reversed, so SQL day boundaries and JS local times would disagree by twice the offset.
 */
function assertTimezone(tz: string): string {
  let canonical: string | undefined;
  try {
    canonical = new Intl.DateTimeFormat('en', { timeZone: tz }).resolvedOptions().timeZone;
  } catch {}
  if (!canonical || /^[+-]/.test(canonical)) {
    throw new AdminError(`--timezone ${tz} is not an IANA time zone (e.g. Europe/Madrid)`);
  }
  return canonical;
}

/** `timezone`: the establishment's IANA zone (the CLI passes DEFAULT_TIMEZONE when --timezone is not given). */
export async function createEstablishment(db: Db, input: { org: string; name: string; cif: string; sector: string; timezone: string }) {
  const orgId = assertUuid(input.org, '--org');
  if (!input.name.trim()) throw new AdminError('--name must not be empty');
  if (!/^[A-Za-z0-9]{8,12}$/.test(input.cif)) throw new AdminError('--cif must be 8 to 12 letters or digits (e.g. B12345678)');
  if (!(SECTORS as readonly string[]).includes(input.sector)) {
    throw new AdminError(`--sector must be one of ${SECTORS.join(', ')}`);
  }
  const timezone = assertTimezone(input.timezone);
  const org = await db.organization.findUnique({ where: { id: orgId } });
  if (!org) throw new AdminError(`No organisation ${orgId}`);
  const id = randomUUID();
  const est = await db.$transaction(async (tx) => {
    const created = await tx.establishment.create({
      data: { id, organization_id: orgId, name: input.name.trim(), cif: input.cif.toUpperCase(), sector: input.sector, timezone },
    });
    // Each mode has its own record chain; its head starts at the genesis hash.
    await tx.recordChainHead.createMany({
      data: [true, false].map((livemode) => ({ establishment_id: id, livemode, seq: 0n, last_hash: GENESIS_HASH })),
    });
    return created;
  });
  return {
    id: est.id,
    organization_id: est.organization_id,
    name: est.name,
    cif: est.cif,
    sector: est.sector as Sector,
    timezone: est.timezone,
  };
}

function parsePermissions(value: string | undefined): string[] {
  if (value === undefined || value.trim() === ALL_PERMISSIONS) return [ALL_PERMISSIONS];
  const list = value
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  const unknown = list.filter((p) => !(PERMISSIONS as readonly string[]).includes(p));
  if (list.length === 0 || unknown.length) {
    throw new AdminError(
      `--permissions must be "*" or a comma list of: ${PERMISSIONS.join(', ')}${unknown.length ? ` (unknown: ${unknown.join(', ')})` : ''}`,
    );
  }
  return [...new Set(list)];
}

/** A key (modules/keys/service.ts); `name` labels it in the dashboard's list. */
export async function createKey(db: Db, input: { establishment: string; mode: string; permissions?: string; name?: string }) {
  const establishmentId = assertUuid(input.establishment, '--establishment');
  if (input.mode !== 'test' && input.mode !== 'live') throw new AdminError('--mode must be test or live');
  const permissions = parsePermissions(input.permissions);
  const est = await db.establishment.findUnique({ where: { id: establishmentId } });
  if (!est) throw new AdminError(`No establishment ${establishmentId}`);
  const name = input.name?.trim() || `${input.mode} key (merma-admin)`;
  const created = await createApiKey(db, { establishmentId, name, mode: input.mode, permissions, createdBy: null, now: new Date() });
  return { id: created.id, key: created.key, name, mode: input.mode, establishment_id: establishmentId, permissions: created.permissions };
}

export async function listKeys(db: Db, input: { establishment: string }) {
  const establishmentId = assertUuid(input.establishment, '--establishment');
  if (!(await db.establishment.findUnique({ where: { id: establishmentId } }))) throw new AdminError(`No establishment ${establishmentId}`);
  // prefix and last4 as well as the dashboard's `redacted`, which scripts written before it read.
  return (await listApiKeys(db, establishmentId)).map((k) => ({ ...k, prefix: k.redacted.slice(0, 9), last4: k.redacted.slice(-4) }));
}

export async function revokeKey(db: Db, input: { id: string }) {
  const id = assertUuid(input.id, '--id');
  const key = await db.apiKey.findUnique({ where: { id } });
  if (!key) throw new AdminError(`No key ${id}`);
  const revoked = await revokeApiKey(db, { establishmentId: key.establishment_id, id, now: new Date() });
  return { id, revoked_at: revoked.revoked_at as string };
}

/**
 * Imports a product CSV into an organisation, as its customers do from the API and the dashboard
 * (modules/catalog/products.ts: the columns, the checks by line, products matched by EAN). Any
 * invalid line aborts the import with every problem by line, writing nothing.
 */
export async function importProducts(db: Db, input: { org: string; csv: string }) {
  const orgId = assertUuid(input.org, '--org');
  const org = await db.organization.findUnique({ where: { id: orgId } });
  if (!org) throw new AdminError(`No organisation ${orgId}`);
  try {
    const { created, updated } = await importProductCsv(db, orgId, { csv: input.csv, dryRun: false });
    return { organization_id: orgId, created, updated };
  } catch (err) {
    if (err instanceof AppError && err.code === 'validation_error') throw new AdminError(err.message);
    throw err;
  }
}

/** A demo organisation (Enterprise), establishment (in `timezone`) and test key with every permission. */
export const DEMO_ORGANIZATION_NAME = 'Demo kitchen group';
const DEMO_ESTABLISHMENT = { name: 'Cocina demo', cif: 'B00000000', sector: 'horeca' } as const;

/**
 * `merma-admin quickstart`: the demo organisation (Enterprise), its establishment and a new test key
 * with every permission. Run again, it reuses the demo organisation — the one the demo owner owns,
 * still active on a plan with the API — and its establishment, and makes only a new key (and, in
 * the CLI, a new sign-in link): a second run is "give me another key", not a second demo. When
 * that organisation was canceled or moved to a plan without the API, a new one is made, so the
 * printed key always works. `reused` says which happened.
 */
export async function quickstart(db: Db, options: { timezone: string }) {
  const existing = await db.organization.findFirst({
    where: {
      name: DEMO_ORGANIZATION_NAME,
      canceled_at: null,
      plan: { in: [...API_PLANS] },
      memberships: { some: { role: 'owner', user: { email: DEMO_OWNER_EMAIL } } },
    },
    orderBy: [{ created_at: 'asc' }, { id: 'asc' }],
  });
  const organization = existing
    ? { id: existing.id, name: existing.name, plan: existing.plan, admin_email: existing.admin_email }
    : await createOrganization(db, { name: DEMO_ORGANIZATION_NAME, plan: 'enterprise' });
  const found = existing
    ? await db.establishment.findFirst({ where: { organization_id: existing.id }, orderBy: [{ created_at: 'asc' }, { id: 'asc' }] })
    : null;
  const establishment = found
    ? {
        id: found.id,
        organization_id: found.organization_id,
        name: found.name,
        cif: found.cif,
        sector: found.sector as Sector,
        timezone: found.timezone,
      }
    : await createEstablishment(db, { org: organization.id, ...DEMO_ESTABLISHMENT, timezone: options.timezone });
  const key = await createKey(db, { establishment: establishment.id, mode: 'test', permissions: '*' });
  return { organization, establishment, key, reused: existing !== null };
}
