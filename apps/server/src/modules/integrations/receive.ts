import { randomUUID } from 'node:crypto';
import type { Clock } from '../../context.js';
import type { Db, DbTx } from '../../db/client.js';
import { inTransaction } from '../../db/transaction.js';
import { AppError, validationError } from '../../errors.js';
import type { SecretBox } from '../../secrets/cipher.js';
import type { CatalogCache } from '../catalog/service.js';
import { odooEventOf } from '../inbound/connectors/index.js';
import { receiveInboundEvent } from '../inbound/service.js';
import type { SendPolicy } from '../webhooks/send.js';
import { enqueueIntegrationJob, ODOO_ORDER_TASK, SQUARE_FETCH_TASK, squareWorkOf } from './jobs.js';
import { OdooRpcError, odooRpc } from './odoo/rpc.js';
import { keepRefusedLines, refusedSalesOf } from './refused.js';
import {
  type ActiveIntegration,
  apiCredential,
  findActiveIntegration,
  findOdooIntegrationByToken,
  noteOutcome,
  noteReceived,
  settingsOfRow,
  signatureKeys,
  squareNotificationUrl,
} from './service.js';
import { SQUARE_SIGNATURE_HEADER, squareSignatureMatches } from './square/signature.js';

/**
 * What the integrations' own URLs do (service.ts says why each vendor has one; http/surfaces/vendors.ts
 * serves them). An unknown or revoked Square integration is a 404; an Odoo URL whose token is
 * not an active integration's is a 401 (the token is its credential, as an API key is).
 *
 * Square: once the signature is checked (`assertSignedBySquare`), a notification is stored once by
 * its `event_id` (a resend, or a replay of a captured one, answers `duplicate`; older than the
 * dedupe window it is refused, as its id may have been forgotten) and the fetch is queued
 * (jobs.ts) in the same transaction: the answer never waits for Square's API. Orders notified in
 * another state than COMPLETED (one whose notification says no state is read, and the order decides), other locations than the integration's, and event types Merma does not read are
 * answered `ignored` (a 2xx, or Square would retry them), and kept to show on the Integrations page.
 *
 * Odoo: the automation rule's body (`_model`, `_id` and the chosen fields) goes to the odoo
 * connector as on the generic endpoint and is answered at once (Odoo's webhook action waits 1 s).
 * A `pos.order` whose `lines` are ids is stored and its lines fetched through JSON-RPC by a job,
 * when the integration has Odoo's URL, database, login and API key; without them the connector
 * refuses it, saying what to configure. Refusals are noted on the integration (`last_error`),
 * since Odoo shows a webhook's failures only in its server log, and sale lines that cannot be
 * stored are kept to be mapped to a product (refused.ts).
 */
export type ReceiveDeps = {
  db: Db;
  clock: Clock;
  secrets: SecretBox;
  catalog: CatalogCache;
  publicUrl: string;
  /** Days an event id is remembered (INBOUND_DEDUPE_DAYS): an older Square notification is refused as a replay. */
  dedupeDays: number;
  /** How Odoo is read while it waits (scrap reason tag names): the webhook deliveries' guard, a short timeout. */
  odoo?: { policy: SendPolicy; userAgent: string };
};

/** Odoo waits one second for a webhook's answer: reading tag names may take at most this long per call. */
export const ODOO_INLINE_TIMEOUT_MS = 400;

/** Square's order notifications, and the inventory one (https://developer.squareup.com/reference/square/webhooks). */
const SQUARE_ORDER_EVENTS = new Set(['order.created', 'order.updated', 'order.fulfillment.updated']);
const SQUARE_INVENTORY_EVENT = 'inventory.count.updated';
/** Point of Sale orders in these states are sales (odoo/addons/point_of_sale/models/pos_order.py). */
const PAID_ODOO_STATES = new Set(['paid', 'done', 'invoiced']);

type Answer = { event_id: string | null; status: 'queued' | 'duplicate' | 'ignored'; reason?: string };

const detailsOf = (err: AppError) => (err.details?.length ? ` (${err.details.map((d) => `${d.path}: ${d.message}`).join(', ')})` : '');

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TOKEN = /^mit_[0-9A-Za-z]{32}$/;

const notFound = () => new AppError('not_found', 'No such integration: it was revoked, or the URL is not the one the dashboard gave');

