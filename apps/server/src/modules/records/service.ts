import { randomUUID } from 'node:crypto';
import {
  type BatchInsertedItem,
  type BatchItemError,
  type BatchResult,
  CreateRecordInput,
  type CreateRecordParsed,
  type ErrorDetail,
  MAX_OCCURRED_AT_AGE_DAYS,
  MAX_OCCURRED_AT_AHEAD_SECONDS,
  type WasteRecord,
} from '@merma/schema';
import { isoSql } from '../../calendar.js';
import type { AuthContext, Clock, Tenant } from '../../context.js';
import type { DbTx } from '../../db/client.js';
import { type KeyClaimValues, keyClaimSql, type StoredAnswer } from '../../db/key-claim.js';
import { type Sql, sqlOfTransaction, sqlParams, type TransactionalSql } from '../../db/sql.js';
import { AppError, issueDetails, validationError } from '../../errors.js';
import { insertEventsSql } from '../../events/outbox.js';
import { Prisma } from '../../generated/prisma/client.ts';
import { activeTraceparent } from '../../tracing/spans.js';
import type { CatalogCache, GlobalCatalog } from '../catalog/service.js';
import { photoIdOf } from '../photos/service.js';
import { activeShiftAt } from '../shifts/service.js';
import {
  RECORD_FIELD_NAMES,
  RECORD_FIELD_NAMES_SQL,
  RECORD_FIELD_TYPES_SQL,
  RECORD_FIELDS,
  type RecordField,
  type RecordFieldName,
  recordFieldsOf,
  sqlValue,
} from './columns.js';
import { recordEventRow } from './events.js';
import { canonicalRecordJson, chainHash, GENESIS_HASH, type HashedFields } from './hash.js';
import { ADD_TO_DAY_TOTALS, bucketDay } from './rollup.js';
import { toRecord } from './rows.js';

/**
 * `sql`: where the writes run — the pg pool when the request has no transaction (no Prisma
 * round trip on the hottest writes), the request's transaction otherwise. Without it, `db`.
 */
export type RecordDeps = { db: DbTx; clock: Clock; catalog: CatalogCache; sql?: TransactionalSql };

function hashedFields(
  auth: Tenant,
  id: string,
  input: CreateRecordParsed,
  source: string,
  createdAt: string,
  occurredAt: string,
): HashedFields {
  const f = recordFieldsOf(input) as Pick<HashedFields, RecordFieldName>;
  // One literal, field by field, not a spread of `f` into it (a batch builds 500: copying the
  // properties of one object into another is the slow way to make one); `satisfies` holds it to
  // every field of the record.
  return {
    id,
    establishment_id: auth.establishmentId,
    livemode: auth.livemode,
    food_category: f.food_category,
    weight_kg: f.weight_kg,
    destino_id: f.destino_id,
    causa_id: f.causa_id,
    waste_stage: f.waste_stage,
    shift_id: f.shift_id,
    session_id: f.session_id,
    product_name: f.product_name,
    notes: f.notes,
    photo_url: f.photo_url,
    product_id: f.product_id,
    measurement_method: f.measurement_method,
    scale_id: f.scale_id,
    estimated: f.estimated,
    edible: f.edible,
    tare_kg: f.tare_kg,
    hierarchy_reason: f.hierarchy_reason,
    hierarchy_note: f.hierarchy_note,
    transfer_document_ref: f.transfer_document_ref,
    source,
    created_at: createdAt,
    occurred_at: occurredAt,
  } satisfies Record<RecordFieldName, unknown> & HashedFields;
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
 * What a record says about its measuring that contradicts itself: a scale named on anything but a
 * weighing, a weighing said to be an estimate, an estimate said to be measured.
 */
export function measurementProblems(input: Pick<CreateRecordParsed, 'measurement_method' | 'scale_id' | 'estimated'>): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  const method = input.measurement_method ?? null;
  // Any scale id, even an empty one, as the column's check (records_scale_id_check) has it.
  if (input.scale_id !== undefined && input.scale_id !== null && method !== 'direct_weighing') {
    problems.push({ path: 'scale_id', message: 'names the scale of a weighing: give it with measurement_method direct_weighing' });
  }
  if (input.estimated === true && method === 'direct_weighing') {
    problems.push({ path: 'estimated', message: 'a direct weighing is measured, not estimated' });
  }
  if (input.estimated === false && method === 'estimate') {
    problems.push({ path: 'estimated', message: 'an estimate is estimated: leave estimated out or set it to true' });
  }
  return problems;
}

