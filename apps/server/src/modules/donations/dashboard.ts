import {
  CreateDonationAgreementInput,
  CreateSocialEntityInput,
  Donation,
  type DonationAgreement,
  DonationLink,
  DonationTaxPack,
  ListDonationAgreementsQuery,
  SocialEntity,
  SocialEntityIdParams,
  UpdateDonationAgreementInput,
  UpdateSocialEntityInput,
} from '@merma/schema';
import {
  DashboardCertificateLinkInput,
  DashboardCreateDonationInput,
  DashboardDecideDonationInput,
  DashboardDonation,
  DashboardDonationAgreement,
  DashboardDonationIdInput,
  DashboardDonationLinkInput,
  DashboardDonationsInput,
  DashboardDonationsPage,
  DashboardRerouteDonationLineInput,
  DashboardTaxPackInput,
} from '@merma/schema/dashboard';
import { z } from 'zod';
import { sqlOfTransaction } from '../../db/sql.js';
import { ADMINS, audited, BUILDERS, dashboardRouter, memberProcedure, scopedProcedure } from '../../trpc/dashboard-base.js';
import type { CatalogCache } from '../catalog/service.js';
import { findEstablishment } from '../tenancy/callers.js';
import { createAgreement, expiresInDays, getAgreement, listAgreements, updateAgreement } from './agreements.js';
import { createCertificateLink } from './certificate-links.js';
import { advanceDonation, awaitingReroute, createDonation, decideDonation, getDonation, listDonations, rerouteLine } from './donations.js';
import { archiveEntity, createEntity, getEntity, listEntities, updateEntity } from './entities.js';
import { createDonationLink, donationSignature } from './links.js';
import { organisationTaxScope, taxReport } from './tax-report.js';

/**
 * The donations page's social entities and donation agreements (Ley 1/2025 art. 6.4.b and art. 7),
 * through the services the REST API uses (entities.ts, agreements.ts), which hold every check. Every
 * member reads them; owners and admins (ADMINS) add and change them — an agreement commits the
 * organisation, which is running it, not building integrations — each change in the audit log. The
 * signed PDF goes up and down through the dashboard surface's own route
 * (http/surfaces/dashboard-documents.ts), since a procedure's input is JSON.
 *
 * Modes: entities and agreements are the organisation's, the same in test and live mode
 * (service.ts), so these procedures take no `livemode` and the page shows the same list in both.
 * The REST API lets only a live key change them (`liveOnly`) so that a test integration cannot sign
 * the organisation up to anything; a signed-in owner or admin is not a test integration, so the
 * dashboard changes them in either mode, as it does the product catalogue (catalog/api.ts says the
 * same), and the page says that what is changed there is real in both modes.
 */

/** The agreement with the days left before it ends, when it is `expiring` (the status and the days read on the same day). */
function withExpiry(agreement: DonationAgreement, now: Date): DashboardDonationAgreement {
  return { ...agreement, expires_in_days: expiresInDays(agreement, now) };
}

/** The fields that differ between `before` and `after`, each with both values (what an update's audit entry keeps). */
function changes<T extends object>(before: T, after: T, fields: readonly (keyof T & string)[]) {
  const changed: Record<string, { before: unknown; after: unknown }> = {};
  for (const field of fields) {
    if (JSON.stringify(before[field]) !== JSON.stringify(after[field])) changed[field] = { before: before[field], after: after[field] };
  }
  return changed;
}

/** What an entity's update entry compares; its contacts (people's names, phones, e-mails) are only said to have changed. */
const ENTITY_FIELDS = ['name', 'nif', 'address', 'legal_form', 'registry_number', 'ley_49_2002', 'food_bank_network', 'capacity'] as const;
const AGREEMENT_FIELDS = [
  'establishment_ids',
  'valid_from',
  'valid_until',
  'renewal',
  'accepted_food_categories',
  'conditions',
  'collection',
  'storage_conditions',
  'safety_responsibility_clause',
  'refusal_procedure',
] as const;

/** Archives (`archived`) or restores an entity; an entry only when it changed. */
const setArchived = (archived: boolean) =>
  memberProcedure
    .meta({ roles: ADMINS })
    .input(SocialEntityIdParams)
    .output(SocialEntity)
    .mutation(async ({ ctx, input }) => {
      const { after } = await audited(
        ctx,
        archived ? 'social_entity.archived' : 'social_entity.restored',
        async (tx, now) => {
          const sql = sqlOfTransaction(tx);
          const before = await getEntity(sql, ctx.user.organizationId, input.id);
          return { before, after: await archiveEntity(sql, ctx.user.organizationId, input.id, archived, now) };
        },
        ({ before, after }) =>
          before.archived === after.archived ? [] : { target: after.name, details: { entity_id: after.id, nif: after.nif } },
      );
      return after;
    });

