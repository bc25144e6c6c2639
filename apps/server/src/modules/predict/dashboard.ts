import { DemandPrediction, Prediction } from '@merma/schema';
import { DemandForecastInput, ForecastInput } from '@merma/schema/dashboard';
import { dashboardRouter, scopedProcedure } from '../../trpc/dashboard-base.js';
import { predictDemand } from './demand.js';
import { predictWaste } from './service.js';

/**
 * The forecast page: the same services as `/api/v1/predict` (`type=waste` and `type=demand`), so
 * the dashboard's forecast equals the API's. Every member reads them.
 */
export const predictDashboardRouter = dashboardRouter({
  waste: scopedProcedure
    .meta({ rateLimit: 'heavy' })
    .input(ForecastInput)
    .output(Prediction)
    .query(({ ctx, input }) =>
      predictWaste({ sql: ctx.replica, clock: ctx.clock }, ctx.tenant, { horizon: input.horizon, food_category: input.food_category }),
    ),

  /** The Forecast page's production advice: `/api/v1/predict?type=demand` for the chosen days. */
  demand: scopedProcedure
    .meta({ rateLimit: 'heavy' })
    .input(DemandForecastInput)
    .output(DemandPrediction)
    .query(({ ctx, input }) =>
      predictDemand({ sql: ctx.replica, clock: ctx.clock }, ctx.tenant, { horizon: input.horizon, food_category: input.food_category }),
    ),
});
