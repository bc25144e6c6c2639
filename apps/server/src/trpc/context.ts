import type { AuthContext, Clock } from '../context.js';
import type { DbTx } from '../db/client.js';
import type { TransactionalSql } from '../db/sql.js';

/** What every procedure receives. */
export type Context = {
  db: DbTx;
  /**
   * The pg pool under `db` for the hot paths (see db/client.ts), or `db` itself when the request
   * runs in a transaction (an Idempotency-Key POST).
   */
  pool: TransactionalSql;
  auth: AuthContext;
  clock: Clock;
  requestId: string;
  /** The request's Idempotency-Key, for procedures that handle it themselves (meta.ownIdempotency). */
  idempotencyKey?: string | undefined;
};