const entityAndAgreementProcedures = {
  /** Every entity of the organisation, archived ones included (the page shows them apart), by name. */
  entities: memberProcedure
    .output(z.array(SocialEntity))
    .query(({ ctx }) => listEntities(ctx.sql, ctx.user.organizationId, { includeArchived: true })),

  createEntity: memberProcedure
    .meta({ roles: ADMINS })
    .input(CreateSocialEntityInput)
    .output(SocialEntity)
    .mutation(({ ctx, input }) =>
      audited(
        ctx,
        'social_entity.created',
        (tx, now) => createEntity(sqlOfTransaction(tx), ctx.user.organizationId, input, now),
        (entity) => ({ target: entity.name, details: { entity_id: entity.id, nif: entity.nif, legal_form: entity.legal_form } }),
      ),
    ),

  updateEntity: memberProcedure
    .meta({ roles: ADMINS })
    .input(UpdateSocialEntityInput)
    .output(SocialEntity)
    .mutation(async ({ ctx, input }) => {
      const { after } = await audited(
        ctx,
        'social_entity.updated',
        async (tx, now) => {
          const sql = sqlOfTransaction(tx);
          const before = await getEntity(sql, ctx.user.organizationId, input.id);
          return { before, after: await updateEntity(sql, ctx.user.organizationId, input, now) };
        },
        ({ before, after }) => ({
          target: after.name,
          details: {
            entity_id: after.id,
            changes: changes(before, after, ENTITY_FIELDS),
            contacts_changed: JSON.stringify(before.contacts) !== JSON.stringify(after.contacts),
          },
        }),
      );
      return after;
    }),

  archiveEntity: setArchived(true),
  restoreEntity: setArchived(false),

  /**
   * The organisation's agreements, the latest ending first, optionally those of one entity, of one
   * establishment or in one status. An entity or establishment named that is not the
   * organisation's is a 404, as anything of another tenant is on the dashboard.
   */
  agreements: memberProcedure
    .input(ListDonationAgreementsQuery)
    .output(z.array(DashboardDonationAgreement))
    .query(async ({ ctx, input }) => {
      const organizationId = ctx.user.organizationId;
      if (input.establishment_id) await findEstablishment(ctx.db, organizationId, input.establishment_id);
      if (input.entity_id) await getEntity(ctx.sql, organizationId, input.entity_id);
      const now = ctx.clock();
      return (await listAgreements(ctx.sql, organizationId, input, now)).map((a) => withExpiry(a, now));
    }),

  createAgreement: memberProcedure
    .meta({ roles: ADMINS })
    .input(CreateDonationAgreementInput)
    .output(DashboardDonationAgreement)
    .mutation(({ ctx, input }) =>
      audited(
        ctx,
        'donation_agreement.created',
        async (tx, now) => withExpiry(await createAgreement(sqlOfTransaction(tx), ctx.user.organizationId, input, now), now),
        (agreement) => ({
          target: agreement.entity_name,
          details: {
            agreement_id: agreement.id,
            entity_id: agreement.entity_id,
            establishment_ids: agreement.establishment_ids,
            valid_from: agreement.valid_from,
            valid_until: agreement.valid_until,
            renewal: agreement.renewal,
          },
        }),
      ),
    ),

  updateAgreement: memberProcedure
    .meta({ roles: ADMINS })
    .input(UpdateDonationAgreementInput)
    .output(DashboardDonationAgreement)
    .mutation(async ({ ctx, input }) => {
      const { after } = await audited(
        ctx,
        'donation_agreement.updated',
        async (tx, now) => {
          const sql = sqlOfTransaction(tx);
          const before = await getAgreement(sql, ctx.user.organizationId, input.id, now);
          return { before, after: withExpiry(await updateAgreement(sql, ctx.user.organizationId, input, now), now) };
        },
        ({ before, after }) => ({
          target: after.entity_name,
          details: { agreement_id: after.id, entity_id: after.entity_id, changes: changes(before, after, AGREEMENT_FIELDS) },
        }),
      );
      return after;
    }),
};

/**
 * The donations page's procedures: the entities and agreements above, the donations offered
 * under them (below), whose signing links are made at `publicUrl`, and the year's tax pack (at
 * the end).
 */
