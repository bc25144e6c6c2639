import {
  CreateDonationAgreementInput,
  CreateSocialEntityInput,
  DonationAgreementIdParams,
  DonationAgreementResponse,
  ListDonationAgreementsQuery,
  ListDonationAgreementsResponse,
  ListSocialEntitiesQuery,
  ListSocialEntitiesResponse,
  SocialEntityIdParams,
  SocialEntityResponse,
  UpdateDonationAgreementInput,
  UpdateSocialEntityInput,
} from '@merma/schema';
import { apiProcedure, ok, router } from '../../trpc/trpc.js';
import { createAgreement, getAgreement, listAgreements, updateAgreement } from './agreements.js';
import { archiveEntity, createEntity, getEntity, listEntities, updateEntity } from './entities.js';
import { liveOnly } from './service.js';

const meta = (
  method: 'GET' | 'POST' | 'PATCH',
  path: `/${string}`,
  summary: string,
  operationId: string,
  permission: 'donations:read' | 'donations:write',
  description?: string,
) => ({
  openapi: { method, path, tags: ['donations'], summary, operationId, ...(description ? { description } : {}) },
  permission,
  ...(method === 'POST' && !path.includes('{id}') ? { successStatus: 201 as const } : {}),
});

const WRITES =
  'The organisation’s, for every establishment and both modes: a live key (svc_live_…) changes it, a test key reads it (403 otherwise).';

