import type { HierarchyReason, PlanChanges, PlanLanguage, PreventionPlan } from '@merma/schema';
import type { Sql } from '../../db/sql.js';
import {
  type CatalogNames,
  causeLabel,
  destinationLabel,
  foodCategoryLabel,
  hierarchyReasonLabel,
  NO_SHIFT_LABEL,
  wasteStageLabel,
} from '../catalog/labels.js';
import type { PlanDonations } from '../donations/summary.js';
import type { StoredFollowUp } from './follow-up.js';
import { measureIdsFor, measureText } from './measures.js';

/**
 * A plan as `prevention_plans.content` keeps it (version 2): figures, codes and ids only, so one
 * stored plan is written in any language when it is read. The one text kept is a shift's name, the
 * establishment's own words, as it was when the plan was generated.
 *
 * Plans stored before version 2 carry their labels, measures and note as text (Spanish labels,
 * English measures); `readStoredPlan` turns them into version 2 by their keys, so they read in
 * either language too.
 */
export type Part = { key: string; kg: number; share: number };
export type StoredPlan = {
  version: 2;
  id: string;
  establishment_id: string;
  generated_at: string;
  period: { from: string; to: string };
  total_kg: number;
  total_records: number;
  by_stage: Part[];
  by_category: Part[];
  /** `key`: the cause id, or `none`; `name`: the stored name of version 1, used when the catalogue lacks the id. */
  by_cause: (Part & { name?: string })[];
  /** `key`: the shift id, or `none`; `name`: the shift's name. */
  by_shift: (Part & { name?: string })[];
  /** `key`: the destination's code. */
  destinations: (Part & { orden: number; es_recuperacion: boolean; name?: string })[];
  below_feed_kg: number;
  hotspots: { food_category: string; waste_stage: string; kg: number; share: number; measure_ids: string[] }[];
  target: { baseline_year: number | null; baseline_kg: number | null; target_2030_kg: number | null };
  /** Absent in plans stored before the plan had a donations section. */
  donations?: PlanDonations;
  /** The hierarchy's justifications grouped by reason (compliance/hierarchy.ts); absent in plans stored before the plan had this section. */
  hierarchy?: PlanHierarchy;
  /** The review date, the measures as followed up and the period's training (follow-up.ts); absent in plans stored before the plan had this section. */
  follow_up?: StoredFollowUp;
  /** The version it follows and what changed since; absent in the first version and in plans stored before versions were linked. */
  previous?: { id: string; generated_at: string; sha256: string | null; changes: PlanChanges };
};

/** The order of priorities kept in writing when the plan was generated: counts only, reasons as codes. */
export type PlanHierarchy = {
  year: number;
  below_best: { records: number; kg: number };
  justified: { records: number; kg: number };
  by_reason: { reason: string; records: number; kg: number }[];
  unjustified_count: number;
};

type LegacyShare = Part & { label?: string };
type LegacyPlan = Omit<StoredPlan, 'version' | 'by_cause' | 'by_shift' | 'destinations' | 'hotspots'> & {
  by_cause: LegacyShare[];
  by_shift: LegacyShare[];
  destinations: (LegacyShare & { orden: number; es_recuperacion: boolean })[];
  hotspots: { food_category: string; waste_stage: string; kg: number; share: number }[];
};

const part = ({ key, kg, share }: Part): Part => ({ key, kg, share });
const named = (s: LegacyShare) => ({ ...part(s), ...(s.key !== 'none' && s.label ? { name: s.label } : {}) });

/** The stored content of any version, as version 2. */
export function readStoredPlan(content: unknown): StoredPlan {
  const c = content as StoredPlan | LegacyPlan;
  if ('version' in c && c.version === 2) return c;
  const legacy = c as LegacyPlan;
  return {
    version: 2,
    id: legacy.id,
    establishment_id: legacy.establishment_id,
    generated_at: legacy.generated_at,
    period: legacy.period,
    total_kg: legacy.total_kg,
    total_records: legacy.total_records,
    by_stage: legacy.by_stage.map(part),
    by_category: legacy.by_category.map(part),
    by_cause: legacy.by_cause.map(named),
    by_shift: legacy.by_shift.map(named),
    destinations: legacy.destinations.map((d) => ({ ...named(d), orden: d.orden, es_recuperacion: d.es_recuperacion })),
    below_feed_kg: legacy.below_feed_kg,
    // Version 1 stored the words of exactly these measures.
    hotspots: legacy.hotspots.map((h) => ({ ...h, measure_ids: measureIdsFor(h.waste_stage, h.food_category) })),
    target: {
      baseline_year: legacy.target.baseline_year,
      baseline_kg: legacy.target.baseline_kg,
      target_2030_kg: legacy.target.target_2030_kg,
    },
  };
}

/** The catalogues' names (one query), for `localizePlan`. */
export async function loadCatalogNames(sql: Sql): Promise<CatalogNames> {
  const { rows } = await sql.query<{ kind: 'cause' | 'destination'; key: string; nombre: string }>(
    `SELECT 'cause' AS kind, id::text AS key, nombre FROM causes
     UNION ALL
     SELECT 'destination' AS kind, code AS key, nombre FROM destinations`,
  );
  const names: CatalogNames = { causes: new Map(), destinations: new Map() };
  for (const r of rows) (r.kind === 'cause' ? names.causes : names.destinations).set(r.key, r.nombre);
  return names;
}

