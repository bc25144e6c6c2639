import { z } from 'zod';
import { HierarchyReason, IsoDate, Timestamp, Uuid } from './common.js';
import { DEFAULT_PLAN_HISTORY_LIMIT, MAX_PAGE_LIMIT, MEASURE_STATUSES, PLAN_LANGUAGES } from './constants.js';
import { KeysetCursor } from './cursor.js';
import { Envelope } from './envelope.js';

/** The language of a prevention plan's labels, measures, notes and Markdown document. */
export const PlanLanguage = z
  .enum(PLAN_LANGUAGES)
  .meta({ id: 'PlanLanguage', description: 'The language of a prevention plan: `es` (Spanish) or `en` (English).' });
export type PlanLanguage = z.infer<typeof PlanLanguage>;

/** How far a measure has gone: planned (the default), in progress, done, or dropped. */
export const MeasureStatus = z.enum(MEASURE_STATUSES).meta({
  id: 'MeasureStatus',
  description: 'How far a measure has gone: `planned` (until someone says otherwise), `in_progress`, `done` or `dropped`.',
});
export type MeasureStatus = z.infer<typeof MeasureStatus>;

const lang = PlanLanguage.default('es').describe(
  'Language of the labels, measures, target note and Markdown document: `es` (Spanish, default) or `en` (English)',
);

const KgShare = z.object({
  key: z.string().describe('stable key: a stage or food category code, a cause or shift id, a destination code, or `none`'),
  label: z.string().describe('name of the key in the requested language'),
  kg: z.number(),
  share: z.number(),
});

const PlanVersion = z
  .number()
  .int()
  .min(1)
  .describe("the version's number within the establishment and mode: 1 for the first plan generated, then one more for each");
const PlanSha256 = z
  .string()
  .regex(/^[0-9a-f]{64}$/)
  .nullable()
  .describe(
    "SHA-256 (hex) of the stored version as the database writes it (its content as PostgreSQL's jsonb text), entered into the register's documents chain and signed by every checkpoint after it (`GET /records/verify` re-hashes it); null for plans stored before versions were hashed (29 November 2026)",
  );

const Delta = z.object({ from: z.number(), to: z.number() });
const Hotspot = z.object({ food_category: z.string(), waste_stage: z.string() });

/** What changed between a plan version and the one before it: figures, hotspots, agreements, target. */
export const PlanChanges = z
  .object({
    period_from: IsoDate.describe("the previous version's period start"),
    period_to: IsoDate.describe("the previous version's period end"),
    total_kg: Delta,
    total_records: Delta,
    below_feed_kg: Delta,
    hotspots_added: z.array(Hotspot).describe('hotspots (food category and stage) in this version and not in the previous one'),
    hotspots_removed: z.array(Hotspot).describe('hotspots in the previous version and no longer in this one'),
    agreements_added: z.array(Uuid).describe('donation agreements listed now and not before'),
    agreements_removed: z.array(Uuid),
    baseline_year: z
      .object({ from: z.number().int().nullable(), to: z.number().int().nullable() })
      .nullable()
      .describe("the target's baseline year when it changed; null when it did not"),
  })
  .meta({ id: 'PreventionPlanChanges' });
export type PlanChanges = z.infer<typeof PlanChanges>;

/**
 * A food-waste prevention plan (Ley 1/2025, art. 6), computed from the establishment's records of the
 * last 12 months: where losses occur, where they go in the hierarchy, the hotspots, a reduction target
 * and measures for each hotspot. Figures and keys are stored once; labels, measures and notes are
 * written in the language asked for (`lang`), so one plan reads in Spanish or English.
 */
