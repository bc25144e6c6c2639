import { PredictQuery } from '@merma/schema';
import type pg from 'pg';
import type { Clock } from '../../context.js';
import type { Db } from '../../db/client.js';
import { sqlOfPool } from '../../db/sql.js';
import { soldBetweenSql, soldOnDaySql } from '../sales/totals.js';
import { establishmentById, tenantOf } from '../tenancy/callers.js';
import type { ForecastPool } from './pool.js';
import { demandAnswer } from './stored.js';

/**
 * The evening's advice, computed before anyone asks (stored.ts keeps it): each establishment and
 * mode's default demand answer (the API's default horizon, the Forecast page's) once its day is over.
 *
 * - **When**: after the end of its last shift (shifts/service.ts `dayClosesAt`) and once that day's
 *   sales have arrived — that is when a computation counts today's sales, and the answer then
 *   holds until midnight unless an input is written. Without shifts (or with an overnight one) the
 *   day's end is learnt from its sales' times (business-day.ts), which this job does not read: it
 *   computes at `NO_SHIFTS_AT` local time, after a POS that sends the day at night has sent it and
 *   before a kitchen opens; the first request after the learnt end (on the other side of the close
 *   kept with the answer) computes again with today's sales.
 * - **Who**: establishments and modes with sales in the last `RECENT_SALES_DAYS` days (a test key's
 *   sales make its mode's answer; a mode without sales has nothing to forecast).
 * - **How often**: `predict.evening` runs every 10 minutes (graphile-worker's cron, once across
 *   replicas) and queues one `predict.demand` job per establishment and mode whose day is over and
 *   that has no answer kept since (computed after the close, of today). Once per local day: sales
 *   that arrive later make the kept answer stale, and the next request recomputes it through the
 *   pool (and keeps it) — the job does not chase a POS that streams sales all evening.
 */
export const EVENING_TASK = 'predict.evening';
export const DEMAND_TASK = 'predict.demand';
export const NO_SHIFTS_AT = '05:00';
export const RECENT_SALES_DAYS = 28;
/** The horizon precomputed: the API's default, which the dashboard's Forecast page also uses. */
export const DEFAULT_DEMAND_HORIZON = PredictQuery.parse({}).horizon;

export type DemandJob = { establishment_id: string; livemode: boolean };

/** The establishment and mode of a row of `modes` below, for the sales module's conditions. */
const ESTABLISHMENT_OF_ROW = { establishmentId: 'd.id', livemode: 'd.livemode' };

/** Queues the precompute of every establishment and mode whose day is over and has none yet; returns how many. */
export async function queueEveningForecasts(deps: { pool: pg.Pool; clock: Clock }): Promise<number> {
  const { rowCount } = await deps.pool.query(
    `WITH modes AS (
       SELECT e.id, m.livemode, e.timezone, ($1::timestamptz AT TIME ZONE e.timezone)::date AS today,
         to_char($1::timestamptz AT TIME ZONE e.timezone, 'HH24:MI') AS local_time,
         -- dayClosesAt: the latest end of the active shifts, none with an overnight one.
         (SELECT CASE WHEN bool_or(s.end_time <= s.start_time) THEN NULL ELSE max(s.end_time) END
          FROM shifts s WHERE s.establishment_id = e.id AND s.livemode = m.livemode AND s.archived_at IS NULL) AS closes_at
       FROM establishments e CROSS JOIN (VALUES (false), (true)) AS m(livemode)
     ), due AS (
       SELECT d.* FROM modes d
       WHERE ${soldBetweenSql(ESTABLISHMENT_OF_ROW, 'd.today - $3::int', 'd.today')}
         AND d.local_time >= coalesce(d.closes_at, $2)
         -- With shifts: once today's sales are in.
         AND (d.closes_at IS NULL OR ${soldOnDaySql(ESTABLISHMENT_OF_ROW, 'd.today')})
         AND NOT EXISTS (SELECT 1 FROM demand_forecasts f
           WHERE f.establishment_id = d.id AND f.livemode = d.livemode AND f.horizon = $4 AND f.today = d.today
             AND f.timezone = d.timezone AND to_char(f.computed_at AT TIME ZONE d.timezone, 'HH24:MI') >= coalesce(d.closes_at, $2))
     )
     SELECT graphile_worker.add_job($5::text, json_build_object('establishment_id', id, 'livemode', livemode),
       job_key := 'demand:' || id::text || ':' || livemode::text, max_attempts := 3)
     FROM due`,
    [deps.clock(), NO_SHIFTS_AT, RECENT_SALES_DAYS, DEFAULT_DEMAND_HORIZON, DEMAND_TASK],
  );
  return rowCount ?? 0;
}

/** `predict.demand`: one establishment and mode's default answer, kept (or left as it is when still valid). */
export async function precomputeDemand(
  deps: { db: Db; pool: pg.Pool; clock: Clock; forecasts: ForecastPool | undefined },
  job: DemandJob,
): Promise<void> {
  const establishment = await establishmentById(deps.db, job.establishment_id);
  if (!establishment) return;
  const sql = sqlOfPool(deps.pool);
  await demandAnswer({ sql, primary: sql, clock: deps.clock, forecasts: deps.forecasts }, tenantOf(establishment, job.livemode), {
    horizon: DEFAULT_DEMAND_HORIZON,
  });
}
