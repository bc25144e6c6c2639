import {
  GeneratePreventionPlanQuery,
  PlanMeasuresQuery,
  PlanMeasuresResponse,
  PreventionPlanQuery,
  PreventionPlanResponse,
  TrainingSessionsQuery,
  TrainingSessionsResponse,
} from '@merma/schema';
import { apiProcedure, ok, router } from '../../trpc/trpc.js';
import { listPlanMeasures, listTrainingSessions } from './follow-up.js';
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

  measures: apiProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/prevention-plan/measures',
        tags: ['insights'],
        summary: "Follow the prevention plan's measures up",
        description:
          'Each measure the newest plan proposes, once, then any other with a follow-up: its stable `measure_id`, its words in `lang` (`es` by default, or `en`), who carries it out (`owner`), by when (`due_on`), how far it has gone (`status`: `planned` until someone says otherwise, `in_progress`, `done`, `dropped`) and a note. Owners, admins and developers follow measures up in the dashboard; each plan version generated afterwards keeps them as they stood (`follow_up`).',
        operationId: 'listPlanMeasures',
      },
      permission: 'analytics:read',
    })
    .input(PlanMeasuresQuery)
    .output(PlanMeasuresResponse)
    .query(async ({ ctx, input }) => ok(await listPlanMeasures(ctx.replica, ctx.auth, input.lang))),

  trainingSessions: apiProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/training-sessions',
        tags: ['insights'],
        summary: 'List the staff training sessions of a year',
        description:
          "The staff training sessions on food waste held at the key's establishment in a calendar year (`year`, the current one by default), oldest first: the day, the topic, who gave it, how many attended and who. They are recorded in the dashboard; each plan version keeps those of its period (`follow_up.training`).",
        operationId: 'listTrainingSessions',
      },
      permission: 'analytics:read',
    })
    .input(TrainingSessionsQuery)
    .output(TrainingSessionsResponse)
    .query(async ({ ctx, input }) => ok(await listTrainingSessions(ctx.replica, ctx.auth, input.year, ctx.clock()))),
});
