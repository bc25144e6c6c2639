import { GeneratePreventionPlanQuery, PreventionPlanQuery, PreventionPlanResponse } from '@merma/schema';
import { apiProcedure, ok, router } from '../../trpc/trpc.js';
import { generatePlan, latestPlan } from './service.js';

const LANGUAGE =
  'Every text of the answer — the `label` of each share, the hotspots’ `food_category_label`, `waste_stage_label` and `measures`, `target.note` and the Markdown document — is written in `lang`: `es` (Spanish, the default) or `en` (English); numbers and dates in the Markdown follow the language (`es-ES`: 1.234,5 kg; `en-GB`: 1,234.5 kg). Keys (`key`, `food_category`, `waste_stage`) and figures do not change with the language, and a stored plan can be read in either language.';

export const planRouter = router({
  generate: apiProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/prevention-plan',
        tags: ['insights'],
        summary: 'Generate the food-waste prevention plan',
        description: `Computes the plan that Ley 1/2025 (art. 6) asks of food businesses from the last 12 months of records: where losses occur (stage, category, cause, shift), where they go in the hierarchy, the top hotspots with measures, and a 50 % reduction target for 2030. Emits \`plan.generated\`.\n\nThe language of the answer goes in the query string, \`POST /api/v1/prevention-plan?lang=en\`, or in the JSON body, \`{"lang": "en"}\`; without it the answer is in Spanish. The body may be empty. ${LANGUAGE}`,
        operationId: 'generatePreventionPlan',
      },
      permission: 'analytics:read',
      successStatus: 201,
      queryInput: true,
    })
    .input(GeneratePreventionPlanQuery)
    .output(PreventionPlanResponse)
    .mutation(async ({ ctx, input }) => ok(await generatePlan(ctx, ctx.auth, input.lang))),

  get: apiProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/prevention-plan',
        tags: ['insights'],
        summary: 'Get the latest prevention plan',
        description: `The newest plan generated for this establishment. With \`format=markdown\` it also carries \`markdown\`, a printable document. ${LANGUAGE}`,
        operationId: 'getPreventionPlan',
      },
      permission: 'analytics:read',
    })
    .input(PreventionPlanQuery)
    .output(PreventionPlanResponse)
    .query(async ({ ctx, input }) => ok(await latestPlan(ctx.replica, ctx.auth, input.lang, input.format))),
});
