import { AnalyticsQuery, AnalyticsResponse, BenchmarkingQuery, BenchmarkingResponse } from '@merma/schema';
import { apiProcedure, ok, router } from '../../trpc/trpc.js';
import { getBenchmark } from './benchmarking.js';
import { getAnalytics } from './service.js';

export const analyticsRouter = router({
  get: apiProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/analytics',
        tags: ['insights'],
        summary: 'Waste metrics: totals, breakdowns and trend',
        description:
          "Computed in the establishment's time zone. Periods: day `YYYY-MM-DD`, week `YYYY-Www` (ISO week and year), month `YYYY-MM`; empty periods appear with 0. `by_destino` is keyed by destination id, `by_cause` by cause id (`none` when not given). Default range: the last 30 days; at most 3 years. Rate limit: 10 calls per hour per key.",
        operationId: 'getAnalytics',
      },
      permission: 'analytics:read',
      rateBucket: 'analytics',
    })
    .input(AnalyticsQuery)
    .output(AnalyticsResponse)
    .query(async ({ ctx, input }) => ok(await getAnalytics({ sql: ctx.replica, clock: ctx.clock }, ctx.auth, input))),

  benchmarking: apiProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/benchmarking',
        tags: ['insights'],
        summary: 'Anonymous comparison with the sector',
        description:
          "Average kg per day over the last 90 days (today and the 89 local days before it, by when the waste happened), yours and the sector's, and your percentile (the share of the sector's establishments that waste less per day than you; lower is better). Only establishments with records in the window count, in the mode of the key. With fewer than 5 in the sample the sector figures are null, so no single competitor can be inferred. Each establishment's kg are divided by the days it covers in the window, from the local day of its first record there to today (both included), not by 90: an establishment recording for 56 days is averaged over 56. `days_covered` (added to the contract's result) says how many days your figure is averaged over; 0 without records in the window.",
        operationId: 'getBenchmarking',
      },
      permission: 'benchmarking:read',
    })
    .input(BenchmarkingQuery)
    .output(BenchmarkingResponse)
    .query(async ({ ctx, input }) => ok(await getBenchmark({ sql: ctx.replica, clock: ctx.clock }, ctx.auth, input))),
});
