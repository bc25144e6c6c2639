import { randomUUID } from 'node:crypto';
import {
  type Pagination,
  type RecoverWebhookResult,
  TEST_EVENT_TYPE,
  type WebhookDelivery,
  type WebhookDeliveryAttempt,
} from '@merma/schema';
import { isoSql } from '../../calendar.js';
import type { DataScope } from '../../context.js';
import type { DbTx } from '../../db/client.js';
import { inTransaction } from '../../db/transaction.js';
import { AppError, validationError } from '../../errors.js';
import { emitEvent } from '../../events/outbox.js';
import { RENDERED_RECORD_JOIN_SQL } from './attempt.js';
import { addDeliveryJobsSql, ENQUEUE_DELIVERY_SQL } from './queue.js';
import { findSubscription } from './service.js';

type Row = {
  id: string;
  event_id: string;
  event_type: string;
  status: WebhookDelivery['status'];
  attempts: number;
  next_attempt_at: Date | null;
  created_at: Date;
  payload: Record<string, unknown>;
  attempt_rows: WebhookDeliveryAttempt[];
  total: bigint;
};

const SELECT_DELIVERY = `
  SELECT d.id::text, d.event_id::text, d.event_type, d.status, d.attempts, d.next_attempt_at, d.created_at,
    coalesce((SELECT json_agg(json_build_object(
        'attempt', a.attempt,
        'attempted_at', ${isoSql('a.attempted_at')},
        'response_status', a.response_status, 'duration_ms', a.duration_ms, 'error', a.error,
        'next_attempt_at', ${isoSql('a.next_attempt_at')},
        'response_body', a.response_body, 'response_body_truncated', a.response_body_truncated)
      ORDER BY a.attempt) FROM webhook_delivery_attempts a WHERE a.delivery_id = d.id), '[]'::json) AS attempt_rows,
    -- The body as attempt.ts sends it: a record event's data rendered from its record.
    json_build_object('event', d.event_type, 'timestamp', e.payload -> 'timestamp',
      'data', coalesce(rendered.data, e.payload -> 'data')) AS payload,
    count(*) OVER () AS total
  FROM webhook_deliveries d
  JOIN events e ON e.id = d.event_id
  ${RENDERED_RECORD_JOIN_SQL}`;

function toDelivery(r: Row): WebhookDelivery {
  const last = r.attempt_rows.at(-1);
  return {
    id: r.id,
    event_id: r.event_id,
    event: r.event_type as WebhookDelivery['event'],
    attempt: r.attempts,
    status: r.status,
    response_status: last?.response_status ?? null,
    duration_ms: last?.duration_ms ?? null,
    error: last?.error ?? (r.status === 'failed' && !last ? 'not sent: the subscription was deactivated' : null),
    created_at: r.created_at.toISOString(),
    next_attempt_at: r.next_attempt_at?.toISOString() ?? null,
    payload: r.payload,
    attempts: r.attempt_rows,
  };
}

async function oneDelivery(db: DbTx, deliveryId: string): Promise<WebhookDelivery> {
  const rows = await db.$queryRawUnsafe<Row[]>(`${SELECT_DELIVERY} WHERE d.id = $1::uuid`, deliveryId);
  if (!rows[0]) throw new AppError('not_found', `No delivery ${deliveryId}`);
  return toDelivery(rows[0]);
}

/**
 * Deliveries of a subscription, newest first, each with its payload and all its attempts (each
 * with the start of the receiver's answer), as Stripe's and Svix's delivery logs show them.
 */
export async function listDeliveries(
  db: DbTx,
  auth: DataScope,
  query: { id: string; limit: number; offset: number },
): Promise<{ data: WebhookDelivery[]; pagination: Pagination }> {
  await findSubscription(db, auth, query.id);
  const rows = await db.$queryRawUnsafe<Row[]>(
    `${SELECT_DELIVERY} WHERE d.subscription_id = $1::uuid ORDER BY d.created_at DESC, d.id DESC LIMIT $2 OFFSET $3`,
    query.id,
    query.limit,
    query.offset,
  );
  let total = rows[0] ? Number(rows[0].total) : 0;
  if (!rows[0] && query.offset > 0) {
    const [count] = await db.$queryRaw<
      { n: bigint }[]
    >`SELECT count(*) AS n FROM webhook_deliveries WHERE subscription_id = ${query.id}::uuid`;
    total = Number(count?.n ?? 0);
  }
  return {
    data: rows.map(toDelivery),
    pagination: { limit: query.limit, offset: query.offset, total, has_more: query.offset + rows.length < total },
  };
}

/**
 * Sends a delivery's event again, now, as one attempt (no automatic retries follow it and it does
 * not count towards deactivation). A deactivated subscription must be reactivated first (409), and
 * a delivery still waiting for its next automatic attempt is simply brought forward.
 */
