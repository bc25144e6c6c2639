import {
  EsrsE5Query,
  EsrsE5Response,
  EstablishmentResponse,
  HierarchyQuery,
  HierarchyReportResponse,
  ObligationsQuery,
  ObligationsResponse,
  UpdateEstablishmentInput,
} from '@merma/schema';
import { AppError } from '../../errors.js';
import { apiProcedure, ok, router } from '../../trpc/trpc.js';
import { esrsE5 } from './esrs.js';
import { hierarchyReport } from './hierarchy.js';
import { obligationsFor, updateEstablishmentFacts } from './service.js';

/**
 * "Am I obliged?" over the API: the answer for the key's establishment, and the establishment's
 * own facts it rests on (its activity and floor area). The organisation's size is set by its
 * owners and admins in the dashboard — a fact of the company, not of one establishment's key.
 */
export const complianceRouter = router({
  obligations: apiProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/compliance/obligations',
        tags: ['compliance'],
        summary: 'What Ley 1/2025 asks of this establishment',
        description:
          "Whether the prevention plan (art. 6.4.a), donation agreements (art. 6.4.b) and the order of priorities (art. 5) apply to the key's establishment, from its organisation's size (microenterprise, art. 3.f and 6.6), its activity (NACE class, and so its stage of Delegated Decision (EU) 2019/1597) and its floor area (1,300 m², art. 6.4.c, per site and summed under the same CIF). Each answer is `yes`, `no` or `unknown` with a stable `reason`, the provisions it rests on and its words in `lang` (`es` by default, or `en`); `missing` lists the facts still to give. Not legal advice.",
        operationId: 'getObligations',
      },
      permission: 'catalog:read',
    })
    .input(ObligationsQuery)
    .output(ObligationsResponse)
    .query(async ({ ctx, input }) => ok(await obligationsFor(ctx.replica, ctx.auth.establishmentId, input.lang, ctx.clock()))),

  esrsE5: apiProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/compliance/esrs-e5',
        tags: ['compliance'],
        summary: 'Food waste in the terms of ESRS E5-5',
        description:
          "The key's establishment's food waste of a calendar year (`year`, the current one to date by default), in kg, as ESRS E5-5 discloses waste: diverted from disposal by recovery operation (recycling: composting and digestion, R3; other recovery: energy, R1) and directed to disposal (incineration D10, landfill D1, other), the non-recycled amount and share. Food kept for people, donated, fed to animals or used as a by-product is not waste (Delegated Decision (EU) 2019/1597) and is reported apart as `not_waste_kg`. Each destination's operation is `wfd_operation` in `GET /destinos`. Summed in the database from the register, corrections as the register counts them.",
        operationId: 'getEsrsE5',
      },
      permission: 'analytics:read',
    })
    .input(EsrsE5Query)
    .output(EsrsE5Response)
    .query(async ({ ctx, input }) => ok(await esrsE5(ctx.replica, ctx.auth, input.year, ctx.clock()))),

  hierarchy: apiProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/compliance/hierarchy',
        tags: ['compliance'],
        summary: 'Records that went lower in the hierarchy, and their justifications',
        description:
          "The order of priorities kept in writing (Ley 1/2025 art. 5.2), for the key's establishment and a calendar year (`year`, the current one to date by default): each food category's best step (the highest destination it went to in the year), the records sent lower than their category's best step, how many carry a `hierarchy_reason` (grouped by reason) and the ones still without one, newest first (at most 100; `unjustified_count` counts them all). A record is never refused for lacking a reason: correct it (`waste.updated`, or the dashboard) with `hierarchy_reason` and `hierarchy_note` to justify it.",
        operationId: 'getHierarchyReport',
      },
      permission: 'analytics:read',
    })
    .input(HierarchyQuery)
    .output(HierarchyReportResponse)
    .query(async ({ ctx, input }) => ok(await hierarchyReport(ctx.replica, ctx.auth, input.year, ctx.clock()))),

  updateEstablishment: apiProcedure
    .meta({
      openapi: {
        method: 'PATCH',
        path: '/establishments/{id}',
        tags: ['catalogues'],
        summary: "Set an establishment's activity and floor area",
        description:
          "Sets `nace_code` (a NACE Rev. 2 class of the food chain: `56.10`, or CNAE-2009's `5610`) and `floor_area_m2` (the floor area open to the public, in m²) of the key's establishment; a field left out is kept, `null` clears it. An unknown NACE code or a negative area is a 400 and changes nothing. Another establishment's id is a 404.",
        operationId: 'updateEstablishment',
      },
      permission: 'catalog:write',
    })
    .input(UpdateEstablishmentInput)
    .output(EstablishmentResponse)
    .mutation(async ({ ctx, input }) => {
      if (input.id !== ctx.auth.establishmentId) throw new AppError('not_found', 'No such establishment');
      const { id: _id, ...body } = input;
      return ok((await updateEstablishmentFacts(ctx.sql, ctx.auth.establishmentId, body)).after);
    }),
});
