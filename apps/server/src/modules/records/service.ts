import { randomUUID } from 'node:crypto';
import {
  type BatchInsertedItem,
  type BatchItemError,
  type BatchResult,
  type ChainVerification,
  CreateRecordInput,
  type CreateRecordParsed,
  type ErrorDetail,
  type FoodCategory,
  MAX_OCCURRED_AT_AGE_DAYS,
  MAX_OCCURRED_AT_AHEAD_SECONDS,
  type Pagination,
  type RecordEventData,
  type WasteRecord,
  type WasteStage,
} from '@merma/schema';
import type { AuthContext, Clock, DataScope, Tenant } from '../../context.js';
import type { DbTx } from '../../db/client.js';
import type { Sql } from '../../db/sql.js';
import { inTransaction } from '../../db/transaction.js';
import { AppError, issueDetails, validationError } from '../../errors.js';
import { type EventPayload, eventPayload } from '../../events/outbox.js';
import { Prisma } from '../../generated/prisma/client.ts';
import type { CheckpointSigner } from '../../secrets/signing.js';
import { activeTraceparent } from '../../tracing/spans.js';
import { sqlParams } from '../analytics/range.js';
import type { CatalogCache, GlobalCatalog } from '../catalog/service.js';
import { activeShiftAt } from '../shifts/service.js';
import { latestCheckpoint, storeCheckpoint } from './checkpoints.js';
import { recordFilterSql } from './filter.js';
import { canonicalRecordJson, chainHash, GENESIS_HASH, HASH_ALGORITHM, type HashedFields } from './hash.js';
import { ADD_TO_DAY_TOTALS, bucketDay } from './rollup.js';

export type RecordDeps = { db: DbTx; clock: Clock; catalog: CatalogCache };

/** A `records` row as selected by RECORD_COLUMNS: the hashed fields plus chain bookkeeping. */
export type RecordRow = Omit<HashedFields, 'created_at' | 'occurred_at'> & {
  chain_seq: bigint;
  prev_hash: string;
  record_hash: string;
  created_at: Date;
  occurred_at: Date;
};

/** The columns of a record as the service reads them: one list, for Prisma queries and plain pg. */
export const RECORD_COLUMNS_TEXT = `id::text, establishment_id::text, livemode, chain_seq, food_category,
  weight_kg::float8 AS weight_kg, destino_id::text, causa_id::text, product_name, waste_stage, shift_id::text,
  session_id::text, notes, photo_url, source, prev_hash, record_hash, created_at, occurred_at, supersedes_id::text`;
const RECORD_COLUMNS = Prisma.raw(RECORD_COLUMNS_TEXT);

export function toRecord(r: Omit<RecordRow, 'chain_seq'>): WasteRecord {
  return {
    id: r.id,
    establishment_id: r.establishment_id,
    livemode: r.livemode,
    food_category: r.food_category as FoodCategory,
    weight_kg: r.weight_kg,
    destino_id: r.destino_id,
    causa_id: r.causa_id,
    product_name: r.product_name,
    waste_stage: r.waste_stage as WasteStage | null,
    shift_id: r.shift_id,
    session_id: r.session_id,
    notes: r.notes,
    photo_url: r.photo_url,
    source: r.source,
    record_hash: r.record_hash,
    created_at: r.created_at.toISOString(),
    occurred_at: r.occurred_at.toISOString(),
    supersedes_id: r.supersedes_id ?? null,
  };
}

/**
 * The body of a record event — `{event, timestamp, data}` with data id,
 * establishment_id, food_category, weight_kg, created_at, cause and destination (their names) —
 * plus waste_stage and record_hash, so a receiver can check the chain. `hash` null: the caller
 * fills it in SQL.
 */
