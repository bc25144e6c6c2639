import {
  EsrsE5Query,
  EsrsE5Response,
  EstablishmentResponse,
  HierarchyQuery,
  HierarchyReportResponse,
  ListWasteStreamsResponse,
  NoQuery,
  ObligationsQuery,
  ObligationsResponse,
  OrganizationFiguresQuery,
  OrganizationFiguresResponse,
  ReductionQuery,
  ReductionResponse,
  UpdateEstablishmentInput,
  UpdateWasteStreamInput,
  WasteStreamResponse,
} from '@merma/schema';
import { AppError } from '../../errors.js';
import { apiProcedure, ok, router } from '../../trpc/trpc.js';
import { esrsE5 } from './esrs.js';
import { hierarchyReport } from './hierarchy.js';
import { organizationFigures } from './organization.js';
import { reduction } from './reduction.js';
import { obligationsFor, updateEstablishmentFacts } from './service.js';
import { listWasteStreams, setWasteStream } from './waste-streams.js';

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

  reduction: apiProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/compliance/reduction',
        tags: ['compliance'],
        summary: "A year's food waste against a baseline, for the 2030 targets",
        description:
          "The key's establishment's food waste of a calendar year (`year`, the current one to date by default; `complete` says whether it has ended) — what Delegated Decision (EU) 2019/1597 counts: donated food, animal feed and by-products are not waste — with how it was measured, against a `baseline`: `2021-2023` (the default: the average of those years with records, the Waste Framework Directive's 2030 baseline), `2020` (Ley 1/2025's reference) or `first_year` (the first full calendar year with records, the prevention plan's). The establishment's stage (from its NACE class) gives the Directive's 2030 reduction (−10 % processing and manufacturing, −30 % retail, distribution and food services), applied to the baseline as an indicative target. Where sales reach Merma, kg per €1,000 of sales at today's prices. Summed in the database from the register.",
        operationId: 'getReduction',
      },
      permission: 'analytics:read',
    })
    .input(ReductionQuery)
    .output(ReductionResponse)
    .query(async ({ ctx, input }) => ok(await reduction(ctx.replica, ctx.auth, input, ctx.clock()))),

  organization: apiProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/compliance/organization',
        tags: ['compliance'],
        summary: "A year's food waste of every establishment, by stage, against their baselines",
        description:
          "The organisation's food waste of a calendar year (`year`, by default the current one), as `GET /compliance/reduction` reads it for each establishment — in its own time zone, with its stage and against its own `baseline` —, then summed by the stage of the food supply chain (Delegated Decision (EU) 2019/1597) with the Waste Framework Directive's 2030 reduction for each stage, and in all, with how it was measured; and the ESRS E5-5 figures of every establishment summed. A baseline is compared only with the establishments that have one (`compared_waste_kg`). An Enterprise Multi key sees every establishment of the organisation; another key sees its own (`scope: establishment`).",
        operationId: 'getOrganizationFigures',
      },
      permission: 'analytics:read',
    })
    .input(OrganizationFiguresQuery)
    .output(OrganizationFiguresResponse)
    .query(async ({ ctx, input }) =>
      ok(
        await organizationFigures(
          ctx.replica,
          {
            organization: ctx.auth.organizationId,
            livemode: ctx.auth.livemode,
            onlyEstablishment: ctx.auth.plan === 'enterprise_multi' ? null : ctx.auth.establishmentId,
          },
          input,
          ctx.clock(),
        ),
      ),
    ),

  wasteStreams: apiProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/compliance/waste-streams',
        tags: ['compliance'],
        summary: "Each waste stream's LER code and authorised manager",
        description:
          'One entry per destination that is waste (`wfd_operation` other than `not_waste`), in the hierarchy\'s order: the European List of Waste code the key\'s establishment hands it over under (`ler_code`, "20 01 08", with its words in Spanish and English) and the authorised waste manager who collects it, with the NIMA of its site. A stream not yet described has them null. Donations, animal feed and food kept for people are not waste and are not listed. Each record says the transfer document it was handed over with (`transfer_document_ref`).',
        operationId: 'listWasteStreams',
      },
      permission: 'catalog:read',
    })
    .input(NoQuery)
    .output(ListWasteStreamsResponse)
    .query(async ({ ctx }) => ok(await listWasteStreams(ctx.replica, ctx.auth.establishmentId))),

  setWasteStream: apiProcedure
    .meta({
      openapi: {
        method: 'PUT',
        path: '/compliance/waste-streams/{destination_id}',
        tags: ['compliance'],
        summary: "Set a waste stream's LER code and manager",
        description:
          "Describes the stream of one destination of the key's establishment: `ler_code` (required: a code of the European List of Waste a food business hands food over under, such as `20 01 08` or `02 02 03`; `200108` is accepted), `manager_name` and `manager_nima` (10 digits), each null while not known. Sent whole: it replaces what was said. A destination that is not waste, an unknown LER code or a NIMA that is not 10 digits is a 400 and changes nothing; an unknown destination is a 404.",
        operationId: 'setWasteStream',
      },
      permission: 'catalog:write',
    })
    .input(UpdateWasteStreamInput)
    .output(WasteStreamResponse)
    .mutation(async ({ ctx, input }) => {
      const { destination_id, ...fields } = input;
      return ok((await setWasteStream(ctx.sql, ctx.auth.establishmentId, destination_id, fields, ctx.clock())).after);
    }),

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
