import {
  CreateCertificateLinkInput,
  CreateDonationAgreementInput,
  CreateDonationInput,
  CreateDonationLinkInput,
  CreateSocialEntityInput,
  DecideDonationInput,
  DonationAgreementIdParams,
  DonationAgreementResponse,
  DonationIdParams,
  DonationLinkResponse,
  DonationResponse,
  DonationTaxPackQuery,
  DonationTaxPackResponse,
  ListDonationAgreementsQuery,
  ListDonationAgreementsResponse,
  ListDonationsQuery,
  ListDonationsResponse,
  ListSocialEntitiesQuery,
  ListSocialEntitiesResponse,
  RerouteDonationLineInput,
  SocialEntityIdParams,
  SocialEntityResponse,
  UpdateDonationAgreementInput,
  UpdateSocialEntityInput,
} from '@merma/schema';
import { apiProcedure, ok, router } from '../../trpc/trpc.js';
import type { CatalogCache } from '../catalog/service.js';
import { createAgreement, getAgreement, listAgreements, updateAgreement } from './agreements.js';
import { createCertificateLink } from './certificate-links.js';
import { advanceDonation, createDonation, decideDonation, getDonation, listDonations, rerouteLine } from './donations.js';
import { archiveEntity, createEntity, getEntity, listEntities, updateEntity } from './entities.js';
import { createDonationLink } from './links.js';
import { liveOnly } from './service.js';
import { taxReport, taxReportScope } from './tax-report.js';

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

const donationMeta = (
  method: 'GET' | 'POST',
  path: `/${string}`,
  summary: string,
  operationId: string,
  permission: 'donations:read' | 'donations:write',
  description: string,
  created = false,
) => ({
  openapi: { method, path, tags: ['donations'], summary, operationId, description },
  permission,
  ...(created ? { successStatus: 201 as const } : {}),
});

const TAX_PACK = `The donations' tax pack of a tax year, for the company's adviser: per donor company (the establishments' CIF), the VAT of each donation (taxable base 0 for an entity of Ley 49/2002 art. 2, otherwise a self-supply the adviser settles), the Ley 49/2002 art. 18 base of the gifts (book value capped at market value), and per social entity the art. 20 corporate-tax deduction: 40 %, or 50 % when the company gave to the same entity in each of the two previous years and the nearer at least as much (\`recurrence\`), and the 15 % limit when \`taxable_base\` is given. Read from the accepted lines of collected or received donations of the key's mode, the tax year being the day of collection in Spain. An Enterprise Multi key sees every establishment of the organisation; another key sees its establishment's donations and shares (\`scope: establishment\`: the company-wide totals are null, the rate and its recurrence test still read the company's gifts). Every figure carries notes (a code and an English text naming the article); docs/decisions/0011 gives the rules. The same pack as a spreadsheet: \`GET /donations/tax-pack.csv\`; as a PDF: \`GET /donations/tax-pack.pdf\`; an entity's certificate (art. 24) to sign: \`GET /donations/tax-pack/certificates/{entity_id}.pdf\`, and the one it signed, stored: \`PUT\` and \`GET /donations/tax-pack/certificates/{entity_id}/signed\` (each entity's \`signed_certificate\` here).`;

const STATES =
  'States: `offered` → `accepted` (the entity takes at least one line) | `refused` (none) → `collected` → `received`; a step from another state is a 409.';

/**
 * Social entities and donation agreements (service.ts), and the donations offered under them
 * (donations.ts): the REST procedures.
 */
