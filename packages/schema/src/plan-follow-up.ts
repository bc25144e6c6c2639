import { z } from 'zod';
import { IsoDate, queryInt, Timestamp, Uuid } from './common.js';
import { ESRS_YEARS } from './constants.js';
import { Envelope } from './envelope.js';
import { MeasureStatus, PlanLanguage } from './plan.js';

/**
 * Following the prevention plan up: who carries out each of its measures, by when and how far it
 * has gone, and the staff training sessions held. Each generated plan version keeps both as they
 * stood that day (`PreventionPlan.follow_up`).
 */

/** A measure's stable id (`storage.fefo_rotation`): the plan's measures are named by it in every language. */
export const MeasureId = z
  .string()
  .max(80)
  .regex(/^[a-z_]+\.[a-z0-9_]+$/, 'must be a measure id such as storage.fefo_rotation')
  .describe("a measure's stable id, as the plan's `follow_up.measures` names it");

export const MeasureOwner = z.string().trim().min(1).max(120).describe('who carries the measure out (a name or a role)');
export const MeasureNote = z.string().trim().min(1).max(1000);

/** One measure as it is followed up now. */
export const PlanMeasure = z
  .object({
    measure_id: MeasureId,
    text: z.string().describe('the measure in `lang`'),
    owner: z.string().nullable(),
    due_on: IsoDate.nullable().describe('the date it is due by'),
    status: MeasureStatus,
    note: z.string().nullable(),
    updated_at: Timestamp.nullable().describe('when it was last followed up; null while nobody has'),
    in_latest_plan: z.boolean().describe('whether the newest plan version proposes it; a measure followed up before stays listed'),
  })
  .meta({ id: 'PlanMeasure' });
export type PlanMeasure = z.infer<typeof PlanMeasure>;

/** `GET /api/v1/prevention-plan/measures`. */
export const PlanMeasuresQuery = z.strictObject({ lang: PlanLanguage.default('es') });
export type PlanMeasuresQuery = z.input<typeof PlanMeasuresQuery>;
export const PlanMeasuresResponse = Envelope(z.array(PlanMeasure));

/** A measure's follow-up changed: a field left out is kept, `null` clears it. */
export const UpdatePlanMeasureFields = {
  owner: MeasureOwner.nullable().optional(),
  due_on: IsoDate.nullable().optional(),
  status: MeasureStatus.optional(),
  note: MeasureNote.nullable().optional(),
};

/** A staff training session on food waste, as recorded. */
export const TrainingSession = z
  .object({
    id: Uuid,
    held_on: IsoDate.describe("the day it was held, in the establishment's time zone"),
    topic: z.string(),
    trainer: z.string().nullable(),
    attendees: z.number().int().describe('how many people attended'),
    attendee_names: z.string().nullable().describe('who attended, as written'),
    created_at: Timestamp,
  })
  .meta({ id: 'TrainingSession' });
export type TrainingSession = z.infer<typeof TrainingSession>;

/** `GET /api/v1/training-sessions`: a calendar year's sessions, the current one by default. */
export const TrainingSessionsQuery = z.strictObject({
  year: queryInt(ESRS_YEARS.min, ESRS_YEARS.max)
    .optional()
    .describe("calendar year in the establishment's time zone; the current one by default"),
});
export type TrainingSessionsQuery = z.input<typeof TrainingSessionsQuery>;
export const TrainingSessionsResponse = Envelope(z.array(TrainingSession));

/** A session held (today at the latest, in the establishment's time zone). */
export const CreateTrainingSessionFields = {
  held_on: IsoDate,
  topic: z.string().trim().min(1).max(200),
  trainer: z.string().trim().min(1).max(120).nullable().optional(),
  attendees: z.number().int().min(1).max(10_000),
  attendee_names: z.string().trim().min(1).max(2000).nullable().optional(),
};
