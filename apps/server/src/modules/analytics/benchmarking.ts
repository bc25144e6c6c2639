import type { BenchmarkResult, Sector } from '@merma/schema';
import type { Clock, Tenant } from '../../context.js';
import type { Sql } from '../../db/sql.js';
import { AppError } from '../../errors.js';
import { localDate } from './range.js';

export const BENCHMARK_WINDOW_DAYS = 90;
export const MIN_SECTOR_SAMPLE = 5;

/**
 * Sector benchmarking over the last 90 days (today and the 89 before), aggregated in SQL from the day totals:
 * each establishment's kg per day (total / 90), the sector's mean of those, and where yours falls. Test keys compare test data,
 * live keys live data: test records never enter a live benchmark.
 */
export async function getBenchmark(
  deps: { pool: Sql; clock: Clock },
  auth: Tenant,
  query: { sector?: Sector | undefined },
): Promise<BenchmarkResult> {
  if (auth.plan !== 'enterprise' && auth.plan !== 'enterprise_multi') {
    throw new AppError('plan_required', 'Benchmarking requires the Enterprise plan');
  }
  const sector = query.sector ?? auth.sector;
  // The window: the last BENCHMARK_WINDOW_DAYS local days, today included (the caller's zone), read
  // from the day totals (records/rollup.ts), not from every record.
  const today = localDate(deps.clock(), auth.timezone);
  const { rows } = await deps.pool.query<{ mine: number; sample: number; sector_avg: number | null; below: number; equal: number }>(
    `WITH window_records AS (
       SELECT establishment_id, sum(kg)::float8 / ${BENCHMARK_WINDOW_DAYS} AS per_day
       FROM record_day_totals
       WHERE livemode = $1 AND day > $2::date - ${BENCHMARK_WINDOW_DAYS} AND day <= $2::date
       GROUP BY establishment_id
       HAVING sum(records) > 0
     ),
     sample AS (
       SELECT w.establishment_id, w.per_day FROM window_records w JOIN establishments e ON e.id = w.establishment_id
       WHERE e.sector = $3
     ),
     me AS (SELECT coalesce((SELECT per_day FROM window_records WHERE establishment_id = $4::uuid), 0) AS per_day)
     SELECT me.per_day AS mine,
            (SELECT count(*)::int FROM sample) AS sample,
            (SELECT avg(per_day)::float8 FROM sample) AS sector_avg,
            (SELECT count(*)::int FROM sample WHERE per_day < me.per_day) AS below,
            (SELECT count(*)::int FROM sample WHERE per_day = me.per_day) AS equal
     FROM me`,
    [auth.livemode, today, sector, auth.establishmentId],
  );
  const r = rows[0] as { mine: number; sample: number; sector_avg: number | null; below: number; equal: number };
  const round = (v: number) => Math.round(v * 1000) / 1000;
  if (r.sample < MIN_SECTOR_SAMPLE) {
    return {
      your_avg_kg_per_day: round(r.mine),
      sector_avg_kg_per_day: null,
      percentile: null,
      sector,
      sample_size: r.sample,
      window_days: BENCHMARK_WINDOW_DAYS,
      note: `Fewer than ${MIN_SECTOR_SAMPLE} establishments of the ${sector} sector have records in the last ${BENCHMARK_WINDOW_DAYS} days; sector figures are withheld so that no single establishment can be inferred.`,
    };
  }
  // Percentile rank (mid-rank for ties): the share of the sample below you, ties counting half.
  const percentile = Math.round(((r.below + r.equal / 2) / r.sample) * 1000) / 10;
  return {
    your_avg_kg_per_day: round(r.mine),
    sector_avg_kg_per_day: round(r.sector_avg ?? 0),
    percentile,
    sector,
    sample_size: r.sample,
    window_days: BENCHMARK_WINDOW_DAYS,
    note: null,
  };
}