/**
 * Checks the ids a record refers to. Destinations and causes come from the in-memory catalogue;
 * shifts and sessions must belong to the key's establishment and mode (one query for any number of
 * records). Returns the problems per record index.
 */
async function checkReferences(
  db: DbTx,
  auth: Tenant,
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
  const productIds = new Set<string>();
  // A `photo_url` that is one of Merma's photo addresses names a photo stored here: it must be the
  // organisation's, in the same mode (any other URL is the caller's own and is kept as given).
  const photoIds = new Map<number, string>();
  for (const { index, input } of items) {
    if (!catalog.destinationById.has(input.destino_id)) add(index, 'destino_id', 'no destination has this id');
    if (input.causa_id) {
      const cause = catalog.causeById.get(input.causa_id);
      if (!cause) add(index, 'causa_id', 'no cause has this id');
      else if (!cause.activo) add(index, 'causa_id', 'this cause is retired; use an active cause');
    }
    for (const problem of measurementProblems(input)) add(index, problem.path, problem.message);
    if (input.hierarchy_reason === 'other' && !input.hierarchy_note) {
      add(index, 'hierarchy_note', 'say the reason in hierarchy_note when hierarchy_reason is other');
    }
    if (input.shift_id) shiftIds.add(input.shift_id);
    if (input.session_id) sessionIds.add(input.session_id);
    if (input.product_id) productIds.add(input.product_id);
    const photoId = photoIdOf(input.photo_url);
    if (photoId) photoIds.set(index, photoId);
  }
  if (shiftIds.size === 0 && sessionIds.size === 0 && productIds.size === 0 && photoIds.size === 0) return problems;

  const [shifts, sessions, products, photos] = await Promise.all([
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
    // The organisation's catalogue, deactivated products included (a record of old stock names one).
    productIds.size
      ? db.product.findMany({ where: { id: { in: [...productIds] }, organization_id: auth.organizationId }, select: { id: true } })
      : [],
    photoIds.size
      ? db.$queryRaw<{ id: string }[]>`SELECT id::text FROM photos
          WHERE id = ANY(${[...new Set(photoIds.values())]}::uuid[]) AND organization_id = ${auth.organizationId}::uuid AND livemode = ${auth.livemode}`
      : [],
  ]);
  const knownPhotos = new Set(photos.map((p) => p.id));
  for (const [index, photoId] of photoIds) {
    if (!knownPhotos.has(photoId))
      add(index, 'photo_url', 'no photo of this organisation (in this mode) has this address: upload it with POST /photos first');
  }
  const knownProducts = new Set(products.map((p) => p.id));
  const knownShifts = new Set(shifts.map((s) => s.id));
  const sessionStatus = new Map(sessions.map((s) => [s.id, s.status]));
  for (const { index, input } of items) {
    if (input.shift_id && !knownShifts.has(input.shift_id)) add(index, 'shift_id', 'no shift of this establishment has this id');
    if (input.product_id && !knownProducts.has(input.product_id)) add(index, 'product_id', 'no product of this organisation has this id');
    if (input.session_id) {
      const status = sessionStatus.get(input.session_id);
      if (!status) add(index, 'session_id', 'no session of this establishment has this id');
      else if (status !== 'open' && !correction) add(index, 'session_id', 'this session is completed and takes no more records');
    }
  }
  return problems;
}

/** Creates the chain head of the key's establishment and mode for its first record (if absent). */
async function ensureChainHead(sql: Pick<Sql, 'query'>, auth: Tenant): Promise<void> {
  await sql.query(
    `INSERT INTO record_chain_heads (establishment_id, livemode, seq, last_hash) VALUES ($1::uuid, $2, 0, $3)
     ON CONFLICT (establishment_id, livemode) DO NOTHING`,
    [auth.establishmentId, auth.livemode, GENESIS_HASH],
  );
}

