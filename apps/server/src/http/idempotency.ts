/*
 * `Idempotency-Key` on POST requests. The key is scoped to the establishment, the mode AND the API
 * key that sent it, and kept for 24 hours. The request's writes run in one database transaction that
 * claims the key, does the work on that same transaction, then stores the response: the write and
 * the remembered response commit together or not at all, so a crash can neither lose the response
 * of a stored write nor leave a key stuck. Two ways, one rule: `withIdempotency` claims first, in a
 * Prisma interactive transaction, for procedures that write through Prisma; `lazyIdempotency`
 * claims at the first write on a pooled connection, for those whose writes all go through `ctx.sql`
 * (`meta.sqlWrites`: records and batches, which the SDK sends with a key every time), without the
 * interactive transaction's round trips. A concurrent request with the same key waits on
 * the claim, then replays the stored response. Same key with another body: 409. Errors roll the
 * claim back, so a request that failed can be retried with the same key.
 *
 * Who may replay. A stored answer is the answer to one credential's request (an API key's, a
 * station device's: `idempotency_keys.api_key_id` holds the credential's id), and is only ever given
 * to that credential: another key of the same establishment that sends the same Idempotency-Key (with any
 * body) makes a request of its own, which runs; it is neither served the other key's answer nor
 * refused with 409 because of it. And before any stored answer is looked at, http/binding.ts
 * authorises the request with the procedure's own check (`authorizeProcedure`), so a key that lost
 * a permission since is refused as the procedure would refuse it, not served its earlier answer.
 *
 * At rest. Every stored answer, not only those carrying a secret, is sealed with the secret box
 * (secrets/cipher.ts) bound to its row id; after a key rotation keep the old key for the 24-hour
 * window. Why all of them, and the cost: docs/decisions/0002-seal-every-stored-idempotent-answer.md.
 *
 * A record's write (POST /records, a station's record) stores no answer: it claims the key in the
 * record's own statement (`KeyClaim`, one round trip instead of five: BEGIN, claim, write, store,
 * COMMIT), and the key's row names the record (`record_id`). Its replay answers that record, read
 * from its row through the same code as the first answer (`rebuild`): a record never changes once
 * written and its answer is stamped with its `created_at`, so the replay is the first answer, byte
 * for byte (test/idempotency-record-answers.test.ts). Nothing of the record is kept with the key.
 * A batch of records (POST /records/batch) is written in the request's transaction as before, but
 * its key's row stores no list of records either: it names the batch's first record (`record_id`)
 * and keeps, sealed, the rest of the answer (the counts and the refused items' errors: the
 * `reference`, `answerFromRows`); a replay reads the batch's records again from their rows, which
 * follow each other in the chain from that first one.
 */
import { hash, randomUUID } from 'node:crypto';
import { IDEMPOTENCY_TTL_HOURS, MAX_IDEMPOTENCY_KEY_LENGTH } from '@merma/schema';
import type pg from 'pg';
import type { AuthContext } from '../context.js';
import { type Db, type DbTx, poolOf } from '../db/client.js';
import { type KeyClaim, type StoredAnswer, TAKE_OVER_EXPIRED } from '../db/key-claim.js';
import { pgQuery, poolQuery, type Sql, type TransactionalSql } from '../db/sql.js';
import { AppError } from '../errors.js';
import type { SecretBox } from '../secrets/cipher.js';

/** The answer a request under an Idempotency-Key produced; `replayed` when it was stored by an earlier request. */
export type StoredResponse = { status: number; body: string; replayed: boolean };

const KEY_PATTERN = /^[\x21-\x7e]+$/; // visible ASCII

export function parseIdempotencyKey(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  const value = Array.isArray(header) ? header[0] : header;
  if (!value || value.length > MAX_IDEMPOTENCY_KEY_LENGTH || !KEY_PATTERN.test(value)) {
    throw new AppError('validation_error', `Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} visible ASCII characters`, [
      { path: 'Idempotency-Key', message: 'invalid header value' },
    ]);
  }
  return value;
}