/** The active Square integration of a notification URL: 404 for an unknown or revoked one. */
export async function squareIntegration(deps: ReceiveDeps, id: string): Promise<ActiveIntegration> {
  const found = UUID.test(id) ? await findActiveIntegration(deps.db, 'square', id) : undefined;
  if (!found) throw notFound();
  return found;
}

/** The active Odoo integration whose URL token this is (the previous one in its grace period too); 401 for none. */
export async function odooIntegration(deps: ReceiveDeps, token: string): Promise<ActiveIntegration> {
  const found = TOKEN.test(token) ? await findOdooIntegrationByToken(deps.db, token, deps.clock()) : undefined;
  // The token is the credential, as an API key is: a wrong one is a 401.
  if (!found) throw new AppError('unauthorized', "This URL's token is not an active Odoo integration's: copy the URL the dashboard gave");
  if (found.refusal) throw found.refusal;
  return found;
}

/**
 * Checks Square's signature of the raw body (square/signature.ts) with the integration's keys, over
 * the notification URL Merma gives and, when the request reached it by another spelling (a trailing
 * slash, a query string, which the router accepts), over that URL too: Square signs the URL
 * configured in the subscription, whatever it is. Then, the request being Square's, the
 * organisation's plan (`refusal`). Nothing is written for a request that fails the check.
 */
export function assertSignedBySquare(
  deps: ReceiveDeps,
  found: ActiveIntegration,
  raw: string,
  signature: string | undefined,
  requestPath: string,
) {
  const keys = signatureKeys(deps.secrets, found.row, deps.clock());
  if (keys.length === 0) {
    throw new AppError('unauthorized', "This integration has no signature key yet: paste the subscription's signature key in Merma");
  }
  const canonical = squareNotificationUrl(deps.publicUrl, found.row.id);
  const urls = [...new Set([canonical, `${deps.publicUrl.replace(/\/+$/, '')}${requestPath}`])];
  if (!urls.some((url) => squareSignatureMatches(keys, url, raw, signature))) {
    throw new AppError(
      'unauthorized',
      `${SQUARE_SIGNATURE_HEADER} is missing or does not match: the subscription's notification URL must be ${canonical}, and its signature key the one pasted in Merma`,
    );
  }
  if (found.refusal) throw found.refusal;
}

const object = (v: unknown): Record<string, unknown> | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

export async function receiveSquareNotification(deps: ReceiveDeps, found: ActiveIntegration, body: unknown): Promise<Answer> {
  const { row, auth } = found;
  const n = object(body);
  const eventId = n?.event_id;
  const type = n?.type;
  const createdAt = typeof n?.created_at === 'string' ? Date.parse(n.created_at) : Number.NaN;
  const missing = [
    typeof type !== 'string' && 'type',
    (typeof eventId !== 'string' || eventId.length === 0 || eventId.length > 200) && 'event_id',
    !Number.isFinite(createdAt) && 'created_at',
    !object(n?.data) && 'data',
  ].filter(Boolean) as string[];
  if (!n || missing.length > 0) {
    throw validationError(
      'Not a Square webhook notification: expected {merchant_id, type, event_id, created_at, data}',
      (missing.length ? missing : ['type']).map((path) => ({ path, message: 'required' })),
    );
  }
  const now = deps.clock();
  if (now.getTime() - createdAt > deps.dedupeDays * 86_400_000) {
    throw validationError(`This notification was created more than ${deps.dedupeDays} days ago; it is refused as a replay`, [
      { path: 'created_at', message: 'too old' },
    ]);
  }
  const settings = settingsOfRow(row);
  let ignored: string | undefined;
  let stored: object = n;
  const work = squareWorkOf(n);
  if (type === SQUARE_INVENTORY_EVENT) {
    if (!work) ignored = 'no inventory counts in the notification';
    else if (work.kind === 'inventory' && settings.location_id && !work.locationIds.includes(settings.location_id)) {
      ignored = `counts of another location than ${settings.location_id}`;
    }
  } else if (SQUARE_ORDER_EVENTS.has(type as string)) {
    const data = object(n.data) ?? {};
    const inner = object(object(data.object)?.[`order_${(type as string).slice('order.'.length).replaceAll('.', '_')}`]) ?? {};
    if (!work) ignored = 'no order id in the notification';
    // A notification that does not say the state is read all the same: the order says it (and one
    // without a state is kept on the card as a line not stored, refused.ts), rather than dropped here.
    else if (inner.state !== undefined && inner.state !== 'COMPLETED')
      ignored = `order ${String(inner.state)}: only COMPLETED orders are sales`;
    else if (settings.location_id && inner.location_id !== settings.location_id)
      ignored = `an order of another location than ${settings.location_id}`;
  } else {
    ignored = `Merma does not read ${String(type)} notifications`;
    // Kept for the dedupe only: such events (payment.*, customer.*) may carry personal data.
    stored = { type, event_id: eventId, created_at: n.created_at };
  }

  return transaction(deps.db, async (tx) => {
    const id = randomUUID();
    const logged = await tx.$queryRaw<{ id: string }[]>`
      INSERT INTO inbound_events (id, establishment_id, livemode, event, source, external_ref, payload, created_at)
      VALUES (${id}::uuid, ${auth.establishmentId}::uuid, ${auth.livemode}, ${`square:${String(type)}`}, 'square',
        ${`notification:${String(eventId)}`}, ${JSON.stringify(stored)}::jsonb, ${now})
      ON CONFLICT (establishment_id, livemode, source, external_ref) DO NOTHING
      RETURNING id::text`;
    await noteReceived(tx, row.id, now);
    if (logged.length === 0) return { event_id: null, status: 'duplicate' as const };
    if (ignored) return { event_id: id, status: 'ignored' as const, reason: ignored };
    if (!apiCredential(deps.secrets, row)) {
      // Stored and queued all the same: the job waits (retries) until the token is added.
      await noteOutcome(tx, row.id, now, 'No Square access token: add it to the integration to read orders and stock');
    }
    await enqueueIntegrationJob(tx, SQUARE_FETCH_TASK, { integration_id: row.id, inbound_event_id: id });
    return { event_id: id, status: 'queued' as const };
  });
}

