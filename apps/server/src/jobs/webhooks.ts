import { signDelivery } from '@merma/signing';
import type pg from 'pg';
import type { Clock } from '../context.js';
import { addDeliveryJobsSql, ENQUEUE_DELIVERY_SQL } from '../modules/webhooks/queue.js';
import type { Mailer } from './mail.js';
import { DEACTIVATE_AFTER_FAILED_DELIVERIES, nextAttemptAt } from './schedule.js';
import { type Agents, type SendPolicy, sendWebhook } from './send.js';

export type JobLog = { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void };

export type WebhookJobDeps = {
  pool: pg.Pool;
  clock: Clock;
  random: () => number;
  policy: SendPolicy;
  agents: Agents;
  userAgent: string;
  mailer: Mailer;
  log: JobLog;
};

/** Events claimed by one dispatch statement: enough to keep up, short enough to keep locks brief. */
export const DISPATCH_BATCH = 250;

/**
 * Dispatches the outbox: claims up to DISPATCH_BATCH events not yet dispatched (oldest first,
 * `FOR UPDATE SKIP LOCKED`, so dispatchers of several replicas never take the same event), marks
 * them dispatched, and creates one delivery per active subscription listening to each (under the
 * alias `alert.triggered` too, for subscribers of that name) with one delivery job each — all in
 * one statement, so an event is either still waiting or has every delivery and job it needs. When
 * a record event reaches an establishment where someone listens to alerts, the spike detector is
 * queued too, at most once every 2 seconds per establishment and mode (the job key keeps the first
 * run time). Jobs are added with one `add_jobs` call per kind: `add_job` once per row scanned the
 * job table each time, which made a backlog of 50,000 events take minutes instead of seconds.
 *
 * A subscription receives the events that happen from its creation on (event and subscription are
 * stamped by the service's clock), whenever they are dispatched: a subscription created while a
 * backlog waits (workers down) does not receive the older events. Its status is read at dispatch
 * time: a subscription deactivated in between does not receive the event.
 *
 * `eventIds` dispatches those events whatever their mark: it serves `webhooks.fanout` jobs queued
 * before dispatch replaced the enqueuing trigger (migration 20261123050000); a delivery is unique
 * per (subscription, event, name), so nothing is created twice.
 */
export async function dispatchEvents(
  deps: Pick<WebhookJobDeps, 'pool' | 'clock'>,
  eventIds?: string[],
): Promise<{ events: number; deliveries: number }> {
  const claim = eventIds
    ? 'SELECT id FROM events WHERE id = ANY($2::uuid[]) FOR UPDATE'
    : `SELECT id FROM events WHERE dispatched_at IS NULL ORDER BY created_at, id LIMIT ${DISPATCH_BATCH} FOR UPDATE SKIP LOCKED`;
  const { rows } = await deps.pool.query<{ events: number; deliveries: number; detections: number }>(
    `WITH claimed AS (${claim}),
     marked AS (
       UPDATE events e SET dispatched_at = coalesce(e.dispatched_at, $1::timestamptz) FROM claimed WHERE e.id = claimed.id
       RETURNING e.id, e.establishment_id, e.livemode, e.type, e.created_at
     ), created AS (
       INSERT INTO webhook_deliveries (id, subscription_id, event_id, event_type, status, next_attempt_at, created_at)
       SELECT gen_random_uuid(), s.id, e.id, n.name, 'pending', $1::timestamptz, $1::timestamptz
       FROM marked e
       JOIN webhook_subscriptions s
         ON s.establishment_id = e.establishment_id AND s.livemode = e.livemode AND s.status = 'active'
           AND s.created_at <= e.created_at
       CROSS JOIN LATERAL unnest(CASE WHEN e.type = 'alert.spike_detected'
         THEN ARRAY[e.type, 'alert.triggered'] ELSE ARRAY[e.type] END) AS n(name)
       WHERE n.name = ANY(s.events)
       ON CONFLICT (subscription_id, event_id, event_type) DO NOTHING
       RETURNING id, next_attempt_at
     ), delivery_jobs AS (
       ${addDeliveryJobsSql('created')}
     ), detection_jobs AS (
       SELECT j.id FROM (
         SELECT array_agg(('alerts.detect', json_build_object('establishment_id', x.establishment_id, 'livemode', x.livemode), NULL,
           $1::timestamptz + interval '2 seconds', NULL, 'alerts:' || x.establishment_id::text || ':' || x.livemode::text, NULL, NULL
         )::graphile_worker.job_spec) AS specs
         FROM (
           SELECT DISTINCT m.establishment_id, m.livemode FROM marked m
           WHERE m.type IN ('record.created', 'record.updated') AND EXISTS (
             SELECT 1 FROM webhook_subscriptions s
             WHERE s.establishment_id = m.establishment_id AND s.livemode = m.livemode AND s.status = 'active'
               AND s.events && ARRAY['alert.spike_detected', 'alert.triggered'])
         ) x
       ) c, LATERAL graphile_worker.add_jobs(c.specs, job_key_preserve_run_at := true) j
       WHERE c.specs IS NOT NULL
     )
     SELECT (SELECT count(*) FROM marked)::int AS events, (SELECT count(*) FROM delivery_jobs)::int AS deliveries,
       (SELECT count(*) FROM detection_jobs)::int AS detections`,
    eventIds ? [deps.clock(), eventIds] : [deps.clock()],
  );
  return { events: rows[0]?.events ?? 0, deliveries: rows[0]?.deliveries ?? 0 };
}

