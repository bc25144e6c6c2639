import type { AuthContext, Clock } from '../context.js';
import type { DbTx } from '../db/client.js';
import type { Sql } from '../db/sql.js';

/** What every procedure receives. */
export type Context = {
  db: DbTx;
  /** The pg pool under `db`, for hot reads outside any transaction (see db/client.ts). */
  pool: Sql;
  auth: AuthContext;
  clock: Clock;
  requestId: string;
  /** The request's Idempotency-Key, for procedures that handle it themselves (meta.ownIdempotency). */
  idempotencyKey?: string | undefined;
};