export function recordEvent(
  type: 'record.created' | 'record.updated',
  f: HashedFields,
  catalog: GlobalCatalog,
  hash: string | null,
): EventPayload<'record.created' | 'record.updated'> {
  return eventPayload(type, f.created_at, {
    id: f.id,
    establishment_id: f.establishment_id,
    food_category: f.food_category as RecordEventData['food_category'],
    weight_kg: f.weight_kg,
    created_at: f.created_at,
    occurred_at: f.occurred_at,
    cause: f.causa_id ? (catalog.causeById.get(f.causa_id)?.nombre ?? null) : null,
    destination: catalog.destinationById.get(f.destino_id)?.nombre ?? '',
    waste_stage: (f.waste_stage ?? null) as RecordEventData['waste_stage'],
    record_hash: hash ?? '',
    ...(f.supersedes_id ? { supersedes_id: f.supersedes_id } : {}),
  });
}

function hashedFields(
  auth: AuthContext,
  id: string,
  input: CreateRecordParsed,
  source: string,
  createdAt: string,
  occurredAt: string,
): HashedFields {
  return {
    id,
    establishment_id: auth.establishmentId,
    livemode: auth.livemode,
    food_category: input.food_category,
    weight_kg: input.weight_kg,
    destino_id: input.destino_id,
    causa_id: input.causa_id ?? null,
    product_name: input.product_name ?? null,
    waste_stage: input.waste_stage ?? null,
    shift_id: input.shift_id ?? null,
    session_id: input.session_id ?? null,
    notes: input.notes ?? null,
    photo_url: input.photo_url ?? null,
    source,
    created_at: createdAt,
    occurred_at: occurredAt,
  };
}

const AHEAD_MS = MAX_OCCURRED_AT_AHEAD_SECONDS * 1000;
const AGE_MS = MAX_OCCURRED_AT_AGE_DAYS * 86_400_000;

/**
 * When a record's waste happened, to the millisecond in UTC (how it is stored and hashed): its
 * `occurred_at`, or the storing time. Outside the accepted window (MAX_OCCURRED_AT_AHEAD_SECONDS
 * ahead, MAX_OCCURRED_AT_AGE_DAYS back) it is a problem of the item, unless the record corrects an
 * earlier one, whose date it keeps however old.
 */
function occurredAtOf(input: CreateRecordParsed, now: Date, correction: boolean): { at: string } | { problem: ErrorDetail } {
  if (!input.occurred_at) return { at: now.toISOString() };
  const problem = correction ? null : occurredAtProblem(input.occurred_at, now);
  return problem ? { problem } : { at: new Date(input.occurred_at).toISOString() };
}

/** Why an `occurred_at` is outside the accepted window, or null. */
export function occurredAtProblem(value: string, now: Date): ErrorDetail | null {
  const at = new Date(value).getTime();
  if (at > now.getTime() + AHEAD_MS) {
    return { path: 'occurred_at', message: `may be at most ${MAX_OCCURRED_AT_AHEAD_SECONDS / 60} minutes ahead of the server's clock` };
  }
  if (at < now.getTime() - AGE_MS) return { path: 'occurred_at', message: `may be at most ${MAX_OCCURRED_AT_AGE_DAYS} days back` };
  return null;
}

/**
 * Checks the ids a record refers to. Destinations and causes come from the in-memory catalogue;
 * shifts and sessions must belong to the key's establishment and mode (one query for any number of
 * records). Returns the problems per record index.
 */