/**
 * Frees delivery jobs held by a worker that died. graphile-worker leaves a job locked for 4 hours
 * when its worker disappears mid-job (a process killed with -9, a connection terminated before the
 * job was marked done); a delivery job cannot legitimately run longer than the webhook timeout plus
 * its few statements, so a delivery locked for longer than `staleAfterMs` belongs to a dead worker,
 * and that worker's locks are released (`force_unlock_workers`) so another worker runs the job
 * again. Running it again is safe: an attempt is recorded once (the attempt-count guard in
 * `deliver`), and receivers deduplicate by `webhook-id`. Compared with the database's clock, so a
 * test that moves the process clock forward does not make live jobs look stale.
 */
export async function releaseStaleDeliveryLocks(pool: pg.Pool, staleAfterMs: number): Promise<string[]> {
  const { rows } = await pool.query<{ workers: string[] }>(
    `WITH stale AS (
       SELECT array_agg(DISTINCT locked_by) AS workers FROM graphile_worker.jobs
       WHERE task_identifier = 'webhooks.deliver' AND locked_by IS NOT NULL
         AND locked_at < now() - make_interval(secs => $1::float8 / 1000)
     )
     SELECT workers, graphile_worker.force_unlock_workers(workers)::text FROM stale WHERE workers IS NOT NULL`,
    [staleAfterMs],
  );
  return rows[0]?.workers ?? [];
}

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
};

/**
 * `webhooks.deliver`: one attempt of one delivery. The HTTP exchange runs outside any transaction;
 * its outcome — the attempt row, the delivery's state, the next attempt's job, the subscription's
 * failure count and deactivation (with the notice's job) — is written in one transaction, guarded
 * by the attempt count so that a job run twice (a worker that died after sending) records once.
 *
 * Schedule (jobs/schedule.ts): retries 1 min, 5 min, 30 min, 2 h, 12 h after each failure; a
 * delivery with no retry left has failed. 410 Gone fails it at once and deactivates the
 * subscription. After 5 failed deliveries in a row (any success resets the count) the subscription
 * is deactivated: its pending deliveries stop, new events are not sent to it, and the
 * organisation's administrator is mailed. Manual retries and test events are single attempts that
 * do not count towards deactivation; recovered deliveries (modules/webhooks/deliveries.ts,
 * `recoverDeliveries`) are ordinary deliveries again, their schedule counted from `schedule_base`.
 *
 * Signed with the subscription's secret and, while a rotation's grace period runs (compared with
 * this job's clock at the attempt), the secret it replaced.
 */