export async function retryDelivery(
  db: DbTx,
  auth: DataScope,
  now: Date,
  input: { id: string; delivery_id: string },
): Promise<WebhookDelivery> {
  const sub = await findSubscription(db, auth, input.id);
  if (sub.status !== 'active') throw new AppError('conflict', 'The subscription is deactivated; reactivate it before retrying deliveries');
  return inTransaction(db, async (tx) => {
    const updated = await tx.$executeRaw`
      UPDATE webhook_deliveries
      SET manual = (status <> 'pending'), status = 'pending', next_attempt_at = ${now}, completed_at = NULL
      WHERE id = ${input.delivery_id}::uuid AND subscription_id = ${input.id}::uuid`;
    if (updated !== 1) throw new AppError('not_found', `No delivery ${input.delivery_id} of webhook subscription ${input.id}`);
    await enqueue(tx, input.delivery_id, now);
    return oneDelivery(tx, input.delivery_id);
  });
}

/**
 * Resends, as Svix's recover does, every failed delivery of a subscription created in
 * [since, until) (`until` defaults to now): each becomes an ordinary pending delivery again, due
 * now, with a fresh retry schedule (1 min … 12 h after failed attempts, counted from
 * `schedule_base`), and failing all of it again counts towards deactivation like any delivery.
 * Its earlier attempts stay listed, numbered on. Test events (`webhook.test`) are left alone: they
 * are one-off probes, not events the receiver missed. Pending and succeeded deliveries are not
 * touched, so calling twice sends nothing twice. A deactivated subscription answers 409 and
 * nothing changes: reactivate it first. No retention limit applies to `since`.
 *
 * One statement sets them pending and enqueues their jobs with one `add_jobs` call, as the
 * dispatcher does; the subscription's status is checked again inside it, so a subscription
 * deactivated meanwhile gets nothing queued.
 */
export async function recoverDeliveries(
  db: DbTx,
  auth: DataScope,
  now: Date,
  input: { id: string; since: string; until?: string | undefined },
): Promise<RecoverWebhookResult> {
  const sub = await findSubscription(db, auth, input.id);
  if (sub.status !== 'active') {
    throw new AppError('conflict', 'The subscription is deactivated; reactivate it before recovering its deliveries');
  }
  const since = new Date(input.since);
  const until = input.until === undefined ? now : new Date(input.until);
  if (until.getTime() <= since.getTime()) {
    const path = input.until === undefined ? 'since' : 'until';
    throw validationError(input.until === undefined ? 'since must be in the past' : 'until must be after since', [
      { path, message: input.until === undefined ? 'must be before now (until defaults to now)' : 'must be after since' },
    ]);
  }
  const [result] = await db.$queryRawUnsafe<{ recovered: number; queued: number }[]>(
    `WITH recovered AS (
       UPDATE webhook_deliveries d
       SET status = 'pending', next_attempt_at = $4::timestamptz, completed_at = NULL, manual = false, schedule_base = d.attempts
       WHERE d.subscription_id = $1::uuid AND d.status = 'failed' AND d.event_type <> $5
         AND d.created_at >= $2::timestamptz AND d.created_at < $3::timestamptz
         AND EXISTS (SELECT 1 FROM webhook_subscriptions s WHERE s.id = d.subscription_id AND s.status = 'active')
       RETURNING d.id, d.next_attempt_at
     ), jobs AS (
       ${addDeliveryJobsSql('recovered')}
     )
     -- \`jobs\` is read so that it runs: PostgreSQL skips a SELECT in WITH that nothing reads.
     SELECT (SELECT count(*) FROM recovered)::int AS recovered, (SELECT count(*) FROM jobs)::int AS queued`,
    input.id,
    since,
    until,
    now,
    TEST_EVENT_TYPE,
  );
  return { recovered: result?.recovered ?? 0, since: since.toISOString(), until: until.toISOString() };
}

/**
 * Sends a `webhook.test` event to this subscription only (whatever events it lists), signed like
 * any other. One attempt; the outcome appears in its deliveries. Its delivery is created here, so
 * the event is stored already dispatched.
 */
export async function sendTestEvent(db: DbTx, auth: DataScope, now: Date, id: string): Promise<WebhookDelivery> {
  const sub = await findSubscription(db, auth, id);
  if (sub.status !== 'active') throw new AppError('conflict', 'The subscription is deactivated; reactivate it before testing it');
  const deliveryId = randomUUID();
  return inTransaction(db, async (tx) => {
    // Marked dispatched at once: this event goes to this subscription only, by the delivery below.
    const eventId = await emitEvent(tx, {
      establishmentId: auth.establishmentId,
      livemode: auth.livemode,
      type: TEST_EVENT_TYPE,
      at: now,
      dispatchedAt: now,
      data: {
        subscription_id: id,
        establishment_id: auth.establishmentId,
        message: 'Test event from Merma: your endpoint is reachable and verifies signatures.',
      },
    });
    await tx.$executeRaw`
    INSERT INTO webhook_deliveries (id, subscription_id, event_id, event_type, status, next_attempt_at, manual, created_at)
    VALUES (${deliveryId}::uuid, ${id}::uuid, ${eventId}::uuid, ${TEST_EVENT_TYPE}, 'pending', ${now}, true, ${now})`;
    await enqueue(tx, deliveryId, now);
    return oneDelivery(tx, deliveryId);
  });
}

/** The worker's own enqueue (one job per delivery, keyed by it), on the caller's transaction. */
async function enqueue(db: DbTx, deliveryId: string, at: Date) {
  await db.$queryRawUnsafe(`SELECT ${ENQUEUE_DELIVERY_SQL}::text`, deliveryId, at);
}
