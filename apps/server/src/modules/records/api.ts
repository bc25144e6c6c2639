import {
  BatchRecordsInput,
  BatchRecordsResponse,
  ChainVerificationRunResponse,
  CreateRecordInput,
  CreateRecordResponse,
  ListCheckpointsQuery,
  ListCheckpointsResponse,
  ListRecordsQuery,
  ListRecordsResponse,
  StartVerificationRunInput,
  VerificationRunParams,
  VerifyRecordsQuery,
  VerifyRecordsResponse,
} from '@merma/schema';
import type { CheckpointSigner } from '../../secrets/signing.js';
import { apiProcedure, ok, router } from '../../trpc/trpc.js';
import type { CatalogCache } from '../catalog/service.js';
import { listCheckpoints } from './checkpoints.js';
import { listRecords } from './list.js';
import { storedRecord } from './rows.js';
import { createRecord, createRecordsBatch, storedBatch } from './service.js';
import { getVerificationRun, startVerificationRun } from './verification-runs.js';
import { verifyRecordChain } from './verify.js';

export function recordsRouter(catalog: CatalogCache, signer: CheckpointSigner) {
  return router({
    create: apiProcedure
      .meta({
        openapi: {
          method: 'POST',
          path: '/records',
          tags: ['records'],
          summary: 'Create a waste record',
          description:
            "Stores one record and returns it with its `record_hash`, a link of the establishment's tamper-evident chain. A 201 means the record is durably stored.",
          operationId: 'createRecord',
        },
        permission: 'records:write',
        successStatus: 201,
        rateBucket: 'records_create',
        sqlWrites: true,
        answersRecords: true,
      })
      .input(CreateRecordInput)
      .output(CreateRecordResponse)
      .mutation(async ({ ctx, input }) => {
        const record = ctx.storedAnswer
          ? await storedRecord(ctx.sql, ctx.auth, ctx.storedAnswer.recordId)
          : await createRecord({ db: ctx.db, sql: ctx.sql, clock: ctx.clock, catalog }, ctx.auth, input);
        // Stamped with the record's own time: the answer is the record's alone, and its replay the same bytes.
        return ok(record, record.created_at);
      }),

    batch: apiProcedure
      .meta({
        openapi: {
          method: 'POST',
          path: '/records/batch',
          tags: ['records'],
          summary: 'Create up to 500 records',
          description:
            'Each item is checked on its own: valid items are stored (all together), invalid ones are reported in `errors` by their `index`. More than 500 items: 400 and nothing stored.',
          operationId: 'createRecordsBatch',
        },
        permission: 'records:write',
        sqlWrites: true,
        answersRecords: true,
      })
      .input(BatchRecordsInput)
      .output(BatchRecordsResponse)
      .mutation(async ({ ctx, input }) => {
        const { result, at } = ctx.storedAnswer
          ? await storedBatch(ctx.sql, ctx.auth, ctx.storedAnswer)
          : await createRecordsBatch({ db: ctx.db, sql: ctx.sql, clock: ctx.clock, catalog }, ctx.auth, input.records);
        // Stamped with the batch's time, as its records are: its replay is the same bytes.
        return ok(result, at);
      }),

    list: apiProcedure
      .meta({
        openapi: {
          method: 'GET',
          path: '/records',
          tags: ['records'],
          summary: 'List records, newest first',
          description: "Dates are read in the establishment's time zone, both days included. Default: the last 30 days.",
          operationId: 'listRecords',
        },
        permission: 'records:read',
      })
      .input(ListRecordsQuery)
      .output(ListRecordsResponse)
      .query(async ({ ctx, input }) => {
        const { data, pagination } = await listRecords({ sql: ctx.replica, clock: ctx.clock }, ctx.auth, input);
        return { ...ok(data), meta: { pagination } };
      }),

    verify: apiProcedure
      .meta({
        openapi: {
          method: 'GET',
          path: '/records/verify',
          tags: ['records'],
          summary: 'Verify the record hash chain',
          description:
            "Recomputes the record hashes of this establishment and mode in order and reports the first record that was altered, inserted or removed. By default it starts at the last signed checkpoint (record `seq` must still carry the checkpoint's hash) and re-hashes what came after; `full=true` re-hashes every record. The register's documents chain — each donation's signed handover note, entered with its SHA-256 when it was signed — is walked whole beside it (`documents`), every stored note re-hashed; `valid` needs both. An intact register whose records or documents moved gets a new checkpoint signing both heads, with the service's Ed25519 key (public keys: `/.well-known/merma-checkpoint-keys.json`).",
          operationId: 'verifyRecords',
        },
        permission: 'records:read',
      })
      .input(VerifyRecordsQuery)
      .output(VerifyRecordsResponse)
      .query(async ({ ctx, input }) => ok(await verifyRecordChain(ctx.sql, ctx.auth, { full: input.full, signer, clock: ctx.clock }))),

    checkpoints: apiProcedure
      .meta({
        openapi: {
          method: 'GET',
          path: '/records/checkpoints',
          tags: ['records'],
          summary: 'Signed checkpoints of the record chain, newest first',
          description:
            'Each says the chain had `seq` records ending in `head_hash` when it was signed, and, once the register holds signed donation notes, that the documents chain had `documents_seq` entries ending in `documents_head_hash`. The signed message is `merma-checkpoint:v1|<establishment_id>|<test|live>|<seq>|<head_hash>|<signed_at>`, or with documents `merma-checkpoint:v2|<establishment_id>|<test|live>|<seq>|<head_hash>|<documents_seq>|<documents_head_hash>|<signed_at>`, Ed25519, base64url; verify it with the key of `key_id` from `/.well-known/merma-checkpoint-keys.json` (the SDK has `verifyCheckpoint`).',
          operationId: 'listCheckpoints',
        },
        permission: 'records:read',
      })
      .input(ListCheckpointsQuery)
      .output(ListCheckpointsResponse)
      .query(async ({ ctx, input }) => ok(await listCheckpoints(ctx.sql, ctx.auth, input.limit))),

    startVerification: apiProcedure
      .meta({
        openapi: {
          method: 'POST',
          path: '/records/verifications',
          tags: ['records'],
          summary: 'Verify the whole chain in the background',
          description:
            'Queues a full verification (what `GET /records/verify?full=true` does) for the worker, which re-hashes the chain 100,000 records at a time and stores its progress: for chains too long to verify within one request (several million records). Answers 202 with the run; poll `GET /records/verifications/{id}` until `status` is `completed` (then `result` holds the verification, valid or not) or `failed`. While a run of this chain is queued or running, asking again returns that run. No body, or `{}`.',
          operationId: 'startVerificationRun',
        },
        permission: 'records:read',
        successStatus: 202,
      })
      .input(StartVerificationRunInput)
      .output(ChainVerificationRunResponse)
      .mutation(async ({ ctx }) => ok(await startVerificationRun(ctx, ctx.auth))),

    getVerification: apiProcedure
      .meta({
        openapi: {
          method: 'GET',
          path: '/records/verifications/{id}',
          tags: ['records'],
          summary: 'A background verification: its progress and, once done, its result',
          operationId: 'getVerificationRun',
        },
        permission: 'records:read',
      })
      .input(VerificationRunParams)
      .output(ChainVerificationRunResponse)
      .query(async ({ ctx, input }) => ok(await getVerificationRun(ctx.sql, ctx.auth, input.id))),
  });
}