/** Social entities and donation agreements (service.ts): the REST procedures. */
export const donationsRouter = router({
  listEntities: apiProcedure
    .meta(
      meta(
        'GET',
        '/social-entities',
        'List social entities',
        'listSocialEntities',
        'donations:read',
        'The organisation’s social entities and food banks, by name. Archived ones only with `include_archived=true`.',
      ),
    )
    .input(ListSocialEntitiesQuery)
    .output(ListSocialEntitiesResponse)
    .query(async ({ ctx, input }) =>
      ok(await listEntities(ctx.sql, ctx.auth.organizationId, { includeArchived: input.include_archived ?? false })),
    ),

  getEntity: apiProcedure
    .meta(meta('GET', '/social-entities/{id}', 'Get a social entity', 'getSocialEntity', 'donations:read'))
    .input(SocialEntityIdParams)
    .output(SocialEntityResponse)
    .query(async ({ ctx, input }) => ok(await getEntity(ctx.sql, ctx.auth.organizationId, input.id))),

  createEntity: apiProcedure
    .meta(
      meta(
        'POST',
        '/social-entities',
        'Add a social entity',
        'createSocialEntity',
        'donations:write',
        `A social entity or food bank the organisation donates to (Ley 1/2025 art. 6.4.b), with its NIF (a legal person’s: letter, 7 digits, control character), legal form, Ley 49/2002 status, contacts and capacity. One per NIF in the organisation (409 otherwise). ${WRITES}`,
      ),
    )
    .input(CreateSocialEntityInput)
    .output(SocialEntityResponse)
    .mutation(async ({ ctx, input }) => {
      liveOnly(ctx.auth.livemode);
      return ok(await createEntity(ctx.sql, ctx.auth.organizationId, input, ctx.clock()));
    }),

  updateEntity: apiProcedure
    .meta(
      meta(
        'PATCH',
        '/social-entities/{id}',
        'Change a social entity',
        'updateSocialEntity',
        'donations:write',
        `Only the fields sent change; \`null\` clears an optional one; \`contacts\` replaces the list. ${WRITES}`,
      ),
    )
    .input(UpdateSocialEntityInput)
    .output(SocialEntityResponse)
    .mutation(async ({ ctx, input }) => {
      await getEntity(ctx.sql, ctx.auth.organizationId, input.id); // another organisation's: 404 before anything else
      liveOnly(ctx.auth.livemode);
      return ok(await updateEntity(ctx.sql, ctx.auth.organizationId, input, ctx.clock()));
    }),

  archiveEntity: apiProcedure
    .meta(
      meta(
        'POST',
        '/social-entities/{id}/archive',
        'Archive a social entity',
        'archiveSocialEntity',
        'donations:write',
        `An archived entity leaves the list and takes no new agreement; its agreements stay. ${WRITES}`,
      ),
    )
    .input(SocialEntityIdParams)
    .output(SocialEntityResponse)
    .mutation(async ({ ctx, input }) => {
      await getEntity(ctx.sql, ctx.auth.organizationId, input.id);
      liveOnly(ctx.auth.livemode);
      return ok(await archiveEntity(ctx.sql, ctx.auth.organizationId, input.id, true, ctx.clock()));
    }),

  restoreEntity: apiProcedure
    .meta(
      meta('POST', '/social-entities/{id}/restore', 'Restore an archived social entity', 'restoreSocialEntity', 'donations:write', WRITES),
    )
    .input(SocialEntityIdParams)
    .output(SocialEntityResponse)
    .mutation(async ({ ctx, input }) => {
      await getEntity(ctx.sql, ctx.auth.organizationId, input.id);
      liveOnly(ctx.auth.livemode);
      return ok(await archiveEntity(ctx.sql, ctx.auth.organizationId, input.id, false, ctx.clock()));
    }),

  listAgreements: apiProcedure
    .meta(
      meta(
        'GET',
        '/donation-agreements',
        'List donation agreements',
        'listDonationAgreements',
        'donations:read',
        'The organisation’s donation agreements, the latest ending first, optionally for one entity, one establishment or one status.',
      ),
    )
    .input(ListDonationAgreementsQuery)
    .output(ListDonationAgreementsResponse)
    .query(async ({ ctx, input }) => ok(await listAgreements(ctx.sql, ctx.auth.organizationId, input, ctx.clock()))),

  getAgreement: apiProcedure
    .meta(meta('GET', '/donation-agreements/{id}', 'Get a donation agreement', 'getDonationAgreement', 'donations:read'))
    .input(DonationAgreementIdParams)
    .output(DonationAgreementResponse)
    .query(async ({ ctx, input }) => ok(await getAgreement(ctx.sql, ctx.auth.organizationId, input.id, ctx.clock()))),

  createAgreement: apiProcedure
    .meta(
      meta(
        'POST',
        '/donation-agreements',
        'Add a donation agreement',
        'createDonationAgreement',
        'donations:write',
        `A written agreement (Ley 1/2025 art. 7) with a social entity for one or more establishments of the organisation: validity and renewal, the food it accepts, collection and transport, storage, each party’s safety responsibility and the refusal procedure. It is a \`draft\` until its signed PDF is stored (\`PUT /donation-agreements/{id}/document\`, raw \`application/pdf\` body up to 10 MiB; \`GET\` returns it). An entity or establishment that is not the organisation’s: 404. ${WRITES}`,
      ),
    )
    .input(CreateDonationAgreementInput)
    .output(DonationAgreementResponse)
    .mutation(async ({ ctx, input }) => {
      liveOnly(ctx.auth.livemode);
      return ok(await createAgreement(ctx.sql, ctx.auth.organizationId, input, ctx.clock()));
    }),

  updateAgreement: apiProcedure
    .meta(
      meta(
        'PATCH',
        '/donation-agreements/{id}',
        'Change a donation agreement',
        'updateDonationAgreement',
        'donations:write',
        `Only the fields sent change; \`establishment_ids\` replaces the list; the dates are checked with the ones kept. ${WRITES}`,
      ),
    )
    .input(UpdateDonationAgreementInput)
    .output(DonationAgreementResponse)
    .mutation(async ({ ctx, input }) => {
      await getAgreement(ctx.sql, ctx.auth.organizationId, input.id, ctx.clock());
      liveOnly(ctx.auth.livemode);
      return ok(await updateAgreement(ctx.sql, ctx.auth.organizationId, input, ctx.clock()));
    }),
});
