import { ChainVerification } from '@merma/schema';
import { ModeScope, RecordDetail, RecordIdInput, RecordsPage, RecordsPageInput } from '@merma/schema/dashboard';
import type { CheckpointSigner } from '../../secrets/signing.js';
import { dashboardRouter, scopedProcedure } from '../../trpc/dashboard-base.js';
import { getRecordDetail, listRecordsPage } from './browse.js';
import { verifyRecordChain } from './verify.js';

/** The records page: the filtered table (keyset pages), a record's chain details, and the chain check. Every member reads. */
export const recordsDashboardRouter = (signer: CheckpointSigner) =>
  dashboardRouter({
    list: scopedProcedure
      .input(RecordsPageInput)
      .output(RecordsPage)
      .query(({ ctx, input }) => {
        const { establishment_id: _e, livemode: _l, ...filter } = input;
        return listRecordsPage(ctx, ctx.tenant, filter);
      }),

    get: scopedProcedure
      .input(RecordIdInput)
      .output(RecordDetail)
      .query(({ ctx, input }) => getRecordDetail(ctx.pool, ctx.scope, input.id)),

    verify: scopedProcedure
      .meta({ rateLimit: 'heavy' })
      .input(ModeScope)
      .output(ChainVerification)
      .query(({ ctx }) => verifyRecordChain(ctx.pool, ctx.scope, { signer, clock: ctx.clock })),
  });
