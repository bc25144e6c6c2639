import {
  EsrsE5,
  Establishment,
  HierarchyReport,
  Obligations,
  OrganizationFigures,
  OrganizationSize,
  Reduction,
  WasteStream,
} from '@merma/schema';
import {
  DashboardEsrsE5Input,
  DashboardHierarchyInput,
  DashboardObligationsInput,
  DashboardOrganizationFiguresInput,
  DashboardReductionInput,
  DashboardRemoveWasteStreamInput,
  DashboardSetWasteStreamInput,
  DashboardUpdateEstablishmentInput,
  DashboardWasteStreamsInput,
} from '@merma/schema/dashboard';
import { z } from 'zod';
import { sqlOfTransaction } from '../../db/sql.js';
import { ADMINS, audited, dashboardRouter, establishmentProcedure, memberProcedure, scopedProcedure } from '../../trpc/dashboard-base.js';
import { esrsE5 } from './esrs.js';
import { hierarchyReport } from './hierarchy.js';
import { organizationFigures } from './organization.js';
import { reduction } from './reduction.js';
import { obligationsFor, updateEstablishmentFacts, updateOrganizationSize } from './service.js';
import { listWasteStreams, removeWasteStream, setWasteStream } from './waste-streams.js';

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

  /** A year's food waste against a baseline, of the establishment and mode: `/api/v1/compliance/reduction`. */
  reduction: scopedProcedure
    .input(DashboardReductionInput)
    .output(Reduction)
    .query(({ ctx, input }) => reduction(ctx.replica, ctx.tenant, { year: input.year, baseline: input.baseline }, ctx.clock())),

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

  /** A year's food waste of every establishment of the organisation, by stage: `/api/v1/compliance/organization` as an Enterprise Multi key reads it. */
  organization: memberProcedure
    .input(DashboardOrganizationFiguresInput)
    .output(OrganizationFigures)
    .query(({ ctx, input }) =>
      organizationFigures(
        ctx.replica,
        { organization: ctx.user.organizationId, livemode: input.livemode, onlyEstablishment: null },
        { year: input.year, baseline: input.baseline },
        ctx.clock(),
      ),
    ),

  /** Each waste stream's LER code and manager: `/api/v1/compliance/waste-streams`. */
  wasteStreams: establishmentProcedure
    .input(DashboardWasteStreamsInput)
    .output(z.array(WasteStream))
    .query(({ ctx }) => listWasteStreams(ctx.replica, ctx.establishment.id)),

  setWasteStream: establishmentProcedure
    .meta({ roles: ADMINS })
    .input(DashboardSetWasteStreamInput)
    .output(WasteStream)
    .mutation(async ({ ctx, input }) => {
      const { after } = await audited(
        ctx,
        'waste_stream.updated',
        (tx) =>
          setWasteStream(
            sqlOfTransaction(tx),
            ctx.establishment.id,
            input.destination_id,
            { ler_code: input.ler_code, manager_name: input.manager_name, manager_nima: input.manager_nima },
            ctx.clock(),
          ),
        ({ before, after }) => ({ target: after.destination_code, details: { before: streamFacts(before), after: streamFacts(after) } }),
      );
      return after;
    }),

  removeWasteStream: establishmentProcedure
    .meta({ roles: ADMINS })
    .input(DashboardRemoveWasteStreamInput)
    .output(WasteStream)
    .mutation(async ({ ctx, input }) => {
      const { after } = await audited(
        ctx,
        'waste_stream.removed',
        (tx) => removeWasteStream(sqlOfTransaction(tx), ctx.establishment.id, input.destination_id),
        ({ before }) => ({ target: before.destination_code, details: { before: streamFacts(before) } }),
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

const streamFacts = (s: WasteStream) => ({ ler_code: s.ler_code, manager_name: s.manager_name, manager_nima: s.manager_nima });
