import {
  CreateDonationAgreementInput,
  CreateSocialEntityInput,
  type DonationAgreement,
  ListDonationAgreementsQuery,
  SocialEntity,
  SocialEntityIdParams,
  UpdateDonationAgreementInput,
  UpdateSocialEntityInput,
} from '@merma/schema';
import { DashboardDonationAgreement } from '@merma/schema/dashboard';
import { z } from 'zod';
import { sqlOfTransaction } from '../../db/sql.js';
import { ADMINS, audited, dashboardRouter, memberProcedure } from '../../trpc/dashboard-base.js';
import { findEstablishment } from '../tenancy/callers.js';
import { createAgreement, expiresInDays, getAgreement, listAgreements, updateAgreement } from './agreements.js';
import { archiveEntity, createEntity, getEntity, listEntities, updateEntity } from './entities.js';

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

export const donationsDashboardRouter = dashboardRouter({
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
});
