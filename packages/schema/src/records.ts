import { z } from 'zod';
import {
  DateOrDateTime,
  EdiblePart,
  FoodCategory,
  HierarchyReason,
  MeasurementMethod,
  PaginationQuery,
  queryInt,
  Timestamp,
  text,
  Uuid,
  WasteStage,
} from './common.js';
import {
  MAX_BATCH_RECORDS,
  MAX_HIERARCHY_NOTE_LENGTH,
  MAX_NOTES_LENGTH,
  MAX_OCCURRED_AT_AGE_DAYS,
  MAX_OCCURRED_AT_AHEAD_SECONDS,
  MAX_PRODUCT_NAME_LENGTH,
  MAX_SCALE_ID_LENGTH,
  MAX_TRANSFER_DOCUMENT_REF_LENGTH,
  MAX_URL_LENGTH,
  MAX_WEIGHT_KG,
  WEIGHT_DECIMALS,
} from './constants.js';
import { Envelope, ListEnvelope } from './envelope.js';

const WEIGHT_SCALE = 10 ** WEIGHT_DECIMALS;

/**
 * Kilograms, > 0 and at most MAX_WEIGHT_KG. Stored to the gram: more decimals are rounded half-up
 * to 3 places, and a weight that rounds to 0 is refused. The response carries the stored value.
 */
export const WeightKg = z
  .number()
  .positive()
  .max(MAX_WEIGHT_KG)
  .transform((v) => Math.round(v * WEIGHT_SCALE) / WEIGHT_SCALE)
  .refine((v) => v > 0, { message: 'must be at least 0.001 kg' });

const HttpUrl = z
  .url({ protocol: /^https?$/ })
  .max(MAX_URL_LENGTH)
  .refine((s) => !s.includes('\u0000'), { message: 'must not contain NUL characters' });

/**
 * When the waste happened: an ISO date-time with its offset (`2026-11-23T21:40:00+01:00`), stored to
 * the millisecond. Not more than MAX_OCCURRED_AT_AHEAD_SECONDS ahead of the server's clock nor more
 * than MAX_OCCURRED_AT_AGE_DAYS before it (checked when stored). Absent: the time the record is stored.
 */
export const OccurredAt = z.iso
  .datetime({ offset: true })
  .describe(
    `when the waste happened (ISO 8601 with offset); default: when it is stored. At most ${MAX_OCCURRED_AT_AHEAD_SECONDS / 60} minutes ahead of the server's clock and ${MAX_OCCURRED_AT_AGE_DAYS} days back. Dates, ranges, analytics, benchmarking, forecasts, the plan and shift assignment go by it.`,
  );

/**
 * Body of `POST /api/v1/records` and each item of a batch. Unknown fields are refused (400) so a
 * misspelt field (`destination_id`) is reported instead of silently dropped. Optional fields accept
 * `null` as "not given".
 */
