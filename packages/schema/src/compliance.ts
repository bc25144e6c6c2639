import { z } from 'zod';
import { FoodCategory, HierarchyReason, IsoDate, queryInt, Timestamp, Uuid } from './common.js';
import { ESRS_YEARS } from './constants.js';
import { Envelope } from './envelope.js';
import { FOOD_CHAIN_STAGES, NACE_CLASSES, normalizeNace } from './nace.js';
import { PlanLanguage } from './plan.js';

export * from './nace.js';

/** The largest floor area accepted, in m² (a hypermarket is some 20,000). */
export const MAX_FLOOR_AREA_M2 = 1_000_000;
/** The largest amount of money accepted for a turnover or a balance sheet, in euros. */
export const MAX_COMPANY_EUR = 1e13;

export const FoodChainStage = z
  .enum(FOOD_CHAIN_STAGES)
  .meta({ id: 'FoodChainStage', description: 'A stage of the food supply chain as Delegated Decision (EU) 2019/1597 measures food waste' });
export type FoodChainStage = z.infer<typeof FoodChainStage>;

/** A NACE Rev. 2 class of the food chain: "56.10", or CNAE-2009's "5610". */
export const NaceCode = z
  .string()
  .transform(normalizeNace)
  .refine((code) => code in NACE_CLASSES, {
    message: 'unknown NACE code: give a NACE Rev. 2 class of the food chain, such as 56.10 (restaurants) or 47.11 (food retail)',
  })
  .describe('NACE Rev. 2 class of the establishment\'s activity ("56.10"; CNAE-2009\'s "5610" is accepted), one of the food chain\'s');

/** Floor area open to the public (sales or dining area), in m². */
export const FloorArea = z.number().min(0).max(MAX_FLOOR_AREA_M2).describe('floor area open to the public (sales area), in m²');
/** The calendar years the ESRS E5-5 figures are asked for. */
const ESRS_YEAR = "calendar year in the establishment's time zone; the current one by default (to date)";
/** A year as a number (the dashboard's calls). */
export const EsrsYear = z.number().int().min(ESRS_YEARS.min).max(ESRS_YEARS.max).describe(ESRS_YEAR);

/** `PATCH /api/v1/establishments/{id}`: an establishment's activity and floor area; null clears. */
export const UpdateEstablishmentInput = z
  .strictObject({
    id: Uuid,
    nace_code: NaceCode.nullable().optional(),
    floor_area_m2: FloorArea.nullable()
      .optional()
      .describe(FloorArea.description ?? ''),
  })
  .refine((b) => b.nace_code !== undefined || b.floor_area_m2 !== undefined, {
    message: 'nothing to change: give nace_code or floor_area_m2',
  })
  .meta({ id: 'UpdateEstablishmentInput' });
export type UpdateEstablishmentInput = z.input<typeof UpdateEstablishmentInput>;

/** An organisation's size, for the microenterprise test; null clears. */
export const OrganizationSize = z.strictObject({
  headcount: z.number().int().min(0).max(10_000_000).nullable().describe('staff headcount in annual work units'),
  annual_turnover_eur: z.number().min(0).max(MAX_COMPANY_EUR).nullable().describe('annual turnover, in euros'),
  balance_sheet_eur: z.number().min(0).max(MAX_COMPANY_EUR).nullable().describe('annual balance sheet total, in euros'),
});
export type OrganizationSize = z.infer<typeof OrganizationSize>;

export const OBLIGATION_KEYS = ['prevention_plan', 'donation_agreements', 'hierarchy'] as const;
export const ObligationKey = z.enum(OBLIGATION_KEYS);
export type ObligationKey = z.infer<typeof ObligationKey>;

/**
 * "Am I obliged?": what Ley 1/2025 asks of one establishment, from its organisation's size, its
 * activity and its floor area, and those of the establishments under the same CIF. Each
 * obligation says whether it applies (`unknown` while a fact it rests on is missing), why, and
 * the articles it rests on; `missing` lists the facts to give. Not legal advice: the answer
 * applies the rules as written in the law, which the text of each obligation quotes.
 */
