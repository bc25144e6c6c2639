/**
 * How a webhook delivery's attempt is queued on graphile-worker's PostgreSQL queue: the task
 * `webhooks.deliver` (registered by jobs/worker.ts), one job per delivery (job key
 * `delivery:<id>`, so a delivery is never queued twice). The webhooks module owns this SQL; the
 * endpoints (retry, test, recover, deliveries.ts), the dispatcher (dispatch.ts) and the delivery
 * job (attempt.ts) use it.
 */

/** Enqueues the attempt of a delivery at `runAt`; one job per delivery (its job key). */
export const ENQUEUE_DELIVERY_SQL = `graphile_worker.add_job('webhooks.deliver', json_build_object('delivery_id', $1::uuid),
  run_at := $2::timestamptz, job_key := 'delivery:' || $1::text)`;

/**
 * One `graphile_worker.add_jobs` call enqueuing the attempt of every delivery in `source` (a CTE or
 * table with columns `id` and `next_attempt_at`), keyed per delivery like ENQUEUE_DELIVERY_SQL; a
 * CTE body yielding one row per job added. Batches use it: `add_job` once per row scans the job
 * table each time.
 */
export function addDeliveryJobsSql(source: string): string {
  return `SELECT j.id FROM (
         SELECT array_agg(('webhooks.deliver', json_build_object('delivery_id', id), NULL, next_attempt_at, NULL,
           'delivery:' || id::text, NULL, NULL)::graphile_worker.job_spec) AS specs
         FROM ${source}
       ) c, LATERAL graphile_worker.add_jobs(c.specs) j
       WHERE c.specs IS NOT NULL`;
}
