import { randomUUID } from 'node:crypto';
import { inTransaction } from '../../../../db/transaction.js';
import { AppError, validationError } from '../../../../errors.js';
import { receiveInboundEvent } from '../../../inbound/service.js';
import { enqueueIntegrationJob } from '../../jobs.js';
import { object, type ReceiveDeps, transaction } from '../../receive.js';
import { keepRefusedLines, refusedSalesOf } from '../../refused.js';
import {
  type ActiveIntegration,
  apiCredential,
  findOdooIntegrationByToken,
  noteOutcome,
  noteReceived,
  settingsOfRow,
} from '../../service.js';
import type { VendorRequest } from '../index.js';
import { odooConnector, odooEventOf } from './connector.js';
import { ODOO_ORDER_TASK } from './index.js';
import { OdooRpcError, odooRpc } from './rpc.js';

/**
 * Odoo's URL, `POST /api/v1/integrations/odoo/{token}` (../../receive.ts says what every vendor's
 * URL shares): an Odoo URL whose token is not an active integration's is a 401 (the token is its
 * credential, as an API key is). The automation rule's body (`_model`, `_id` and the chosen
 * fields) goes to the odoo connector as on the generic endpoint and is answered at once (Odoo's
 * webhook action waits 1 s). A `pos.order` whose `lines` are ids is stored and its lines fetched
 * through JSON-RPC by a job (fetch.ts), when the integration has Odoo's URL, database, login and
 * API key; without them the connector refuses it, saying what to configure. Refusals are noted on
 * the integration (`last_error`), since Odoo shows a webhook's failures only in its server log,
 * and sale lines that cannot be stored are kept to be mapped to a product (../../refused.ts).
 */

/** Odoo waits one second for a webhook's answer: reading tag names may take at most this long per call. */
export const ODOO_INLINE_TIMEOUT_MS = 400;

/** Point of Sale orders in these states are sales (odoo/addons/point_of_sale/models/pos_order.py). */
const PAID_ODOO_STATES = new Set(['paid', 'done', 'invoiced']);

const TOKEN = /^mit_[0-9A-Za-z]{32}$/;

const detailsOf = (err: AppError) => (err.details?.length ? ` (${err.details.map((d) => `${d.path}: ${d.message}`).join(', ')})` : '');

/** A request to Odoo's URL: the token in it is the credential. */
export function authenticateOdoo(deps: ReceiveDeps, request: VendorRequest): Promise<ActiveIntegration> {
  return odooIntegration(deps, request.segment);
}

/** The active Odoo integration whose URL token this is (the previous one in its grace period too); 401 for none. */
export async function odooIntegration(deps: ReceiveDeps, token: string): Promise<ActiveIntegration> {
  const found = TOKEN.test(token) ? await findOdooIntegrationByToken(deps.db, token, deps.clock()) : undefined;
  // The token is the credential, as an API key is: a wrong one is a 401.
  if (!found) throw new AppError('unauthorized', "This URL's token is not an active Odoo integration's: copy the URL the dashboard gave");
  if (found.refusal) throw found.refusal;
  return found;
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
    connector: odooConnector,
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
