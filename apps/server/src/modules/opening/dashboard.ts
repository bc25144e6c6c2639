import { Closure, OpeningCalendar } from '@merma/schema';
import { DashboardClosureIdInput, DashboardCreateClosureInput, DashboardSetClosedWeekdaysInput, ModeScope } from '@merma/schema/dashboard';
import { sqlOfTransaction } from '../../db/sql.js';
import { audited, BUILDERS, dashboardRouter, scopedProcedure } from '../../trpc/dashboard-base.js';
import { createClosure, deleteClosure, getOpeningCalendar, setClosedWeekdays } from './service.js';

/**
 * The opening calendar on the shifts page: every member reads it; owners, admins and developers
 * (who manage the shifts) set the closed weekdays and add or delete closures, each change in the
 * audit log.
 */
export const openingDashboardRouter = dashboardRouter({
  get: scopedProcedure
    .input(ModeScope)
    .output(OpeningCalendar)
    .query(({ ctx }) => getOpeningCalendar(ctx.sql, ctx.tenant)),

  setClosedWeekdays: scopedProcedure
    .meta({ roles: BUILDERS })
    .input(DashboardSetClosedWeekdaysInput)
    .output(OpeningCalendar)
    .mutation(async ({ ctx, input }) => {
      await audited(
        ctx,
        'opening.weekdays_set',
        (tx) => setClosedWeekdays(sqlOfTransaction(tx), ctx.tenant, input.calendar),
        ({ before, after }) => ({ target: after.join(', ') || '—', details: { before, after, livemode: input.livemode } }),
      );
      return getOpeningCalendar(ctx.sql, ctx.tenant);
    }),

  createClosure: scopedProcedure
    .meta({ roles: BUILDERS })
    .input(DashboardCreateClosureInput)
    .output(Closure)
    .mutation(({ ctx, input }) =>
      audited(
        ctx,
        'closure.created',
        (tx, now) => createClosure(sqlOfTransaction(tx), ctx.tenant, input.closure, now),
        (closure) => ({
          target: closureTarget(closure),
          details: { closure_id: closure.id, reason: closure.reason, livemode: input.livemode },
        }),
      ),
    ),

  deleteClosure: scopedProcedure
    .meta({ roles: BUILDERS })
    .input(DashboardClosureIdInput)
    .output(Closure)
    .mutation(({ ctx, input }) =>
      audited(
        ctx,
        'closure.deleted',
        (tx) => deleteClosure(sqlOfTransaction(tx), ctx.tenant, input.id),
        (closure) => ({
          target: closureTarget(closure),
          details: { closure_id: closure.id, reason: closure.reason, livemode: input.livemode },
        }),
      ),
    ),
});

const closureTarget = (c: Closure) => (c.starts_on === c.ends_on ? c.starts_on : `${c.starts_on} – ${c.ends_on}`);
