import { PredictQuery, PredictResponse } from '@merma/schema';
import { apiProcedure, ok, router } from '../../trpc/trpc.js';
import { predictDemand } from './demand.js';
import { predictWaste } from './service.js';

export const predictRouter = router({
  get: apiProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/predict',
        tags: ['insights'],
        summary: 'Daily waste or demand forecast',
        description:
          "`type=waste` (default): the daily waste in kg. `type=demand`: per product sold (sales received as `sales.recorded` inbound events), the expected sales per day in units (kg for products sold by weight) and the advised quantity to prepare, a quantile of the forecast chosen from the product's recorded waste, with what that advice would have left over in the last 4 weeks against the waste recorded; optionally one `product_id` or a `food_category`. Both: additive Holt-Winters with a weekly season on the daily totals of the last year (a 7-day mean with under 14 days of history), with 95 % intervals and the mean absolute error of a 14-day backtest (demand: beside seasonal naive's).",
        operationId: 'predict',
      },
      permission: 'predict:read',
    })
    .input(PredictQuery)
    .output(PredictResponse)
    .query(async ({ ctx, input }) =>
      ok(
        input.type === 'demand'
          ? await predictDemand({ sql: ctx.replica, clock: ctx.clock }, ctx.auth, input)
          : await predictWaste({ sql: ctx.replica, clock: ctx.clock }, ctx.auth, input),
      ),
    ),
});
