import { type DemandPrediction, type FoodCategory, localDate } from '@merma/schema';
import type { Clock, Tenant } from '../../context.js';
import type { Sql } from '../../db/sql.js';
import { localTime } from '../shifts/service.js';
import { businessDayEnd } from './business-day.js';
import { predictDemand } from './demand.js';
import type { ForecastPool } from './pool.js';

/**
 * The demand forecast served from storage (`demand_forecasts`, migration 20261129010000) when it
 * is still what a computation would give, else computed (on the forecast pool's threads) and kept.
 * The evening job (evening.ts) computes each establishment's default answer after its day closes,
 * so the evening's visits to the Forecast page and the API's default call read a row instead of
 * fitting 200 products.
 *
 * What is kept: the answer without filters, per establishment, mode and horizon. An answer for a
 * `food_category` or a `product_id` is computed each time (it is a subset, but one whose rules —
 * the 200 best sellers of the category, a deactivated product asked by id — are predictDemand's).
 *
 * The staleness rule — a kept answer is served only when all of these hold:
 * - the same establishment, mode and horizon (the key), the same local day and time zone;
 * - no input written since it was computed: `demand_forecast_inputs.version` (bumped by triggers on
 *   every statement that writes sales, shifts, the opening calendar, production settings,
 *   products, or deletes records) and the record chain's length (`record_chain_heads.seq`: every
 *   waste record, correction and void is a link) are those read before its inputs were. A write
 *   that commits after that read moves them, so at worst an answer is recomputed once more, never
 *   served stale; both are read in one query of two primary-key lookups;
 * - the clock on the same side of the day's close (the end of the last shift) as when it was
 *   computed: the answer counts today's sales from then on (predictDemand's `dayComplete`), with
 *   nothing written.
 * `generated_at` is then the time it was computed. A request that finds none valid computes it and
 * stores it for the next; requests for the same answer at once in one process share one computation.
 */

type StoreDeps = {
  /** Where the inputs and the kept answer are read (the request's replica runner). */
  sql: Sql;
  /** Where the computed answer is kept (the primary). */
  primary: Sql;
  clock: Clock;
  forecasts?: ForecastPool | undefined;
};

type Query = { horizon: number; food_category?: FoodCategory | undefined; product_id?: string | undefined };

type Versions = { inputs_version: string; records_seq: string };

type KeptRow = Versions & {
  answer: string | null;
  today: string | null;
  timezone: string | null;
  day_closes_at: string | null;
  computed_at: Date | null;
  unchanged: boolean | null;
};

/** The demand answer for `query`: kept when still valid, else computed and kept. */
export async function demandAnswer(deps: StoreDeps, tenant: Tenant, query: Query): Promise<DemandPrediction> {
  if (query.food_category !== undefined || query.product_id !== undefined) return predictDemand(deps, tenant, query);
  const now = deps.clock();
  const kept = await readKept(deps.sql, tenant, query.horizon);
  if (kept.answer !== null && isValid(kept, tenant, now)) return JSON.parse(kept.answer) as DemandPrediction;
  const key = `${tenant.establishmentId}:${tenant.livemode}:${query.horizon}:${tenant.timezone}`;
  let running = computing.get(key);
  if (!running) {
    running = computeAndKeep(deps, tenant, query.horizon, now, kept).finally(() => computing.delete(key));
    computing.set(key, running);
  }
  return running;
}

/** Computations under way in this process, by establishment, mode, horizon and time zone. */
const computing = new Map<string, Promise<DemandPrediction>>();

async function readKept(sql: Sql, tenant: Tenant, horizon: number): Promise<KeptRow> {
  const { rows } = await sql.query<KeptRow>(
    `SELECT v.inputs_version::text, v.records_seq::text, f.answer::text AS answer, to_char(f.today, 'YYYY-MM-DD') AS today,
       f.timezone, f.day_closes_at, f.computed_at,
       f.inputs_version = v.inputs_version AND f.records_seq = v.records_seq AS unchanged
     FROM (SELECT
         coalesce((SELECT version FROM demand_forecast_inputs WHERE establishment_id = $1::uuid AND livemode = $2), 0) AS inputs_version,
         coalesce((SELECT seq FROM record_chain_heads WHERE establishment_id = $1::uuid AND livemode = $2), 0) AS records_seq) v
     LEFT JOIN demand_forecasts f ON f.establishment_id = $1::uuid AND f.livemode = $2 AND f.horizon = $3`,
    [tenant.establishmentId, tenant.livemode, horizon],
  );
  return rows[0] as KeptRow;
}

/** The staleness rule (above), for a kept row whose versions were read with it. */
function isValid(kept: KeptRow, tenant: Tenant, now: Date): boolean {
  if (kept.unchanged !== true || kept.timezone !== tenant.timezone || kept.today !== localDate(now, tenant.timezone)) return false;
  const closes = kept.day_closes_at;
  if (closes === null || kept.computed_at === null) return true;
  return localTime(kept.computed_at, tenant.timezone) >= closes === localTime(now, tenant.timezone) >= closes;
}

async function computeAndKeep(deps: StoreDeps, tenant: Tenant, horizon: number, now: Date, versions: Versions): Promise<DemandPrediction> {
  // The versions were read before any input (readKept): a write after them moves them.
  const shifts = await deps.sql.query<{ start_time: string; end_time: string }>(
    'SELECT start_time, end_time FROM shifts WHERE establishment_id = $1::uuid AND livemode = $2 AND archived_at IS NULL',
    [tenant.establishmentId, tenant.livemode],
  );
  // One instant for the answer and for the side of the close it was computed on.
  const answer = await predictDemand({ ...deps, clock: () => now }, tenant, { horizon });
  await deps.primary.query(
    `INSERT INTO demand_forecasts (establishment_id, livemode, horizon, today, timezone, day_closes_at, inputs_version, records_seq, answer, computed_at)
     VALUES ($1::uuid, $2, $3, $4::date, $5, $6, $7::bigint, $8::bigint, $9::json, $10::timestamptz)
     ON CONFLICT (establishment_id, livemode, horizon) DO UPDATE SET
       today = excluded.today, timezone = excluded.timezone, day_closes_at = excluded.day_closes_at,
       inputs_version = excluded.inputs_version, records_seq = excluded.records_seq, answer = excluded.answer,
       computed_at = excluded.computed_at
     -- Never over an answer computed from later inputs (a read from a replica behind the primary).
     WHERE demand_forecasts.inputs_version <= excluded.inputs_version AND demand_forecasts.records_seq <= excluded.records_seq`,
    [
      tenant.establishmentId,
      tenant.livemode,
      horizon,
      localDate(now, tenant.timezone),
      tenant.timezone,
      // When the day's sales end: its shifts, or its sales' times (business-day.ts), as predictDemand reads it.
      (await businessDayEnd(deps.sql, tenant, localDate(now, tenant.timezone), shifts.rows)).closesAt,
      versions.inputs_version,
      versions.records_seq,
      JSON.stringify(answer),
      now.toISOString(),
    ],
  );
  return answer;
}
