import { NoQuery, PredictQuery, PredictResponse, ProductionSettingsResponse, UpdateProductionSettingsInput } from '@merma/schema';
import { apiProcedure, ok, router } from '../../trpc/trpc.js';
import type { ForecastPool } from './pool.js';
import { predictWaste } from './service.js';
import { getProductionSettings, updateProductionSettings } from './settings.js';
import { demandAnswer } from './stored.js';

const SETTINGS_DESCRIPTION =
  "The production advice's service level: the share of days the advised quantity (`GET /predict?type=demand`, `points[].advised`) aims to cover for a product without a price and a unit cost, before the adjustment for the waste it is known to leave (from 0.10 above for a product never wasted to 0.10 below for one of which 30 % or more is wasted). 0.85 until set. Per establishment and mode, as the opening calendar: a test key's setting leaves the live advice as it is.";

/** `forecasts`: the demand forecast's threads (pool.ts); none: it fits on the event loop. */
export const predictRouter = (forecasts: ForecastPool | undefined) =>
  router({
    get: apiProcedure
      .meta({
        openapi: {
          method: 'GET',
          path: '/predict',
          tags: ['insights'],
          summary: 'Daily waste or demand forecast',
          description:
            "`type=waste` (default): the daily waste in kg, by additive Holt-Winters with a weekly season on the daily totals of the last year (a 7-day mean with under 14 days of history), with 95 % intervals and the mean absolute error of a 14-day backtest. `type=demand`: per product sold (sales received as `sales.recorded` inbound events), the expected sales per day in units (kg for products sold by weight), by the model of least day-ahead error over the last 56 open days (`model`, `method`), with 95 % intervals and a rolling backtest beside seasonal naive and a 7-day average; and the advised quantity to prepare, a quantile of the forecast set by the product's prices (price, unit cost, salvage value) or else by the establishment's service level (`GET /predict/settings`) and the product's recorded waste, with what that advice would have left over in the last 4 weeks against the waste recorded; optionally one `product_id` or a `food_category`.",
          operationId: 'predict',
        },
        permission: 'predict:read',
      })
      .input(PredictQuery)
      .output(PredictResponse)
      .query(async ({ ctx, input }) =>
        ok(
          input.type === 'demand'
            ? await demandAnswer({ sql: ctx.replica, primary: ctx.sql, clock: ctx.clock, forecasts }, ctx.auth, input)
            : await predictWaste({ sql: ctx.replica, clock: ctx.clock }, ctx.auth, input),
        ),
      ),

    settings: apiProcedure
      .meta({
        openapi: {
          method: 'GET',
          path: '/predict/settings',
          tags: ['insights'],
          summary: "Get the production advice's settings",
          description: SETTINGS_DESCRIPTION,
          operationId: 'getProductionSettings',
        },
        permission: 'predict:read',
      })
      .input(NoQuery)
      .output(ProductionSettingsResponse)
      .query(async ({ ctx }) => ok(await getProductionSettings(ctx.sql, ctx.auth))),

    updateSettings: apiProcedure
      .meta({
        openapi: {
          method: 'PUT',
          path: '/predict/settings',
          tags: ['insights'],
          summary: "Set the production advice's service level",
          description: `${SETTINGS_DESCRIPTION} Sent as hundredths (0.9 or 0.92; more decimals are rounded); \`null\` goes back to the default.`,
          operationId: 'updateProductionSettings',
        },
        permission: 'predict:write',
      })
      .input(UpdateProductionSettingsInput)
      .output(ProductionSettingsResponse)
      .mutation(async ({ ctx, input }) => ok((await updateProductionSettings(ctx.sql, ctx.auth, input, ctx.clock())).after)),
  });
