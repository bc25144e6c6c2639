import { randomUUID } from 'node:crypto';
import type { ChainVerification, ChainVerificationRun } from '@merma/schema';
import type { Clock, DataScope, Log } from '../../context.js';
import type { Sql } from '../../db/sql.js';
import { AppError } from '../../errors.js';
import type { CheckpointSigner } from '../../secrets/signing.js';
import { verifyRecordChain } from './verify.js';

/**
 * Full verifications in the background. `GET /records/verify?full=true` answers within the request,
 * which is right for most chains (a million records take a few seconds, docs/scaling.md) but not
 * for one of many millions, which would outlast the request deadline. A run is the same
 * verification done by the worker (`records.verify`, jobs/worker.ts) a segment of RUN_SEGMENT
 * records at a time, its progress stored after each segment, so a client can show it and poll.
 *
 * One run per chain at a time: asking while one is queued or running returns that one. A run the
 * worker could not finish (the database went away) is retried by the queue; the run says `failed`
 * with the error after its last attempt. Finished runs are deleted by the retention job after
 * RETENTION_EVENT_DAYS.
 */
export const RUN_SEGMENT = 100_000;
const MAX_ATTEMPTS = 3;

type Row = {
  id: string;
  status: ChainVerificationRun['status'];
  checked: string;
  total: string;
  result: ChainVerification | null;
  error: string | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
};
const COLUMNS = 'id::text, status, checked::text, total::text, result, error, created_at, started_at, finished_at';

const toRun = (r: Row): ChainVerificationRun => ({
  id: r.id,
  status: r.status,
  progress: { checked: Number(r.checked), total: Number(r.total) },
  result: r.result,
  error: r.error,
  created_at: r.created_at.toISOString(),
  started_at: r.started_at?.toISOString() ?? null,
  finished_at: r.finished_at?.toISOString() ?? null,
});

/**
 * Queues a full verification of the scope's chain, or returns the one already queued or running.
 * The run and its job are written by one statement (on the request's transaction when it has an
 * Idempotency-Key), so a run exists exactly when its job does.
 */
export async function startVerificationRun(deps: { sql: Sql; clock: Clock }, scope: DataScope): Promise<ChainVerificationRun> {
  const id = randomUUID();
  const { rows } = await deps.sql.query<Row>(
    `WITH run AS (
       INSERT INTO chain_verification_runs (id, establishment_id, livemode, status, total, created_at)
       SELECT $1::uuid, $2::uuid, $3, 'queued', coalesce((SELECT seq FROM record_chain_heads WHERE establishment_id = $2::uuid AND livemode = $3), 0), $4
       ON CONFLICT (establishment_id, livemode) WHERE status IN ('queued', 'running') DO NOTHING
       RETURNING *
     ), job AS (
       SELECT graphile_worker.add_job('records.verify', json_build_object('run_id', run.id), job_key := 'verify:' || run.id::text,
         max_attempts := ${MAX_ATTEMPTS}) FROM run
     )
     SELECT ${COLUMNS} FROM run WHERE (SELECT count(*) FROM job) = 1`,
    [id, scope.establishmentId, scope.livemode, deps.clock()],
  );
  if (rows[0]) return toRun(rows[0]);
  const active = await deps.sql.query<Row>(
    `SELECT ${COLUMNS} FROM chain_verification_runs
     WHERE establishment_id = $1::uuid AND livemode = $2 AND status IN ('queued', 'running')`,
    [scope.establishmentId, scope.livemode],
  );
  if (!active.rows[0]) throw new AppError('conflict', 'A verification run finished while this one was being queued; ask again');
  return toRun(active.rows[0]);
}

export async function getVerificationRun(sql: Sql, scope: DataScope, id: string): Promise<ChainVerificationRun> {
  const { rows } = await sql.query<Row>(
    `SELECT ${COLUMNS} FROM chain_verification_runs WHERE id = $1::uuid AND establishment_id = $2::uuid AND livemode = $3`,
    [id, scope.establishmentId, scope.livemode],
  );
  if (!rows[0]) throw new AppError('not_found', 'No verification run of this establishment and mode has this id');
  return toRun(rows[0]);
}

/** `records.verify`: runs a queued (or interrupted) verification to its end. */
export async function runVerification(
  deps: { sql: Sql; clock: Clock; signer?: CheckpointSigner; log?: Pick<Log, 'warn'>; segment?: number },
  payload: { run_id: string },
  attempt: { number: number; max: number } = { number: 1, max: 1 },
): Promise<void> {
  const { rows } = await deps.sql.query<{ establishment_id: string; livemode: boolean }>(
    `UPDATE chain_verification_runs SET status = 'running', started_at = coalesce(started_at, $2), checked = 0, error = NULL
     WHERE id = $1::uuid AND status IN ('queued', 'running')
     RETURNING establishment_id::text, livemode`,
    [payload.run_id, deps.clock()],
  );
  const run = rows[0];
  if (!run) return; // finished already, or deleted
  const scope = { establishmentId: run.establishment_id, livemode: run.livemode };
  try {
    const result = await verifyRecordChain(deps.sql, scope, {
      full: true,
      ...(deps.signer ? { signer: deps.signer } : {}),
      clock: deps.clock,
      segment: deps.segment ?? RUN_SEGMENT,
      onProgress: async (checked, total) => {
        await deps.sql.query(`UPDATE chain_verification_runs SET checked = $2, total = $3 WHERE id = $1::uuid`, [
          payload.run_id,
          checked,
          total,
        ]);
      },
    });
    await deps.sql.query(
      `UPDATE chain_verification_runs SET status = 'completed', result = $2::jsonb, checked = $3, finished_at = $4 WHERE id = $1::uuid`,
      [payload.run_id, JSON.stringify(result), result.checked, deps.clock()],
    );
  } catch (err) {
    const last = attempt.number >= attempt.max;
    const message = err instanceof Error ? err.message : String(err);
    deps.log?.warn({ err, runId: payload.run_id, attempt: attempt.number }, 'chain verification run failed');
    await deps.sql
      .query(`UPDATE chain_verification_runs SET status = $2, error = $3, finished_at = $4 WHERE id = $1::uuid AND status = 'running'`, [
        payload.run_id,
        last ? 'failed' : 'running',
        message,
        last ? deps.clock() : null,
      ])
      .catch(() => {});
    throw err; // the queue retries it, up to MAX_ATTEMPTS
  }
}
