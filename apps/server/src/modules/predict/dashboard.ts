import { DemandPrediction, Prediction, ProductionSettings } from '@merma/schema';
import { DashboardUpdateProductionSettingsInput, DemandForecastInput, ForecastInput, ModeScope } from '@merma/schema/dashboard';
import { sqlOfTransaction } from '../../db/sql.js';
import { audited, BUILDERS, dashboardRouter, scopedProcedure } from '../../trpc/dashboard-base.js';
import type { ForecastPool } from './pool.js';
import { predictWaste } from './service.js';
import { getProductionSettings, updateProductionSettings } from './settings.js';
import { demandAnswer } from './stored.js';

/**
 * The forecast page: the same services as `/api/v1/predict` (`type=waste` and `type=demand`), so
 * the dashboard's forecast equals the API's. Every member reads them, and the production
 * settings (`/api/v1/predict/settings`); owners, admins and developers (who set the opening
 * calendar) set the service level, each change in the audit log.
 */
export const predictDashboardRouter = (forecasts: ForecastPool | undefined) =>
  dashboardRouter({
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
        demandAnswer({ sql: ctx.replica, primary: ctx.sql, clock: ctx.clock, forecasts }, ctx.tenant, {
          horizon: input.horizon,
          food_category: input.food_category,
        }),
      ),

    settings: scopedProcedure
      .input(ModeScope)
      .output(ProductionSettings)
      .query(({ ctx }) => getProductionSettings(ctx.sql, ctx.tenant)),

    updateSettings: scopedProcedure
      .meta({ roles: BUILDERS })
      .input(DashboardUpdateProductionSettingsInput)
      .output(ProductionSettings)
      .mutation(async ({ ctx, input }) => {
        const { after } = await audited(
          ctx,
          'production_settings.updated',
          (tx, now) => updateProductionSettings(sqlOfTransaction(tx), ctx.tenant, input.settings, now),
          ({ before, after }) => ({
            target: `${Math.round(after.service_level * 100)} %`,
            details: {
              before: before.is_default ? null : before.service_level,
              after: after.is_default ? null : after.service_level,
              livemode: input.livemode,
            },
          }),
        );
        return after;
      }),
  });
