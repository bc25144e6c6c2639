import type { BenchmarkResult, Sector } from '@merma/schema';
import { addDays, localDate } from '@merma/schema';
import type { Clock, Tenant } from '../../context.js';
import { type Sql, sqlParams } from '../../db/sql.js';
import { AppError } from '../../errors.js';
import { dayTotalsSql } from '../records/rollup.js';

export const BENCHMARK_WINDOW_DAYS = 90;
export const MIN_SECTOR_SAMPLE = 5;

/** How long a sector's sample is served before it is recomputed (in the background, the old one meanwhile). */
export const SECTOR_SAMPLE_TTL_MS = 5 * 60_000;

type SectorSample = { perDay: Map<string, number>; computedAt: number };
type CacheEntry = { sample?: SectorSample; refreshing?: Promise<SectorSample> };

/**
 * Each sector's sample — every establishment with records in the window and its kg per day — is
 * the expensive part of a benchmark: a sum over the day totals of the whole sector (about half a
 * second for 5,000 establishments, docs/scaling.md). It is kept per process, by mode, sector and
 * day, for SECTOR_SAMPLE_TTL_MS, then recomputed in the background while the previous one is
 * served, so requests never wait for it after the first. The caller's own figure is always
 * computed fresh and replaces its entry in the sample: your number moves with your records at once;
 * the rest of the sector is at most five minutes old.
 */
const samples = new WeakMap<Sql, Map<string, CacheEntry>>();

async function computeSample(sql: Sql, livemode: boolean, today: string, sector: Sector): Promise<SectorSample> {
  const { rows } = await sql.query<{ id: string; per_day: number }>(
    `SELECT w.establishment_id::text AS id, w.per_day
     FROM (
       SELECT establishment_id, sum(kg)::float8 / ($2::date - min(day) + 1) AS per_day
       FROM record_day_totals
       WHERE livemode = $1 AND day > $2::date - ${BENCHMARK_WINDOW_DAYS} AND day <= $2::date AND records > 0
       GROUP BY establishment_id
       HAVING sum(records) > 0
     ) w JOIN establishments e ON e.id = w.establishment_id
     WHERE e.sector = $3`,
    [livemode, today, sector],
  );
  return { perDay: new Map(rows.map((r) => [r.id, r.per_day])), computedAt: performance.now() };
}

async function sectorSample(sql: Sql, livemode: boolean, today: string, sector: Sector): Promise<SectorSample> {
  let cache = samples.get(sql);
  if (!cache) {
    cache = new Map();
    samples.set(sql, cache);
  }
  const key = `${livemode}|${sector}|${today}`;
  let entry = cache.get(key);
  if (!entry) {
    for (const k of cache.keys()) if (!k.endsWith(`|${today}`)) cache.delete(k); // samples of other days
    entry = {};
    cache.set(key, entry);
  }
  const current = entry;
  const refresh = () => {
    current.refreshing ??= computeSample(sql, livemode, today, sector).then(
      (sample) => {
        current.sample = sample;
        current.refreshing = undefined;
        return sample;
      },
      (err: unknown) => {
        current.refreshing = undefined;
        throw err;
      },
    );
    return current.refreshing;
  };
  if (!current.sample) return refresh();
  if (performance.now() - current.sample.computedAt > SECTOR_SAMPLE_TTL_MS) refresh().catch(() => {}); // the next request retries
  return current.sample;
}

/**
 * Sector benchmarking over the last 90 days (today and the 89 before), from the day totals: each
 * establishment's kg per day, the sector's mean of those, and where yours falls. A rate is divided
 * by the days the establishment covers within the window — from the local day of its first record
 * there to today, both included — not by 90: a kitchen that started recording 56 days ago wasted
 * its kg over 56 days, and dividing by 90 would show it (and every newcomer of the sector) as
 * wasting a third less than it does. Days without records after the first count (a day of no
 * waste is a real 0). `days_covered` says which divisor your figure used.
 * Test keys compare test data, live keys live data: test records never enter a live benchmark.
 */
export async function getBenchmark(
  deps: { sql: Sql; clock: Clock },
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
  const [sample, mine] = await Promise.all([sectorSample(deps.sql, auth.livemode, today, sector), mineSince(deps.sql, auth, today)]);
  const myPerDay = mine.rows[0]?.per_day ?? null;
  const daysCovered = Number(mine.rows[0]?.days ?? 0);
  // The sector's figures with yours as of now (when you are of that sector).
  const values: number[] = [];
  for (const [id, perDay] of sample.perDay) if (id !== auth.establishmentId || auth.sector !== sector) values.push(perDay);
  if (auth.sector === sector && myPerDay !== null) values.push(myPerDay);
  const me = myPerDay ?? 0;
  const r = {
    mine: me,
    sample: values.length,
    sector_avg: values.length ? values.reduce((sum, v) => sum + v, 0) / values.length : null,
    below: values.filter((v) => v < me).length,
    equal: values.filter((v) => v === me).length,
  };
  const round = (v: number) => Math.round(v * 1000) / 1000;
  if (r.sample < MIN_SECTOR_SAMPLE) {
    return {
      your_avg_kg_per_day: round(r.mine),
      sector_avg_kg_per_day: null,
      percentile: null,
      sector,
      sample_size: r.sample,
      window_days: BENCHMARK_WINDOW_DAYS,
      days_covered: daysCovered,
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
    days_covered: daysCovered,
    note: null,
  };
}

/** This establishment's kg per day over the window, counted from its first day with a record in it. */
function mineSince(sql: Sql, auth: Tenant, today: string) {
  const p = sqlParams();
  const totals = dayTotalsSql(auth, { from: addDays(today, -(BENCHMARK_WINDOW_DAYS - 1)), to: today }, p);
  const days = `(${p.add(today)}::date - min(day) + 1)`;
  return sql.query<{ per_day: number; days: number }>(
    `SELECT sum(kg)::float8 / ${days} AS per_day, ${days} AS days FROM ${totals} t HAVING sum(records) > 0`,
    p.values,
  );
}
