import {
  DashboardArchiveShiftInput,
  DashboardCreateShiftInput,
  DashboardShift,
  DashboardShiftIdInput,
  DashboardUpdateShiftInput,
  ModeScope,
} from '@merma/schema/dashboard';
import { z } from 'zod';
import { audited, BUILDERS, dashboardRouter, scopedProcedure } from '../../trpc/dashboard-base.js';
import { archiveShift, createShift, deleteShift, listAllShifts, updateShift } from './service.js';

/**
 * The shifts of the shifts and sessions page (an overnight one, 22:00–06:00, is allowed), archived
 * ones included (its registration sessions: sessions/dashboard.ts). Every member reads; owners,
 * admins and developers add, edit, archive and delete shifts (service.ts says why a shift in use is
 * archived, not deleted).
 */
export const shiftsDashboardRouter = dashboardRouter({
  list: scopedProcedure
    .input(ModeScope)
    .output(z.array(DashboardShift))
    .query(({ ctx }) => listAllShifts(ctx.db, ctx.tenant)),

  create: scopedProcedure
    .meta({ roles: BUILDERS })
    .input(DashboardCreateShiftInput)
    .output(DashboardShift)
    .mutation(({ ctx, input }) =>
      audited(
        ctx,
        'shift.created',
        async (tx) => ({ ...(await createShift(tx, ctx.tenant, input.shift)), archived: false }),
        (shift) => ({
          target: shift.name,
          details: { shift_id: shift.id, start_time: shift.start_time, end_time: shift.end_time, livemode: input.livemode },
        }),
      ),
    ),

  update: scopedProcedure
    .meta({ roles: BUILDERS })
    .input(DashboardUpdateShiftInput)
    .output(DashboardShift)
    .mutation(async ({ ctx, input }) => {
      const { after } = await audited(
        ctx,
        'shift.updated',
        (tx) => updateShift(tx, ctx.tenant, input.id, input.shift),
        ({ before, after }) => ({
          target: after.name,
          details: {
            shift_id: after.id,
            before: { name: before.name, start_time: before.start_time, end_time: before.end_time },
            after: { name: after.name, start_time: after.start_time, end_time: after.end_time },
            livemode: input.livemode,
          },
        }),
      );
      return after;
    }),

  archive: scopedProcedure
    .meta({ roles: BUILDERS })
    .input(DashboardArchiveShiftInput)
    .output(DashboardShift)
    .mutation(({ ctx, input }) =>
      audited(
        ctx,
        input.archived ? 'shift.archived' : 'shift.restored',
        (tx, now) => archiveShift(tx, ctx.tenant, input.id, input.archived, now),
        (shift) => ({ target: shift.name, details: { shift_id: shift.id, livemode: input.livemode } }),
      ),
    ),

  delete: scopedProcedure
    .meta({ roles: BUILDERS })
    .input(DashboardShiftIdInput)
    .output(DashboardShift)
    .mutation(({ ctx, input }) =>
      audited(
        ctx,
        'shift.deleted',
        (tx) => deleteShift(tx, ctx.tenant, input.id),
        (shift) => ({
          target: shift.name,
          details: { shift_id: shift.id, start_time: shift.start_time, end_time: shift.end_time, livemode: input.livemode },
        }),
      ),
    ),
});
