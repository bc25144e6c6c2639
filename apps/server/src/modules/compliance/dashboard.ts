import { EsrsE5, Establishment, HierarchyReport, Obligations, OrganizationSize } from '@merma/schema';
import {
  DashboardEsrsE5Input,
  DashboardHierarchyInput,
  DashboardObligationsInput,
  DashboardUpdateEstablishmentInput,
} from '@merma/schema/dashboard';
import { sqlOfTransaction } from '../../db/sql.js';
import { ADMINS, audited, dashboardRouter, establishmentProcedure, memberProcedure, scopedProcedure } from '../../trpc/dashboard-base.js';
import { esrsE5 } from './esrs.js';
import { hierarchyReport } from './hierarchy.js';
import { obligationsFor, updateEstablishmentFacts, updateOrganizationSize } from './service.js';

/**
 * "Am I obliged?" and the year's waste in ESRS E5-5 terms on the Prevention plan page: the answer
 * for the establishment, which every member reads, and the facts it rests on — the organisation's size and the establishment's
 * activity and floor area — which owners and admins set, each change in the audit log. The same
 * service as `/api/v1/compliance/obligations`.
 */
export const complianceDashboardRouter = dashboardRouter({
  obligations: establishmentProcedure
    .input(DashboardObligationsInput)
    .output(Obligations)
    .query(({ ctx, input }) => obligationsFor(ctx.replica, ctx.establishment.id, input.lang, ctx.clock())),

  /** The year's food waste in ESRS E5-5 terms, of the establishment and mode: `/api/v1/compliance/esrs-e5`. */
  esrsE5: scopedProcedure
    .input(DashboardEsrsE5Input)
    .output(EsrsE5)
    .query(({ ctx, input }) => esrsE5(ctx.replica, ctx.tenant, input.year, ctx.clock())),

  /** The year's order of priorities in writing, of the establishment and mode: `/api/v1/compliance/hierarchy`. */
  hierarchy: scopedProcedure
    .input(DashboardHierarchyInput)
    .output(HierarchyReport)
    .query(({ ctx, input }) => hierarchyReport(ctx.replica, ctx.tenant, input.year, ctx.clock())),

  updateEstablishment: establishmentProcedure
    .meta({ roles: ADMINS })
    .input(DashboardUpdateEstablishmentInput)
    .output(Establishment)
    .mutation(async ({ ctx, input }) => {
      const { after } = await audited(
        ctx,
        'establishment.updated',
        (tx) =>
          updateEstablishmentFacts(sqlOfTransaction(tx), ctx.establishment.id, {
            nace_code: input.nace_code,
            floor_area_m2: input.floor_area_m2,
          }),
        ({ before, after }) => ({
          target: after.name,
          details: {
            before: { nace_code: before.nace_code, floor_area_m2: before.floor_area_m2 },
            after: { nace_code: after.nace_code, floor_area_m2: after.floor_area_m2 },
          },
        }),
      );
      return after;
    }),

  updateOrganization: memberProcedure
    .meta({ roles: ADMINS })
    .input(OrganizationSize)
    .output(OrganizationSize)
    .mutation(async ({ ctx, input }) => {
      const { after } = await audited(
        ctx,
        'organization.size_updated',
        (tx) => updateOrganizationSize(sqlOfTransaction(tx), ctx.user.organizationId, input),
        ({ before, after }) => ({ target: ctx.user.organizationName, details: { before, after } }),
      );
      return after;
    }),
});