export function fingerprint(method: string, path: string, body: unknown): string {
  return hash('sha256', `${method} ${path}\n${JSON.stringify(body ?? null)}`, 'hex');
}

/**
 * Claims a key for the calling API key, with the answer when it is known already (status 0 and an
 * empty body while the request runs), or takes over one older than the 24 hours; returns the row's
 * id, or no row when the key is someone's answer or is being answered. A concurrent claim of the
 * same key waits here until the first one's transaction ends.
 */
const CLAIM_SQL = `INSERT INTO idempotency_keys (id, establishment_id, livemode, api_key_id, key, fingerprint, status_code, response_body)
  VALUES ($1::uuid, $2::uuid, $3, $4::uuid, $5, $6, $7, $8)
  ${TAKE_OVER_EXPIRED}`;
const claimValues = (auth: AuthContext, key: string, print: string, id: string, status: number, body: string) => [
  id,
  auth.establishmentId,
  auth.livemode,
  auth.credential.id,
  key,
  print,
  status,
  body,
];
const STORE_SQL = 'UPDATE idempotency_keys SET status_code = $2, response_body = $3 WHERE id = $1::uuid';
const STORE_REFERENCE_SQL = 'UPDATE idempotency_keys SET status_code = $2, response_body = $3, record_id = $4::uuid WHERE id = $1::uuid';

type StoredRow = { id: string; fingerprint: string; status_code: number; response_body: string; record_id: string | null };
const SELECT_STORED_SQL = `SELECT id::text, fingerprint, status_code, response_body, record_id::text FROM idempotency_keys
  WHERE establishment_id = $1::uuid AND livemode = $2 AND api_key_id = $3::uuid AND key = $4
    AND created_at >= now() - make_interval(hours => ${IDEMPOTENCY_TTL_HOURS})`;

async function readStored(runner: Sql | DbTx, auth: AuthContext, key: string): Promise<StoredRow | undefined> {
  const values = [auth.establishmentId, auth.livemode, auth.credential.id, key];
  if ('query' in runner) return (await runner.query<StoredRow>(SELECT_STORED_SQL, values)).rows[0];
  return (await runner.$queryRawUnsafe<StoredRow[]>(SELECT_STORED_SQL, ...values))[0];
}

/**
 * Builds again the answer of the records a key's write stored (`KeyClaim`, `answerFromRows`), as the
 * write answered it: the surface reads the records and answers them through the same code.
 */
export type RecordAnswer = (stored: StoredAnswer) => Promise<string>;

/** The stored answer replayed; 409 when the key belongs to another request or is still being answered. */
async function replayOf(stored: StoredRow | undefined, box: SecretBox, print: string, rebuild?: RecordAnswer): Promise<StoredResponse> {
  if (!stored || stored.status_code === 0) {
    throw new AppError('conflict', 'A request with this Idempotency-Key is in progress; retry', undefined, { shouldRetry: true });
  }
  if (stored.fingerprint !== print) {
    throw new AppError(
      'conflict',
      'This Idempotency-Key was already used with a different request; use a new key for a new request',
      undefined,
      {
        shouldRetry: false,
      },
    );
  }
  if (stored.record_id !== null) {
    // Only a record's write names a record, and the fingerprint (method and path) was that write's.
    if (!rebuild) throw new AppError('internal', 'A stored Idempotency-Key answer names a record on a route that does not answer records');
    const reference = stored.response_body === '' ? undefined : box.open(stored.response_body, bodyContext(stored.id));
    return { status: stored.status_code, body: await rebuild({ recordId: stored.record_id, reference }), replayed: true };
  }
  return { status: stored.status_code, body: box.open(stored.response_body, bodyContext(stored.id)), replayed: true };
}

/** Where a stored answer lives, bound into its encryption (a sealed answer opens only in its own row). */
const bodyContext = (rowId: string) => `idempotency_keys.response_body of ${rowId.toLowerCase()}`;

/**
 * Runs `run` under `key` for the calling API key, or replays the answer that key stored for it.
 * The caller has authorised the request already (see the comment at the top).
 */
