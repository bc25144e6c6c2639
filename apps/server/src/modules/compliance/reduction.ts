import { type EsrsE5, type FoodChainStage, localDate, type Reduction, type ReductionBaseline, stageOfNace } from '@merma/schema';
import type { DataScope } from '../../context.js';
import type { Sql } from '../../db/sql.js';
import { sqlParams } from '../../db/sql.js';
import { validationError } from '../../errors.js';
import { dayTotalsSql } from '../records/rollup.js';
import { salesValue } from '../sales/totals.js';
import { esrsE5 } from './esrs.js';

/**
 * A year's food waste against a baseline, in the terms of the 2030 targets the Waste Framework
 * Directive set in its 2025 revision (art. 9a): −10 % in processing and manufacturing, −30 % in
 * retail, distribution and food services (per capita, nationally) against the 2021–2023 average.
 *
 * - Food waste is what Delegated Decision (EU) 2019/1597 counts, the ESRS figures' `waste_kg`
 *   (esrs.ts): every destination but those whose operation is `not_waste` (food kept for people,
 *   donated, fed to animals, by-products). Summed in SQL from the register's day totals, by local
 *   calendar year.
 * - The stage is the establishment's, from its NACE class; the Directive's reduction for it is
 *   applied to the establishment's own baseline as an indicative target (the Directive's targets
 *   are national; a kitchen's own is what it can act on).
 * - Baselines: `2021-2023`, the average of those of the three years with records (`years_with_
 *   records` says which: a kitchen that started in 2022 is compared with 2022–2023); `2020`; or
 *   `first_year`, the first full calendar year with records — the year of the first record when it
 *   began on 1 January, else the next —, the prevention plan's own baseline. A baseline that is
 *   not before the year asked about is none.
 * - Per € of sales, where sales reach Merma: the year's units sold × each product's price today
 *   (what the catalogue knows), products without a price left out and counted. Covers are not
 *   recorded by Merma, so there is no per-cover figure.
 */
const TARGETS: Partial<Record<FoodChainStage, number>> = {
  processing_manufacturing: 0.1,
  retail_distribution: 0.3,
  food_services: 0.3,
};

const round3 = (kg: number) => Math.round(kg * 1000) / 1000;

type Scope = DataScope & { timezone: string };

/** The food waste of each local calendar year with records, up to `to`. */
async function wasteByYear(sql: Sql, scope: Scope, to: string): Promise<{ years: Map<number, number>; firstDay: string | null }> {
  const p = sqlParams();
  const source = dayTotalsSql(scope, { to }, p);
  const { rows } = await sql.query<{ y: number; kg: number; first_day: string }>(
    `SELECT extract(year FROM t.day)::int AS y, coalesce(sum(t.kg) FILTER (WHERE d.wfd_operation <> 'not_waste'), 0)::float8 AS kg,
            min(t.day)::text AS first_day
     FROM ${source} t JOIN destinations d ON d.id = t.destino_id GROUP BY 1 ORDER BY 1`,
    p.values,
  );
  return { years: new Map(rows.map((r) => [r.y, r.kg])), firstDay: rows[0]?.first_day ?? null };
}

/** The years a baseline is made of, for the year `y` and the register's first day. */
function baselineYears(kind: ReductionBaseline, y: number, firstDay: string | null): number[] {
  if (kind === '2021-2023') return [2021, 2022, 2023];
  if (kind === '2020') return [2020];
  if (!firstDay) return [];
  const first = Number(firstDay.slice(0, 4)) + (firstDay.slice(5) === '01-01' ? 0 : 1);
  return first < y ? [first] : [];
}

export async function reduction(
  sql: Sql,
  scope: Scope,
  query: { year?: number | undefined; baseline: ReductionBaseline },
  now: Date,
): Promise<Reduction> {
  return (await reductionAndEsrs(sql, scope, query, now)).reduction;
}

/** The year against its baseline, and the year's ESRS E5-5 figures it rests on (organization.ts sums both). */
export async function reductionAndEsrs(
  sql: Sql,
  scope: Scope,
  query: { year?: number | undefined; baseline: ReductionBaseline },
  now: Date,
): Promise<{ reduction: Reduction; esrs: EsrsE5 }> {
  const today = localDate(now, scope.timezone);
  const y = query.year ?? Number(today.slice(0, 4));
  if (y > Number(today.slice(0, 4))) {
    throw validationError(`year: ${y} has not begun`, [{ path: 'year', message: 'must not be after the current year' }]);
  }
  const from = `${y}-01-01`;
  const end = `${y}-12-31`;
  const to = end < today ? end : today;
  const [facts, figures, byYear, sales] = await Promise.all([
    sql.query<{ nace_code: string | null }>('SELECT nace_code FROM establishments WHERE id = $1::uuid', [scope.establishmentId]),
    esrsE5(sql, scope, y, now),
    wasteByYear(sql, scope, to),
    salesValue(sql, scope, { from, to }),
  ]);
  const nace = facts.rows[0]?.nace_code ?? null;
  const stage = nace ? stageOfNace(nace) : null;
  const years = baselineYears(query.baseline, y, byYear.firstDay).filter((b) => b < y);
  const withRecords = years.filter((b) => byYear.years.has(b));
  const baselineKg =
    withRecords.length === 0 ? null : round3(withRecords.reduce((a, b) => a + (byYear.years.get(b) ?? 0), 0) / withRecords.length);
  const reductionShare = stageTarget(stage);
  const waste = figures.waste_kg;
  const result: Reduction = {
    establishment_id: scope.establishmentId,
    livemode: scope.livemode,
    stage,
    target:
      reductionShare === null
        ? null
        : { reduction: reductionShare, target_kg: baselineKg === null ? null : round3(baselineKg * (1 - reductionShare)) },
    year: {
      year: y,
      period: { from, to },
      complete: to === end,
      waste_kg: waste,
      measured_kg: figures.measurement.measured_kg,
      estimated_kg: figures.measurement.estimated_kg,
      not_stated_kg: figures.measurement.not_stated_kg,
    },
    baseline: { kind: query.baseline, years, years_with_records: withRecords, waste_kg: baselineKg },
    change_share: baselineKg ? Math.round(((waste - baselineKg) / baselineKg) * 10_000) / 10_000 : null,
    sales:
      sales.units === 0
        ? null
        : {
            sales_eur: Math.round(sales.eur * 100) / 100,
            unpriced_units: round3(sales.unpriced),
            waste_kg_per_1000_eur: sales.eur > 0 ? round3((waste / sales.eur) * 1000) : null,
          },
  };
  return { reduction: result, esrs: figures };
}

/** The Directive's 2030 reduction for a stage; null for a stage without one. */
export const stageTarget = (stage: FoodChainStage | null): number | null => (stage ? (TARGETS[stage] ?? null) : null);
