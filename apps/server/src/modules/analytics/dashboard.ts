import { AnalyticsResult } from '@merma/schema';
import { DashboardAnalyticsInput, DashboardBenchmark, ModeScope, PeriodComparison, SpikeAlert } from '@merma/schema/dashboard';
import { z } from 'zod';
import { dashboardRouter, scopedProcedure } from '../../trpc/dashboard-base.js';
import { getBenchmark } from './benchmarking.js';
import { comparePeriods, recentAlerts } from './periods.js';
import { getAnalytics } from './service.js';

/**
 * The overview page: the same services as `/api/v1/analytics` and `/benchmarking`, so a figure in
 * the dashboard equals the API's for the same establishment, mode and range. Every member reads them.
 */
export const analyticsDashboardRouter = dashboardRouter({
  get: scopedProcedure
    .meta({ rateLimit: 'heavy' })
    .input(DashboardAnalyticsInput)
    .output(AnalyticsResult)
    .query(({ ctx, input }) => {
      const { establishment_id: _e, livemode: _l, ...query } = input;
      return getAnalytics({ sql: ctx.replica, clock: ctx.clock }, ctx.tenant, query);
    }),

  periods: scopedProcedure
    .meta({ rateLimit: 'heavy' })
    .input(ModeScope)
    .output(z.array(PeriodComparison))
    .query(({ ctx }) => comparePeriods({ sql: ctx.replica, clock: ctx.clock }, ctx.tenant)),

  /** The sector comparison; on a plan without it, why (the sample rule is in the result's note). */
  benchmark: scopedProcedure
    .meta({ rateLimit: 'heavy' })
    .input(ModeScope)
    .output(DashboardBenchmark)
    .query(async ({ ctx }) => {
      if (ctx.tenant.plan !== 'enterprise' && ctx.tenant.plan !== 'enterprise_multi')
        return { available: false as const, reason: 'plan' as const };
      return { available: true as const, result: await getBenchmark({ sql: ctx.replica, clock: ctx.clock }, ctx.tenant, {}) };
    }),

  alerts: scopedProcedure
    .meta({ rateLimit: 'heavy' })
    .input(ModeScope)
    .output(z.array(SpikeAlert))
    .query(async ({ ctx }) => (await recentAlerts({ sql: ctx.replica, clock: ctx.clock }, ctx.tenant)) as SpikeAlert[]),
});