/** The values of `CREATE_RECORD` other than the record's fields, filled in for each record. */
type CreateRecordValues = {
  canonical: string;
  establishment: string;
  livemode: boolean;
  id: string;
  source: string;
  createdAt: string;
  occurredAt: string;
  supersedesId: string | null;
  voided: boolean;
  day: string;
  eventType: string;
  event: string;
  traceparent: string | null;
};
type StatementValues = CreateRecordValues & Partial<KeyClaimValues>;
/** A value of a statement built once: a record field (its index in RECORD_FIELDS) or one of the others, by name. */
class Param {
  constructor(readonly slot: number | keyof StatementValues) {}
}

/**
 * `createRecord`'s statement, built once: its text is the same for every record (every value is a
 * parameter), so each call only fills the values in, in the order the text numbers them
 * (`slots`), instead of composing the statement again. `keyed`: it also claims the request's
 * Idempotency-Key (`KeyClaim`, http/idempotency.ts), where the chain head is there to move, and
 * writes only when it claimed.
 */
const createRecordStatement = (keyed: boolean) => {
  const p = (slot: keyof StatementValues) => new Param(slot);
  const fieldValues = Prisma.join(RECORD_FIELDS.map((f, i) => Prisma.sql`${new Param(i)}::${Prisma.raw(f.type)}`));
  const head = Prisma.sql`establishment_id = ${p('establishment')}::uuid AND livemode = ${p('livemode')}`;
  const claim = keyed
    ? Prisma.sql`claim AS (${keyClaimSql(p, Prisma.sql`EXISTS (SELECT 1 FROM record_chain_heads WHERE ${head})`)}), `
    : Prisma.empty;
  const statement = Prisma.sql`
      WITH ${claim}moved AS (
        UPDATE record_chain_heads
        SET seq = seq + 1,
            prev_hash = last_hash,
            last_hash = encode(sha256(convert_to(last_hash::text || ${p('canonical')}::text, 'UTF8')), 'hex')
        WHERE ${head}${keyed ? Prisma.sql` AND EXISTS (SELECT 1 FROM claim)` : Prisma.empty}
        RETURNING seq, last_hash, prev_hash
      ), stored AS (
      INSERT INTO records (id, establishment_id, livemode, chain_seq, ${Prisma.raw(RECORD_FIELD_NAMES_SQL)}, source, prev_hash,
        record_hash, created_at, occurred_at, supersedes_id, voided)
      SELECT ${p('id')}::uuid, ${p('establishment')}::uuid, ${p('livemode')}, moved.seq, ${fieldValues}, ${p('source')}, moved.prev_hash,
        moved.last_hash, ${p('createdAt')}::timestamptz, ${p('occurredAt')}::timestamptz, ${p('supersedesId')}::uuid, ${p('voided')}::boolean
      FROM moved
      RETURNING record_hash, establishment_id, livemode, food_category, destino_id, causa_id, waste_stage, weight_kg
    ), src AS (
      SELECT establishment_id, livemode, ${p('day')}::date AS day, food_category, destino_id, causa_id, waste_stage, weight_kg AS kg
      FROM stored
    ), totals AS (${Prisma.raw(ADD_TO_DAY_TOTALS)}
    ), new_event AS (
      SELECT ${p('establishment')}::uuid AS establishment_id, ${p('livemode')}::boolean AS livemode, ${p('eventType')}::text AS type,
        jsonb_set(${p('event')}::jsonb, '{data,record_hash}', to_jsonb(stored.record_hash)) AS payload, ${p('createdAt')}::timestamptz AS created_at,
        ${p('traceparent')}::text AS trace_parent
      FROM stored
    ), emitted AS (${Prisma.raw(insertEventsSql('SELECT * FROM new_event'))}
    )
    SELECT record_hash FROM stored`;
  return { text: statement.text, slots: statement.values.map((v) => (v as Param).slot) };
};
const CREATE_RECORD = createRecordStatement(false);
const CREATE_RECORD_CLAIMING_KEY = createRecordStatement(true);

/**
 * Stores one record in one SQL statement: an UPDATE of the chain head of the establishment and mode
 * computes the new hash from the previous one with the database's sha256() (in SET, `last_hash`
 * is the row's value before the update, which `prev_hash` keeps), and the record is inserted from
 * its RETURNING. Concurrent writers of one chain are serialised by the head's row lock (READ
 * COMMITTED re-reads the newest head after waiting), and the write is a single round trip — under
 * an Idempotency-Key too, when the runner offers the key's claim (`sql.keyClaim`): the statement
 * then claims the key first and writes only if it did. The answer is the record as its row reads
 * (`toRecord`), so that a replay, read from the row, is the same answer.
 */
