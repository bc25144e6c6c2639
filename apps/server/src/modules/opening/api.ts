import {
  ClosureIdParams,
  ClosureResponse,
  CreateClosureInput,
  DeletedClosureResponse,
  NoQuery,
  OpeningCalendarResponse,
  SetClosedWeekdaysInput,
} from '@merma/schema';
import { apiProcedure, ok, router } from '../../trpc/trpc.js';
import { createClosure, deleteClosure, getOpeningCalendar, setClosedWeekdays } from './service.js';

const meta = (
  method: 'GET' | 'PUT' | 'POST' | 'DELETE',
  path: `/${string}`,
  summary: string,
  operationId: string,
  description?: string,
) => ({
  openapi: { method, path, tags: ['opening calendar'], summary, operationId, ...(description ? { description } : {}) },
});

/** The opening calendar (service.ts): what the demand forecast knows of the days the establishment is closed. */
export const openingRouter = router({
  get: apiProcedure
    .meta({
      ...meta(
        'GET',
        '/opening-calendar',
        'Get the opening calendar',
        'getOpeningCalendar',
        'The weekdays the establishment is closed every week and its closures (holidays, a winter break). The demand forecast (`GET /predict?type=demand`) leaves closed days out of what it learns from, advises nothing for them (`points[].closed`) and marks the first 3 open days after a closure (`points[].after_closure`).',
      ),
      permission: 'opening:read',
    })
    .input(NoQuery)
    .output(OpeningCalendarResponse)
    .query(async ({ ctx }) => ok(await getOpeningCalendar(ctx.sql, ctx.auth))),

  setClosedWeekdays: apiProcedure
    .meta({
      ...meta(
        'PUT',
        '/opening-calendar/weekdays',
        'Set the weekdays the establishment is closed',
        'setClosedWeekdays',
        'Replaces the closed weekdays with the ones sent (an empty list: open every day) and answers the whole calendar.',
      ),
      permission: 'opening:write',
    })
    .input(SetClosedWeekdaysInput)
    .output(OpeningCalendarResponse)
    .mutation(async ({ ctx, input }) => {
      await setClosedWeekdays(ctx.sql, ctx.auth, input);
      return ok(await getOpeningCalendar(ctx.sql, ctx.auth));
    }),

  createClosure: apiProcedure
    .meta({
      ...meta(
        'POST',
        '/opening-calendar/closures',
        'Add a closure',
        'createClosure',
        'A range of local days the establishment is closed, both ends included (one day: the same `starts_on` and `ends_on`); at most 366 days. Closures may overlap.',
      ),
      permission: 'opening:write',
      successStatus: 201,
    })
    .input(CreateClosureInput)
    .output(ClosureResponse)
    .mutation(async ({ ctx, input }) => ok(await createClosure(ctx.sql, ctx.auth, input, ctx.clock()))),

  deleteClosure: apiProcedure
    .meta({ ...meta('DELETE', '/opening-calendar/closures/{id}', 'Delete a closure', 'deleteClosure'), permission: 'opening:write' })
    .input(ClosureIdParams)
    .output(DeletedClosureResponse)
    .mutation(async ({ ctx, input }) => {
      const closure = await deleteClosure(ctx.sql, ctx.auth, input.id);
      return ok({ id: closure.id, deleted: true as const });
    }),
});