export const donationsDashboardRouter = (deps: { catalog: CatalogCache; publicUrl: string }) =>
  dashboardRouter({ ...entityAndAgreementProcedures, ...donationProcedures(deps), ...taxPackProcedures(deps) });

/**
 * The donations page's donations (donations.ts): offered by the kitchen under an agreement in force,
 * answered by the social entity — through its signing link (links.ts), or on paper and recorded
 * here — then collected and received, a refused line sent down the hierarchy. The same services as
 * `/api/v1/donations`, which hold every check and write the records, the webhooks and the chain; a
 * procedure only names the establishment and mode (`scopedProcedure`: a donation is an
 * establishment's data of one mode, as a record is) and writes its audit entry in the same
 * transaction. Another establishment's or mode's donation is a 404.
 *
 * Every member reads. Owners, admins and developers — the members who record waste by hand
 * (`ROLE_CAPABILITIES.build`) — offer and follow donations: every line offered is a record of the
 * register, and the rest is the kitchen's day (the entity's answer on paper, the pick-up, a refused
 * tray sent to compost). Viewers change nothing, as everywhere. Agreements, which commit the
 * organisation, stay with owners and admins (dashboard.ts).
 *
 * Reads run on the primary (`ctx.sql`), not the replica: the page reads a donation again right
 * after changing it, and must see the change.
 */

/** The audit entry's common details: which donation, in which mode. */
const about = (donation: Donation) => ({ donation_id: donation.id, livemode: donation.livemode });

function donationProcedures({ catalog, publicUrl }: { catalog: CatalogCache; publicUrl: string }) {
  return {
    /** A page of the donations, and the refused lines still waiting for a destination (whatever the filter). */
    list: scopedProcedure
      .input(DashboardDonationsInput)
      .output(DashboardDonationsPage)
      .query(async ({ ctx, input }) => {
        const { establishment_id: _e, livemode: _l, ...filter } = input;
        const [page, waiting] = await Promise.all([listDonations(ctx.sql, ctx.tenant, filter), awaitingReroute(ctx.sql, ctx.tenant)]);
        return { ...page, awaiting_reroute: waiting };
      }),

    /** One donation with its lines, its signed note (SHA-256) and its link in use. */
    get: scopedProcedure
      .input(DashboardDonationIdInput)
      .output(DashboardDonation)
      .query(async ({ ctx, input }) => {
        const donation = await getDonation(ctx.sql, ctx.tenant, input.id);
        return { ...donation, ...(await donationSignature(ctx.sql, donation.id)) };
      }),

    offer: scopedProcedure
      .meta({ roles: BUILDERS })
      .input(DashboardCreateDonationInput)
      .output(Donation)
      .mutation(({ ctx, input }) => {
        const { establishment_id: _e, livemode: _l, ...donation } = input;
        return audited(
          ctx,
          'donation.offered',
          (tx) => createDonation({ db: tx, clock: ctx.clock, catalog }, ctx.tenant, donation),
          (d) => ({
            target: d.entity_name,
            details: { ...about(d), agreement_id: d.agreement_id, entity_id: d.entity_id, lines: d.lines.length, net_kg: d.totals.net_kg },
          }),
        );
      }),

    /** The entity's answer given on paper or by phone (the signing link records its own). */
    decide: scopedProcedure
      .meta({ roles: BUILDERS })
      .input(DashboardDecideDonationInput)
      .output(Donation)
      .mutation(({ ctx, input }) => {
        const { establishment_id: _e, livemode: _l, ...answer } = input;
        return audited(
          ctx,
          'donation.answer_recorded',
          (tx) => decideDonation({ db: tx, clock: ctx.clock, catalog }, ctx.tenant, answer),
          (d) => ({
            target: d.entity_name,
            details: {
              ...about(d),
              status: d.status,
              accepted: d.lines.filter((l) => l.status === 'accepted').map((l) => l.position),
              refused: d.lines.filter((l) => l.status === 'refused').map((l) => ({ position: l.position, reason: l.refusal_reason })),
            },
          }),
        );
      }),

    /**
     * The entity's signing link: its URL (at PUBLIC_URL, the token in the fragment) is in this answer
     * only; the audit entry keeps when it expires, never the URL.
     */
    createLink: scopedProcedure
      .meta({ roles: BUILDERS })
      .input(DashboardDonationLinkInput)
      .output(DonationLink)
      .mutation(async ({ ctx, input }) => {
        const { link } = await audited(
          ctx,
          'donation.link_created',
          async (tx) => {
            const link = await createDonationLink({ db: tx, clock: ctx.clock, publicUrl }, ctx.tenant, input);
            return { link, donation: await getDonation(sqlOfTransaction(tx), ctx.tenant, input.id) };
          },
          ({ link, donation }) => ({ target: donation.entity_name, details: { ...about(donation), expires_at: link.expires_at } }),
        );
        return link;
      }),

    collect: advance('collected', catalog),
    receive: advance('received', catalog),

    /** A refused line sent down the hierarchy (a correction of its record, with the entity's reason). */
    rerouteLine: scopedProcedure
      .meta({ roles: BUILDERS })
      .input(DashboardRerouteDonationLineInput)
      .output(Donation)
      .mutation(({ ctx, input }) => {
        const { establishment_id: _e, livemode: _l, ...reroute } = input;
        return audited(
          ctx,
          'donation.line_rerouted',
          (tx) => rerouteLine({ db: tx, clock: ctx.clock, catalog }, ctx.tenant, reroute),
          (d) => {
            const line = d.lines.find((l) => l.id === reroute.line_id);
            return {
              target: d.entity_name,
              details: {
                ...about(d),
                line_id: reroute.line_id,
                position: line?.position,
                destino_id: reroute.destino_id,
                record_id: line?.rerouted?.record_id,
                supersedes_id: line?.record_id,
              },
            };
          },
        );
      }),
  };
}

