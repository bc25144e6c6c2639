import {
  type FoodChainStage,
  NACE_CLASSES,
  type ObligationKey,
  type Obligations,
  type OrganizationSize,
  type PlanLanguage,
  stageOfNace,
} from '@merma/schema';

/**
 * "Am I obliged?" — Ley 1/2025 (BOE-A-2025-6597) applied to one establishment. The rules, as the
 * law writes them:
 *
 * - **Microenterprise** (art. 3.f): fewer than ten staff and an annual turnover *or* balance sheet
 *   total of at most €2 million. Microenterprises are outside every obligation of art. 6 (art. 6.6).
 * - **Prevention plan** (art. 6.4.a) and **donation agreements** (art. 6.4.b; unless inviable and
 *   justified under art. 5.2): every agent, except (art. 6.4.c) processing, retail, distribution,
 *   hospitality and food-service activities carried out in establishments of 1,300 m² or less.
 *   Primary production has no such exception. Lacking the plan is a serious infringement
 *   (art. 20.2.b.1º; €2,001–60,000, art. 21), failing an agreement one is obliged to a minor one.
 * - **Hierarchy** (art. 5; art. 6.1): prevention first, then donation, animal feed, by-products,
 *   recycling and recovery — "siempre se aplicará" (art. 5.2), for every agent; not applying it
 *   without justifying why is a minor infringement (art. 20.2.a.1º).
 * - **When**: art. 6's obligations apply one year after the law's publication (2 April 2025;
 *   final provision 20ª): from {@link ARTICLE_6_FROM}.
 *
 * Decisions where the law's text leaves room, each the careful reading (a plan that was not owed
 * costs an afternoon; a missing one, a fine):
 * - **The 1,300 m²** are read per site *and* summed over the organisation's establishments under
 *   the same CIF: the sector's guidance reads it so for a company with several small premises,
 *   and the law's published text does not say the contrary. Either above 1,300 m² and the
 *   exception does not apply.
 * - **The area** is the floor area open to the public (sales area), the measure the sector's
 *   summaries use; the establishment says it (`floor_area_m2`).
 * - A fact that is missing makes the answer `unknown`, and `missing` says which — unless the
 *   answer follows without it (a microenterprise needs no area; premises of 1,300 m² or less in
 *   a food-service activity need no size).
 *
 * Not legal advice: each answer names the provisions it rests on, for the business's adviser.
 */
export const AREA_LIMIT_M2 = 1_300;
export const MICRO_STAFF = 10;
export const MICRO_EUR = 2_000_000;
export const ARTICLE_6_FROM = '2026-04-03';

export type Facts = {
  establishmentId: string;
  asOf: string;
  size: OrganizationSize;
  naceCode: string | null;
  floorArea: number | null;
  cif: { cif: string; establishments: number; floor_area_m2: number | null };
};

type Tri = boolean | null;

/** Art. 3.f: true, false, or null while the facts do not settle it. */
export function isMicroenterprise(size: OrganizationSize): Tri {
  if (size.headcount === null) return null;
  if (size.headcount >= MICRO_STAFF) return false;
  const money = [size.annual_turnover_eur, size.balance_sheet_eur];
  if (money.some((v) => v !== null && v <= MICRO_EUR)) return true;
  if (money.every((v) => v !== null)) return false;
  return null;
}

/** Above 1,300 m², per site or summed under the CIF: true, false, or null while an area is missing. */
export function isOverArea(site: number | null, cifTotal: number | null): Tri {
  if ((site !== null && site > AREA_LIMIT_M2) || (cifTotal !== null && cifTotal > AREA_LIMIT_M2)) return true;
  if (site !== null && cifTotal !== null) return false;
  return null;
}

type Reason =
  | 'not_yet_applicable'
  | 'microenterprise'
  | 'small_premises'
  | 'over_area'
  | 'primary_production'
  | 'size_missing'
  | 'area_missing'
  | 'activity_missing'
  | 'every_agent';