async function checkReferences(
  db: DbTx,
  auth: AuthContext,
  catalog: GlobalCatalog,
  items: { index: number; input: CreateRecordParsed }[],
  /** A correction keeps its original's session even when that session has been completed. */
  correction = false,
): Promise<Map<number, ErrorDetail[]>> {
  const problems = new Map<number, ErrorDetail[]>();
  const add = (index: number, path: string, message: string) => {
    const list = problems.get(index) ?? [];
    list.push({ path, message });
    problems.set(index, list);
  };
  const shiftIds = new Set<string>();
  const sessionIds = new Set<string>();
  for (const { index, input } of items) {
    if (!catalog.destinationById.has(input.destino_id)) add(index, 'destino_id', 'no destination has this id');
    if (input.causa_id) {
      const cause = catalog.causeById.get(input.causa_id);
      if (!cause) add(index, 'causa_id', 'no cause has this id');
      else if (!cause.activo) add(index, 'causa_id', 'this cause is retired; use an active cause');
    }
    if (input.shift_id) shiftIds.add(input.shift_id);
    if (input.session_id) sessionIds.add(input.session_id);
  }
  if (shiftIds.size === 0 && sessionIds.size === 0) return problems;

  const [shifts, sessions] = await Promise.all([
    shiftIds.size
      ? db.shift.findMany({
          where: { id: { in: [...shiftIds] }, establishment_id: auth.establishmentId, livemode: auth.livemode },
          select: { id: true },
        })
      : [],
    sessionIds.size
      ? db.session.findMany({
          where: { id: { in: [...sessionIds] }, establishment_id: auth.establishmentId, livemode: auth.livemode },
          select: { id: true, status: true },
        })
      : [],
  ]);
  const knownShifts = new Set(shifts.map((s) => s.id));
  const sessionStatus = new Map(sessions.map((s) => [s.id, s.status]));
  for (const { index, input } of items) {
    if (input.shift_id && !knownShifts.has(input.shift_id)) add(index, 'shift_id', 'no shift of this establishment has this id');
    if (input.session_id) {
      const status = sessionStatus.get(input.session_id);
      if (!status) add(index, 'session_id', 'no session of this establishment has this id');
      else if (status !== 'open' && !correction) add(index, 'session_id', 'this session is completed and takes no more records');
    }
  }
  return problems;
}

async function ensureChainHead(db: DbTx, auth: AuthContext): Promise<void> {
  await db.$executeRaw`INSERT INTO record_chain_heads (establishment_id, livemode, seq, last_hash)
    VALUES (${auth.establishmentId}::uuid, ${auth.livemode}, 0, ${GENESIS_HASH})
    ON CONFLICT (establishment_id, livemode) DO NOTHING`;
}

/**
 * Stores one record in one SQL statement: an UPDATE of the chain head of the establishment and mode
 * computes the new hash from the previous one with the database's sha256() (in SET, `last_hash`
 * is the row's value before the update, which `prev_hash` keeps), and the record is inserted from
 * its RETURNING. Concurrent writers of one chain are serialised by the head's row lock (READ
 * COMMITTED re-reads the newest head after waiting), and the write is a single round trip.
 */