export async function createRecord(
  deps: RecordDeps,
  auth: Tenant,
  input: CreateRecordParsed,
  source = 'api',
  supersedesId: string | null = null,
  voided = false,
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
  const fields: HashedFields = hashedFields(auth, id, input, source, createdAt, occurred.at);
  fields.shift_id = shiftId;
  fields.supersedes_id = supersedesId;
  if (voided) fields.voided = true;
  const canonical = canonicalRecordJson(fields);
  const day = bucketDay(fields.occurred_at, auth.timezone);
  const eventType = supersedesId ? 'record.updated' : 'record.created';
  const event = JSON.stringify(recordEventRow(eventType, id, createdAt, null));

  const given: CreateRecordValues = {
    canonical,
    establishment: auth.establishmentId,
    livemode: auth.livemode,
    id,
    source,
    createdAt,
    occurredAt: fields.occurred_at,
    supersedesId,
    voided,
    day,
    eventType,
    event,
    traceparent: activeTraceparent(),
  };
  const sql = deps.sql ?? sqlOfTransaction(deps.db);
  const claim = sql.keyClaim;
  const statement = claim ? CREATE_RECORD_CLAIMING_KEY : CREATE_RECORD;
  const all: StatementValues = claim ? { ...given, ...claim.values } : given;
  const values = statement.slots.map((slot) => {
    if (typeof slot !== 'number') return all[slot];
    const field = RECORD_FIELDS[slot] as RecordField;
    return sqlValue(field, fields[field.name]);
  });

  const runner = claim ?? sql;
  for (let attempt = 0; attempt < 2; attempt++) {
    // Prepared on a real PostgreSQL: its text is the same for every record (every value a parameter).
    const { rows } = await runner.query<{ record_hash: string }>(statement.text, values, { prepare: true });
    const stored = rows[0];
    if (stored) {
      claim?.claimed();
      return toRecord({ ...fields, record_hash: stored.record_hash, created_iso: createdAt, occurred_iso: fields.occurred_at });
    }
    // Nothing written: the establishment's first record in this mode (no chain head yet), or, under
    // a key, the key was another request's. With the head there, a second try tells which.
    await ensureChainHead(runner, auth);
  }
  if (claim) claim.taken();
  throw new AppError('internal', 'The record chain head could not be created');
}

/**
 * What a batch's Idempotency-Key keeps of its answer besides its first record (`answerFromRows`):
 * the answer without its list of records, which a replay reads again from their rows (`storedBatch`).
 */
type BatchReference = Omit<BatchResult, 'records'>;

/** A batch's answer and its time (`created_at` of its records), which stamps the answer. */
export type BatchAnswer = { result: BatchResult; at: string };

/**
 * Stores the valid items of a batch and reports the others by index. Everything that does not need
 * the chain head is done first, outside the transaction: validation, the references, the shifts,
 * and each record's canonical JSON. Then, in one transaction on one pooled connection (or the
 * request's transaction under an Idempotency-Key), the head is locked, the records are chained in
 * request order and one statement writes the records, the head, their day totals and their events
 * from one `json_to_recordset` parameter: they are all stored or none is. Without an
 * Idempotency-Key the head's lock is held for those two statements only, not for the checks
 * before them (with one, until the request's transaction ends).
 */
