import { AppError } from '../../../../errors.js';
import { receiveInboundEvent } from '../../../inbound/service.js';
import {
  describeRefusals,
  type IntegrationJob,
  type IntegrationJobDeps,
  type IntegrationJobHelpers,
  keepRefused,
  lineRefusal,
  MAX_ATTEMPTS,
  refusal,
} from '../../jobs.js';
import { refusedSalesOf } from '../../refused.js';
import { apiCredential, findActiveIntegration, noteOutcome, settingsOfRow } from '../../service.js';
import { SquareApiError, squareApi } from './api.js';
import { squareConnector } from './connector.js';
import { SQUARE_FETCH_TASK } from './index.js';

/**
 * Square's job, `integrations.square_fetch` {integration_id, inbound_event_id} (the generic part:
 * ../../jobs.ts): a Square notification (kept in `inbound_events`) → the order from the Orders API
 * (BatchRetrieveOrders), stored as sales by the square connector; or the WASTE adjustments of the
 * counts it names, from the Inventory API (BatchRetrieveInventoryChanges), each stored as a loss.
 * Sales lines are stored once by order id and line uid, losses once by adjustment id, so a job run
 * twice stores nothing twice.
 *
 * An order read older than its notification is read again a few times (`MAX_STALE_READS`). A 429
 * from Square is honoured: the job is queued again at the time its Retry-After gives (an hour at
 * most). Other failures are retried by graphile-worker (../../jobs.ts).
 */

/** Square answering 429 again and again: given up after this many waits. */
const MAX_RATE_LIMITED = 20;
/** A Retry-After longer than this (an hour) is not believed: the job is tried again after an hour. */
const MAX_RETRY_AFTER_SECONDS = 3600;

/**
 * Square's read may lag its notification: the order fetched older (`version`) than the one notified,
 * or not yet in the notified state. It is read again after 1, 2, 4… seconds, up to this many times
 * (about a minute), the card saying so meanwhile; then what Square answers is stored if it is a
 * sale, else the notification is counted lost (`failed_count`) with the reason.
 */
const MAX_STALE_READS = 6;
const STALE_READ_DELAY_MS = 1000;

/** The notification's order id (order.* events) or counts (inventory.count.updated). */
type SquareNotification = {
  type?: string;
  created_at?: string;
  data?: { id?: string; object?: Record<string, unknown> };
};
export type SquareWork =
  | { kind: 'order'; orderId: string; locationId: string | undefined; version?: number; state?: string }
  | { kind: 'inventory'; catalogObjectIds: string[]; locationIds: string[]; updatedAfter: string };

/** One hour before the earliest count's time: the adjustment that moved it was made before it was calculated. */
const INVENTORY_LOOKBACK_MS = 60 * 60 * 1000;