export const PreventionPlan = z
  .object({
    id: Uuid,
    establishment_id: Uuid,
    generated_at: Timestamp,
    /** The language of every text of this answer. */
    lang: PlanLanguage,
    period: z.object({ from: IsoDate, to: IsoDate }),
    total_kg: z.number(),
    total_records: z.number().int(),
    by_stage: z.array(KgShare),
    by_category: z.array(KgShare),
    by_cause: z.array(KgShare),
    by_shift: z.array(KgShare),
    destinations: z.array(KgShare.extend({ orden: z.number().int(), es_recuperacion: z.boolean() })),
    below_feed_kg: z.number().describe('kg sent to destinations below donation and animal feed in the hierarchy'),
    hotspots: z.array(
      z.object({
        food_category: z.string(),
        food_category_label: z.string(),
        waste_stage: z.string().describe('a waste stage, or `none` when the records name none'),
        waste_stage_label: z.string(),
        kg: z.number(),
        share: z.number(),
        measures: z.array(z.string()),
      }),
    ),
    target: z.object({
      baseline_year: z.number().int().nullable(),
      baseline_kg: z.number().nullable(),
      target_2030_kg: z.number().nullable(),
      reduction: z.literal(0.5),
      note: z.string(),
    }),
    donations: z
      .object({
        agreements: z.array(
          z.object({
            id: Uuid,
            entity_name: z.string(),
            valid_from: IsoDate,
            valid_until: IsoDate,
            status: z.enum(['draft', 'active', 'expiring', 'expired']).describe('on the day the plan was generated'),
          }),
        ),
        donated_kg: z.number().describe('kg of the period whose destination is donation in the register'),
        donated_share: z.number().describe('donated_kg over total_kg'),
        offered_kg: z.number().describe('kg offered to social entities in the period (`/donations`)'),
        accepted_kg: z.number(),
        refused_kg: z.number(),
        refusals: z
          .array(
            z.object({
              donation_id: Uuid,
              offered_at: Timestamp,
              entity_name: z.string(),
              description: z.string(),
              kg: z.number(),
              reason: z.string().describe("the entity's reason"),
              rerouted_to: z.string().nullable().describe("the destination's code it was sent to instead; null while it waits"),
              rerouted_to_label: z.string().nullable(),
            }),
          )
          .describe('every refused line of the period, the newest 100'),
        justification: z
          .string()
          .nullable()
          .describe(
            'when no signed agreement is in force for the establishment: what the law asks the plan to justify in writing (Ley 1/2025 art. 6.4.b); null otherwise',
          ),
      })
      .nullable()
      .describe('donations (Ley 1/2025 art. 6 and 7); null in plans generated before the plan had this section'),
    hierarchy: z
      .object({
        year: z.number().int().describe("the calendar year of the plan's last day, to that day"),
        below_best: z
          .object({ records: z.number().int(), kg: z.number() })
          .describe("records sent lower than their food category's best step of the year"),
        justified: z.object({ records: z.number().int(), kg: z.number() }).describe('of those, the ones with a `hierarchy_reason`'),
        by_reason: z.array(
          z.object({
            reason: HierarchyReason,
            label: z.string().describe('the reason in `lang`'),
            records: z.number().int(),
            kg: z.number(),
          }),
        ),
        unjustified_count: z.number().int().describe('records below their best step still without a reason'),
      })
      .nullable()
      .describe(
        'the order of priorities kept in writing (Ley 1/2025 art. 5.2) when the plan was generated, as `GET /compliance/hierarchy` counts it, the justifications grouped by reason; null in plans generated before the plan had this section',
      ),
    follow_up: z
      .object({
        review_by: IsoDate.describe(
          "when the plan is to be reviewed at the latest: a year after it was generated, in the establishment's time zone",
        ),
        measures: z
          .array(
            z.object({
              measure_id: z.string().describe("the measure's stable id"),
              text: z.string().describe('the measure in `lang`'),
              owner: z.string().nullable(),
              due_on: IsoDate.nullable(),
              status: MeasureStatus,
            }),
          )
          .describe("each measure of the plan's hotspots, once, as it was followed up when the plan was generated"),
        training: z
          .array(
            z.object({
              held_on: IsoDate,
              topic: z.string(),
              trainer: z.string().nullable(),
              attendees: z.number().int(),
            }),
          )
          .describe("the staff training sessions held in the plan's period, oldest first"),
      })
      .nullable()
      .describe(
        'the follow-up of the plan when it was generated: its review date, who carries out each measure by when and how far it has gone, and the training held; null in plans generated before the plan had this section',
      ),
    version: PlanVersion,
    sha256: PlanSha256,
    previous: z
      .object({
        id: Uuid,
        generated_at: Timestamp,
        sha256: z.string().nullable().describe("the previous version's SHA-256; null when it was stored before versions were hashed"),
        changes: PlanChanges,
      })
      .nullable()
      .describe(
        'the version this one follows (the newest plan of the establishment and mode when it was generated) and what changed since it; null for the first version, and for plans stored before versions were linked',
      ),
    markdown: z.string().optional(),
  })
  .meta({ id: 'PreventionPlan' });
export type PreventionPlan = z.infer<typeof PreventionPlan>;

export const PreventionPlanQuery = z.strictObject({ format: z.enum(['json', 'markdown']).default('json'), lang });
export type PreventionPlanQuery = z.input<typeof PreventionPlanQuery>;
/** `POST /api/v1/prevention-plan`: the language of the answer, as `?lang=en` or in the JSON body. */
export const GeneratePreventionPlanQuery = z.strictObject({ lang });
export type GeneratePreventionPlanQuery = z.input<typeof GeneratePreventionPlanQuery>;
export const PreventionPlanResponse = Envelope(PreventionPlan);

/** One plan of the history: when it was generated and what it covers. */
export const PreventionPlanSummary = z.object({
  id: Uuid,
  generated_at: Timestamp,
  period: z.object({ from: IsoDate, to: IsoDate }),
  total_kg: z.number(),
  total_records: z.number().int(),
  version: PlanVersion,
  sha256: PlanSha256,
});
export type PreventionPlanSummary = z.infer<typeof PreventionPlanSummary>;

/** A page of the plan history, newest first. */
export const PreventionPlanHistoryQuery = z.strictObject({
  limit: z.number().int().min(1).max(MAX_PAGE_LIMIT).default(DEFAULT_PLAN_HISTORY_LIMIT),
  /** The `next_cursor` of the previous page. */
  cursor: KeysetCursor.optional(),
});
export type PreventionPlanHistoryQuery = z.input<typeof PreventionPlanHistoryQuery>;
export const PreventionPlanHistory = z.object({ data: z.array(PreventionPlanSummary), next_cursor: z.string().nullable() });
export type PreventionPlanHistory = z.infer<typeof PreventionPlanHistory>;
