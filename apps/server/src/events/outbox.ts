import { randomUUID } from 'node:crypto';
import type { WebhookEvent } from '@merma/schema';
import type { DbTx } from '../db/client.js';
import { activeTraceparent } from '../tracing/spans.js';

/**
 * The transactional outbox: an event is a row of `events`, written on the transaction of the change
 * that causes it, so it exists exactly when that change is committed. Dispatch
 * (modules/webhooks/dispatch.ts) turns waiting rows into webhook deliveries.
 *
 * The stored payload is the delivery's body, `{event, timestamp, data}`, typed by the event union
 * of @merma/schema (`WebhookEvent`), so what is written is what the SDK and the OpenAPI document
 * promise receivers. `alert.triggered` is never stored: dispatch sends `alert.spike_detected`
 * under that name too. Statements that write many events at once (a batch of records, one event
 * per establishment of an organisation) stay set-based and take their payloads from
 * `eventPayload`; the spike detector (modules/alerts/detect.ts) builds its payload in SQL, from
 * rows it computes in the same statement.
 *
 * When the writing request is traced, the event keeps its span's `traceparent` (`trace_parent`),
 * and each delivery attempt's span links to it.
 */
export type StoredEventName = Exclude<WebhookEvent['event'], 'alert.triggered'>;
export type EventPayload<T extends StoredEventName = StoredEventName> = Extract<WebhookEvent, { event: T }>;
export type EventData<T extends StoredEventName> = EventPayload<T>['data'];

/** The stored payload (and delivered body) of an event of `type` that happened `at`. */
export function eventPayload<T extends StoredEventName>(type: T, at: Date | string, data: EventData<T>): EventPayload<T> {
  return { event: type, timestamp: typeof at === 'string' ? at : at.toISOString(), data } as EventPayload<T>;
}

/**
 * Writes one event on the caller's transaction and returns its id. `dispatchedAt` marks an event
 * whose delivery the caller creates itself (a test event, sent to one subscription only).
 */
export async function emitEvent<T extends StoredEventName>(
  db: DbTx,
  event: { establishmentId: string; livemode: boolean; type: T; data: EventData<T>; at: Date; dispatchedAt?: Date },
): Promise<string> {
  const id = randomUUID();
  const payload = JSON.stringify(eventPayload(event.type, event.at, event.data));
  await db.$executeRaw`INSERT INTO events (id, establishment_id, livemode, type, payload, created_at, dispatched_at, trace_parent)
    VALUES (${id}::uuid, ${event.establishmentId}::uuid, ${event.livemode}, ${event.type}, ${payload}::jsonb,
      ${event.at.toISOString()}::timestamptz, ${event.dispatchedAt?.toISOString() ?? null}::timestamptz, ${activeTraceparent()}::text)`;
  return id;
}
