import { WEBHOOK_RESPONSE_BODY_MAX_BYTES } from '@merma/schema';
import { signDelivery } from '@merma/signing';
import type pg from 'pg';
import type { Clock, Log } from '../../context.js';
import { whileUnavailable } from '../../db/wait.js';
import type { SecretBox } from '../../secrets/cipher.js';
import { openSecret } from '../../secrets/stored.js';
import { RECORD_EVENT_DATA_SQL } from '../records/events.js';
import { ENQUEUE_DELIVERY_SQL } from './queue.js';
import { DEACTIVATE_AFTER_FAILED_DELIVERIES, nextAttemptAt } from './schedule.js';
import { type Agents, type SendPolicy, sendWebhook } from './send.js';

export type AttemptDeps = {
  pool: pg.Pool;
  clock: Clock;
  random: () => number;
  policy: SendPolicy;
  agents: Agents;
  userAgent: string;
  log: Pick<Log, 'info' | 'warn'>;
  /** Opens the stored (encrypted) signing secrets. */
  secrets: SecretBox;
};

/** What one attempt came to, for the worker's metrics and traces (retrying: failed, a retry is scheduled). */
export type AttemptOutcome = {
  outcome: 'succeeded' | 'retrying' | 'failed' | 'gone';
  durationMs: number;
  /** The attempt's number, 1 for the first. */
  attempt: number;
  /** The receiver's HTTP status; null when none came (timeout, refused, connection error). */
  responseStatus: number | null;
  eventType: string;
  subscriptionId: string;
  /** The traceparent of the request that wrote the event, when it was traced. */
  eventTraceparent: string | null;
};

/**
 * Joins `rendered.data`, a record event's data rendered from its record, to an event `e` (null for
 * other events): what the delivery sends, and what the delivery log shows as its payload.
 */
export const RENDERED_RECORD_JOIN_SQL = `LEFT JOIN LATERAL (
       SELECT ${RECORD_EVENT_DATA_SQL} AS data
       FROM records r
       LEFT JOIN causes rc ON rc.id = r.causa_id
       LEFT JOIN destinations rd ON rd.id = r.destino_id
       WHERE e.type IN ('record.created', 'record.updated')
         AND r.id = CASE WHEN e.payload #>> '{data,id}' ~* '^[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$' THEN (e.payload #>> '{data,id}')::uuid END
     ) rendered ON true`;

type DeliveryRow = {
  id: string;
  event_type: string;
  status: string;
  attempts: number;
  next_attempt_at: Date | null;
  manual: boolean;
  schedule_base: number;
  subscription_id: string;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  subscription_status: string;
  payload: { timestamp: string; data: unknown };
  trace_parent: string | null;
  /** A record event's data, rendered from its record (null for other events). */
  record_data: unknown;
};

/**
 * `webhooks.deliver`: one attempt of one delivery. The HTTP exchange runs outside any transaction;
 * its outcome — the attempt row, the delivery's state, the next attempt's job, the subscription's
 * failure count and deactivation (with the notice's job) — is written in one transaction, guarded
 * by the attempt count so that a job run twice (a worker that died after sending) records once.
 *
 * Schedule (schedule.ts): retries 1 min, 5 min, 30 min, 2 h, 12 h after each failure; a
 * delivery with no retry left has failed. 410 Gone fails it at once and deactivates the
 * subscription. After 5 failed deliveries in a row (any success resets the count) the subscription
 * is deactivated: its pending deliveries stop, new events are not sent to it, and the
 * organisation's administrator is mailed. Manual retries and test events are single attempts that
 * do not count towards deactivation; recovered deliveries (deliveries.ts,
 * `recoverDeliveries`) are ordinary deliveries again, their schedule counted from `schedule_base`.
 *
 * The attempt keeps the first 4 KiB of the receiver's answer (WEBHOOK_RESPONSE_BODY_MAX_BYTES), for
 * the delivery log, with the values of our signature headers redacted (`redactSignatures`).
 *
 * Signed with the subscription's secret and, while a rotation's grace period runs (compared with
 * this job's clock at the attempt), the secret it replaced.
 *
 * Returns the attempt's outcome (for the worker's metrics), or null when no attempt was made (the
 * delivery was done already, not due yet, or its subscription deactivated).
 */
