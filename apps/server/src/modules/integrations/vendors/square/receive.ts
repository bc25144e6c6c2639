import { randomUUID } from 'node:crypto';
import { AppError, validationError } from '../../../../errors.js';
import { enqueueIntegrationJob } from '../../jobs.js';
import { object, type ReceiveAnswer, type ReceiveDeps, transaction } from '../../receive.js';
import {
  type ActiveIntegration,
  apiCredential,
  findActiveIntegration,
  integrationUrl,
  noteOutcome,
  noteReceived,
  settingsOfRow,
  signatureKeys,
} from '../../service.js';
import type { VendorRequest } from '../index.js';
import { squareWorkOf } from './fetch.js';
import { SQUARE_FETCH_TASK } from './index.js';
import { SQUARE_SIGNATURE_HEADER, squareSignatureMatches } from './signature.js';

/**
 * Square's URL, `POST /api/v1/integrations/square/{id}` (../../receive.ts says what every vendor's
 * URL shares). An unknown or revoked integration is a 404. Once the signature is checked
 * (`assertSignedBySquare`), a notification is stored once by its `event_id` (a resend, or a replay
 * of a captured one, answers `duplicate`; older than the dedupe window it is refused, as its id
 * may have been forgotten) and the fetch is queued (fetch.ts) in the same transaction: the answer
 * never waits for Square's API. Orders notified in another state than COMPLETED (one whose
 * notification says no state is read, and the order decides), other locations than the
 * integration's, and event types Merma does not read are answered `ignored` (a 2xx, or Square
 * would retry them), and kept to show on the Integrations page.
 */

/** Square's order notifications, and the inventory one (https://developer.squareup.com/reference/square/webhooks). */
const SQUARE_ORDER_EVENTS = new Set(['order.created', 'order.updated', 'order.fulfillment.updated']);
const SQUARE_INVENTORY_EVENT = 'inventory.count.updated';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Square's notification URL: what Square signs, so it must be exactly the URL configured there. */
const notificationUrl = (publicUrl: string, id: string) => integrationUrl(publicUrl, 'square', id);

const notFound = () => new AppError('not_found', 'No such integration: it was revoked, or the URL is not the one the dashboard gave');

/** A request to Square's URL: the integration its id names, signed by Square over the raw body. */
export async function authenticateSquare(deps: ReceiveDeps, request: VendorRequest): Promise<ActiveIntegration> {
  const integration = await squareIntegration(deps, request.segment);
  assertSignedBySquare(deps, integration, request.rawBody ?? '', request.header(SQUARE_SIGNATURE_HEADER), request.path);
  return integration;
}

/** The active Square integration of a notification URL: 404 for an unknown or revoked one. */
export async function squareIntegration(deps: ReceiveDeps, id: string): Promise<ActiveIntegration> {
  const found = UUID.test(id) ? await findActiveIntegration(deps.db, 'square', id) : undefined;
  if (!found) throw notFound();
  return found;
}

/**
 * Checks Square's signature of the raw body (signature.ts) with the integration's keys, over
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
  const canonical = notificationUrl(deps.publicUrl, found.row.id);
  const urls = [...new Set([canonical, `${deps.publicUrl.replace(/\/+$/, '')}${requestPath}`])];
  if (!urls.some((url) => squareSignatureMatches(keys, url, raw, signature))) {
    throw new AppError(
      'unauthorized',
      `${SQUARE_SIGNATURE_HEADER} is missing or does not match: the subscription's notification URL must be ${canonical}, and its signature key the one pasted in Merma`,
    );
  }
  if (found.refusal) throw found.refusal;
}

export async function receiveSquareNotification(deps: ReceiveDeps, found: ActiveIntegration, body: unknown): Promise<ReceiveAnswer> {
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