export const CreateRecordInput = z
  .strictObject({
    food_category: FoodCategory,
    weight_kg: WeightKg,
    destino_id: Uuid.describe('id of a destination (GET /api/v1/destinos)'),
    causa_id: Uuid.nullish().describe('id of a cause (GET /api/v1/causas)'),
    product_name: text(MAX_PRODUCT_NAME_LENGTH).nullish(),
    waste_stage: WasteStage.nullish(),
    shift_id: Uuid.nullish().describe('id of a shift of this establishment'),
    session_id: Uuid.nullish().describe('id of an open registration session of this establishment'),
    notes: text(MAX_NOTES_LENGTH).nullish(),
    photo_url: HttpUrl.nullish(),
    occurred_at: OccurredAt.nullish(),
    product_id: Uuid.nullish().describe(
      'id of a product of the catalogue (GET /api/v1/products): the waste is matched to it exactly (the demand advice, per product); `product_name` stays free text',
    ),
    measurement_method: MeasurementMethod.nullish().describe(
      'how the weight was obtained (Delegated Decision (EU) 2019/1597): `direct_weighing` on a scale, `counting` units × unit weight, `write_off` booked in a POS or ERP, `estimate`, `composition_analysis` of a sample. Absent: not said (the figures count the record as of unknown method)',
    ),
    scale_id: text(MAX_SCALE_ID_LENGTH)
      .nullish()
      .describe('the scale that weighed it, on a `direct_weighing` (refused with another method)'),
    estimated: z
      .boolean()
      .nullish()
      .describe(
        'whether the weight is an estimate (ESRS E5-5 measured vs estimated). Absent: from the method (`estimate` and `composition_analysis` are estimates, the others measured); refused when it contradicts `direct_weighing` or `estimate`',
      ),
    edible: EdiblePart.nullish().describe(
      'whether what was thrown away could have been eaten: `edible`, `inedible` (bones, peels, shells) or `mixed`',
    ),
    tare_kg: WeightKg.nullish().describe(
      'the packaging or container weighed with the food and left out of `weight_kg` (packaging is not food waste): kept so that the gross weight can be traced',
    ),
    hierarchy_reason: HierarchyReason.nullish().describe(
      'why it goes to a lower step of the hierarchy than one the establishment uses for the same food category (Ley 1/2025 art. 5.2); never required — GET /compliance/hierarchy lists the records that lack one',
    ),
    hierarchy_note: text(MAX_HIERARCHY_NOTE_LENGTH)
      .nullish()
      .describe("the justification in the kitchen's words; needed with `hierarchy_reason` `other`"),
    transfer_document_ref: text(MAX_TRANSFER_DOCUMENT_REF_LENGTH)
      .regex(/\S/, 'give the reference, or leave the field out')
      .nullish()
      .describe(
        "the reference of the document the waste was handed over with to its manager (Spain's \"documento de identificación\" of the waste's transfer, Real Decreto 553/2020); the stream's LER code and manager are in `GET /compliance/waste-streams`",
      ),
  })
  .meta({ id: 'CreateRecordInput' });
export type CreateRecordInput = z.input<typeof CreateRecordInput>;
export type CreateRecordParsed = z.output<typeof CreateRecordInput>;

/** A stored food-waste record. */
export const WasteRecord = z
  .object({
    id: Uuid,
    establishment_id: Uuid,
    livemode: z.boolean(),
    food_category: FoodCategory,
    weight_kg: z.number(),
    destino_id: Uuid,
    causa_id: Uuid.nullable(),
    product_name: z.string().nullable(),
    waste_stage: WasteStage.nullable(),
    shift_id: Uuid.nullable(),
    session_id: Uuid.nullable(),
    notes: z.string().nullable(),
    photo_url: z.string().nullable(),
    product_id: Uuid.nullable().describe('the product of the catalogue it is of, when the record named one'),
    measurement_method: MeasurementMethod.nullable().describe('how the weight was obtained; null when the record did not say'),
    scale_id: z.string().nullable().describe('the scale that weighed it, when named'),
    estimated: z.boolean().nullable().describe('whether the weight is an estimate; null when neither it nor the method was said'),
    edible: EdiblePart.nullable(),
    tare_kg: z.number().nullable().describe('the packaging weighed with the food and left out of `weight_kg`'),
    hierarchy_reason: HierarchyReason.nullable().describe('why it went to a lower step of the hierarchy, when said'),
    hierarchy_note: z.string().nullable(),
    transfer_document_ref: z.string().nullable().describe('the waste transfer document it was handed over with, when said'),
    source: z.string(),
    record_hash: z.string().regex(/^[0-9a-f]{64}$/),
    created_at: Timestamp.describe('when the record was stored (the order of the hash chain)'),
    occurred_at: Timestamp.describe('when the waste happened; `created_at` unless the record said otherwise'),
    supersedes_id: Uuid.nullable()
      .optional()
      .describe('set on a correction (inbound waste.updated): the record it replaces, which no longer counts in lists and totals'),
    voided: z
      .literal(true)
      .optional()
      .describe(
        'present (true) on a correction that voids the record it supersedes — an undo at a kitchen station: neither counts in lists and totals, and both stay in the chain',
      ),
  })
  .meta({ id: 'Record' });
export type WasteRecord = z.infer<typeof WasteRecord>;

export const CreateRecordResponse = Envelope(WasteRecord);
export type CreateRecordResponse = z.infer<typeof CreateRecordResponse>;

/** Body of `POST /api/v1/records/batch`: 1 to 500 items, each checked on its own. */
export const BatchRecordsInput = z
  .strictObject({
    records: z.array(z.unknown()).min(1).max(MAX_BATCH_RECORDS),
  })
  .meta({ id: 'BatchRecordsInput' });
