import { ChainVerification, WasteRecord } from '@merma/schema';
import {
  DashboardCorrectRecordInput,
  DashboardCreateRecordInput,
  ModeScope,
  RecordDetail,
  RecordIdInput,
  RecordsPage,
  RecordsPageInput,
} from '@merma/schema/dashboard';
import type { CheckpointSigner } from '../../secrets/signing.js';
import { audited, BUILDERS, dashboardRouter, scopedProcedure } from '../../trpc/dashboard-base.js';
import type { CatalogCache } from '../catalog/service.js';
import { getRecordDetail, listRecordsPage } from './browse.js';
import { correctRecord } from './correct.js';
import { createRecord } from './service.js';
import { verifyRecordChain } from './verify.js';

/** The `source` of records written from the dashboard (the API's are `api`, inbound ones `inbound:<system>`). */
export const DASHBOARD_SOURCE = 'dashboard';

/**
 * The records page: the filtered table (keyset pages) with its totals, a record's chain details,
 * the chain check, and adding or correcting a record by hand. Every member reads; owners, admins
 * and developers write (viewers change nothing, as elsewhere). A write goes through the services
 * of `POST /api/v1/records` and of the inbound `waste.updated` — the same checks, errors, chain and
 * `record.created` / `record.updated` events — in the mode the dashboard shows, with an entry in
 * the audit log written on the same transaction.
 */
export const recordsDashboardRouter = (signer: CheckpointSigner, catalog: CatalogCache) =>
  dashboardRouter({
    list: scopedProcedure
      .input(RecordsPageInput)
      .output(RecordsPage)
      .query(({ ctx, input }) => {
        const { establishment_id: _e, livemode: _l, ...filter } = input;
        return listRecordsPage({ sql: ctx.replica, clock: ctx.clock }, ctx.tenant, filter);
      }),

    get: scopedProcedure
      .input(RecordIdInput)
      .output(RecordDetail)
      .query(({ ctx, input }) => getRecordDetail(ctx.sql, ctx.scope, input.id)),

    verify: scopedProcedure
      .meta({ rateLimit: 'heavy' })
      .input(ModeScope)
      .output(ChainVerification)
      .query(({ ctx }) => verifyRecordChain(ctx.sql, ctx.scope, { signer, clock: ctx.clock })),

    create: scopedProcedure
      .meta({ roles: BUILDERS })
      .input(DashboardCreateRecordInput)
      .output(WasteRecord)
      .mutation(({ ctx, input }) => {
        const { establishment_id: _e, livemode, ...record } = input;
        return audited(
          ctx,
          'record.created',
          (tx) => createRecord({ db: tx, clock: ctx.clock, catalog }, ctx.tenant, record, DASHBOARD_SOURCE),
          (created) => ({
            target: created.id,
            details: { record_id: created.id, livemode, food_category: created.food_category, weight_kg: created.weight_kg },
          }),
        );
      }),

    correct: scopedProcedure
      .meta({ roles: BUILDERS })
      .input(DashboardCorrectRecordInput)
      .output(WasteRecord)
      .mutation(({ ctx, input }) => {
        const { establishment_id: _e, livemode, record_id, ...changes } = input;
        return audited(
          ctx,
          'record.corrected',
          (tx) => correctRecord({ tx, clock: ctx.clock, catalog }, ctx.tenant, { record_id, changes, source: DASHBOARD_SOURCE }),
          (created) => ({
            target: record_id,
            details: { record_id: created.id, supersedes_id: record_id, livemode, changed: Object.keys(changes).sort() },
          }),
        );
      }),
  });