export async function deliver(deps: AttemptDeps, payload: { delivery_id: string }): Promise<AttemptOutcome | null> {
  const { rows } = await deps.pool.query<DeliveryRow>(
    `SELECT d.id, d.event_type, d.status, d.attempts, d.next_attempt_at, d.manual, d.schedule_base, s.id AS subscription_id,
       s.url, s.secret, s.previous_secret, s.previous_secret_expires_at, s.status AS subscription_status, e.payload,
       e.trace_parent, rendered.data AS record_data
     FROM webhook_deliveries d
     JOIN webhook_subscriptions s ON s.id = d.subscription_id
     JOIN events e ON e.id = d.event_id
     ${RENDERED_RECORD_JOIN_SQL}
     WHERE d.id = $1`,
    [payload.delivery_id],
  );
  const row = rows[0];
  if (row?.status !== 'pending') return null;
  const now = deps.clock();
  if (row.next_attempt_at && row.next_attempt_at.getTime() > now.getTime()) {
    // Picked up early (a clock ahead of ours): put it back for its time.
    await deps.pool.query(`SELECT ${ENQUEUE_DELIVERY_SQL}`, [row.id, row.next_attempt_at]);
    return null;
  }
  if (row.subscription_status !== 'active' && !row.manual) {
    await deps.pool.query(
      `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, completed_at = $2
       WHERE id = $1 AND status = 'pending'`,
      [row.id, now],
    );
    return null;
  }

  // A record event's row holds the record's id; its data is rendered from the (immutable) record.
  const body = JSON.stringify({ event: row.event_type, timestamp: row.payload.timestamp, data: row.record_data ?? row.payload.data });
  // During a rotation's grace period the replaced secret signs too (a second `v1,` signature), so
  // receivers still holding it verify; X-Service-Signature uses the current one. Secrets are stored
  // encrypted and opened here, per attempt (a few microseconds each); a previous secret only while
  // it still signs. A key this process lacks throws: the job fails and is retried, and no attempt
  // is recorded against the receiver.
  const inGrace =
    row.previous_secret !== null && !!row.previous_secret_expires_at && row.previous_secret_expires_at.getTime() > now.getTime();
  const current = openSecret(deps.secrets, row.subscription_id, 'secret', row.secret);
  const secrets = inGrace
    ? [current, openSecret(deps.secrets, row.subscription_id, 'previous_secret', row.previous_secret as string)]
    : [current];
  const headers = {
    'content-type': 'application/json',
    'user-agent': deps.userAgent,
    ...(await signDelivery({ payload: body, secrets, id: row.id, timestamp: now.getTime() / 1000 })),
  };
  const result = await sendWebhook(row.url, body, headers, deps.policy, deps.agents, WEBHOOK_RESPONSE_BODY_MAX_BYTES);
  const answer = result.response ? { text: redactSignatures(result.response.text, headers), truncated: result.response.truncated } : null;

  const attempt = row.attempts + 1;
  const succeeded = result.status !== null && result.status >= 200 && result.status < 300;
  const gone = result.status === 410;
  const next = succeeded || gone || row.manual ? null : nextAttemptAt(attempt - row.schedule_base, now, deps.random);
  const status = succeeded ? 'succeeded' : next ? 'pending' : 'failed';
  const described = {
    durationMs: result.durationMs,
    attempt,
    responseStatus: result.status,
    eventType: row.event_type,
    subscriptionId: row.subscription_id,
    eventTraceparent: row.trace_parent,
  };

  if (succeeded) {
    // The common case in one statement (atomic on its own): the delivery, its attempt, and the
    // subscription's failure count back to 0. The receiver has it: a database away for a moment
    // (a failover) must not make the job fail and send it again, so the statement is tried again
    // while the database is unavailable; it changes nothing if its first run did commit.
    await whileUnavailable(() =>
      deps.pool.query(
        `WITH moved AS (
         UPDATE webhook_deliveries SET attempts = $2, status = 'succeeded', next_attempt_at = NULL, manual = false, completed_at = $3
         WHERE id = $1 AND attempts = $4 AND status = 'pending'
         RETURNING id, subscription_id
       ), attempted AS (
         INSERT INTO webhook_delivery_attempts (id, delivery_id, attempt, attempted_at, response_status, duration_ms, error,
           next_attempt_at, response_body, response_body_truncated)
         SELECT gen_random_uuid(), id, $2, $3, $5, $6, NULL, NULL, $7, $8 FROM moved
       )
       UPDATE webhook_subscriptions s SET consecutive_failures = 0
       FROM moved WHERE s.id = moved.subscription_id AND s.consecutive_failures <> 0`,
        [row.id, attempt, now, row.attempts, result.status, result.durationMs, answer?.text ?? null, answer?.truncated ?? false],
      ),
    );
    deps.log.info(
      { delivery_id: row.id, subscription_id: row.subscription_id, attempt, status: result.status, duration_ms: result.durationMs },
      'webhook delivered',
    );
    return { outcome: 'succeeded', ...described };
  }

  const client = await deps.pool.connect();
  let deactivated = false;
  try {
    await client.query('BEGIN');
    const moved = await client.query(
      `UPDATE webhook_deliveries SET attempts = $2, status = $3, next_attempt_at = $4, manual = false,
         completed_at = CASE WHEN $3 = 'pending' THEN NULL ELSE $5::timestamptz END
       WHERE id = $1 AND attempts = $6 AND status = 'pending'`,
      [row.id, attempt, status, next, now, row.attempts],
    );
    if (moved.rowCount !== 1) {
      await client.query('ROLLBACK');
      return null; // recorded by another run of this job
    }
    await client.query(
      `INSERT INTO webhook_delivery_attempts (id, delivery_id, attempt, attempted_at, response_status, duration_ms, error,
         next_attempt_at, response_body, response_body_truncated)
       VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [row.id, attempt, now, result.status, result.durationMs, result.error, next, answer?.text ?? null, answer?.truncated ?? false],
    );
    if (next) await client.query(`SELECT ${ENQUEUE_DELIVERY_SQL}`, [row.id, next]);
    if (status === 'failed' && !row.manual) {
      const { rows: changed } = await client.query<{ deactivated: boolean }>(
        `WITH before AS (SELECT status FROM webhook_subscriptions WHERE id = $1 FOR UPDATE)
         UPDATE webhook_subscriptions s
         SET consecutive_failures = s.consecutive_failures + 1,
             status = CASE WHEN $2 OR s.consecutive_failures + 1 >= $3 THEN 'deactivated' ELSE s.status END,
             deactivated_at = CASE WHEN s.status = 'active' AND ($2 OR s.consecutive_failures + 1 >= $3) THEN $4::timestamptz
                                   ELSE s.deactivated_at END,
             deactivation_reason = CASE WHEN s.status = 'active' AND ($2 OR s.consecutive_failures + 1 >= $3)
                                        THEN CASE WHEN $2 THEN 'gone' ELSE 'failures' END
                                        ELSE s.deactivation_reason END
         FROM before WHERE s.id = $1
         RETURNING before.status = 'active' AND s.status = 'deactivated' AS deactivated`,
        [row.subscription_id, gone, DEACTIVATE_AFTER_FAILED_DELIVERIES, now],
      );
      deactivated = changed[0]?.deactivated === true;
      if (deactivated) {
        await client.query(
          `SELECT graphile_worker.add_job('webhooks.notify_deactivated',
             json_build_object('subscription_id', $1::uuid, 'reason', $2::text, 'last_error', $3::text))`,
          [row.subscription_id, gone ? 'gone' : 'failures', result.error],
        );
      }
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
  const log = { delivery_id: row.id, subscription_id: row.subscription_id, attempt, status: result.status, error: result.error };
  deps.log.warn({ ...log, next_attempt_at: next?.toISOString() ?? null }, 'webhook attempt failed');
  if (deactivated)
    deps.log.warn({ subscription_id: row.subscription_id, reason: gone ? 'gone' : 'failures' }, 'webhook subscription deactivated');
  return { outcome: gone ? 'gone' : status === 'pending' ? 'retrying' : 'failed', ...described };
}

/** The headers that carry our signatures: their values never reach the database. */
const SIGNATURE_HEADERS = ['webhook-signature', 'x-service-signature'];

/**
 * A receiver's answer with our signatures taken out. An echo endpoint (or a debugging receiver)
 * answers with the request it got, headers included; the answer is stored and shown in the
 * dashboard, and a signature there is of no use to anyone but could be mistaken for a secret, so
 * each value (and each `v1,…` part of a Standard Webhooks list) is replaced by `[redacted]`.
 */
export function redactSignatures(text: string, headers: Record<string, string>): string {
  const values = new Set<string>();
  for (const [name, value] of Object.entries(headers)) {
    if (!SIGNATURE_HEADERS.includes(name.toLowerCase())) continue;
    values.add(value);
    for (const part of value.split(' ')) {
      values.add(part);
      const signature = part.split(',')[1];
      if (signature) values.add(signature);
    }
  }
  let out = text;
  // Longest first, so that a whole header value is replaced before its parts.
  for (const value of [...values].filter((v) => v.length >= 16).sort((a, b) => b.length - a.length)) {
    out = out.replaceAll(value, '[redacted]');
  }
  return out;
}
