import { PlanLanguage, PreventionPlan, PreventionPlanHistory, PreventionPlanHistoryQuery, Uuid } from '@merma/schema';
import { ModeScope } from '@merma/schema/dashboard';
import { sqlOfTransaction } from '../../db/sql.js';
import { AppError } from '../../errors.js';
import { audited, BUILDERS, dashboardRouter, scopedProcedure } from '../../trpc/dashboard-base.js';
import { generatePlan, getPlan, latestPlan, listPlans } from './service.js';

/**
 * The prevention plan page: the plans of the establishment and mode (newest first), one of them —
 * or the latest, null before the first — written in the page's language, and generating a new one
 * (owners, admins and developers; audited). The same service as `/api/v1/prevention-plan`.
 */
export const planDashboardRouter = dashboardRouter({
  history: scopedProcedure
    .input(ModeScope.extend(PreventionPlanHistoryQuery.shape))
    .output(PreventionPlanHistory)
    .query(({ ctx, input }) => listPlans(ctx.replica, ctx.tenant, { limit: input.limit, cursor: input.cursor })),

  get: scopedProcedure
    .input(ModeScope.extend({ id: Uuid.optional(), lang: PlanLanguage }))
    .output(PreventionPlan.nullable())
    .query(async ({ ctx, input }) => {
      if (input.id) return getPlan(ctx.replica, ctx.tenant, input.id, input.lang, 'json');
      return latestPlan(ctx.replica, ctx.tenant, input.lang, 'json').catch((err: unknown) => {
        if (err instanceof AppError && err.code === 'not_found') return null;
        throw err;
      });
    }),

  generate: scopedProcedure
    .meta({ roles: BUILDERS, rateLimit: 'generate' })
    .input(ModeScope.extend({ lang: PlanLanguage }))
    .output(PreventionPlan)
    .mutation(({ ctx, input }) =>
      audited(
        ctx,
        'plan.generated',
        // The aggregate runs on the transaction's own connection (the embedded database has one).
        (tx) => generatePlan({ db: tx, sql: sqlOfTransaction(tx), clock: ctx.clock }, ctx.tenant, input.lang),
        (plan) => ({ target: `${plan.period.from} – ${plan.period.to}`, details: { plan_id: plan.id, livemode: input.livemode } }),
      ),
    ),
});