/** What a stored Square notification asks to fetch (receive.ts reads it to decide whether to fetch). */
export function squareWorkOf(notification: SquareNotification): SquareWork | undefined {
  const object = notification.data?.object ?? {};
  if (notification.type === 'inventory.count.updated') {
    const counts = (Array.isArray(object.inventory_counts) ? object.inventory_counts : []) as Record<string, unknown>[];
    const ids = [...new Set(counts.map((c) => c.catalog_object_id).filter((v): v is string => typeof v === 'string'))];
    const locations = [...new Set(counts.map((c) => c.location_id).filter((v): v is string => typeof v === 'string'))];
    const times = counts.map((c) => Date.parse(String(c.calculated_at))).filter((t) => Number.isFinite(t));
    const earliest = times.length > 0 ? Math.min(...times) : Date.parse(String(notification.created_at));
    if (ids.length === 0 || !Number.isFinite(earliest)) return undefined;
    return {
      kind: 'inventory',
      catalogObjectIds: ids,
      locationIds: locations,
      updatedAfter: new Date(earliest - INVENTORY_LOOKBACK_MS).toISOString(),
    };
  }
  const inner = (object.order_created ?? object.order_updated ?? object.order_fulfillment_updated) as Record<string, unknown> | undefined;
  const orderId = inner?.order_id ?? notification.data?.id;
  if (typeof orderId !== 'string') return undefined;
  return {
    kind: 'order',
    orderId,
    locationId: typeof inner?.location_id === 'string' ? inner.location_id : undefined,
    ...(typeof inner?.version === 'number' ? { version: inner.version } : {}),
    ...(typeof inner?.state === 'string' ? { state: inner.state } : {}),
  };
}
export async function runSquareFetch(deps: IntegrationJobDeps, job: IntegrationJob, helpers: IntegrationJobHelpers): Promise<void> {
  const found = await findActiveIntegration(deps.db, 'square', job.integration_id);
  // Revoked, or the organisation canceled, since the notification arrived: nothing to store.
  if (!found || found.refusal) return;
  const { row, auth } = found;
  const stored = await deps.db.inboundEvent.findUnique({ where: { id: job.inbound_event_id } });
  if (!stored) return; // purged after the dedupe window
  const work = squareWorkOf(stored.payload as SquareNotification);
  if (!work) return;
  const token = apiCredential(deps.secrets, row);
  if (!token) {
    await noteOutcome(deps.db, row.id, deps.clock(), 'No Square access token: add it to the integration to read orders and stock');
    throw new Error(`Square integration ${row.id} has no access token`);
  }
  const api = squareApi({
    baseUrl: row.livemode ? deps.square.liveUrl : deps.square.testUrl,
    accessToken: token,
    userAgent: deps.userAgent,
  });
  const settings = settingsOfRow(row);
  const receiveDeps = { db: deps.db, clock: deps.clock, catalog: deps.catalog };
  try {
    const refused: string[] = [];
    if (work.kind === 'order') {
      const orders = await api.batchRetrieveOrders({
        ...(settings.location_id ? { locationId: settings.location_id } : {}),
        orderIds: [work.orderId],
      });
      const stale = staleRead(work, orders);
      if (stale) {
        const reads = (job.stale_reads ?? 0) + 1;
        if (reads <= MAX_STALE_READS) {
          const runAt = new Date(deps.clock().getTime() + STALE_READ_DELAY_MS * 2 ** (reads - 1));
          await noteOutcome(deps.db, row.id, deps.clock(), `${stale}: reading it again (${reads} of ${MAX_STALE_READS})`);
          await helpers.addJob(SQUARE_FETCH_TASK, { ...job, stale_reads: reads }, { runAt, maxAttempts: MAX_ATTEMPTS });
          return;
        }
        const fetched = orders.find((o) => o.id === work.orderId);
        if (fetched?.state !== 'COMPLETED') {
          await deps.db.integration.update({
            where: { id: row.id },
            data: {
              failed_count: { increment: 1 },
              last_error: `${stale} after ${MAX_STALE_READS} reads: the sale was not stored`.slice(0, 1000),
              last_error_at: deps.clock(),
            },
          });
          return;
        }
      }
      try {
        const result = await receiveInboundEvent(receiveDeps, auth, {
          event: 'sales.recorded',
          connector: squareConnector,
          payload: { orders },
        });
        for (const e of result.sales?.errors ?? []) refused.push(lineRefusal(e));
        await keepRefused(deps, found, refusedSalesOf('square', { orders }, { errors: result.sales?.errors ?? [] }, work.orderId));
      } catch (err) {
        if (!(err instanceof AppError) || err.code !== 'validation_error') throw err;
        refused.push(refusal(err));
        await keepRefused(deps, found, refusedSalesOf('square', { orders }, { error: err }, work.orderId));
      }
    } else {
      const locationIds = settings.location_id ? [settings.location_id] : work.locationIds;
      const changes = await api.wasteChanges({ catalogObjectIds: work.catalogObjectIds, locationIds, updatedAfter: work.updatedAfter });
      for (const change of changes) {
        // The whole InventoryChange: its measurement_unit says what the adjustment's quantity is in.
        try {
          await receiveInboundEvent(receiveDeps, auth, { event: 'inventory.loss', connector: squareConnector, payload: change });
        } catch (err) {
          if (!(err instanceof AppError) || err.code !== 'validation_error') throw err;
          refused.push(`adjustment ${String((change.adjustment as { id?: unknown }).id)}: ${refusal(err)}`);
        }
      }
    }
    await noteOutcome(deps.db, row.id, deps.clock(), describeRefusals(refused));
    deps.wake();
  } catch (err) {
    if (!(err instanceof SquareApiError)) throw err;
    await noteOutcome(deps.db, row.id, deps.clock(), err.message);
    const waits = job.rate_limited ?? 0;
    if (err.status === 429 && err.retryAfterSeconds !== null && waits < MAX_RATE_LIMITED) {
      const runAt = new Date(deps.clock().getTime() + Math.min(err.retryAfterSeconds, MAX_RETRY_AFTER_SECONDS) * 1000);
      await helpers.addJob(SQUARE_FETCH_TASK, { ...job, rate_limited: waits + 1 }, { runAt, maxAttempts: MAX_ATTEMPTS });
      deps.log.info({ integration_id: row.id, retry_at: runAt.toISOString() }, 'Square rate-limited the integration; fetching again later');
      return;
    }
    throw err;
  }
}
/** Why the order Square answered is behind its notification (an older version, another state), or null. */
function staleRead(work: Extract<SquareWork, { kind: 'order' }>, orders: Record<string, unknown>[]): string | null {
  const order = orders.find((o) => o.id === work.orderId);
  if (!order) return `Square did not return order ${work.orderId}, which it notified`;
  if (work.version !== undefined && typeof order.version === 'number' && order.version < work.version) {
    return `Square answered order ${work.orderId} at version ${order.version}, older than the notified version ${work.version}`;
  }
  // An order without a state is not behind: the connector refuses it, and it is kept (refused.ts).
  if (work.state !== undefined && typeof order.state === 'string' && order.state !== work.state) {
    return `Square answered order ${work.orderId} ${String(order.state ?? 'without a state')}, not ${work.state} as notified`;
  }
  return null;
}
