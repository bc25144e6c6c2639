import type pg from 'pg';
import type { Clock } from '../../context.js';
import { addDeliveryJobsSql } from './queue.js';

/**
 * The outbox's way out: events written by whatever changed data (`emitEvent`, events/outbox.ts) become one
 * delivery per listening subscription, each with its job (`webhooks.deliver`, attempt.ts). The
 * worker (jobs/worker.ts) calls `dispatchEvents` on a timer and when woken, and
 * `releaseStaleDeliveryLocks` every few seconds.
 */

/** Events claimed by one dispatch statement: enough to keep up, short enough to keep locks brief. */
export const DISPATCH_BATCH = 250;

/**
 * Dispatches the outbox: claims up to DISPATCH_BATCH events not yet dispatched (oldest first,
 * `FOR UPDATE SKIP LOCKED`, so dispatchers of several replicas never take the same event), marks
 * them dispatched, and creates one delivery per active subscription listening to each (under the
 * alias `alert.triggered` too, for subscribers of that name) with one delivery job each — all in
 * one statement, so an event is either still waiting or has every delivery and job it needs. For
 * each establishment and mode with new record events the spike detector is queued too, at most once
 * every 2 seconds (the job key keeps the first run time): its alerts are shown in the dashboard's
 * overview whether or not a webhook listens to them. Jobs are added with one `add_jobs` call per kind: `add_job` once per row scanned the
 * job table each time, which made a backlog of 50,000 events take minutes instead of seconds.
 *
 * A subscription receives the events that happen from its creation on (event and subscription are
 * stamped by the service's clock), whenever they are dispatched: a subscription created while a
 * backlog waits (workers down) does not receive the older events. Its status is read at dispatch
 * time: a subscription deactivated in between does not receive the event.
 */
export async function dispatchEvents(deps: { pool: pg.Pool; clock: Clock }): Promise<{ events: number; deliveries: number }> {
  const { rows } = await deps.pool.query<{ events: number; deliveries: number; detections: number }>(
    `WITH claimed AS (
       SELECT id FROM events WHERE dispatched_at IS NULL ORDER BY created_at, id LIMIT ${DISPATCH_BATCH} FOR UPDATE SKIP LOCKED
     ),
     marked AS (
       UPDATE events e SET dispatched_at = $1::timestamptz FROM claimed WHERE e.id = claimed.id
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
           WHERE m.type IN ('record.created', 'record.updated')
         ) x
       ) c, LATERAL graphile_worker.add_jobs(c.specs, job_key_preserve_run_at := true) j
       WHERE c.specs IS NOT NULL
     )
     SELECT (SELECT count(*) FROM marked)::int AS events, (SELECT count(*) FROM delivery_jobs)::int AS deliveries,
       (SELECT count(*) FROM detection_jobs)::int AS detections`,
    [deps.clock()],
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
