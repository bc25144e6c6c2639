import {
  FOOD_CHAIN_STAGES,
  type FoodChainStage,
  localDate,
  type OrganizationFigures,
  type ReductionBaseline,
  stageOfNace,
} from '@merma/schema';
import type { Sql } from '../../db/sql.js';
import { reductionAndEsrs, stageTarget } from './reduction.js';

/**
 * A year's food waste of an organisation, as a group reports it (ESRS are disclosed per
 * undertaking; a supplier questionnaire asks for the company): each establishment's year against
 * its own baseline (reduction.ts, in its own time zone and with its own stage), then summed by the
 * stage of the food supply chain and in all, and the ESRS E5-5 figures summed.
 *
 * Decided:
 * - A baseline is compared only with the establishments that have one: `baseline_kg` sums their
 *   baselines, `compared_waste_kg` the same establishments' year, and `change_share` compares those
 *   two. An establishment opened last year does not make the group look as if it grew.
 * - A stage's target is the Directive's reduction for it applied to that stage's baseline; the
 *   whole has no single target (its stages have different ones).
 * - Which establishments: every one of the organisation for an Enterprise Multi key and in the
 *   dashboard (a member sees every establishment); another key sees its own only, said by `scope`.
 * - The year, when not asked for, is the current one where it began last (the earliest of the
 *   establishments' local years): never a year that has not begun somewhere.
 * - The figures are each establishment's SQL sums (reduction.ts, esrs.ts) added here: a handful of
 *   numbers per establishment.
 */
type EstablishmentRow = { id: string; name: string; nace_code: string | null; timezone: string };

const round3 = (kg: number) => Math.round(kg * 1000) / 1000;
const share = (part: number, whole: number) => Math.round((part / whole) * 10_000) / 10_000;

/** A year against its baselines, of one establishment or summed: the schema's shape. */
type Line = OrganizationFigures['total'];

function sum(lines: readonly Line[]): Line {
  const add = (pick: (l: Line) => number) => round3(lines.reduce((a, l) => a + pick(l), 0));
  const based = lines.filter((l) => l.baseline_kg !== null);
  const baseline = based.length ? add((l) => (l.baseline_kg === null ? 0 : l.baseline_kg)) : null;
  const compared = based.length ? round3(based.reduce((a, l) => a + l.waste_kg, 0)) : null;
  return {
    waste_kg: add((l) => l.waste_kg),
    measured_kg: add((l) => l.measured_kg),
    estimated_kg: add((l) => l.estimated_kg),
    not_stated_kg: add((l) => l.not_stated_kg),
    baseline_kg: baseline,
    compared_waste_kg: compared,
    change_share: baseline && compared !== null ? share(compared - baseline, baseline) : null,
  };
}

export async function organizationFigures(
  sql: Sql,
  who: { organization: string; livemode: boolean; onlyEstablishment: string | null },
  query: { year?: number | undefined; baseline: ReductionBaseline },
  now: Date,
): Promise<OrganizationFigures> {
  const { rows } = await sql.query<EstablishmentRow>(
    `SELECT id::text, name, nace_code, timezone FROM establishments
     WHERE organization_id = $1::uuid AND ($2::uuid IS NULL OR id = $2::uuid) ORDER BY name, id`,
    [who.organization, who.onlyEstablishment],
  );
  const year = query.year ?? Math.min(...rows.map((e) => Number(localDate(now, e.timezone).slice(0, 4))));
  const each = await Promise.all(
    rows.map((e) =>
      reductionAndEsrs(
        sql,
        { establishmentId: e.id, livemode: who.livemode, timezone: e.timezone },
        { year, baseline: query.baseline },
        now,
      ),
    ),
  );
  const establishments = rows.map((e, i) => {
    const { reduction: r } = each[i] as (typeof each)[number];
    const stage = e.nace_code ? stageOfNace(e.nace_code) : null;
    return {
      establishment_id: e.id,
      name: e.name,
      stage,
      complete: r.year.complete,
      waste_kg: r.year.waste_kg,
      measured_kg: r.year.measured_kg,
      estimated_kg: r.year.estimated_kg,
      not_stated_kg: r.year.not_stated_kg,
      baseline_kg: r.baseline.waste_kg,
      compared_waste_kg: r.baseline.waste_kg === null ? null : r.year.waste_kg,
      change_share: r.change_share,
    };
  });
  // The stages in the food chain's order, then the establishments whose activity is not given.
  const present = new Set(establishments.map((e) => e.stage));
  const stages = [...FOOD_CHAIN_STAGES, null].filter((stage) => present.has(stage)) as (FoodChainStage | null)[];
  const by_stage = stages.map((stage) => {
    const of = establishments.filter((e) => e.stage === stage);
    const line = sum(of);
    const reduction = stageTarget(stage);
    return {
      stage,
      establishments: of.length,
      ...line,
      target:
        reduction === null ? null : { reduction, target_kg: line.baseline_kg === null ? null : round3(line.baseline_kg * (1 - reduction)) },
    };
  });
  const esrsList = each.map((x) => x.esrs);
  const total = (pick: (e: (typeof esrsList)[number]) => number) => round3(esrsList.reduce((a, e) => a + pick(e), 0));
  const waste = total((e) => e.waste_kg);
  const nonRecycled = total((e) => e.non_recycled_kg);
  const measured = total((e) => e.measurement.measured_kg);
  return {
    organization_id: who.organization,
    livemode: who.livemode,
    scope: who.onlyEstablishment === null ? 'organization' : 'establishment',
    year,
    baseline: query.baseline,
    establishments,
    by_stage,
    total: sum(establishments),
    esrs: {
      livemode: who.livemode,
      year,
      total_kg: total((e) => e.total_kg),
      not_waste_kg: total((e) => e.not_waste_kg),
      waste_kg: waste,
      diverted_from_disposal: {
        preparation_for_reuse_kg: total((e) => e.diverted_from_disposal.preparation_for_reuse_kg),
        recycling_kg: total((e) => e.diverted_from_disposal.recycling_kg),
        other_recovery_kg: total((e) => e.diverted_from_disposal.other_recovery_kg),
        total_kg: total((e) => e.diverted_from_disposal.total_kg),
      },
      directed_to_disposal: {
        incineration_kg: total((e) => e.directed_to_disposal.incineration_kg),
        landfill_kg: total((e) => e.directed_to_disposal.landfill_kg),
        other_disposal_kg: total((e) => e.directed_to_disposal.other_disposal_kg),
        total_kg: total((e) => e.directed_to_disposal.total_kg),
      },
      non_recycled_kg: nonRecycled,
      non_recycled_share: waste > 0 ? share(nonRecycled, waste) : null,
      measurement: {
        measured_kg: measured,
        estimated_kg: total((e) => e.measurement.estimated_kg),
        not_stated_kg: total((e) => e.measurement.not_stated_kg),
      },
      measured_share: waste > 0 ? share(measured, waste) : null,
    },
  };
}
