import type { AnalyticsResult, FoodCategory } from '@merma/schema';
import { DATE_ONLY, lowerBoundSql, MAX_RANGE_DAYS, resolveRange, upperBoundSql } from '../../calendar.js';
import type { Clock, Tenant } from '../../context.js';
import type { Sql } from '../../db/sql.js';
import { sqlParams } from '../../db/sql.js';
import { fromDayTotals, recordsWhere } from '../records/filter.js';
import { dayTotalsSql } from '../records/rollup.js';

export type AnalyticsQueryParsed = {
  from?: string | undefined;
  to?: string | undefined;
  group_by: 'day' | 'week' | 'month';
  food_category?: FoodCategory | undefined;
  causa_id?: string | undefined;
  destino_id?: string | undefined;
};

/** Period labels: day `2026-11-23`, ISO week `2026-W48` (ISO year), month `2026-11`. */
const LABEL: Record<AnalyticsQueryParsed['group_by'], string> = {
  day: 'YYYY-MM-DD',
  week: 'IYYY-"W"IW',
  month: 'YYYY-MM',
};

/**
 * Waste metrics, all computed by PostgreSQL in one statement: totals, breakdowns by category,
 * destination, cause and stage, the recovery rate, and the trend by period in the establishment's
 * time zone (`date_trunc` on local time, so DST changes and the ISO-week year boundary fall where a
 * person expects), with empty periods of the range present as 0.
 */
export async function getAnalytics(deps: { sql: Sql; clock: Clock }, auth: Tenant, query: AnalyticsQueryParsed): Promise<AnalyticsResult> {
  const { from, to } = await resolveRange(deps.sql, query, deps.clock(), auth.timezone, MAX_RANGE_DAYS);
  const p = sqlParams();
  const tz = p.add(auth.timezone);
  const lower = lowerBoundSql(from, auth.timezone, p);
  const upper = upperBoundSql(to, auth.timezone, p);
  const unit = p.add(query.group_by);
  const label = p.add(LABEL[query.group_by]);
  const filter = { from, to, food_category: query.food_category, causa_id: query.causa_id, destino_id: query.destino_id };
  // Whole days (the usual case) come from the day totals (records/rollup.ts): a few rows a day
  // instead of every record. A range with a time of day needs the records themselves.
  const source = fromDayTotals(filter)
    ? `SELECT kg AS weight_kg, records AS n, food_category, destino_id, causa_id, waste_stage, date_trunc(${unit}, day::timestamp) AS bucket
       FROM ${dayTotalsSql(auth, filter, p)} t`
    : `SELECT weight_kg, 1 AS n, food_category, destino_id, causa_id, waste_stage, date_trunc(${unit}, occurred_at AT TIME ZONE ${tz}) AS bucket
       FROM records WHERE ${recordsWhere(auth, filter, p)}`;

  // Summed once per period and kind of waste (category, destination, cause, stage): every figure
  // below reads that short list, not the rows of the range seven times. In float8, several times
  // faster than NUMERIC over tens of thousands of rows; every figure is rounded to the gram.
  const sql = `
    WITH f AS (
      SELECT bucket, food_category, destino_id, causa_id, waste_stage, sum(weight_kg::float8) AS weight_kg, sum(n) AS n
      FROM (${source}) s GROUP BY 1, 2, 3, 4, 5
    ),
    periods AS (
      SELECT generate_series(
        date_trunc(${unit}, ${lower} AT TIME ZONE ${tz}),
        date_trunc(${unit}, (${upper} - interval '1 microsecond') AT TIME ZONE ${tz}),
        ('1 ' || ${unit})::interval) AS bucket
    )
    SELECT
      (SELECT coalesce(sum(weight_kg), 0)::float8 FROM f) AS total_kg,
      (SELECT coalesce(sum(n), 0)::int FROM f) AS total_records,
      (SELECT coalesce(json_object_agg(k, kg), '{}') FROM (SELECT food_category AS k, sum(weight_kg)::float8 AS kg FROM f GROUP BY 1) x) AS by_category,
      (SELECT coalesce(json_object_agg(k, kg), '{}') FROM (SELECT destino_id::text AS k, sum(weight_kg)::float8 AS kg FROM f GROUP BY 1) x) AS by_destino,
      (SELECT coalesce(json_object_agg(k, kg), '{}') FROM (SELECT coalesce(causa_id::text, 'none') AS k, sum(weight_kg)::float8 AS kg FROM f GROUP BY 1) x) AS by_cause,
      (SELECT coalesce(json_object_agg(k, kg), '{}') FROM (SELECT coalesce(waste_stage, 'none') AS k, sum(weight_kg)::float8 AS kg FROM f GROUP BY 1) x) AS by_stage,
      (SELECT (coalesce(sum(f.weight_kg) FILTER (WHERE d.es_recuperacion), 0) / nullif(sum(f.weight_kg), 0))::float8
         FROM f JOIN destinations d ON d.id = f.destino_id) AS recovery_rate,
      (SELECT coalesce(json_agg(json_build_object('period', to_char(periods.bucket, ${label}), 'total_kg', coalesce(t.kg, 0)) ORDER BY periods.bucket), '[]')
         FROM periods LEFT JOIN (SELECT bucket, sum(weight_kg)::float8 AS kg FROM f GROUP BY 1) t USING (bucket)) AS trend`;
  const { rows } = await deps.sql.query(sql, p.values);
  const row = rows[0] as Omit<AnalyticsResult, 'from' | 'to' | 'group_by'>;
  const round = (kg: number) => Math.round(kg * 1000) / 1000;
  const roundMap = (m: Record<string, number>) => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, round(v)]));
  return {
    total_kg: round(row.total_kg),
    total_records: row.total_records,
    by_category: roundMap(row.by_category),
    by_destino: roundMap(row.by_destino),
    by_cause: roundMap(row.by_cause),
    by_stage: roundMap(row.by_stage),
    recovery_rate: row.recovery_rate === null ? null : Math.round(row.recovery_rate * 10_000) / 10_000,
    trend: row.trend.map((t) => ({ period: t.period, total_kg: round(t.total_kg) })),
    // A date is answered as given; a date-time (any offset, any precision) in the documented UTC form.
    from: DATE_ONLY.test(from) ? from : new Date(from).toISOString(),
    to: DATE_ONLY.test(to) ? to : new Date(to).toISOString(),
    group_by: query.group_by,
  };
}