export const Obligations = z
  .object({
    establishment_id: Uuid,
    as_of: IsoDate.describe("the day the answer is for, in the establishment's time zone"),
    lang: PlanLanguage,
    organization: OrganizationSize.extend({
      microenterprise: z
        .boolean()
        .nullable()
        .describe('fewer than 10 staff and a turnover or balance sheet of at most €2 million; null while the facts are missing'),
    }),
    establishment: z.object({
      nace_code: z.string().nullable(),
      nace_label: z.string().nullable().describe("the class's name in the requested language"),
      stage: FoodChainStage.nullable().describe('from the NACE class; null until the activity is given'),
      floor_area_m2: z.number().nullable(),
    }),
    cif: z.object({
      cif: z.string(),
      establishments: z.number().int().describe('establishments of the organisation under this CIF, this one included'),
      floor_area_m2: z.number().nullable().describe('the sum of their floor areas; null while one of them has none'),
    }),
    obligations: z.array(
      z.object({
        key: ObligationKey,
        applies: z.enum(['yes', 'no', 'unknown']),
        reason: z.string().describe('why, as a stable code'),
        articles: z.array(z.string()).describe('the provisions it rests on, e.g. "Ley 1/2025, art. 6.1.a"'),
        text: z.string().describe('the answer in words, in the requested language'),
      }),
    ),
    missing: z
      .array(z.enum(['headcount', 'annual_turnover_eur', 'balance_sheet_eur', 'nace_code', 'floor_area_m2', 'cif_floor_area_m2']))
      .describe('facts still to give for a complete answer; `cif_floor_area_m2`: another establishment under the CIF has no floor area'),
  })
  .meta({ id: 'Obligations' });
export type Obligations = z.infer<typeof Obligations>;
export const ObligationsResponse = Envelope(Obligations);
export const ObligationsQuery = z.strictObject({ lang: PlanLanguage.default('es') });

/** `GET /api/v1/compliance/esrs-e5`: the calendar year (the establishment's), this one by default. */
export const EsrsE5Query = z.strictObject({
  year: queryInt(ESRS_YEARS.min, ESRS_YEARS.max).optional().describe(ESRS_YEAR),
});
export type EsrsE5Query = z.input<typeof EsrsE5Query>;

/** `GET /api/v1/compliance/esrs-e5.csv`: the same year, and the language of the file (`es`: Spanish spreadsheet form). */
export const EsrsE5CsvQuery = EsrsE5Query.extend({ lang: PlanLanguage.default('es') });
export type EsrsE5CsvQuery = z.input<typeof EsrsE5CsvQuery>;

/**
 * The register's food waste in the terms of ESRS E5-5 (resource outflows: waste), for one
 * establishment, mode and calendar year, in kg: what left as waste, diverted from disposal by
 * recovery operation or directed to disposal by treatment, and the non-recycled share. Food kept
 * for people (processed or donated), animal feed and by-products are not waste (Delegated
 * Decision (EU) 2019/1597) and are reported beside it. Food waste is non-hazardous: every figure
 * is of non-hazardous waste.
 */
export const EsrsE5 = z
  .object({
    establishment_id: Uuid,
    livemode: z.boolean(),
    year: z.number().int(),
    period: z.object({ from: IsoDate, to: IsoDate }).describe('the local days counted: the whole year, or up to today in the current one'),
    total_kg: z.number().describe('every kg recorded in the period, waste or not'),
    not_waste_kg: z.number().describe('processed for people, donated, animal feed or by-products: not waste'),
    waste_kg: z.number().describe('total_kg − not_waste_kg: the ESRS E5-5 total waste generated'),
    diverted_from_disposal: z.object({
      preparation_for_reuse_kg: z.number(),
      recycling_kg: z.number().describe('composting and anaerobic digestion (R3)'),
      other_recovery_kg: z.number().describe('energy recovery (R1)'),
      total_kg: z.number(),
    }),
    directed_to_disposal: z.object({
      incineration_kg: z.number().describe('D10'),
      landfill_kg: z.number().describe('D1'),
      other_disposal_kg: z.number().describe('to sewer'),
      total_kg: z.number(),
    }),
    non_recycled_kg: z.number().describe('waste_kg − recycling_kg'),
    non_recycled_share: z.number().nullable().describe('non_recycled_kg / waste_kg; null without waste'),
    measurement: z
      .object({
        measured_kg: z.number().describe('weighed, counted or booked as a write-off (`estimated` false)'),
        estimated_kg: z.number().describe('estimated, or extrapolated from a composition analysis (`estimated` true)'),
        not_stated_kg: z
          .number()
          .describe('records that did not say how they were measured (stored before the register asked, or sent without it)'),
      })
      .describe("how waste_kg was measured, from each record's `measurement_method` and `estimated`"),
    measured_share: z
      .number()
      .nullable()
      .describe(
        'measured_kg / waste_kg: the share measured directly (ESRS E5-5 asks it); a record that does not say counts as not measured; null without waste',
      ),
    by_destination: z.array(z.object({ code: z.string(), wfd_operation: z.string(), kg: z.number() })),
  })
  .meta({ id: 'EsrsE5' });
