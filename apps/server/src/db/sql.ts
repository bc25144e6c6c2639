import type pg from 'pg';
import type { DbTx } from './client.js';

/**
 * The minimal SQL runner the hot read paths use (`query(text, values)` → rows): the pg pool under
 * Prisma, or — when the request runs inside a transaction (an Idempotency-Key POST) — that same
 * transaction, so that a request never waits on a second connection while holding one (which
 * would deadlock on the embedded PGlite, where a transaction holds the only backend).
 */
export type Sql = { query<T = Record<string, unknown>>(text: string, values?: unknown[]): Promise<{ rows: T[] }> };

export function sqlOfPool(pool: pg.Pool): Sql {
  return { query: async (text, values) => pool.query(text, values) as never };
}

export function sqlOfTransaction(tx: DbTx): Sql {
  return {
    query: async <T>(text: string, values: unknown[] = []) => ({ rows: await tx.$queryRawUnsafe<T[]>(text, ...values) }),
  };
}
