import type { AuthContext, Clock } from '../context.js';
import type { DbTx } from '../db/client.js';
import type { StoredAnswer } from '../db/key-claim.js';
import type { Sql, TransactionalSql } from '../db/sql.js';
import type { ResponseCheck } from './responses.js';

/** What every procedure receives. */
export type Context = {
  db: DbTx;
  /**
   * Where hand-written SQL runs: the pg pool under `db` for the hot paths (see db/client.ts), or
   * the request's transaction when it runs in one (an Idempotency-Key POST) — so not necessarily a
   * pool, which is why it is not called one.
   */
  sql: TransactionalSql;
  /**
   * Where reads that may lag behind the writes run (analytics, forecasts, the plan, lists and
   * exports): the streaming replica while it is usable (db/replica.ts), else the primary; `sql`
   * itself when the request runs in a transaction. Never for a read that must see this request's
   * (or this client's just answered) writes: those use `sql`.
   */
  replica: Sql;
  auth: AuthContext;
  clock: Clock;
  requestId: string;
  /** How the answer is checked against its documented schema (trpc/responses.ts). */
  responseCheck: ResponseCheck;
  /** The request's Idempotency-Key, for procedures that handle it themselves (meta.ownIdempotency). */
  idempotencyKey?: string | undefined;
  /**
   * The replay of a write of records (meta.answersRecords): what its key kept (the record written,
   * or a batch's first and the rest of its answer), to answer again from the rows instead of
   * writing, through the same code as the first answer (http/idempotency.ts).
   */
  storedAnswer?: StoredAnswer | undefined;
};
