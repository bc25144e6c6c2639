import { z } from 'zod';
import { DateOrDateTime, FoodCategory, IsoDate, Sector, Timestamp, Uuid } from './common.js';
import { Envelope } from './envelope.js';

/** `GET /api/v1/analytics`. Dates are read in the establishment's time zone; default: the last 30 days. */
export const AnalyticsQuery = z
  .strictObject({
    from: DateOrDateTime.optional(),
    to: DateOrDateTime.optional(),
    group_by: z.enum(['day', 'week', 'month']).default('day'),
    food_category: FoodCategory.optional(),
    causa_id: Uuid.optional(),
    destino_id: Uuid.optional(),
  })
  .meta({ id: 'AnalyticsQuery' });
export type AnalyticsQuery = z.input<typeof AnalyticsQuery>;

/** Waste metrics. Periods: day `YYYY-MM-DD`, week `YYYY-Www` (ISO week), month `YYYY-MM`. */
export const AnalyticsResult = z
  .object({
    total_kg: z.number(),
    total_records: z.number().int(),
    by_category: z.record(z.string(), z.number()).describe('kg per food category'),
    by_destino: z.record(z.string(), z.number()).describe('kg per destination id'),
    by_cause: z.record(z.string(), z.number()).describe('kg per cause id (`none` when not given)'),
    by_stage: z.record(z.string(), z.number()).describe('kg per waste stage (`none` when not given)'),
    recovery_rate: z.number().nullable().describe('share of kg sent to recovery destinations, 0..1; null without data'),
    trend: z.array(z.object({ period: z.string(), total_kg: z.number() })),
    from: IsoDate.or(Timestamp),
    to: IsoDate.or(Timestamp),
    group_by: z.enum(['day', 'week', 'month']),
  })
  .meta({ id: 'AnalyticsResult' });
export type AnalyticsResult = z.infer<typeof AnalyticsResult>;
export const AnalyticsResponse = Envelope(AnalyticsResult);

export const BenchmarkingQuery = z.strictObject({ sector: Sector.optional() }).meta({ id: 'BenchmarkingQuery' });
export type BenchmarkingQuery = z.input<typeof BenchmarkingQuery>;

/**
 * Anonymous sector comparison over the last 90 days. With fewer than 5 establishments in the sample
 * the sector figures are null and `note` says why.
 */
export const BenchmarkResult = z
  .object({
    your_avg_kg_per_day: z.number(),
    sector_avg_kg_per_day: z.number().nullable(),
    percentile: z.number().nullable(),
    sector: Sector,
    sample_size: z.number().int(),
    window_days: z.number().int(),
    note: z.string().nullable(),
  })
  .meta({ id: 'BenchmarkResult' });
export type BenchmarkResult = z.infer<typeof BenchmarkResult>;
export const BenchmarkingResponse = Envelope(BenchmarkResult);

export const PredictQuery = z
  .strictObject({
    horizon: z.coerce.number().int().min(1).max(28).default(7),
    food_category: FoodCategory.optional(),
    type: z.enum(['waste', 'demand']).default('waste'),
  })
  .meta({ id: 'PredictQuery' });
export type PredictQuery = z.input<typeof PredictQuery>;

export const Prediction = z
  .object({
    type: z.literal('waste'),
    food_category: FoodCategory.nullable(),
    method: z.string(),
    history_days: z.number().int(),
    backtest: z.object({ metric: z.enum(['mae', 'mape']), value: z.number().nullable(), days: z.number().int() }),
    points: z.array(z.object({ date: IsoDate, predicted_kg: z.number(), lower: z.number(), upper: z.number() })),
    generated_at: Timestamp,
  })
  .meta({ id: 'Prediction' });
export type Prediction = z.infer<typeof Prediction>;
export const PredictResponse = Envelope(Prediction);