export async function createRecord(
  deps: RecordDeps,
  auth: AuthContext,
  input: CreateRecordParsed,
  source = 'api',
  supersedesId: string | null = null,
): Promise<WasteRecord> {
  const catalog = await deps.catalog.get(deps.db);
  const now = deps.clock();
  const occurred = occurredAtOf(input, now, supersedesId !== null);
  const problems = await checkReferences(deps.db, auth, catalog, [{ index: 0, input }], supersedesId !== null);
  const found = [...('problem' in occurred ? [occurred.problem] : []), ...(problems.get(0) ?? [])];
  if (found.length || !('at' in occurred)) throw validationError(found.map((p) => `${p.path}: ${p.message}`).join('; '), found);

  const id = randomUUID();
  const createdAt = now.toISOString();
  // The shift is the one in progress when the waste happened.
  const shiftId = input.shift_id ?? (await activeShiftAt(deps.db, auth, new Date(occurred.at)));
  const fields: HashedFields = {
    ...hashedFields(auth, id, { ...input, shift_id: shiftId }, source, createdAt, occurred.at),
    supersedes_id: supersedesId,
  };
  const canonical = canonicalRecordJson(fields);
  const day = bucketDay(fields.occurred_at, auth.timezone);
  const eventType = supersedesId ? 'record.updated' : 'record.created';
  const event = JSON.stringify(recordEvent(eventType, fields, catalog, null));

  for (let attempt = 0; attempt < 2; attempt++) {
    const rows = await deps.db.$queryRaw<{ record_hash: string }[]>`
      WITH moved AS (
        UPDATE record_chain_heads
        SET seq = seq + 1,
            prev_hash = last_hash,
            last_hash = encode(sha256(convert_to(last_hash::text || ${canonical}::text, 'UTF8')), 'hex')
        WHERE establishment_id = ${auth.establishmentId}::uuid AND livemode = ${auth.livemode}
        RETURNING seq, last_hash, prev_hash
      ), stored AS (
      INSERT INTO records (id, establishment_id, livemode, chain_seq, food_category, weight_kg, destino_id,
        causa_id, product_name, waste_stage, shift_id, session_id, notes, photo_url, source, prev_hash,
        record_hash, created_at, occurred_at, supersedes_id)
      SELECT ${id}::uuid, ${auth.establishmentId}::uuid, ${auth.livemode}, moved.seq, ${fields.food_category},
        ${String(fields.weight_kg)}::numeric, ${fields.destino_id}::uuid, ${fields.causa_id}::uuid,
        ${fields.product_name}, ${fields.waste_stage}, ${fields.shift_id}::uuid, ${fields.session_id}::uuid,
        ${fields.notes}, ${fields.photo_url}, ${source}, moved.prev_hash, moved.last_hash,
        ${createdAt}::timestamptz, ${fields.occurred_at}::timestamptz, ${supersedesId}::uuid
      FROM moved
      RETURNING record_hash
    ), src AS (
      SELECT ${auth.establishmentId}::uuid AS establishment_id, ${auth.livemode}::boolean AS livemode, ${day}::date AS day,
        ${fields.food_category}::text AS food_category, ${fields.destino_id}::uuid AS destino_id, ${fields.causa_id}::uuid AS causa_id,
        ${fields.waste_stage}::text AS waste_stage, ${String(fields.weight_kg)}::numeric AS kg
      FROM stored
    ), totals AS (${Prisma.raw(ADD_TO_DAY_TOTALS)}
    ), emitted AS (
      INSERT INTO events (id, establishment_id, livemode, type, payload, created_at, trace_parent)
      SELECT ${randomUUID()}::uuid, ${auth.establishmentId}::uuid, ${auth.livemode}, ${eventType},
        jsonb_set(${event}::jsonb, '{data,record_hash}', to_jsonb(stored.record_hash)), ${createdAt}::timestamptz,
        ${activeTraceparent()}::text
      FROM stored
    )
    SELECT record_hash FROM stored`;
    const stored = rows[0];
    if (stored) {
      return {
        ...fields,
        food_category: input.food_category,
        waste_stage: input.waste_stage ?? null,
        record_hash: stored.record_hash,
        supersedes_id: supersedesId,
      };
    }
    await ensureChainHead(deps.db, auth); // first record of this establishment and mode
  }
  throw new AppError('internal', 'The record chain head could not be created');
}

/**
 * Stores the valid items of a batch and reports the others by index. The valid items are appended
 * to the chain in request order and inserted with one `INSERT … SELECT FROM unnest(…)`, together
 * with the head update, inside one transaction: they are all stored or none is.
 */