/** Collected (from accepted) or received (from collected), audited. */
function advance(to: 'collected' | 'received', catalog: CatalogCache) {
  return scopedProcedure
    .meta({ roles: BUILDERS })
    .input(DashboardDonationIdInput)
    .output(Donation)
    .mutation(({ ctx, input }) =>
      audited(
        ctx,
        to === 'collected' ? 'donation.collected' : 'donation.received',
        (tx) => advanceDonation({ db: tx, clock: ctx.clock, catalog }, ctx.tenant, input.id, to),
        (d) => ({ target: d.entity_name, details: { ...about(d), accepted_kg: d.totals.accepted_kg } }),
      ),
    );
}

/**
 * The donations page's tax pack (`donations.taxPack`): the same figures as
 * `GET /api/v1/donations/tax-pack` (tax-report.ts), for the organisation in the mode the page
 * shows, as an Enterprise Multi key of that mode reads it — a member sees every establishment of
 * the organisation whatever its plan — with each entity's signed certificate as stored. Every
 * member reads it, as they read the entities and agreements it is drawn from; it counts against the
 * member's `heavy` limit, as an aggregate over three years of donations. Its files and the signed
 * certificates go up and down through the dashboard surface's own routes
 * (http/surfaces/dashboard-tax-pack.ts), since a procedure answers JSON.
 *
 * Read on the primary (`ctx.sql`): the page reads the pack again right after a certificate is
 * uploaded, and must see it.
 */
const taxPackProcedures = ({ publicUrl }: { publicUrl: string }) => ({
  taxPack: memberProcedure
    .meta({ rateLimit: 'heavy' })
    .input(DashboardTaxPackInput)
    .output(DonationTaxPack)
    .query(async ({ ctx, input }) => {
      const scope = organisationTaxScope(ctx.user.organizationId, input.livemode);
      return (await taxReport(ctx.sql, scope, { year: input.year, generatedAt: ctx.clock() })).pack;
    }),

  /**
   * The entity's link to sign the certificate of one company's gifts of the year
   * (certificate-links.ts), made by owners and admins — who upload the signed certificate it
   * replaces — from the organisation's pack in the mode shown, as the API's
   * `POST /donations/tax-pack/certificates/{entity_id}/link` makes it for a key. The link acts in
   * the company's oldest establishment. Its URL (at PUBLIC_URL, the token in the fragment) is in
   * this answer only; the audit entry keeps the certificate and when the link expires, never the URL.
   */
  createCertificateLink: memberProcedure
    .meta({ roles: ADMINS })
    .input(DashboardCertificateLinkInput)
    .output(DonationLink)
    .mutation(async ({ ctx, input }) => {
      const { livemode, ...link } = input;
      const maker = { scope: organisationTaxScope(ctx.user.organizationId, livemode, link.cif), establishmentId: null };
      const made = await audited(
        ctx,
        'donation_certificate.link_created',
        (tx) => createCertificateLink({ db: tx, clock: ctx.clock, publicUrl }, maker, link),
        ({ key, entityName, establishmentId, link: { expires_at } }) => ({
          target: entityName,
          establishmentId,
          details: { entity_id: key.entityId, year: key.year, cif: key.cif, livemode: key.livemode, expires_at },
        }),
      );
      return made.link;
    }),
});