export async function createRecordsBatch(
  deps: RecordDeps,
  auth: AuthContext,
  items: readonly unknown[],
  source = 'batch',
): Promise<BatchAnswer> {
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
  const problems = await checkReferences(deps.db, auth, catalog, valid);
  const nowIso = now.toISOString(); // most items give no occurred_at: the storing time, written once
  for (const { index, input } of valid) {
    const occurred = input.occurred_at ? occurredAtOf(input, now, false) : { at: nowIso };
    if ('at' in occurred) occurredAt.set(index, occurred.at);
    else problems.set(index, [occurred.problem, ...(problems.get(index) ?? [])]);
  }
  for (const [index, details] of problems) {
    errors.push({ index, code: 'validation_error', error: details.map((d) => `${d.path}: ${d.message}`).join('; '), details });
  }
  errors.sort((a, b) => a.index - b.index);
  const accepted = valid.filter((v) => !problems.has(v.index));
  if (accepted.length === 0) return { result: { inserted: 0, failed: errors.length, errors, records: [] }, at: nowIso };

  const createdAt = nowIso;
  const days = new Map<string, string>(); // most items of a batch share a date: one Intl call per date
  const shifts = new Map<string, string | null>(); // and an instant: one shift lookup per instant
  const prepared: { index: number; id: string; at: string; day: string; canonical: string }[] = [];
  for (const { index, input } of accepted) {
    const id = randomUUID();
    const at = occurredAt.get(index) as string;
    let day = days.get(at);
    if (day === undefined) {
      day = bucketDay(at, auth.timezone);
      days.set(at, day);
    }
    // The shift in progress when the waste happened (shift lists are cached: no query per record).
    let shiftId = input.shift_id ?? shifts.get(at);
    if (shiftId === undefined) {
      shiftId = await activeShiftAt(deps.db, auth, new Date(at));
      shifts.set(at, shiftId);
    }
    const fields = hashedFields(auth, id, input, source, createdAt, at);
    fields.shift_id = shiftId;
    prepared.push({ index, id, at, day, canonical: canonicalRecordJson(fields) });
  }

  const transactional = deps.sql ?? sqlOfTransaction(deps.db);
  return transactional.transaction(async (sql) => {
    const head = await lockChainHead(sql, auth);
    let prev = head.last_hash;
    let seq = BigInt(head.seq);
    // One JSON array of rows, read by json_to_recordset: a single parameter, however many records.
    // Each row is the record's canonical JSON, the text its hash is made of, with its place in the
    // chain and its local day put in front: the canonical JSON holds every field of the record
    // under its column's name (hash.ts hashes them all), a null optional field left out (read as
    // NULL) and `occurred_at` only when it is not the storing time, and json_to_recordset reads the
    // columns it is given and passes over the others. So the columns stored are read from the very
    // text that was hashed, and no second object or JSON is built per record (500 of each). The
    // array's text is made by one `join`, which gives a flat string: pg measures the parameter's
    // bytes and then copies them, and a string joined by `+` or a template (a rope of pieces) is
    // walked piece by piece at each (measured on a batch of 500's 243 kB: 0.25 ms to count the
    // bytes of the rope, 0.03 ms of the flat string).
    const rows: string[] = [];
    const inserted: BatchInsertedItem[] = [];
    for (const { index, id, at, day, canonical } of prepared) {
      const hash = chainHash(prev, canonical);
      seq += 1n;
      rows.push(`${rows.length === 0 ? '[' : ','}{"seq":${seq},"prev":"${prev}","hash":"${hash}","day":"${day}",${canonical.slice(1)}`);
      inserted.push({ index, id, record_hash: hash, created_at: createdAt, occurred_at: at });
      prev = hash;
    }
    rows.push(']');

    // The records, the head, their day totals (one upsert per bucket) and one record.created per
    // record (thin, as recordEventRow builds it; one fan-out job for the batch), in one statement.
    const p = sqlParams(); // a parameter keeps one type: the timestamp's text form has its own
    const [tenant, mode, created] = [p.add(auth.establishmentId), p.add(auth.livemode), p.add(createdAt)];
    const { rows: stored } = await sql.query<{ head: number }>(
      `WITH u AS (
        SELECT * FROM json_to_recordset(${p.add(rows.join(''))}::json)
          AS u(id uuid, seq bigint, ${RECORD_FIELD_TYPES_SQL}, prev text, hash text, occurred_at timestamptz, day date)
      ), ins AS (
        INSERT INTO records (id, establishment_id, livemode, chain_seq, ${RECORD_FIELD_NAMES_SQL}, source, prev_hash,
          record_hash, created_at, occurred_at)
        SELECT u.id, ${tenant}::uuid, ${mode}::boolean, u.seq, ${RECORD_FIELD_NAMES.map((name) => `u.${name}`).join(', ')},
          ${p.add(source)}, u.prev, u.hash, ${created}::timestamptz, coalesce(u.occurred_at, ${created}::timestamptz)
        FROM u
        RETURNING 1
      ), head AS (
        UPDATE record_chain_heads SET seq = ${p.add(seq.toString())}::bigint, last_hash = ${p.add(prev)}
        WHERE establishment_id = ${tenant}::uuid AND livemode = ${mode}::boolean
          AND (SELECT count(*) FROM ins) = ${p.add(prepared.length)}
        RETURNING 1
      ), src AS (
        SELECT ${tenant}::uuid AS establishment_id, ${mode}::boolean AS livemode, u.day, u.food_category, u.destino_id,
          u.causa_id, u.waste_stage, u.weight_kg AS kg
        FROM u
      ), totals AS (${ADD_TO_DAY_TOTALS}
      ), emitted AS (${insertEventsSql(
        `SELECT ${tenant}::uuid AS establishment_id, ${mode}::boolean AS livemode, 'record.created' AS type,
          jsonb_build_object('event', 'record.created', 'timestamp', ${p.add(createdAt)}::text,
            'data', jsonb_build_object('id', u.id, 'record_hash', u.hash)) AS payload,
          ${created}::timestamptz AS created_at, ${p.add(activeTraceparent())}::text AS trace_parent
        FROM u`,
      )}
      )
      SELECT (SELECT count(*) FROM head)::int AS head`,
      p.values,
      { prepare: true }, // the same text for every batch: the records travel as one JSON parameter
    );
    if (stored[0]?.head !== 1) throw new AppError('internal', 'The record chain head could not be moved');
    const reference: BatchReference = { inserted: inserted.length, failed: errors.length, errors };
    transactional.answerFromRows?.(prepared[0]?.id as string, JSON.stringify(reference));
    return { result: { ...reference, records: inserted }, at: createdAt };
  });
}

