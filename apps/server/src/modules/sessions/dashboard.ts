import { Session } from '@merma/schema';
import { DashboardSessionIdInput, DashboardSessionsInput } from '@merma/schema/dashboard';
import { z } from 'zod';
import { dashboardRouter, scopedProcedure } from '../../trpc/dashboard-base.js';
import { getSession, listSessions } from './service.js';

/** The registration sessions of the shifts and sessions page, with their totals: every member reads them. */
export const sessionsDashboardRouter = dashboardRouter({
  list: scopedProcedure
    .input(DashboardSessionsInput)
    .output(z.object({ data: z.array(Session), total: z.number().int() }))
    .query(async ({ ctx, input }) => {
      const { establishment_id: _e, livemode: _l, ...query } = input;
      const { data, pagination } = await listSessions(ctx.replica, ctx.tenant, query);
      return { data, total: pagination.total };
    }),

  /** One registration session (its records come from `records.list` with `session_id`). */
  get: scopedProcedure
    .input(DashboardSessionIdInput)
    .output(Session)
    .query(({ ctx, input }) => getSession(ctx.sql, ctx.tenant, input.id)),
});
