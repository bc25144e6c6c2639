import { ChainVerification, PhotoWithDownload, WasteRecord } from '@merma/schema';
import {
  DashboardCorrectRecordInput,
  DashboardCreateRecordInput,
  ModeScope,
  RecordDetail,
  RecordIdInput,
  RecordsPage,
  RecordsPageInput,
} from '@merma/schema/dashboard';
import { AppError } from '../../errors.js';
import type { CheckpointSigner } from '../../secrets/signing.js';
import { audited, BUILDERS, dashboardRouter, scopedProcedure } from '../../trpc/dashboard-base.js';
import type { CatalogCache } from '../catalog/service.js';
import { type PhotoSettings, photoIdOf, photoWithDownload } from '../photos/service.js';
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
export const recordsDashboardRouter = (signer: CheckpointSigner, catalog: CatalogCache, photos: PhotoSettings) =>
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

    /**
     * A record's photo with its short-lived download link, for the table's "photo" link: a 404
     * when the record has none, or its `photo_url` is not a photo stored by Merma (an
     * integration's own URL is shown as the link it is).
     */
    photo: scopedProcedure
      .input(RecordIdInput)
      .output(PhotoWithDownload)
      .query(async ({ ctx, input }) => {
        const { rows } = await ctx.sql.query<{ photo_url: string | null }>(
          'SELECT photo_url FROM records WHERE id = $1::uuid AND establishment_id = $2::uuid AND livemode = $3',
          [input.id, ctx.scope.establishmentId, ctx.scope.livemode],
        );
        const photoId = photoIdOf(rows[0]?.photo_url);
        if (!photoId) throw new AppError('not_found', 'This record has no photo stored by Merma');
        return photoWithDownload({ ...photos, sql: ctx.sql, clock: ctx.clock }, ctx.tenant, photoId);
      }),

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