export type EsrsE5 = z.infer<typeof EsrsE5>;
export const EsrsE5Response = Envelope(EsrsE5);

/** `GET /api/v1/compliance/hierarchy`: the calendar year (the establishment's), this one by default. */
export const HierarchyQuery = z.strictObject({
  year: queryInt(ESRS_YEARS.min, ESRS_YEARS.max).optional().describe(ESRS_YEAR),
});
export type HierarchyQuery = z.input<typeof HierarchyQuery>;

/** What a year's food waste is compared with: the EU's 2021–2023 average, 2020 (Ley 1/2025's reference), or the first full year measured. */
export const REDUCTION_BASELINES = ['2021-2023', '2020', 'first_year'] as const;
export const ReductionBaseline = z.enum(REDUCTION_BASELINES).meta({
  id: 'ReductionBaseline',
  description:
    "What the year is compared with: `2021-2023` (the average of the years of 2021–2023 with records, the Waste Framework Directive's 2030 baseline), `2020` (Ley 1/2025's reference year) or `first_year` (the first full calendar year with records, the prevention plan's own baseline).",
});
export type ReductionBaseline = z.infer<typeof ReductionBaseline>;

/** `GET /api/v1/compliance/reduction`. */
export const ReductionQuery = z.strictObject({
  year: queryInt(ESRS_YEARS.min, ESRS_YEARS.max).optional().describe(ESRS_YEAR),
  baseline: ReductionBaseline.default('2021-2023'),
});
export type ReductionQuery = z.input<typeof ReductionQuery>;

/**
 * A year's food waste against a baseline, in the terms of the 2030 targets of the Waste Framework
 * Directive as revised in 2025 (art. 9a): food waste is what Delegated Decision (EU) 2019/1597
 * counts — donated food, animal feed and by-products are not waste —, by the establishment's stage.
 */
export const Reduction = z
  .object({
    establishment_id: Uuid,
    livemode: z.boolean(),
    stage: FoodChainStage.nullable().describe("the establishment's stage, from its NACE class; null until its activity is given"),
    target: z
      .object({
        reduction: z
          .number()
          .describe(
            'the 2030 reduction the Directive sets for the stage: 0.10 (processing and manufacturing) or 0.30 (retail, distribution and food services, per capita nationally)',
          ),
        target_kg: z
          .number()
          .nullable()
          .describe("the baseline less that reduction, as the establishment's own indicative target; null without a baseline"),
      })
      .nullable()
      .describe('null for a stage without a target (primary production) or an establishment without a stage'),
    year: z.object({
      year: z.number().int(),
      period: z.object({ from: IsoDate, to: IsoDate }),
      complete: z.boolean().describe('whether the year has ended: a year to date compares part of a year with whole ones'),
      waste_kg: z.number(),
      measured_kg: z.number().describe('of it, weighed, counted or from a POS/ERP write-off'),
      estimated_kg: z.number(),
      not_stated_kg: z.number(),
    }),
    baseline: z.object({
      kind: ReductionBaseline,
      years: z.array(z.number().int()).describe('the years the baseline is made of'),
      years_with_records: z.array(z.number().int()),
      waste_kg: z.number().nullable().describe('the average yearly food waste of the years with records; null when none has'),
    }),
    change_share: z.number().nullable().describe('(year − baseline) / baseline: −0.12 is 12 % less; null without a baseline'),
    sales: z
      .object({
        sales_eur: z.number().describe("the year's units sold × each product's price today"),
        unpriced_units: z.number().describe('units sold of products without a price, left out'),
        waste_kg_per_1000_eur: z.number().nullable(),
      })
      .nullable()
      .describe('food waste per € of sales, where sales are sent to Merma; null when none are'),
  })
  .meta({ id: 'Reduction' });
export type Reduction = z.infer<typeof Reduction>;
export const ReductionResponse = Envelope(Reduction);

/** `GET /api/v1/compliance/organization`: the same year and baseline as `/compliance/reduction`. */
export const OrganizationFiguresQuery = ReductionQuery;
export type OrganizationFiguresQuery = z.input<typeof OrganizationFiguresQuery>;

const Kg = z.number();
/** A year's food waste of some establishments, how it was measured, and against their baselines. */
const WasteAgainstBaseline = z.object({
  waste_kg: Kg.describe('food waste as Delegated Decision (EU) 2019/1597 counts it'),
  measured_kg: Kg,
  estimated_kg: Kg,
  not_stated_kg: Kg,
  baseline_kg: Kg.nullable().describe('the sum of the baselines of the establishments that have one; null when none has'),
  compared_waste_kg: Kg.nullable().describe("the year's food waste of those same establishments, what `change_share` compares"),
  change_share: z.number().nullable().describe('(compared_waste_kg − baseline_kg) / baseline_kg; null without a baseline'),
});

