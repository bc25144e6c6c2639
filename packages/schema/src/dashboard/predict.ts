import { z } from 'zod';
import { FoodCategory } from '../common.js';
import { UpdateProductionSettingsInput } from '../insights.js';
import { ModeScope } from './common.js';

/** The Forecast page: the waste forecast, the production advice and its service level (`predict`). */

export const ForecastInput = ModeScope.extend({
  horizon: z.number().int().min(1).max(28).default(14),
  food_category: FoodCategory.optional(),
});
export type ForecastInput = z.input<typeof ForecastInput>;
/** The Forecast page's production advice (tomorrow first). */
export const DemandForecastInput = ModeScope.extend({
  horizon: z.number().int().min(1).max(28).default(7),
  food_category: FoodCategory.optional(),
});
export type DemandForecastInput = z.input<typeof DemandForecastInput>;

/** The production advice's service level (`PUT /api/v1/predict/settings`'s body) of the chosen establishment and mode. */
export const DashboardUpdateProductionSettingsInput = ModeScope.extend({ settings: UpdateProductionSettingsInput });
export type DashboardUpdateProductionSettingsInput = z.input<typeof DashboardUpdateProductionSettingsInput>;
