import { CreateShiftInput, CreateShiftResponse, ListShiftsResponse, NoQuery } from '@merma/schema';
import { apiProcedure, ok, router } from '../../trpc/trpc.js';
import { createShift, listShifts } from './service.js';

export const shiftsRouter = router({
  list: apiProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/shifts',
        tags: ['shifts'],
        summary: 'List work shifts',
        description:
          'The active shifts. A shift archived in the dashboard is not listed and no longer assigned to new records; records that name it keep its id, and a record may still name it explicitly.',
        operationId: 'listShifts',
      },
      permission: 'shifts:read',
    })
    .input(NoQuery)
    .output(ListShiftsResponse)
    .query(async ({ ctx }) => ok(await listShifts(ctx.db, ctx.auth))),

  create: apiProcedure
    .meta({
      openapi: { method: 'POST', path: '/shifts', tags: ['shifts'], summary: 'Create a work shift', operationId: 'createShift' },
      permission: 'shifts:write',
      successStatus: 201,
    })
    .input(CreateShiftInput)
    .output(CreateShiftResponse)
    .mutation(async ({ ctx, input }) => ok(await createShift(ctx.db, ctx.auth, input))),
});