const ARTICLES: Record<ObligationKey, string> = {
  prevention_plan: 'Ley 1/2025, art. 6.4.a',
  donation_agreements: 'Ley 1/2025, art. 6.4.b',
  hierarchy: 'Ley 1/2025, art. 5',
};

const WHY_ARTICLES: Partial<Record<Reason, string[]>> = {
  not_yet_applicable: ['Ley 1/2025, disp. final 20ª'],
  microenterprise: ['Ley 1/2025, art. 3.f', 'Ley 1/2025, art. 6.6'],
  small_premises: ['Ley 1/2025, art. 6.4.c'],
  over_area: ['Ley 1/2025, art. 6.4.c'],
  primary_production: ['Ley 1/2025, art. 6.4.c'],
  every_agent: ['Ley 1/2025, art. 5.2', 'Ley 1/2025, art. 6.1'],
};

const SANCTION: Partial<Record<ObligationKey, string[]>> = {
  prevention_plan: ['Ley 1/2025, art. 20.2.b.1º', 'Ley 1/2025, art. 21'],
  donation_agreements: ['Ley 1/2025, art. 20.2.a.2º'],
  hierarchy: ['Ley 1/2025, art. 20.2.a.1º'],
};

const TEXT: Record<
  PlanLanguage,
  { what: Record<ObligationKey, string>; why: Record<Reason, string>; fine: Partial<Record<ObligationKey, string>> }
> = {
  es: {
    what: {
      prevention_plan: 'Plan de prevención de las pérdidas y el desperdicio alimentario',
      donation_agreements: 'Convenios para donar los excedentes',
      hierarchy: 'Jerarquía de prioridades (prevenir, donar, alimentación animal, subproductos, reciclar)',
    },
    why: {
      not_yet_applicable: `Las obligaciones del artículo 6 se aplican desde el ${ARTICLE_6_FROM}, un año después de la publicación de la ley.`,
      microenterprise:
        'No obligado: la empresa es una microempresa (menos de 10 personas y volumen de negocios o balance de hasta 2 millones de euros), excluida del artículo 6.',
      small_premises: `No obligado: la actividad se desarrolla en un establecimiento de 1.300 m² o menos, también sumando los del mismo CIF.`,
      over_area: `Obligado: el establecimiento, o la suma de los del mismo CIF, supera los 1.300 m², y la empresa no es una microempresa.`,
      primary_production: 'Obligado: la producción primaria no tiene la excepción por superficie, y la empresa no es una microempresa.',
      size_missing:
        'Sin determinar: falta el tamaño de la empresa (plantilla y volumen de negocios o balance) para saber si es una microempresa.',
      area_missing: 'Sin determinar: falta la superficie del establecimiento, o la de otro establecimiento del mismo CIF.',
      activity_missing: 'Sin determinar: falta la actividad (código CNAE) del establecimiento.',
      every_agent:
        'Obligado: la jerarquía se aplica siempre, a todos los agentes de la cadena alimentaria; si no se sigue, hay que justificar por qué.',
    },
    fine: {
      prevention_plan: 'No tenerlo estando obligado es una infracción grave (multa de 2.001 a 60.000 euros).',
      donation_agreements: 'Se exceptúa cuando donar resulte inviable y quede justificado (art. 5.2).',
      hierarchy: 'No aplicarla sin justificarlo es una infracción leve.',
    },
  },
  en: {
    what: {
      prevention_plan: 'Food loss and waste prevention plan',
      donation_agreements: 'Agreements to donate surplus food',
      hierarchy: 'Order of priorities (prevent, donate, animal feed, by-products, recycle)',
    },
    why: {
      not_yet_applicable: `The obligations of article 6 apply from ${ARTICLE_6_FROM}, one year after the law was published.`,
      microenterprise:
        'Not obliged: the company is a microenterprise (fewer than 10 staff and a turnover or balance sheet of up to €2 million), outside article 6.',
      small_premises: `Not obliged: the activity is carried out in premises of 1,300 m² or less, also counting those under the same CIF.`,
      over_area: `Obliged: the premises, or those under the same CIF together, exceed 1,300 m², and the company is not a microenterprise.`,
      primary_production: 'Obliged: primary production has no exception for small premises, and the company is not a microenterprise.',
      size_missing:
        "Not settled: the company's size (staff, and turnover or balance sheet) is missing to tell whether it is a microenterprise.",
      area_missing: "Not settled: the establishment's floor area, or that of another establishment under the same CIF, is missing.",
      activity_missing: "Not settled: the establishment's activity (NACE code) is missing.",
      every_agent: 'Obliged: the order of priorities always applies, to every agent of the food chain; not following it must be justified.',
    },
    fine: {
      prevention_plan: 'Lacking it when obliged is a serious infringement (a fine of €2,001 to €60,000).',
      donation_agreements: 'Except where donating is not viable and this is justified (art. 5.2).',
      hierarchy: 'Not applying it without justification is a minor infringement.',
    },
  },
};