export async function withIdempotency(
  db: Db,
  box: SecretBox,
  auth: AuthContext,
  key: string,
  print: string,
  run: (tx: DbTx) => Promise<{ status: number; body: string }>,
): Promise<StoredResponse> {
  return db.$transaction(
    async (tx) => {
      const id = randomUUID();
      const claimed = await tx.$queryRawUnsafe<{ id: string }[]>(CLAIM_SQL, ...claimValues(auth, key, print, id, 0, ''));
      const claim = claimed[0];
      if (!claim) return replayOf(await readStored(tx, auth, key), box, print);
      const response = await run(tx);
      await tx.$executeRawUnsafe(STORE_SQL, claim.id, response.status, box.seal(response.body, bodyContext(claim.id)));
      return { ...response, replayed: false };
    },
    { maxWait: 10_000, timeout: 30_000 },
  );
}

/**
 * The Idempotency-Key of a procedure whose writes all go through `ctx.sql` (`meta.sqlWrites`: a
 * record, a batch), without an interactive Prisma transaction: the procedure first does its reads
 * and checks as it would without a key; its first statement on `sql` opens a transaction on one
 * pooled connection and claims the key there, and `finish` stores the answer and commits — the
 * write and the remembered answer commit together or not at all, as in `withIdempotency`. A key
 * already claimed stops the procedure at that first statement (`Replay`) and its answer is
 * replayed. A procedure that answers without writing (a batch of invalid items) claims and stores
 * in one statement at `finish`; one that fails before writing is answered the stored answer when
 * there is one, so a retry is never refused for a reason its first attempt did not meet.
 */
/** The claim and the stored answer are the same two statements on every keyed write: prepared where the pool may. */
const PREPARE = { prepare: true };

export function lazyIdempotency(
  pool: pg.Pool,
  box: SecretBox,
  auth: AuthContext,
  key: string,
  print: string,
  /** Whether statements asked to be prepared may be (sqlOfPool): not on the embedded database. */
  namedStatements = false,
  /** The surface answers a record again from its row: the write may claim in its own statement (`KeyClaim`), with this status. */
  recordAnswers?: { rebuild: RecordAnswer; status: number },
) {
  let client: pg.PoolClient | undefined;
  let broken = false;
  let claimId: string | undefined;
  let claimedInStatement = false;
  let fromRows: { recordId: string; reference: string } | undefined;
  const lost = () => {
    broken = true;
  };

  const release = () => {
    if (!client) return;
    client.off('error', lost);
    client.release(broken);
    client = undefined;
  };
  /** Opens the transaction and claims the key; throws Replay when it is not ours to claim. */
  const open = async (): Promise<pg.PoolClient> => {
    const c = await pool.connect();
    client = c;
    c.on('error', lost);
    await c.query('BEGIN');
    const id = randomUUID();
    const claimed = await c.query<{ id: string }>(pgQuery(CLAIM_SQL, claimValues(auth, key, print, id, 0, ''), PREPARE, namedStatements));
    if (claimed.rows.length === 0) throw new Replay();
    claimId = id;
    return c;
  };
  // Once, however many statements ask for it at the same moment.
  let opened: Promise<pg.PoolClient> | undefined;
  const begin = () => {
    opened ??= open();
    return opened;
  };
  const inTransaction: Sql = {
    query: async (text, values, options) => (await begin()).query(pgQuery(text, values, options, namedStatements)) as never,
  };
  const rebuild = recordAnswers?.rebuild;
  const keyClaim: KeyClaim | undefined = recordAnswers && {
    values: { claimId: randomUUID(), apiKeyId: auth.credential.id, idempotencyKey: key, print, status: recordAnswers.status },
    query: async (text, values, options) => {
      if (opened) throw new AppError('internal', 'A key claimed in its statement must be the write’s first statement');
      return (await poolQuery(pool, text, values, options, namedStatements)) as never;
    },
    claimed: () => {
      claimedInStatement = true;
    },
    taken: () => {
      throw new Replay();
    },
  };
  const answerFromRows = (recordId: string, reference: string) => {
    fromRows = { recordId, reference };
  };
  const sql: TransactionalSql = {
    ...inTransaction,
    transaction: async (fn) => fn(inTransaction),
    ...(keyClaim ? { keyClaim, answerFromRows } : {}),
  };

  return {
    sql,
    /** Stores the answer with the write and commits; or claims and stores it at once when nothing was written. */
    async finish(answer: { status: number; body: string }): Promise<StoredResponse> {
      try {
        if (claimedInStatement) return { ...answer, replayed: false };
        if (client && claimId) {
          // The answer, or what its rebuilding from the rows needs (a batch's counts and errors, its first record).
          const store = fromRows
            ? pgQuery(
                STORE_REFERENCE_SQL,
                [claimId, answer.status, box.seal(fromRows.reference, bodyContext(claimId)), fromRows.recordId],
                PREPARE,
                namedStatements,
              )
            : pgQuery(STORE_SQL, [claimId, answer.status, box.seal(answer.body, bodyContext(claimId))], PREPARE, namedStatements);
          await client.query(store);
          await client.query('COMMIT');
          return { ...answer, replayed: false };
        }
        const id = randomUUID();
        const sealed = box.seal(answer.body, bodyContext(id));
        const claimed = await pool.query<{ id: string }>(CLAIM_SQL, claimValues(auth, key, print, id, answer.status, sealed));
        if (claimed.rows.length > 0) return { ...answer, replayed: false };
        return await replayOf(await readStored(pool, auth, key), box, print, rebuild);
      } finally {
        release();
      }
    },
    /**
     * After the procedure failed (or was stopped by Replay): rolls back, and returns the answer to
     * send instead of the error when the key has one stored, else undefined.
     */
    async abort(err: unknown): Promise<StoredResponse | undefined> {
      try {
        if (client && !broken) await client.query('ROLLBACK').catch(lost);
      } finally {
        release();
      }
      if (isReplay(err)) return replayOf(await readStored(pool, auth, key), box, print, rebuild);
      // The request failed on its own: a retry of one that succeeded gets its answer, else the failure stands.
      const stored = await readStored(pool, auth, key).catch(() => undefined);
      return stored ? replayOf(stored, box, print, rebuild) : undefined;
    },
  };
}