/**
 * A batch's answer again, for its Idempotency-Key's replay: the records it stored are the chain's
 * `inserted` links from its first record on (the batch held the chain's head while it wrote them,
 * in item order), and the items they came from are those not refused, in order. The same answer,
 * key for key, as `createRecordsBatch` gave.
 */
export async function storedBatch(
  sql: Sql,
  tenant: Pick<Tenant, 'establishmentId' | 'livemode'>,
  stored: StoredAnswer,
): Promise<BatchAnswer> {
  if (stored.reference === undefined) throw new AppError('internal', "A batch's Idempotency-Key keeps no reference to its answer");
  const reference = JSON.parse(stored.reference) as BatchReference;
  const { rows } = await sql.query<{ id: string; record_hash: string; created_iso: string; occurred_iso: string }>(
    `SELECT r.id::text, r.record_hash, ${isoSql('r.created_at')} AS created_iso, ${isoSql('r.occurred_at')} AS occurred_iso
     FROM records first
     JOIN records r ON r.establishment_id = first.establishment_id AND r.livemode = first.livemode AND r.chain_seq >= first.chain_seq
     WHERE first.id = $1::uuid AND first.establishment_id = $2::uuid AND first.livemode = $3
     ORDER BY r.chain_seq
     LIMIT $4`,
    [stored.recordId, tenant.establishmentId, tenant.livemode, reference.inserted],
  );
  const first = rows[0];
  // Records go only with their establishment, and its keys with it.
  if (!first || rows.length !== reference.inserted) throw new AppError('internal', 'The records an Idempotency-Key stored are not there');
  const refused = new Set(reference.errors.map((e) => e.index));
  const records: BatchInsertedItem[] = [];
  let index = 0;
  for (const row of rows) {
    while (refused.has(index)) index++;
    records.push({ index, id: row.id, record_hash: row.record_hash, created_at: row.created_iso, occurred_at: row.occurred_iso });
    index++;
  }
  return { result: { ...reference, records }, at: first.created_iso };
}

/**
 * Locks the chain head of the key's establishment and mode for the rest of the transaction (other
 * writers of the chain wait) and reads it, creating it first for the chain's first record.
 */
async function lockChainHead(sql: Sql, auth: AuthContext): Promise<{ seq: string; last_hash: string }> {
  const select = `SELECT seq::text, last_hash FROM record_chain_heads WHERE establishment_id = $1::uuid AND livemode = $2 FOR UPDATE`;
  const values = [auth.establishmentId, auth.livemode];
  const [head] = (await sql.query<{ seq: string; last_hash: string }>(select, values)).rows;
  if (head) return head;
  await ensureChainHead(sql, auth);
  const [created] = (await sql.query<{ seq: string; last_hash: string }>(select, values)).rows;
  if (!created) throw new AppError('internal', 'The record chain head is missing');
  return created;
}
