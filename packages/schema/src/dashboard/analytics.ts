import { z } from 'zod';
import { FoodCategory, IsoDate, Timestamp, Uuid } from '../common.js';
import { AnalyticsQuery, BenchmarkResult } from '../insights.js';
import { ModeScope } from './common.js';

/** The overview: analytics, period comparisons, the sector benchmark and spike alerts (`analytics`, `alerts`). */

/** The overview's analytics: exactly `GET /api/v1/analytics`'s query, for the chosen establishment and mode. */
export const DashboardAnalyticsInput = AnalyticsQuery.extend(ModeScope.shape);
export type DashboardAnalyticsInput = z.input<typeof DashboardAnalyticsInput>;

/** kg of a period so far against the same stretch of the period before (see apps/server/src/modules/analytics/periods.ts). */
export const PeriodComparison = z.object({
  period: z.enum(['today', 'week', 'month']),
  from: IsoDate,
  to: IsoDate,
  kg: z.number(),
  previous_from: IsoDate,
  previous_to: IsoDate,
  previous_kg: z.number(),
});
export type PeriodComparison = z.infer<typeof PeriodComparison>;

/** The sector comparison, or why there is none: the plan lacks it (the sample-size rule is the result's `note`). */
export const DashboardBenchmark = z.discriminatedUnion('available', [
  z.object({ available: z.literal(true), result: BenchmarkResult }),
  z.object({ available: z.literal(false), reason: z.literal('plan') }),
]);
export type DashboardBenchmark = z.infer<typeof DashboardBenchmark>;

/** A spike alert (the same detector as the `alert.spike_detected` event). */
export const SpikeAlert = z.object({
  id: Uuid,
  food_category: FoodCategory,
  day: IsoDate,
  total_kg: z.number(),
  baseline_kg: z.number(),
  threshold_kg: z.number(),
  created_at: Timestamp,
});
export type SpikeAlert = z.infer<typeof SpikeAlert>;
