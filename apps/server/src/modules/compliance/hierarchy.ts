import { addDays, type HierarchyReport, localDate, MAX_UNJUSTIFIED_LISTED } from '@merma/schema';
import { dayStartSql, isoSql } from '../../calendar.js';
import type { DataScope } from '../../context.js';
import type { Sql } from '../../db/sql.js';
import { type SqlParams, sqlParams } from '../../db/sql.js';

const round3 = (kg: number) => Math.round(kg * 1000) / 1000;

type Row = {
  best: { food_category: string; destino_id: string; code: string }[];
  below_records: number;
  below_kg: number;
  justified_records: number;
  justified_kg: number;
  by_reason: { reason: string; records: number; kg: number }[];
  unjustified_count: number;
  unjustified: { id: string; occurred_at: string; food_category: string; weight_kg: number; destino_id: string; best_destino_id: string }[];
};

/**
 * Two CTEs over the records that count (not replaced by a correction, not voided) of the local
 * days `from`..`to`: `r`, each with its destination's `orden`, and `best`, each food category's
 * highest step among them.
 */
function countingRecordsAndBestSql(p: SqlParams, scope: DataScope & { timezone: string }, from: string, to: string): string {
  const zone = p.add(scope.timezone);
  return `r AS (
       SELECT r.id, r.occurred_at, r.food_category, r.weight_kg, r.destino_id, d.orden, r.hierarchy_reason
       FROM records r JOIN destinations d ON d.id = r.destino_id
       WHERE r.establishment_id = ${p.add(scope.establishmentId)}::uuid AND r.livemode = ${p.add(scope.livemode)} AND r.superseded_by IS NULL
         AND r.occurred_at >= ${dayStartSql(`${p.add(from)}::date`, zone)} AND r.occurred_at < ${dayStartSql(`${p.add(to)}::date + 1`, zone)}
     ), best AS (
       SELECT DISTINCT ON (r.food_category) r.food_category, r.destino_id, r.orden, d.code
       FROM r JOIN destinations d ON d.id = r.destino_id
       ORDER BY r.food_category, r.orden
     )`;
}

/**
 * Each food category's highest step this year to date (the local year of `now`): what a kitchen
 * station compares a chosen destination with, to ask why when it is lower.
 */
export async function bestStepsThisYear(
  sql: Sql,
  scope: DataScope & { timezone: string },
  now: Date,
): Promise<{ food_category: string; destino_id: string }[]> {
  const today = localDate(now, scope.timezone);
  const p = sqlParams();
  const { rows } = await sql.query<{ food_category: string; destino_id: string }>(
    `WITH ${countingRecordsAndBestSql(p, scope, `${today.slice(0, 4)}-01-01`, today)}
     SELECT food_category, destino_id::text FROM best ORDER BY food_category`,
    p.values,
  );
  return rows;
}

/**
 * The order of priorities kept in writing (Ley 1/2025 art. 5.2) for one establishment, mode and
 * calendar year (up to today in the current one), in one statement over the records that count
 * (not replaced by a correction, not voided) of the year's local days:
 *
 * - each food category's best step is the highest destination (lowest `orden`) the establishment
 *   sent it to in the year — what it shows it can do for that food;
 * - a record sent lower than its category's best step wants a written justification: the year's
 *   such records and kg, those with a `hierarchy_reason` (by reason), and those without, newest
 *   first (the first MAX_UNJUSTIFIED_LISTED).
 *
 * The year is the comparison's window: a step used once in March makes the year's other records of
 * that category below it ask why. Nothing is refused for lacking a reason.
 */
export async function hierarchyReport(
  sql: Sql,
  scope: DataScope & { timezone: string },
  year: number | undefined,
  now: Date,
): Promise<HierarchyReport> {
  const today = localDate(now, scope.timezone);
  const y = year ?? Number(today.slice(0, 4));
  const from = `${y}-01-01`;
  const end = `${y}-12-31`;
  const to = end < today ? end : today < from ? addDays(from, -1) : today;
  const p = sqlParams();
  const { rows } = await sql.query<Row>(
    `WITH ${countingRecordsAndBestSql(p, scope, from, to)}, below AS (
       SELECT r.*, best.destino_id AS best_destino_id FROM r JOIN best USING (food_category) WHERE r.orden > best.orden
     )
     SELECT
       (SELECT coalesce(json_agg(json_build_object('food_category', food_category, 'destino_id', destino_id, 'code', code)
          ORDER BY food_category), '[]') FROM best) AS best,
       (SELECT count(*)::int FROM below) AS below_records,
       (SELECT coalesce(sum(weight_kg), 0)::float8 FROM below) AS below_kg,
       (SELECT count(*)::int FROM below WHERE hierarchy_reason IS NOT NULL) AS justified_records,
       (SELECT coalesce(sum(weight_kg), 0)::float8 FROM below WHERE hierarchy_reason IS NOT NULL) AS justified_kg,
       (SELECT coalesce(json_agg(x ORDER BY x.kg DESC, x.reason), '[]') FROM (
          SELECT hierarchy_reason AS reason, count(*)::int AS records, sum(weight_kg)::float8 AS kg
          FROM below WHERE hierarchy_reason IS NOT NULL GROUP BY 1) x) AS by_reason,
       (SELECT count(*)::int FROM below WHERE hierarchy_reason IS NULL) AS unjustified_count,
       (SELECT coalesce(json_agg(x ORDER BY x.at DESC, x.id DESC), '[]') FROM (
          SELECT id, occurred_at AS at, ${isoSql('occurred_at')} AS occurred_at, food_category, weight_kg::float8 AS weight_kg,
            destino_id, best_destino_id
          FROM below WHERE hierarchy_reason IS NULL ORDER BY occurred_at DESC, id DESC LIMIT ${MAX_UNJUSTIFIED_LISTED}) x) AS unjustified`,
    p.values,
  );
  const row = rows[0] as Row;
  return {
    establishment_id: scope.establishmentId,
    livemode: scope.livemode,
    year: y,
    period: { from, to },
    best_by_category: row.best as HierarchyReport['best_by_category'],
    below_best: { records: row.below_records, kg: round3(row.below_kg) },
    justified: { records: row.justified_records, kg: round3(row.justified_kg) },
    by_reason: row.by_reason.map((b) => ({ ...b, kg: round3(b.kg) })) as HierarchyReport['by_reason'],
    unjustified_count: row.unjustified_count,
    unjustified: row.unjustified.map(({ id, occurred_at, food_category, weight_kg, destino_id, best_destino_id }) => ({
      id,
      occurred_at,
      food_category,
      weight_kg,
      destino_id,
      best_destino_id,
    })) as HierarchyReport['unjustified'],
  };
}