export type BatchRecordsInput = { records: CreateRecordInput[] };

export const BatchItemError = z
  .object({
    index: z.number().int().describe('position of the item in the submitted array (`records`; the sale lines of a `sales.recorded` event)'),
    code: z.string(),
    error: z.string(),
    details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .meta({ id: 'BatchItemError' });
export type BatchItemError = z.infer<typeof BatchItemError>;

export const BatchInsertedItem = z.object({
  index: z.number().int(),
  id: Uuid,
  record_hash: z.string(),
  created_at: Timestamp,
  occurred_at: Timestamp,
});
export type BatchInsertedItem = z.infer<typeof BatchInsertedItem>;

export const BatchResult = z
  .object({
    inserted: z.number().int(),
    failed: z.number().int(),
    errors: z.array(BatchItemError),
    records: z.array(BatchInsertedItem).describe('the stored items, with their index in the request'),
  })
  .meta({ id: 'BatchResult' });
export type BatchResult = z.infer<typeof BatchResult>;
export const BatchRecordsResponse = Envelope(BatchResult);

/**
 * `GET /api/v1/records`, newest waste first. `from`/`to` bound `occurred_at` (when the waste
 * happened): dates read in the establishment's time zone (both days included) or full date-times;
 * defaults: the last 30 days up to today.
 */
export const ListRecordsQuery = z
  .strictObject({
    from: DateOrDateTime.optional(),
    to: DateOrDateTime.optional(),
    food_category: FoodCategory.optional(),
    ...PaginationQuery,
  })
  .meta({ id: 'ListRecordsQuery' });
export type ListRecordsQuery = z.input<typeof ListRecordsQuery>;
export const ListRecordsResponse = ListEnvelope(WasteRecord);
export type ListRecordsResponse = z.infer<typeof ListRecordsResponse>;

/**
 * A verified point of a record chain, signed by the service (Ed25519): anyone holding the
 * service's public keys (`GET /.well-known/merma-checkpoint-keys.json`) can check that the chain of
 * this establishment and mode had this head at this length when it was signed — the register was
 * not rewritten afterwards — without trusting the database. The signed message is
 * `merma-checkpoint:v1|<establishment_id>|<test|live>|<seq>|<head_hash>|<signed_at>` (UTF-8),
 * and once the establishment's register holds documents (a donation's signed note), whose chain
 * the checkpoint signs too,
 * `merma-checkpoint:v2|<establishment_id>|<test|live>|<seq>|<head_hash>|<documents_seq>|<documents_head_hash>|<signed_at>`;
 * the SDK's `verifyCheckpoint()` checks both.
 */
export const ChainCheckpoint = z
  .object({
    establishment_id: Uuid,
    livemode: z.boolean(),
    seq: z.number().int().describe('records in the chain at this point'),
    head_hash: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .describe('the record_hash of record `seq`'),
    documents_seq: z
      .number()
      .int()
      .optional()
      .describe("documents in the register's documents chain at this point; absent before its first document (a v1 checkpoint)"),
    documents_head_hash: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .optional()
      .describe('the entry_hash of document `documents_seq`; absent with it'),
    signed_at: Timestamp,
    key_id: z.string().describe('the `kid` of the signing key in the published key set'),
    signature: z.string().describe('Ed25519 signature of the message, base64url'),
  })
  .meta({ id: 'ChainCheckpoint' });
export type ChainCheckpoint = z.infer<typeof ChainCheckpoint>;

/** `GET /api/v1/records/verify`: `full=true` re-hashes the whole chain instead of what follows the last checkpoint. */
export const VerifyRecordsQuery = z
  .strictObject({
    full: z
      .enum(['true', 'false'])
      .transform((v) => v === 'true')
      .optional()
      .describe('true: verify from the first record; default: from the last signed checkpoint'),
  })
  .meta({ id: 'VerifyRecordsQuery' });

/**
 * The documents chain's part of a verification: every document the register vouches for (a
 * donation's signed handover note) is an entry holding its SHA-256, chained as records are; the
 * whole chain is walked, and each document's stored bytes re-hashed.
 */
export const DocumentsVerification = z
  .object({
    valid: z.boolean(),
    checked: z.number().int().describe('documents found intact, from the first'),
    head_hash: z.string().nullable().describe("the last entry's hash; null before the first document"),
    first_invalid: z
      .object({
        id: Uuid.nullable().describe('the entry that fails; null when entries are missing at the end'),
        seq: z.number().int(),
        reason: z
          .enum([
            'hash_mismatch',
            'broken_link',
            'sequence_gap',
            'truncated',
            'checkpoint_mismatch',
            'document_changed',
            'document_missing',
          ])
          .describe(
            'document_changed: the stored document no longer hashes to its entry, or shows another digest; document_missing: it was removed',
          ),
      })
      .nullable(),
  })
  .meta({ id: 'DocumentsVerification' });
export type DocumentsVerification = z.infer<typeof DocumentsVerification>;

/** Result of walking an establishment's record hash chain (`GET /api/v1/records/verify`). */
export const ChainVerification = z
  .object({
    valid: z.boolean(),
    checked: z
      .number()
      .int()
      .describe(
        'records found intact, from the first: those before the checkpoint it started from count, as the checkpoint vouches for them',
      ),
    rehashed: z.number().int().optional().describe('records whose hash this verification recomputed'),
    head_hash: z.string().nullable(),
    first_invalid: z
      .object({
        id: Uuid.nullable().describe('the first record that fails; null when records are missing at the end'),
        chain_seq: z.number().int(),
        reason: z.enum(['hash_mismatch', 'broken_link', 'sequence_gap', 'truncated', 'checkpoint_mismatch']),
      })
      .nullable(),
    algorithm: z.string(),
    mode: z
      .enum(['full', 'incremental'])
      .optional()
      .describe('incremental: the records after the last checkpoint, and that record `checkpoint.seq` still has its hash'),
    from_seq: z.number().int().optional().describe('the first record re-hashed (1 for a full verification)'),
    checkpoint: ChainCheckpoint.nullable()
      .optional()
      .describe('the latest signed checkpoint after this verification (a valid one signs the head it reached)'),
    documents: DocumentsVerification.optional().describe(
      'the documents chain (signed donation notes): `valid` is false when it fails, even with every record intact',
    ),
  })
  .meta({ id: 'ChainVerification' });
export type ChainVerification = z.infer<typeof ChainVerification>;
export const VerifyRecordsResponse = Envelope(ChainVerification);

/**
 * A full verification run in the background (`POST /api/v1/records/verifications`): for chains
 * too long to re-hash within one request. The worker re-hashes the chain a segment at a time and
 * reports its progress; `result` is what `GET /records/verify?full=true` answers, once done.
 */
export const ChainVerificationRun = z
  .object({
    id: Uuid,
    status: z
      .enum(['queued', 'running', 'completed', 'failed'])
      .describe('completed: `result` holds the verification, valid or not; failed: the run itself could not finish (`error`)'),
    progress: z
      .object({
        checked: z.number().int().describe('records found intact so far'),
        total: z.number().int().describe('records in the chain when the run started'),
      })
      .describe('how far the run has got'),
    result: ChainVerification.nullable(),
    error: z.string().nullable(),
    created_at: Timestamp,
    started_at: Timestamp.nullable(),
    finished_at: Timestamp.nullable(),
  })
  .meta({ id: 'ChainVerificationRun' });
export type ChainVerificationRun = z.infer<typeof ChainVerificationRun>;
export const ChainVerificationRunResponse = Envelope(ChainVerificationRun);
/** `POST /api/v1/records/verifications` takes no fields (an empty body, or `{}`). */
export const StartVerificationRunInput = z.strictObject({}).meta({ id: 'StartVerificationRunInput' });
export const VerificationRunParams = z.strictObject({ id: Uuid });

/** A record named in a path (`/station/records/{id}/undo`). */
export const RecordIdParams = z.strictObject({ id: Uuid });

/** `GET /api/v1/records/checkpoints`: the newest `limit` (default 20, at most 100). */
export const ListCheckpointsQuery = z.strictObject({ limit: queryInt(1, 100).default(20) }).meta({ id: 'ListCheckpointsQuery' });
export const ListCheckpointsResponse = Envelope(z.array(ChainCheckpoint));