export async function createRecordsBatch(
  deps: RecordDeps,
  auth: AuthContext,
  items: readonly unknown[],
  source = 'batch',
): Promise<BatchResult> {
  const errors: BatchItemError[] = [];
  const valid: { index: number; input: CreateRecordParsed }[] = [];
  items.forEach((item, index) => {
    const parsed = CreateRecordInput.safeParse(item);
    if (parsed.success) valid.push({ index, input: parsed.data });
    else {
      const details = issueDetails(parsed.error);
      errors.push({
        index,
        code: 'validation_error',
        error: details.map((d) => `${d.path || '(item)'}: ${d.message}`).join('; '),
        details,
      });
    }
  });

  const catalog = await deps.catalog.get(deps.db);
  const now = deps.clock();
  const occurredAt = new Map<number, string>();
  const lateOrEarly = new Map<number, ErrorDetail>();
  for (const { index, input } of valid) {
    const occurred = occurredAtOf(input, now, false);
    if ('at' in occurred) occurredAt.set(index, occurred.at);
    else lateOrEarly.set(index, occurred.problem);
  }
  return inTransaction(deps.db, async (tx) => {
    const problems = await checkReferences(tx, auth, catalog, valid);
    for (const [index, problem] of lateOrEarly) problems.set(index, [problem, ...(problems.get(index) ?? [])]);
    for (const [index, details] of problems) {
      errors.push({ index, code: 'validation_error', error: details.map((d) => `${d.path}: ${d.message}`).join('; '), details });
    }
    const accepted = valid.filter((v) => !problems.has(v.index));
    errors.sort((a, b) => a.index - b.index);
    if (accepted.length === 0) return { inserted: 0, failed: errors.length, errors, records: [] };

    await ensureChainHead(tx, auth);
    const [head] = await tx.$queryRaw<{ seq: bigint; last_hash: string }[]>`
      SELECT seq, last_hash FROM record_chain_heads
      WHERE establishment_id = ${auth.establishmentId}::uuid AND livemode = ${auth.livemode}
      FOR UPDATE`;
    if (!head) throw new AppError('internal', 'The record chain head is missing');

    const createdAt = now.toISOString();
    let prev = head.last_hash;
    let seq = head.seq;
    const cols = {
      id: [] as string[],
      seq: [] as string[],
      cat: [] as string[],
      w: [] as string[],
      dest: [] as string[],
      causa: [] as (string | null)[],
      pname: [] as (string | null)[],
      stage: [] as (string | null)[],
      shift: [] as (string | null)[],
      sess: [] as (string | null)[],
      notes: [] as (string | null)[],
      photo: [] as (string | null)[],
      prev: [] as string[],
      hash: [] as string[],
      occurred: [] as string[],
    };
    const inserted: BatchInsertedItem[] = [];
    const events = { id: [] as string[], payload: [] as string[] };
    for (const { index, input } of accepted) {
      const id = randomUUID();
      const at = occurredAt.get(index) as string;
      // The shift in progress when the waste happened (shift lists are cached: no query per record).
      const shiftId = input.shift_id ?? (await activeShiftAt(tx, auth, new Date(at)));
      const f = hashedFields(auth, id, { ...input, shift_id: shiftId }, source, createdAt, at);
      const hash = chainHash(prev, canonicalRecordJson(f));
      seq += 1n;
      cols.id.push(id);
      cols.seq.push(seq.toString());
      cols.cat.push(f.food_category);
      cols.w.push(String(f.weight_kg));
      cols.dest.push(f.destino_id);
      cols.causa.push(f.causa_id);
      cols.pname.push(f.product_name);
      cols.stage.push(f.waste_stage);
      cols.shift.push(f.shift_id);
      cols.sess.push(f.session_id);
      cols.notes.push(f.notes);
      cols.photo.push(f.photo_url);
      cols.prev.push(prev);
      cols.hash.push(hash);
      cols.occurred.push(at);
      inserted.push({ index, id, record_hash: hash, created_at: createdAt, occurred_at: at });
      events.id.push(randomUUID());
      events.payload.push(JSON.stringify(recordEvent('record.created', f, catalog, hash)));
      prev = hash;
    }

    await tx.$executeRaw`
      WITH ins AS (
        INSERT INTO records (id, establishment_id, livemode, chain_seq, food_category, weight_kg, destino_id,
          causa_id, product_name, waste_stage, shift_id, session_id, notes, photo_url, source, prev_hash,
          record_hash, created_at, occurred_at)
        SELECT u.id, ${auth.establishmentId}::uuid, ${auth.livemode}, u.seq, u.cat, u.w, u.dest, u.causa, u.pname,
          u.stage, u.shift, u.sess, u.notes, u.photo, ${source}, u.prev, u.hash, ${createdAt}::timestamptz, u.occurred
        FROM unnest(${cols.id}::uuid[], ${cols.seq}::bigint[], ${cols.cat}::text[], ${cols.w}::numeric[],
          ${cols.dest}::uuid[], ${cols.causa}::uuid[], ${cols.pname}::text[], ${cols.stage}::text[],
          ${cols.shift}::uuid[], ${cols.sess}::uuid[], ${cols.notes}::text[], ${cols.photo}::text[],
          ${cols.prev}::text[], ${cols.hash}::text[], ${cols.occurred}::timestamptz[])
          AS u(id, seq, cat, w, dest, causa, pname, stage, shift, sess, notes, photo, prev, hash, occurred)
        RETURNING 1
      )
      UPDATE record_chain_heads SET seq = ${seq}, last_hash = ${prev}
      WHERE establishment_id = ${auth.establishmentId}::uuid AND livemode = ${auth.livemode}
        AND (SELECT count(*) FROM ins) = ${accepted.length}`;
    // Their day totals, one upsert per bucket.
    await tx.$executeRaw`
      WITH src AS (
        SELECT ${auth.establishmentId}::uuid AS establishment_id, ${auth.livemode}::boolean AS livemode, u.day, u.cat AS food_category,
          u.dest AS destino_id, u.causa AS causa_id, u.stage AS waste_stage, u.w AS kg
        FROM unnest(${cols.occurred.map((at) => bucketDay(at, auth.timezone))}::date[], ${cols.cat}::text[], ${cols.dest}::uuid[],
          ${cols.causa}::uuid[], ${cols.stage}::text[], ${cols.w}::numeric[]) AS u(day, cat, dest, causa, stage, w)
      )${Prisma.raw(ADD_TO_DAY_TOTALS)}`;
    // One record.created per stored record, in one statement (one fan-out job for the batch).
    await tx.$executeRaw`
      INSERT INTO events (id, establishment_id, livemode, type, payload, created_at, trace_parent)
      SELECT e.id, ${auth.establishmentId}::uuid, ${auth.livemode}, 'record.created', e.payload, ${createdAt}::timestamptz,
        ${activeTraceparent()}::text
      FROM unnest(${events.id}::uuid[], ${events.payload}::jsonb[]) WITH ORDINALITY AS e(id, payload, n)
      ORDER BY e.n`;

    return { inserted: inserted.length, failed: errors.length, errors, records: inserted };
  });
}