export function donationsRouter({ catalog, publicUrl }: { catalog: CatalogCache; publicUrl: string }) {
  return router({
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
        meta(
          'POST',
          '/social-entities/{id}/restore',
          'Restore an archived social entity',
          'restoreSocialEntity',
          'donations:write',
          WRITES,
        ),
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
    listDonations: apiProcedure
      .meta(
        donationMeta(
          'GET',
          '/donations',
          'List donations',
          'listDonations',
          'donations:read',
          `This establishment's donations of the key's mode, the latest offered first. ${STATES}`,
        ),
      )
      .input(ListDonationsQuery)
      .output(ListDonationsResponse)
      .query(async ({ ctx, input }) => {
        const { items, total } = await listDonations(ctx.replica, ctx.auth, input);
        return {
          ...ok(items),
          meta: { pagination: { limit: input.limit, offset: input.offset, total, has_more: input.offset + items.length < total } },
        };
      }),

    getDonation: apiProcedure
      .meta(donationMeta('GET', '/donations/{id}', 'Get a donation', 'getDonation', 'donations:read', `With its lines. ${STATES}`))
      .input(DonationIdParams)
      .output(DonationResponse)
      .query(async ({ ctx, input }) => ok(await getDonation(ctx.sql, ctx.auth, input.id))),

    createDonation: apiProcedure
      .meta(
        donationMeta(
          'POST',
          '/donations',
          'Offer a donation',
          'createDonation',
          'donations:write',
          'Offers food to the social entity of an agreement in force that covers this establishment. Each line becomes a record of the register (destination: donation) in the same transaction, and `donation.offered` is sent. Refused with a 400 naming every problem, nothing stored: an agreement that is expired, a draft or of another establishment; a category, chilled, frozen or cooked food, or food near its best-before date that the agreement does not accept; a line past its use-by date; a negative value. Values left out are filled from the product: `book_value` from its `unit_cost`, `market_value` from its `price`.',
          true,
        ),
      )
      .input(CreateDonationInput)
      .output(DonationResponse)
      .mutation(async ({ ctx, input }) => ok(await createDonation({ db: ctx.db, clock: ctx.clock, catalog }, ctx.auth, input))),

    decideDonation: apiProcedure
      .meta(
        donationMeta(
          'POST',
          '/donations/{id}/decision',
          "Record the entity's answer",
          'decideDonation',
          'donations:write',
          `The social entity's answer to an offered donation, every line once: \`accepted\`, or \`refused\` with its reason (Ley 1/2025 art. 7). Sends \`donation.accepted\` or, when every line is refused, \`donation.refused\`. A refused line stays listed (\`awaiting_reroute\`) until it is sent elsewhere. ${STATES}`,
        ),
      )
      .input(DecideDonationInput)
      .output(DonationResponse)
      .mutation(async ({ ctx, input }) => ok(await decideDonation({ db: ctx.db, clock: ctx.clock, catalog }, ctx.auth, input))),

    collectDonation: apiProcedure
      .meta(
        donationMeta(
          'POST',
          '/donations/{id}/collect',
          'Mark a donation collected',
          'collectDonation',
          'donations:write',
          `From \`accepted\`. ${STATES}`,
        ),
      )
      .input(DonationIdParams)
      .output(DonationResponse)
      .mutation(async ({ ctx, input }) =>
        ok(await advanceDonation({ db: ctx.db, clock: ctx.clock, catalog }, ctx.auth, input.id, 'collected')),
      ),

    receiveDonation: apiProcedure
      .meta(
        donationMeta(
          'POST',
          '/donations/{id}/receive',
          'Mark a donation received',
          'receiveDonation',
          'donations:write',
          `From \`collected\`: the entity has it. Sends \`donation.received\`. ${STATES}`,
        ),
      )
      .input(DonationIdParams)
      .output(DonationResponse)
      .mutation(async ({ ctx, input }) =>
        ok(await advanceDonation({ db: ctx.db, clock: ctx.clock, catalog }, ctx.auth, input.id, 'received')),
      ),

    rerouteDonationLine: apiProcedure
      .meta(
        donationMeta(
          'POST',
          '/donations/{id}/lines/{line_id}/reroute',
          'Send a refused line elsewhere',
          'rerouteDonationLine',
          'donations:write',
          "Sends a line the entity refused down the food-waste hierarchy (Ley 1/2025 art. 5) to `destino_id`, a destination below donation: its record is corrected, not edited — a new record supersedes it in the chain, with the entity's reason and the kitchen's `note`. Once per line (409 after).",
        ),
      )
      .input(RerouteDonationLineInput)
      .output(DonationResponse)
      .mutation(async ({ ctx, input }) => ok(await rerouteLine({ db: ctx.db, clock: ctx.clock, catalog }, ctx.auth, input))),

    getTaxPack: apiProcedure
      .meta(
        donationMeta(
          'GET',
          '/donations/tax-pack',
          'Get the donations tax pack of a year',
          'getDonationTaxPack',
          'donations:read',
          TAX_PACK,
        ),
      )
      .input(DonationTaxPackQuery)
      .output(DonationTaxPackResponse)
      .query(async ({ ctx, input }) => {
        const options = { year: input.year, taxableBase: input.taxable_base, generatedAt: ctx.clock() };
        return ok((await taxReport(ctx.replica, taxReportScope(ctx.auth, input.cif), options)).pack);
      }),
    createDonationLink: apiProcedure
      .meta(
        donationMeta(
          'POST',
          '/donations/{id}/link',
          'Make the entity’s signing link',
          'createDonationLink',
          'donations:write',
          "A one-time link for the social entity's volunteer, without an account, to accept or refuse each line of an offered donation and sign the handover note (PDF, its SHA-256 kept). The token is in the URL's fragment and is shown only in this answer; a new link replaces the donation's last one. The link expires after `expires_in_hours` (48 by default, 168 at most); used once; after that the page still downloads the signed note until it expires. 409 unless the donation is offered.",
          true,
        ),
      )
      .input(CreateDonationLinkInput)
      .output(DonationLinkResponse)
      .mutation(async ({ ctx, input }) => ok(await createDonationLink({ db: ctx.db, clock: ctx.clock, publicUrl }, ctx.auth, input))),
    createCertificateLink: apiProcedure
      .meta(
        donationMeta(
          'POST',
          '/donations/tax-pack/certificates/{entity_id}/link',
          'Make the entity’s link to sign its certificate',
          'createCertificateLink',
          'donations:write',
          "A one-time link, of the same kind as a donation's, for the social entity's representative to read and sign, without an account, the certificate of Ley 49/2002 art. 24 of one donor company's gifts of `year` (every accepted line collected that year, with its day of handover, kilos and art. 18 value): name, identity document, position, place and a drawn or typed signature. The signed certificate is rendered as a PDF and stored as the year's signed certificate (`GET /donations/tax-pack/certificates/{entity_id}/signed`; it replaces one uploaded before, whose SHA-256 the audit log keeps). The token is in the URL's fragment and is shown only in this answer; a new link for the same certificate replaces the last. It expires after `expires_in_hours` (48 by default, 168 at most) and signs once. The company is `cif`, or the one the key sees that gave to the entity that year (a 400 asks for it when there are several); 404 when nothing was handed over to the entity that year.",
          true,
        ),
      )
      .input(CreateCertificateLinkInput)
      .output(DonationLinkResponse)
      .mutation(async ({ ctx, input }) => {
        const maker = { scope: taxReportScope(ctx.auth, input.cif), establishmentId: ctx.auth.establishmentId };
        return ok((await createCertificateLink({ db: ctx.db, clock: ctx.clock, publicUrl }, maker, input)).link);
      }),
  });
}