/** An Odoo automation rule's body; a refusal is noted on the integration too (Odoo shows it only in its server log). */
export async function receiveOdooWebhook(deps: ReceiveDeps, found: ActiveIntegration, body: unknown): Promise<unknown> {
  try {
    return await receiveOdoo(deps, found, body);
  } catch (err) {
    if (err instanceof AppError && err.code !== 'conflict')
      await noteOutcome(deps.db, found.row.id, deps.clock(), `${err.message}${detailsOf(err)}`);
    throw err;
  }
}

async function receiveOdoo(deps: ReceiveDeps, found: ActiveIntegration, body: unknown): Promise<unknown> {
  const { row, auth } = found;
  const payload = object(body);
  if (!payload)
    throw validationError('The body must be the JSON object an Odoo automation rule sends', [{ path: '', message: 'not an object' }]);
  const now = deps.clock();
  const event = odooEventOf(payload);
  if (!event) {
    throw validationError('Odoo sent a record Merma does not read: send stock.scrap, pos.order.line or pos.order', [
      { path: '_model', message: `expected stock.scrap, pos.order.line or pos.order, got ${JSON.stringify(payload._model ?? null)}` },
    ]);
  }
  const settings = settingsOfRow(row);
  assertOdooCompany(settings.company_id, payload);
  const lineIds = payload._model === 'pos.order' && Array.isArray(payload.lines) && payload.lines.every((l) => typeof l === 'number');
  const canRead = Boolean(settings.url && settings.database && settings.login && row.api_credential);
  if (lineIds && canRead) {
    const orderId = payload._id ?? payload.id;
    if (!Number.isSafeInteger(orderId)) {
      throw validationError("A pos.order needs its id to read its lines: Odoo's webhook sends it as _id", [
        { path: '_id', message: 'required: the order id (an integer)' },
      ]);
    }
    if (typeof payload.state === 'string' && !PAID_ODOO_STATES.has(payload.state)) {
      await noteReceived(deps.db, row.id, now);
      return { event_id: null, status: 'ignored', reason: `a ${payload.state} order: only paid, done or invoiced orders are sales` };
    }
    return transaction(deps.db, async (tx) => {
      const id = randomUUID();
      const logged = await tx.$queryRaw<{ id: string }[]>`
        INSERT INTO inbound_events (id, establishment_id, livemode, event, source, external_ref, payload, created_at)
        VALUES (${id}::uuid, ${auth.establishmentId}::uuid, ${auth.livemode}, 'odoo:pos.order', 'odoo',
          ${`pos.order:${String(orderId)}`}, ${JSON.stringify(payload)}::jsonb, ${now})
        ON CONFLICT (establishment_id, livemode, source, external_ref) DO NOTHING
        RETURNING id::text`;
      await noteReceived(tx, row.id, now);
      if (logged.length === 0) return { event_id: null, status: 'duplicate' };
      await enqueueIntegrationJob(tx, ODOO_ORDER_TASK, { integration_id: row.id, inbound_event_id: id });
      return { event_id: id, status: 'queued' };
    });
  }
  // Sale lines Odoo sent that cannot be stored are kept for the Integrations page (refused.ts).
  const keep = (outcome: Parameters<typeof refusedSalesOf>[2]) =>
    event === 'sales.recorded'
      ? inTransaction(deps.db, (tx) =>
          keepRefusedLines(tx, found, refusedSalesOf('odoo', payload, outcome, `odoo:${String(payload._id ?? payload.id ?? 'line')}`), now),
        )
      : Promise.resolve(0);
  const warning = event === 'inventory.loss' && canRead ? await nameScrapReasons(deps, found, payload) : null;
  const result = await receiveInboundEvent({ db: deps.db, clock: deps.clock, catalog: deps.catalog }, auth, {
    event,
    connector: 'odoo',
    payload,
  }).catch(async (err: unknown) => {
    if (err instanceof AppError && err.code === 'validation_error') await keep({ error: err });
    throw err;
  });
  await noteReceived(deps.db, row.id, now);
  const errors = result.sales?.errors ?? [];
  await keep({ errors });
  await noteOutcome(deps.db, row.id, now, errors.length ? `${errors.length} lines not stored: ${errors[0]?.error}` : warning);
  return result;
}

