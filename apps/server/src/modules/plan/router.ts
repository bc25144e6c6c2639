import { NoQuery, PreventionPlanQuery, PreventionPlanResponse } from '@merma/schema';
import { apiProcedure, ok, router } from '../../trpc/trpc.js';
import { generatePlan, latestPlan } from './service.js';

export const planRouter = router({
  generate: apiProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/prevention-plan',
        tags: ['insights'],
        summary: 'Generate the food-waste prevention plan',
        description:
          'Computes the plan that Ley 1/2025 (art. 6) asks of food businesses from the last 12 months of records: where losses occur (stage, category, cause, shift), where they go in the hierarchy, the top hotspots with measures, and a 50 % reduction target for 2030. Emits `plan.generated`.',
        operationId: 'generatePreventionPlan',
      },
      permission: 'analytics:read',
      successStatus: 201,
    })
    .input(NoQuery)
    .output(PreventionPlanResponse)
    .mutation(async ({ ctx }) => ok(await generatePlan(ctx, ctx.auth))),

  get: apiProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/prevention-plan',
        tags: ['insights'],
        summary: 'Get the latest prevention plan',
        description: 'With `format=markdown` the plan also carries `markdown`, a printable document.',
        operationId: 'getPreventionPlan',
      },
      permission: 'analytics:read',
    })
    .input(PreventionPlanQuery)
    .output(PreventionPlanResponse)
    .query(async ({ ctx, input }) => ok(await latestPlan(ctx.db, ctx.auth, input.format))),
});