/** A key already claimed: the procedure stops at its first write and the stored answer is sent. */
class Replay extends Error {}

/** Replay, as thrown or as the cause tRPC wrapped it in. */
export function isReplay(err: unknown): boolean {
  for (let e = err; e instanceof Error; e = e.cause) if (e instanceof Replay) return true;
  return false;
}

/**
 * A write under an Idempotency-Key, the one path every surface's writes take (http/binding.ts for
 * the API's procedures, http/surfaces/station.ts for the stations'): `run` does the write and
 * returns the answer's body. A write whose statements all go through the runner it is given
 * (`sqlWrites`) runs lazily on a pooled connection (`lazyIdempotency`: `run(db, sql)`); any other
 * in a Prisma transaction that claims the key first (`withIdempotency`: `run(tx)`).
 */
export async function answerOnce(
  deps: { db: Db; secrets: SecretBox; namedStatements: boolean },
  request: { auth: AuthContext; key: string; print: string; status: number; sqlWrites: boolean; rebuild?: RecordAnswer | undefined },
  run: (db: DbTx, sql?: TransactionalSql) => Promise<string>,
): Promise<StoredResponse> {
  const { auth, key, print, status } = request;
  if (!request.sqlWrites) {
    return withIdempotency(deps.db, deps.secrets, auth, key, print, async (tx) => ({ status, body: await run(tx) }));
  }
  const once = lazyIdempotency(
    poolOf(deps.db),
    deps.secrets,
    auth,
    key,
    print,
    deps.namedStatements,
    request.rebuild ? { rebuild: request.rebuild, status } : undefined,
  );
  try {
    return await once.finish({ status, body: await run(deps.db, once.sql) });
  } catch (err) {
    const replay = await once.abort(err);
    if (!replay) throw err;
    return replay;
  }
}