/** What a plan asks for when no signed agreement is in force (Ley 1/2025 art. 6.4.b). */
export const DONATION_JUSTIFICATION: Record<PlanLanguage, string> = {
  es: 'No hay ningún convenio de donación firmado y en vigor para este establecimiento. La Ley 1/2025 (art. 6.4.b) obliga a promover convenios con entidades sociales o bancos de alimentos: el plan debe justificar por escrito por qué no se dona (por ejemplo, que no hay excedentes aptos para el consumo o que ninguna entidad de la zona puede recogerlos) o indicar cuándo se firmará uno.',
  en: 'No signed donation agreement is in force for this establishment. Ley 1/2025 (art. 6.4.b) requires promoting agreements with social entities or food banks: the plan must justify in writing why food is not donated (for example, no surplus fit for consumption, or no entity nearby able to collect it) or say when one will be signed.',
};

export const TARGET_NOTE: Record<PlanLanguage, { pending: string; set: (year: number) => string }> = {
  es: {
    pending:
      'El objetivo de reducción (un 50 % para 2030) se fija respecto al primer año natural completo con registros, que aún no ha terminado.',
    set: (year) => `Reducir el desperdicio alimentario un 50 % para 2030 respecto a ${year}, el primer año natural completo con registros.`,
  },
  en: {
    pending: 'The reduction target (50% by 2030) is set against the first full calendar year of records, which is not complete yet.',
    set: (year) => `Reduce food waste by 50% by 2030 against ${year}, the first full calendar year of records.`,
  },
};

/** The stored plan with every label, measure and note written in `lang`; `stored`: the version's number and digest. */
export function localizePlan(
  plan: StoredPlan,
  lang: PlanLanguage,
  names: CatalogNames,
  stored: { version: number; sha256: string | null },
): PreventionPlan {
  return {
    id: plan.id,
    establishment_id: plan.establishment_id,
    generated_at: plan.generated_at,
    lang,
    period: plan.period,
    total_kg: plan.total_kg,
    total_records: plan.total_records,
    by_stage: plan.by_stage.map((s) => ({ ...part(s), label: wasteStageLabel(s.key, lang) })),
    by_category: plan.by_category.map((s) => ({ ...part(s), label: foodCategoryLabel(s.key, lang) })),
    by_cause: plan.by_cause.map((s) => ({ ...part(s), label: causeLabel(s.key, lang, names, s.name) })),
    by_shift: plan.by_shift.map((s) => ({ ...part(s), label: s.key === 'none' ? NO_SHIFT_LABEL[lang] : (s.name ?? s.key) })),
    destinations: plan.destinations.map((d) => ({
      ...part(d),
      label: destinationLabel(d.key, lang, names, d.name),
      orden: d.orden,
      es_recuperacion: d.es_recuperacion,
    })),
    below_feed_kg: plan.below_feed_kg,
    hotspots: plan.hotspots.map((h) => ({
      food_category: h.food_category,
      food_category_label: foodCategoryLabel(h.food_category, lang),
      waste_stage: h.waste_stage,
      waste_stage_label: wasteStageLabel(h.waste_stage, lang),
      kg: h.kg,
      share: h.share,
      measures: h.measure_ids.flatMap((id) => measureText(id, lang) ?? []),
    })),
    target: {
      ...plan.target,
      reduction: 0.5,
      note: plan.target.baseline_year === null ? TARGET_NOTE[lang].pending : TARGET_NOTE[lang].set(plan.target.baseline_year),
    },
    donations: plan.donations === undefined ? null : localizeDonations(plan, plan.donations, lang, names),
    hierarchy:
      plan.hierarchy === undefined
        ? null
        : {
            ...plan.hierarchy,
            by_reason: plan.hierarchy.by_reason.map((r) => ({
              reason: r.reason as HierarchyReason,
              label: hierarchyReasonLabel(r.reason, lang),
              records: r.records,
              kg: r.kg,
            })),
          },
    follow_up:
      plan.follow_up === undefined
        ? null
        : {
            review_by: plan.follow_up.review_by,
            measures: plan.follow_up.tracked.map((m) => ({ ...m, text: measureText(m.measure_id, lang) ?? m.measure_id })),
            training: plan.follow_up.training,
          },
    version: stored.version,
    sha256: stored.sha256,
    previous: plan.previous ?? null,
  };
}

function localizeDonations(plan: StoredPlan, d: PlanDonations, lang: PlanLanguage, names: CatalogNames): PreventionPlan['donations'] {
  const donated = plan.destinations.find((x) => x.key === 'donation');
  const inForce = d.agreements.some((a) => a.status === 'active' || a.status === 'expiring');
  return {
    agreements: d.agreements,
    donated_kg: donated?.kg ?? 0,
    donated_share: donated?.share ?? 0,
    offered_kg: d.offered_kg,
    accepted_kg: d.accepted_kg,
    refused_kg: d.refused_kg,
    refusals: d.refusals.map((r) => ({
      ...r,
      rerouted_to_label: r.rerouted_to === null ? null : destinationLabel(r.rerouted_to, lang, names),
    })),
    justification: inForce ? null : DONATION_JUSTIFICATION[lang],
  };
}
