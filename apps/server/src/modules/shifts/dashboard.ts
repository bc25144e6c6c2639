import { Session, Shift } from '@merma/schema';
import { DashboardCreateShiftInput, DashboardSessionsInput, ModeScope } from '@merma/schema/dashboard';
import { z } from 'zod';
import { audited, BUILDERS, dashboardRouter, scopedProcedure } from '../../trpc/dashboard-base.js';
import { listSessions } from '../sessions/service.js';
import { createShift, listShifts } from './service.js';

/**
 * The shifts and sessions page: shifts (an overnight one, 22:00–06:00, is allowed) and the
 * registration sessions with their totals. Every member reads; owners, admins and developers add shifts.
 */
export const shiftsDashboardRouter = dashboardRouter({
  list: scopedProcedure
    .input(ModeScope)
    .output(z.array(Shift))
    .query(({ ctx }) => listShifts(ctx.db, ctx.tenant)),

  create: scopedProcedure
    .meta({ roles: BUILDERS })
    .input(DashboardCreateShiftInput)
    .output(Shift)
    .mutation(({ ctx, input }) =>
      audited(
        ctx,
        'shift.created',
        (tx) => createShift(tx, ctx.tenant, input.shift),
        (shift) => ({
          target: shift.name,
          details: { shift_id: shift.id, start_time: shift.start_time, end_time: shift.end_time, livemode: input.livemode },
        }),
      ),
    ),

  sessions: scopedProcedure
    .input(DashboardSessionsInput)
    .output(z.object({ data: z.array(Session), total: z.number().int() }))
    .query(async ({ ctx, input }) => {
      const { establishment_id: _e, livemode: _l, ...query } = input;
      const { data, pagination } = await listSessions(ctx.pool, ctx.tenant, query);
      return { data, total: pagination.total };
    }),
});
