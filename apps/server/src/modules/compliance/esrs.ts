import { addDays, type EsrsE5, localDate } from '@merma/schema';
import type { DataScope } from '../../context.js';
import type { Sql } from '../../db/sql.js';
import { sqlParams } from '../../db/sql.js';
import { dayTotalsSql } from '../records/rollup.js';

const round3 = (kg: number) => Math.round(kg * 1000) / 1000;

/**
 * The ESRS E5-5 waste figures of one establishment and mode for a calendar year (up to today in
 * the current one), summed in SQL from the register's day totals by each destination's operation
 * under the Waste Framework Directive (`destinations.wfd_operation`): R3 is recycling, R1 other
 * recovery, D10 incineration, D1 landfill, sewer other disposal; `not_waste` is reported apart.
 * Corrections count as the register does (the day totals leave out what a correction replaced).
 */
export async function esrsE5(sql: Sql, scope: DataScope & { timezone: string }, year: number | undefined, now: Date): Promise<EsrsE5> {
  const today = localDate(now, scope.timezone);
  const y = year ?? Number(today.slice(0, 4));
  const from = `${y}-01-01`;
  const end = `${y}-12-31`;
  const to = end < today ? end : today < from ? addDays(from, -1) : today;
  const p = sqlParams();
  const source = dayTotalsSql(scope, { from, to }, p);
  const { rows } = await sql.query<{ code: string; wfd_operation: string; kg: number }>(
    `SELECT d.code, d.wfd_operation, coalesce(sum(t.kg), 0)::float8 AS kg
     FROM destinations d LEFT JOIN ${source} t ON t.destino_id = d.id
     GROUP BY d.id ORDER BY d.orden`,
    p.values,
  );
  const by = (op: string) => rows.filter((r) => r.wfd_operation === op).reduce((a, r) => a + r.kg, 0);
  const total = rows.reduce((a, r) => a + r.kg, 0);
  const notWaste = by('not_waste');
  const waste = total - notWaste;
  const recycling = by('R3');
  const otherRecovery = by('R1');
  const incineration = by('D10');
  const landfill = by('D1');
  const sewer = by('sewer');
  const nonRecycled = waste - recycling;
  return {
    establishment_id: scope.establishmentId,
    livemode: scope.livemode,
    year: y,
    period: { from, to },
    total_kg: round3(total),
    not_waste_kg: round3(notWaste),
    waste_kg: round3(waste),
    diverted_from_disposal: {
      preparation_for_reuse_kg: 0,
      recycling_kg: round3(recycling),
      other_recovery_kg: round3(otherRecovery),
      total_kg: round3(recycling + otherRecovery),
    },
    directed_to_disposal: {
      incineration_kg: round3(incineration),
      landfill_kg: round3(landfill),
      other_disposal_kg: round3(sewer),
      total_kg: round3(incineration + landfill + sewer),
    },
    non_recycled_kg: round3(nonRecycled),
    non_recycled_share: waste > 0 ? Math.round((nonRecycled / waste) * 10_000) / 10_000 : null,
    measured_share: null,
    by_destination: rows.map((r) => ({ code: r.code, wfd_operation: r.wfd_operation, kg: round3(r.kg) })),
  };
}
