import type pg from 'pg';
import type { DbTx } from './client.js';
import { inTransaction } from './transaction.js';

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
      // A checked-out client has no listener of the pool's: a connection lost meanwhile (a database
      // restart, a terminated backend) would emit an 'error' nobody hears, which ends the process.
      // The query under way fails with that error; the connection is not given back.
      let broken = false;
      const lost = () => {
        broken = true;
      };
      client.on('error', lost);
      try {
        await client.query('BEGIN');
        const result = await fn({ query: async (text, values) => client.query(text, values) as never });
        await client.query('COMMIT');
        return result;
      } catch (err) {
        // A connection that cannot even roll back is not given back to the pool either.
        if (!broken) await client.query('ROLLBACK').catch(lost);
        throw err;
      } finally {
        client.off('error', lost);
        client.release(broken);
      }
    },
  };
}

/**
 * Statements on a Prisma client. `transaction` joins the transaction `tx` already is (an
 * Idempotency-Key request's), or opens one when `tx` is the top-level client.
 */
export function sqlOfTransaction(tx: DbTx): TransactionalSql {
  const sql: TransactionalSql = {
    query: async <T>(text: string, values: unknown[] = []) => ({ rows: await tx.$queryRawUnsafe<T[]>(text, ...values) }),
    transaction: (fn) => inTransaction(tx, (inner) => fn(inner === tx ? sql : sqlOfTransaction(inner))),
  };
  return sql;
}

/** Positional parameters for hand-written SQL: `add(value)` returns its placeholder. */
export function sqlParams() {
  const values: unknown[] = [];
  return { values, add: (value: unknown) => `$${values.push(value)}` };
}
export type SqlParams = ReturnType<typeof sqlParams>;