export type ListRecordsParsed = {
  from?: string | undefined;
  to?: string | undefined;
  food_category?: FoodCategory | undefined;
  limit: number;
  offset: number;
};

/**
 * Lists the records that count — a corrected record is replaced by its correction, which carries
 * `supersedes_id` (the chain keeps both; GET /records/verify walks all of them) — newest waste first (`occurred_at DESC, id DESC`, served by the matching index), with the
 * total in one round trip. Dates are read in the establishment's time zone; by default the last 30
 * days up to and including today. Runs on the pg pool directly: this is the hottest read.
 */
export async function listRecords(
  deps: { pool: Sql; clock: Clock },
  auth: Tenant,
  query: ListRecordsParsed,
): Promise<{ data: WasteRecord[]; pagination: Pagination }> {
  const p = sqlParams();
  const { where } = await recordFilterSql(deps, auth, query, p);
  const filterValues = [...p.values];
  const { rows } = await deps.pool.query<Omit<RecordRow, 'chain_seq'> & { chain_seq: string; total: string }>(
    `SELECT ${RECORD_COLUMNS_TEXT}, (SELECT count(*) FROM records WHERE ${where}) AS total
     FROM records WHERE ${where}
     ORDER BY occurred_at DESC, id DESC
     LIMIT ${p.add(query.limit)} OFFSET ${p.add(query.offset)}`,
    p.values,
  );
  let total: number;
  if (rows[0]) total = Number(rows[0].total);
  else {
    const count = await deps.pool.query<{ total: string }>(`SELECT count(*) AS total FROM records WHERE ${where}`, filterValues);
    total = Number(count.rows[0]?.total ?? 0);
  }
  return {
    data: rows.map(toRecord),
    pagination: { limit: query.limit, offset: query.offset, total, has_more: query.offset + rows.length < total },
  };
}

const VERIFY_PAGE = 1000;

/**
 * Walks the establishment's chain in sequence order and recomputes every hash. Reports the first
 * record whose hash does not match its content, whose link does not match the previous record, a
 * missing sequence number, or records missing at the end (the head remembers the last hash).
 *
 * By default it starts at the last signed checkpoint (checkpoints.ts): record `seq` must still
 * carry the checkpoint's hash, and only the records after it are re-hashed; `full` starts at the
 * first record, and every earlier checkpoint it passes must match too (so a history rewritten
 * with recomputed hashes is found, and never signed). The walk stops at the head it read first, so records appended meanwhile wait for
 * the next verification. An intact chain whose head moved past the last checkpoint gets a new
 * checkpoint, signed by `signer` (none is stored without one).
 */
