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
 * under that name too. One event is written with `emitEvent`; statements that write events beside
 * the rows that cause them (a record and its event in one statement, a batch of records, one event
 * per establishment of an organisation, the spikes a detection finds) stay set-based with
 * `insertEventsSql`, their payloads from `eventPayload` or built in SQL in the same shape.
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

/** The columns every event row is written with (besides its id and `dispatched_at`). */
const EVENT_COLUMNS = 'establishment_id, livemode, type, payload, created_at, trace_parent';

/**
 * The set-based variant, as SQL: inserts one event per row of `rows`, a SELECT (or a CTE's name)
 * giving the columns `establishment_id, livemode, type, payload` (jsonb, `{event, timestamp,
 * data}`), `created_at` and `trace_parent` (`activeTraceparent()`, or NULL outside a traced request).
 */
export function insertEventsSql(rows: string): string {
  return `INSERT INTO events (id, ${EVENT_COLUMNS}) SELECT gen_random_uuid(), ${EVENT_COLUMNS} FROM (${rows}) AS new_events`;
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
  await db.$executeRawUnsafe(
    `INSERT INTO events (id, dispatched_at, ${EVENT_COLUMNS}) VALUES ($1::uuid, $2::timestamptz, $3::uuid, $4, $5, $6::jsonb, $7::timestamptz, $8::text)`,
    id,
    event.dispatchedAt?.toISOString() ?? null,
    event.establishmentId,
    event.livemode,
    event.type,
    payload,
    event.at.toISOString(),
    activeTraceparent(),
  );
  return id;
}