/**
 * A webhook sends a scrap's reason tags as ids (`scrap_reason_tag_ids: [2, 5]`), which name
 * nothing outside Odoo: when the integration can read Odoo (its URL, database, login and API key),
 * their names are read with those settings and the tags given as `[id, name]` pairs, as search_read
 * gives them, so the record's notes say the reason. Odoo waiting one second, the read is short;
 * when it fails the ids are kept (the notes say "Odoo scrap reason tags 2, 5") and the card says why.
 */
async function nameScrapReasons(deps: ReceiveDeps, found: ActiveIntegration, payload: Record<string, unknown>): Promise<string | null> {
  const tags = payload.scrap_reason_tag_ids;
  if (!deps.odoo || !Array.isArray(tags) || tags.length === 0 || !tags.every((t) => typeof t === 'number')) return null;
  const settings = settingsOfRow(found.row);
  const apiKey = apiCredential(deps.secrets, found.row);
  if (!settings.url || !settings.database || !settings.login || !apiKey) return null;
  try {
    const rpc = odooRpc(
      { url: settings.url, database: settings.database, login: settings.login, apiKey },
      {
        policy: { ...deps.odoo.policy, timeoutMs: Math.min(deps.odoo.policy.timeoutMs, ODOO_INLINE_TIMEOUT_MS) },
        userAgent: deps.odoo.userAgent,
      },
    );
    const names = await rpc.scrapReasonNames(tags as number[]);
    payload.scrap_reason_tag_ids = (tags as number[]).map((id) => (names.has(id) ? [id, names.get(id)] : id));
    return null;
  } catch (err) {
    if (!(err instanceof OdooRpcError)) throw err;
    return `The scrap was stored, but its reason tags' names could not be read: ${err.message}`;
  }
}

/**
 * A multi-company Odoo database sends every company's records to each rule: when the integration
 * names its company, a record of another company (or one that does not say, `company_id` being
 * missing from the webhook's fields) is refused with the reason, and noted on the card.
 */
function assertOdooCompany(expected: number | undefined, payload: Record<string, unknown>): void {
  if (expected === undefined) return;
  const raw = Array.isArray(payload.company_id) ? payload.company_id[0] : payload.company_id;
  if (raw === undefined || raw === false || raw === null) {
    throw validationError(`This integration takes the records of Odoo company ${expected} only, and this one does not say its company`, [
      { path: 'company_id', message: "missing: add company_id to the webhook's fields (Send Webhook Notification → Fields)" },
    ]);
  }
  if (Number(raw) !== expected) {
    throw validationError(
      `A record of Odoo company ${String(raw)}: this integration takes company ${expected} only. Filter the automation rule by company (Apply on: Company = ${expected})`,
      [{ path: 'company_id', message: `expected ${expected}, got ${String(raw)}` }],
    );
  }
}

function transaction<T>(db: Db, fn: (tx: DbTx) => Promise<T>): Promise<T> {
  return db.$transaction(fn, { maxWait: 10_000, timeout: 30_000 });
}