export async function verifyRecordChain(
  db: DbTx,
  scope: DataScope,
  options: { full?: boolean | undefined; signer?: CheckpointSigner; clock?: Clock } = {},
): Promise<ChainVerification> {
  const [head] = await db.$queryRaw<{ seq: bigint; last_hash: string }[]>`
    SELECT seq, last_hash FROM record_chain_heads
    WHERE establishment_id = ${scope.establishmentId}::uuid AND livemode = ${scope.livemode}`;
  const last = await latestCheckpoint(db, scope);
  const mode = options.full ? ('full' as const) : ('incremental' as const);
  const from = mode === 'incremental' && last ? last : null;
  let prev = from?.head_hash ?? GENESIS_HASH;
  let expectedSeq = from ? BigInt(from.seq) + 1n : 1n;
  const fromSeq = Number(expectedSeq);
  let rehashed = 0;
  const fail = (id: string | null, seq: bigint, reason: NonNullable<ChainVerification['first_invalid']>['reason']): ChainVerification => ({
    valid: false,
    checked: reason === 'checkpoint_mismatch' ? 0 : fromSeq - 1 + rehashed,
    rehashed,
    head_hash: head?.last_hash ?? null,
    first_invalid: { id, chain_seq: Number(seq), reason },
    algorithm: HASH_ALGORITHM,
    mode,
    from_seq: fromSeq,
    checkpoint: last,
  });
  if (from) {
    const [anchor] = await db.$queryRaw<{ id: string; record_hash: string }[]>`
      SELECT id::text, record_hash FROM records
      WHERE establishment_id = ${scope.establishmentId}::uuid AND livemode = ${scope.livemode} AND chain_seq = ${from.seq}`;
    if (anchor?.record_hash !== from.head_hash) return fail(anchor?.id ?? null, BigInt(from.seq), 'checkpoint_mismatch');
  }
  // Every signed head the walk passes must still be there: a history rewritten with recomputed
  // hashes verifies link by link, but not against what was signed before.
  const signed = new Map(
    (
      await db.chainCheckpoint.findMany({
        where: { establishment_id: scope.establishmentId, livemode: scope.livemode, seq: { gte: expectedSeq } },
        select: { seq: true, head_hash: true },
      })
    ).map((c) => [c.seq, c.head_hash]),
  );
  const until = head?.seq ?? 0n;
  while (expectedSeq <= until) {
    const rows = await db.$queryRaw<RecordRow[]>`
      SELECT ${RECORD_COLUMNS} FROM records
      WHERE establishment_id = ${scope.establishmentId}::uuid AND livemode = ${scope.livemode}
        AND chain_seq >= ${expectedSeq} AND chain_seq <= ${until}
      ORDER BY chain_seq LIMIT ${VERIFY_PAGE}`;
    for (const row of rows) {
      if (row.chain_seq !== expectedSeq) return fail(row.id, expectedSeq, 'sequence_gap');
      if (row.prev_hash !== prev) return fail(row.id, row.chain_seq, 'broken_link');
      const record = toRecord(row);
      const recomputed = chainHash(prev, canonicalRecordJson({ ...record }));
      if (recomputed !== row.record_hash) return fail(row.id, row.chain_seq, 'hash_mismatch');
      const signedHash = signed.get(row.chain_seq);
      if (signedHash !== undefined && signedHash !== row.record_hash) return fail(row.id, row.chain_seq, 'checkpoint_mismatch');
      prev = row.record_hash;
      expectedSeq += 1n;
      rehashed += 1;
    }
    if (rows.length < VERIFY_PAGE) break;
  }
  if (head && (head.seq !== expectedSeq - 1n || head.last_hash !== prev)) {
    return fail(null, expectedSeq, 'truncated');
  }
  let checkpoint = last;
  if (head && head.seq > 0n && head.seq > BigInt(last?.seq ?? 0) && options.signer) {
    const now = options.clock?.() ?? new Date();
    checkpoint = await storeCheckpoint(db, scope, { seq: Number(head.seq), headHash: head.last_hash }, options.signer, now);
  }
  return {
    valid: true,
    checked: fromSeq - 1 + rehashed,
    rehashed,
    head_hash: head?.last_hash ?? null,
    first_invalid: null,
    algorithm: HASH_ALGORITHM,
    mode,
    from_seq: fromSeq,
    checkpoint,
  };
}