/** Whether art. 6.4's obligations apply, and why. */
function article6(facts: Facts, micro: Tri, stage: FoodChainStage | null): { applies: 'yes' | 'no' | 'unknown'; reason: Reason } {
  if (facts.asOf < ARTICLE_6_FROM) return { applies: 'no', reason: 'not_yet_applicable' };
  if (micro === true) return { applies: 'no', reason: 'microenterprise' };
  const over = isOverArea(facts.floorArea, facts.cif.floor_area_m2);
  if (stage === 'primary_production')
    return micro === false ? { applies: 'yes', reason: 'primary_production' } : { applies: 'unknown', reason: 'size_missing' };
  // Premises of 1,300 m² or less: the exception, whatever the size — once the activity is known to be one it covers.
  if (over === false) return stage ? { applies: 'no', reason: 'small_premises' } : { applies: 'unknown', reason: 'activity_missing' };
  if (micro === null) return { applies: 'unknown', reason: 'size_missing' };
  if (over === true) return { applies: 'yes', reason: 'over_area' };
  return { applies: 'unknown', reason: 'area_missing' };
}

/** The answer for `facts`, every text in `lang`. */
export function obligationsOf(facts: Facts, lang: PlanLanguage): Obligations {
  const micro = isMicroenterprise(facts.size);
  const stage = facts.naceCode ? stageOfNace(facts.naceCode) : null;
  const t = TEXT[lang];
  const art6 = article6(facts, micro, stage);
  const item = (key: ObligationKey, applies: 'yes' | 'no' | 'unknown', reason: Reason) => ({
    key,
    applies,
    reason,
    articles: [ARTICLES[key], ...(WHY_ARTICLES[reason] ?? []), ...(applies === 'no' ? [] : (SANCTION[key] ?? []))],
    text: `${t.what[key]}. ${t.why[reason]}${applies === 'no' || !t.fine[key] ? '' : ` ${t.fine[key]}`}`,
  });
  const missing: Obligations['missing'] = [];
  if (facts.size.headcount === null) missing.push('headcount');
  if (micro === null && facts.size.annual_turnover_eur === null && facts.size.balance_sheet_eur === null)
    missing.push('annual_turnover_eur', 'balance_sheet_eur');
  if (facts.naceCode === null) missing.push('nace_code');
  if (facts.floorArea === null) missing.push('floor_area_m2');
  else if (facts.cif.floor_area_m2 === null) missing.push('cif_floor_area_m2');
  return {
    establishment_id: facts.establishmentId,
    as_of: facts.asOf,
    lang,
    organization: { ...facts.size, microenterprise: micro },
    establishment: {
      nace_code: facts.naceCode,
      nace_label: facts.naceCode ? (NACE_CLASSES[facts.naceCode]?.[lang] ?? null) : null,
      stage,
      floor_area_m2: facts.floorArea,
    },
    cif: facts.cif,
    obligations: [
      item('prevention_plan', art6.applies, art6.reason),
      item('donation_agreements', art6.applies, art6.reason),
      item('hierarchy', 'yes', 'every_agent'),
    ],
    missing,
  };
}
