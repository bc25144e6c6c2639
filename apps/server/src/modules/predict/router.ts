import { PredictQuery, PredictResponse } from '@merma/schema';
import { apiProcedure, ok, router } from '../../trpc/trpc.js';
import { predictWaste } from './service.js';

export const predictRouter = router({
  get: apiProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/predict',
        tags: ['insights'],
        summary: 'Daily waste forecast',
        description:
          'Additive Holt-Winters with a weekly season on the daily totals of the last year (a 7-day mean with under 14 days of history), with 95 % intervals and the mean absolute error of a 14-day backtest. `type=demand` is refused: demand needs sales data, which is not collected.',
        operationId: 'predict',
      },
      permission: 'predict:read',
    })
    .input(PredictQuery)
    .output(PredictResponse)
    .query(async ({ ctx, input }) => ok(await predictWaste(ctx, ctx.auth, input))),
});
