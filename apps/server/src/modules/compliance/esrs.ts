import { addDays, type EsrsE5, localDate } from '@merma/schema';
import { dayStartSql } from '../../calendar.js';
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
 * How the waste was measured is summed from the records themselves (their `estimated`): a record
 * that does not say is not counted as measured.
 */
export async function esrsE5(sql: Sql, scope: DataScope & { timezone: string }, year: number | undefined, now: Date): Promise<EsrsE5> {
  const today = localDate(now, scope.timezone);
  const y = year ?? Number(today.slice(0, 4));
  const from = `${y}-01-01`;
  const end = `${y}-12-31`;
  const to = end < today ? end : today < from ? addDays(from, -1) : today;
  const p = sqlParams();
  const source = dayTotalsSql(scope, { from, to }, p);
  // How the waste was measured is each record's, not the day totals': read from the records that
  // count (not replaced by a correction, not voided) of the same local days.
  const m = sqlParams();
  const zone = m.add(scope.timezone);
  const [{ rows }, measured] = await Promise.all([
    sql.query<{ code: string; wfd_operation: string; kg: number }>(
      `SELECT d.code, d.wfd_operation, coalesce(sum(t.kg), 0)::float8 AS kg
       FROM destinations d LEFT JOIN ${source} t ON t.destino_id = d.id
       GROUP BY d.id ORDER BY d.orden`,
      p.values,
    ),
    sql.query<{ measured_kg: number; estimated_kg: number; not_stated_kg: number }>(
      `SELECT coalesce(sum(r.weight_kg) FILTER (WHERE r.estimated = false), 0)::float8 AS measured_kg,
         coalesce(sum(r.weight_kg) FILTER (WHERE r.estimated = true), 0)::float8 AS estimated_kg,
         coalesce(sum(r.weight_kg) FILTER (WHERE r.estimated IS NULL), 0)::float8 AS not_stated_kg
       FROM records r JOIN destinations d ON d.id = r.destino_id AND d.wfd_operation <> 'not_waste'
       WHERE r.establishment_id = ${m.add(scope.establishmentId)}::uuid AND r.livemode = ${m.add(scope.livemode)} AND r.superseded_by IS NULL
         AND r.occurred_at >= ${dayStartSql(`${m.add(from)}::date`, zone)} AND r.occurred_at < ${dayStartSql(`${m.add(to)}::date + 1`, zone)}`,
      m.values,
    ),
  ]);
  const how = measured.rows[0] ?? { measured_kg: 0, estimated_kg: 0, not_stated_kg: 0 };
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
    measurement: { measured_kg: round3(how.measured_kg), estimated_kg: round3(how.estimated_kg), not_stated_kg: round3(how.not_stated_kg) },
    measured_share: waste > 0 ? Math.round((how.measured_kg / waste) * 10_000) / 10_000 : null,
    by_destination: rows.map((r) => ({ code: r.code, wfd_operation: r.wfd_operation, kg: round3(r.kg) })),
  };
}