export async function deliver(deps: WebhookJobDeps, payload: { delivery_id: string }): Promise<void> {
  const { rows } = await deps.pool.query<DeliveryRow>(
    `SELECT d.id, d.event_type, d.status, d.attempts, d.next_attempt_at, d.manual, d.schedule_base, s.id AS subscription_id,
       s.url, s.secret, s.previous_secret, s.previous_secret_expires_at, s.status AS subscription_status, e.payload
     FROM webhook_deliveries d
     JOIN webhook_subscriptions s ON s.id = d.subscription_id
     JOIN events e ON e.id = d.event_id
     WHERE d.id = $1`,
    [payload.delivery_id],
  );
  const row = rows[0];
  if (row?.status !== 'pending') return;
  const now = deps.clock();
  if (row.next_attempt_at && row.next_attempt_at.getTime() > now.getTime()) {
    // Picked up early (a clock ahead of ours): put it back for its time.
    await deps.pool.query(`SELECT ${ENQUEUE_DELIVERY_SQL}`, [row.id, row.next_attempt_at]);
    return;
  }
  if (row.subscription_status !== 'active' && !row.manual) {
    await deps.pool.query(
      `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, completed_at = $2
       WHERE id = $1 AND status = 'pending'`,
      [row.id, now],
    );
    return;
  }

  const body = JSON.stringify({ event: row.event_type, timestamp: row.payload.timestamp, data: row.payload.data });
  // During a rotation's grace period the replaced secret signs too (a second `v1,` signature), so
  // receivers still holding it verify; X-Service-Signature uses the current one.
  const previous = row.previous_secret_expires_at && row.previous_secret_expires_at.getTime() > now.getTime() ? row.previous_secret : null;
  const secrets = previous ? [row.secret, previous] : [row.secret];
  const headers = {
    'content-type': 'application/json',
    'user-agent': deps.userAgent,
    ...(await signDelivery({ payload: body, secrets, id: row.id, timestamp: now.getTime() / 1000 })),
  };
  const result = await sendWebhook(row.url, body, headers, deps.policy, deps.agents);

  const attempt = row.attempts + 1;
  const succeeded = result.status !== null && result.status >= 200 && result.status < 300;
  const gone = result.status === 410;
  const next = succeeded || gone || row.manual ? null : nextAttemptAt(attempt - row.schedule_base, now, deps.random);
  const status = succeeded ? 'succeeded' : next ? 'pending' : 'failed';

  if (succeeded) {
    // The common case in one statement (atomic on its own): the delivery, its attempt, and the
    // subscription's failure count back to 0.
    await deps.pool.query(
      `WITH moved AS (
         UPDATE webhook_deliveries SET attempts = $2, status = 'succeeded', next_attempt_at = NULL, manual = false, completed_at = $3
         WHERE id = $1 AND attempts = $4 AND status = 'pending'
         RETURNING id, subscription_id
       ), attempted AS (
         INSERT INTO webhook_delivery_attempts (id, delivery_id, attempt, attempted_at, response_status, duration_ms, error, next_attempt_at)
         SELECT gen_random_uuid(), id, $2, $3, $5, $6, NULL, NULL FROM moved
       )
       UPDATE webhook_subscriptions s SET consecutive_failures = 0
       FROM moved WHERE s.id = moved.subscription_id AND s.consecutive_failures <> 0`,
      [row.id, attempt, now, row.attempts, result.status, result.durationMs],
    );
    deps.log.info(
      { delivery_id: row.id, subscription_id: row.subscription_id, attempt, status: result.status, duration_ms: result.durationMs },
      'webhook delivered',
    );
    return;
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
      return;
    }
    await client.query(
      `INSERT INTO webhook_delivery_attempts (id, delivery_id, attempt, attempted_at, response_status, duration_ms, error, next_attempt_at)
       VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7)`,
      [row.id, attempt, now, result.status, result.durationMs, result.error, next],
    );
    if (next) await client.query(`SELECT ${ENQUEUE_DELIVERY_SQL}`, [row.id, next]);
    if (status === 'failed' && !row.manual) {
      const { rows: changed } = await client.query<{ deactivated: boolean }>(
        `WITH before AS (SELECT status FROM webhook_subscriptions WHERE id = $1 FOR UPDATE)
         UPDATE webhook_subscriptions s
         SET consecutive_failures = s.consecutive_failures + 1,
             status = CASE WHEN $2 OR s.consecutive_failures + 1 >= $3 THEN 'deactivated' ELSE s.status END,
             deactivated_at = CASE WHEN s.status = 'active' AND ($2 OR s.consecutive_failures + 1 >= $3) THEN $4::timestamptz
                                   ELSE s.deactivated_at END
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
}

/**
 * `webhooks.notify_deactivated`: mails the organisation's administrator that a subscription was
 * deactivated and how to bring it back. A job of its own, so a mail server that is down is retried
 * by the queue without touching the delivery's outcome.
 */
export async function notifyDeactivated(
  deps: WebhookJobDeps,
  payload: { subscription_id: string; reason: 'gone' | 'failures'; last_error: string | null },
): Promise<void> {
  const { rows } = await deps.pool.query<{ url: string; establishment: string; admin_email: string | null; livemode: boolean }>(
    `SELECT s.url, s.livemode, e.name AS establishment, o.admin_email
     FROM webhook_subscriptions s JOIN establishments e ON e.id = s.establishment_id JOIN organizations o ON o.id = e.organization_id
     WHERE s.id = $1`,
    [payload.subscription_id],
  );
  const row = rows[0];
  if (!row) return;
  if (!row.admin_email) {
    deps.log.warn(
      { subscription_id: payload.subscription_id },
      'webhook deactivated; the organisation has no administrator e-mail to tell',
    );
    return;
  }
  const why =
    payload.reason === 'gone'
      ? 'the endpoint answered 410 Gone, which means it no longer wants events'
      : `${DEACTIVATE_AFTER_FAILED_DELIVERIES} deliveries in a row failed after all their retries (about 15 hours each)`;
  await deps.mailer.send({
    to: row.admin_email,
    subject: `Merma: webhook deactivated for ${row.establishment}`,
    text: [
      `The webhook subscription ${payload.subscription_id} (${row.livemode ? 'live' : 'test'} mode) of ${row.establishment}`,
      `sending to ${row.url} has been deactivated: ${why}.`,
      payload.last_error ? `Last error: ${payload.last_error}.` : '',
      '',
      'No events are sent to it until it is reactivated. Once the receiver works again, reactivate it with',
      `POST /api/v1/webhooks/${payload.subscription_id}/reactivate (or merma-admin webhook reactivate --id ${payload.subscription_id}),`,
      `and resend what it missed with POST /api/v1/webhooks/${payload.subscription_id}/recover (failed deliveries since a given time)`,
      'or one delivery with POST /api/v1/webhooks/{id}/deliveries/{delivery_id}/retry.',
    ]
      .filter((l, i, all) => l !== '' || all[i - 1] !== '')
      .join('\n'),
  });
}
