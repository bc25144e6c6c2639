import { AuditPage, AuditQuery } from '@merma/schema/dashboard';
import { ADMINS, dashboardRouter, memberProcedure } from '../../trpc/dashboard-base.js';
import { listAudit } from './service.js';

/** The audit log page: owners and admins only. */
export const auditDashboardRouter = dashboardRouter({
  list: memberProcedure
    .meta({ roles: ADMINS })
    .input(AuditQuery)
    .output(AuditPage)
    .query(({ ctx, input }) => listAudit(ctx.db, ctx.user.organizationId, input)),
});
