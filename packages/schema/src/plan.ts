import { z } from 'zod';
import { IsoDate, Timestamp, Uuid } from './common.js';
import { Envelope } from './envelope.js';

const KgShare = z.object({ key: z.string(), label: z.string(), kg: z.number(), share: z.number() });

/**
 * A food-waste prevention plan (Ley 1/2025, art. 6), computed from the establishment's records of the
 * last 12 months: where losses occur, where they go in the hierarchy, the hotspots, a reduction target
 * and measures for each hotspot.
 */
export const PreventionPlan = z
  .object({
    id: Uuid,
    establishment_id: Uuid,
    generated_at: Timestamp,
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
        waste_stage: z.string(),
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
    markdown: z.string().optional(),
  })
  .meta({ id: 'PreventionPlan' });
export type PreventionPlan = z.infer<typeof PreventionPlan>;

export const PreventionPlanQuery = z.strictObject({ format: z.enum(['json', 'markdown']).default('json') });
export type PreventionPlanQuery = z.input<typeof PreventionPlanQuery>;
export const PreventionPlanResponse = Envelope(PreventionPlan);