/**
 * A year's food waste of an organisation's establishments: each establishment's, then summed by
 * the stage of the food supply chain (Delegated Decision (EU) 2019/1597) and in all, with how it
 * was measured and against each establishment's own baseline, and the ESRS E5-5 figures summed.
 */
export const OrganizationFigures = z
  .object({
    organization_id: Uuid,
    livemode: z.boolean(),
    scope: z
      .enum(['organization', 'establishment'])
      .describe(
        '`organization`: every establishment (an Enterprise Multi key, or the dashboard); `establishment`: the key sees its own only',
      ),
    year: z.number().int(),
    baseline: ReductionBaseline,
    establishments: z.array(
      WasteAgainstBaseline.extend({
        establishment_id: Uuid,
        name: z.string(),
        stage: FoodChainStage.nullable(),
        complete: z.boolean().describe("whether the year has ended in the establishment's time zone"),
      }),
    ),
    by_stage: z.array(
      WasteAgainstBaseline.extend({
        stage: FoodChainStage.nullable().describe('null: establishments whose activity is not given yet'),
        establishments: z.number().int(),
        target: z
          .object({ reduction: z.number(), target_kg: Kg.nullable() })
          .nullable()
          .describe("the Directive's 2030 reduction for the stage applied to the stage's baseline; null for a stage without one"),
      }),
    ),
    total: WasteAgainstBaseline,
    esrs: EsrsE5.omit({ establishment_id: true, period: true, by_destination: true }).describe(
      "the ESRS E5-5 figures of every establishment summed (each establishment's calendar year in its own time zone)",
    ),
  })
  .meta({ id: 'OrganizationFigures' });
export type OrganizationFigures = z.infer<typeof OrganizationFigures>;
export const OrganizationFiguresResponse = Envelope(OrganizationFigures);

/**
 * `GET /api/v1/compliance/dossier.zip`: the inspection dossier of a calendar year (the
 * establishment's, this one to date by default), its texts in `lang` (`es` by default, or `en`).
 */
export const DossierQuery = z.strictObject({
  year: queryInt(ESRS_YEARS.min, ESRS_YEARS.max).optional().describe(ESRS_YEAR),
  lang: PlanLanguage.default('es'),
});
export type DossierQuery = z.input<typeof DossierQuery>;

const KgAndRecords = z.object({ records: z.number().int(), kg: z.number() });

/** A record sent lower than its category's best step in the year, with no justification. */
export const UnjustifiedRecord = z.object({
  id: Uuid,
  occurred_at: Timestamp,
  food_category: FoodCategory,
  weight_kg: z.number(),
  destino_id: Uuid,
  best_destino_id: Uuid.describe('the highest step the same category went to in the year'),
});

/**
 * The order of priorities kept in writing (Ley 1/2025 art. 5.2): for one establishment, mode and
 * calendar year, the highest step of the hierarchy each food category went to, the records sent
 * lower than that step — which need a written justification (`hierarchy_reason` on the record) —
 * how many have one, grouped by reason, and the ones still without, newest first. Nothing is
 * refused for lacking one: this report is how a kitchen finds them.
 */
export const HierarchyReport = z
  .object({
    establishment_id: Uuid,
    livemode: z.boolean(),
    year: z.number().int(),
    period: z.object({ from: IsoDate, to: IsoDate }),
    best_by_category: z
      .array(z.object({ food_category: FoodCategory, destino_id: Uuid, code: z.string() }))
      .describe("each category's highest step in the year (the destinations' `orden`)"),
    below_best: KgAndRecords.describe("records sent lower than their category's best step: each wants a justification"),
    justified: KgAndRecords.describe('of those, the ones with a `hierarchy_reason`'),
    by_reason: z.array(z.object({ reason: HierarchyReason, records: z.number().int(), kg: z.number() })),
    unjustified_count: z.number().int(),
    unjustified: z.array(UnjustifiedRecord).describe('the records still without a justification, newest first, at most 100'),
  })
  .meta({ id: 'HierarchyReport' });
export type HierarchyReport = z.infer<typeof HierarchyReport>;
export const HierarchyReportResponse = Envelope(HierarchyReport);

/** The most unjustified records a hierarchy report lists. */
export const MAX_UNJUSTIFIED_LISTED = 100;
