import type pg from 'pg';
import type { DbTx } from './client.js';

/**
 * The minimal SQL runner the hot read paths use (`query(text, values)` → rows): the pg pool under
 * Prisma, or — when the request runs inside a transaction (an Idempotency-Key POST) — that same
 * transaction, so that a request never waits on a second connection while holding one (which
 * would deadlock on the embedded PGlite, where a transaction holds the only backend).
 */
export type Sql = { query<T = Record<string, unknown>>(text: string, values?: unknown[]): Promise<{ rows: T[] }> };

/**
 * A runner that can also run several statements in one transaction: on the pool, one connection
 * between BEGIN and COMMIT (ROLLBACK when `fn` throws) with no Prisma round trip; inside a
 * request's transaction, that transaction itself (no nesting).
 */
export type TransactionalSql = Sql & { transaction<T>(fn: (sql: Sql) => Promise<T>): Promise<T> };

export function sqlOfPool(pool: pg.Pool): TransactionalSql {
  return {
    query: async (text, values) => pool.query(text, values) as never,
    async transaction(fn) {
      const client = await pool.connect();
      let broken = false;
      try {
        await client.query('BEGIN');
        const result = await fn({ query: async (text, values) => client.query(text, values) as never });
        await client.query('COMMIT');
        return result;
      } catch (err) {
        // A connection that cannot even roll back is not given back to the pool.
        await client.query('ROLLBACK').catch(() => {
          broken = true;
        });
        throw err;
      } finally {
        client.release(broken);
      }
    },
  };
}

export function sqlOfTransaction(tx: DbTx): TransactionalSql {
  const sql: TransactionalSql = {
    query: async <T>(text: string, values: unknown[] = []) => ({ rows: await tx.$queryRawUnsafe<T[]>(text, ...values) }),
    transaction: (fn) => fn(sql),
  };
  return sql;
}
