import {
  PlanLanguage,
  PlanMeasure,
  PreventionPlan,
  PreventionPlanHistory,
  PreventionPlanHistoryQuery,
  TrainingSession,
  Uuid,
} from '@merma/schema';
import {
  DashboardCreateTrainingSessionInput,
  DashboardDeleteTrainingSessionInput,
  DashboardPlanMeasuresInput,
  DashboardTrainingSessionsInput,
  DashboardUpdatePlanMeasureInput,
  ModeScope,
} from '@merma/schema/dashboard';
import { z } from 'zod';
import { sqlOfTransaction } from '../../db/sql.js';
import { AppError } from '../../errors.js';
import { audited, BUILDERS, dashboardRouter, scopedProcedure } from '../../trpc/dashboard-base.js';
import { createTrainingSession, deleteTrainingSession, listPlanMeasures, listTrainingSessions, updatePlanMeasure } from './follow-up.js';
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

  /** The measures as they are followed up: `/api/v1/prevention-plan/measures`. */
  measures: scopedProcedure
    .input(DashboardPlanMeasuresInput)
    .output(z.array(PlanMeasure))
    .query(({ ctx, input }) => listPlanMeasures(ctx.replica, ctx.tenant, input.lang)),

  updateMeasure: scopedProcedure
    .meta({ roles: BUILDERS })
    .input(DashboardUpdatePlanMeasureInput)
    .output(PlanMeasure)
    .mutation(async ({ ctx, input }) => {
      const { establishment_id: _e, livemode, measure_id, lang, ...changes } = input;
      const { after } = await audited(
        ctx,
        'plan.measure_updated',
        (tx) => updatePlanMeasure(sqlOfTransaction(tx), ctx.tenant, measure_id, changes, lang, ctx.clock()),
        ({ before, after }) => ({
          target: after.text,
          details: {
            measure_id,
            livemode,
            before: { owner: before.owner, due_on: before.due_on, status: before.status, note: before.note },
            after: { owner: after.owner, due_on: after.due_on, status: after.status, note: after.note },
          },
        }),
      );
      return after;
    }),

  /** A year's training sessions: `/api/v1/training-sessions`. */
  trainingSessions: scopedProcedure
    .input(DashboardTrainingSessionsInput)
    .output(z.array(TrainingSession))
    .query(({ ctx, input }) => listTrainingSessions(ctx.replica, ctx.tenant, input.year, ctx.clock())),

  addTrainingSession: scopedProcedure
    .meta({ roles: BUILDERS })
    .input(DashboardCreateTrainingSessionInput)
    .output(TrainingSession)
    .mutation(({ ctx, input }) => {
      const { establishment_id: _e, livemode, ...session } = input;
      return audited(
        ctx,
        'training_session.created',
        (tx) => createTrainingSession(sqlOfTransaction(tx), ctx.tenant, session, ctx.clock()),
        (created) => ({
          target: created.topic,
          details: { id: created.id, held_on: created.held_on, attendees: created.attendees, livemode },
        }),
      );
    }),

  deleteTrainingSession: scopedProcedure
    .meta({ roles: BUILDERS })
    .input(DashboardDeleteTrainingSessionInput)
    .output(TrainingSession)
    .mutation(({ ctx, input }) =>
      audited(
        ctx,
        'training_session.deleted',
        (tx) => deleteTrainingSession(sqlOfTransaction(tx), ctx.tenant, input.id),
        (deleted) => ({ target: deleted.topic, details: { id: deleted.id, held_on: deleted.held_on, livemode: input.livemode } }),
      ),
    ),
});
