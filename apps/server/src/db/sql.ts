import { createHash } from 'node:crypto';
import pg from 'pg';
import type { DbTx } from './client.js';
import type { KeyClaim } from './key-claim.js';
import { inTransaction } from './transaction.js';

/**
 * The minimal SQL runner the hot read paths use (`query(text, values)` → rows): the pg pool under
 * Prisma, or — when the request runs inside a transaction (an Idempotency-Key POST) — that same
 * transaction, so that a request never waits on a second connection while holding one (which
 * would deadlock on the embedded PGlite, where a transaction holds the only backend).
 */
export type Sql = {
  query<T = Record<string, unknown>>(text: string, values?: unknown[], options?: QueryOptions): Promise<{ rows: T[] }>;
};

export type QueryOptions = {
  /**
   * The statement is one of a bounded set (every value in it is a parameter, so each call of the
   * same code sends the same text) and runs often: a pool on a real PostgreSQL prepares it once
   * per connection, under a name drawn from its text, and from then on only binds and executes
   * it, so the database skips parsing and analysing it on every call (`namedStatements`). For the
   * hottest statements only: every distinct text stays prepared on each connection of the pool.
   */
  prepare?: boolean;
};

/**
 * The name a prepared statement gets on a connection: from its text, so that the same name is
 * always the same statement (pg refuses a name reused for another text).
 */
export function statementName(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `merma_${createHash('sha256').update(text).digest('base64url').slice(0, 24)}`;
    statementNames.set(text, name);
  }
  return name;
}
/**
 * Each prepared statement's name, drawn once: the texts asked to be prepared are a bounded set (see
 * `prepare`), and the same text is usually the same string, whose hash the Map lookup reuses.
 */
const statementNames = new Map<string, string>();

/** pg's query arguments for `text`, named when it is to be prepared and the pool may do so. */
export function pgQuery(text: string, values: unknown[] | undefined, options: QueryOptions | undefined, namedStatements: boolean) {
  return options?.prepare && namedStatements ? { name: statementName(text), text, values: values ?? [] } : { text, values: values ?? [] };
}

/**
 * A statement on a pool, given to pg the way it handles fastest: a text and its values, or, to be
 * prepared, a query made from them that takes its name afterwards. (A config object `{ name, text,
 * values }` is copied property by property by pg on every call: about a microsecond, on the
 * statements that run most.) The pool's answer is a promise either way.
 */
export function poolQuery(
  pool: pg.Pool,
  text: string,
  values: unknown[] | undefined,
  options: QueryOptions | undefined,
  namedStatements: boolean,
): Promise<pg.QueryResult> {
  const params = values ?? [];
  if (!(options?.prepare && namedStatements)) return pool.query(text, params);
  const query: pg.Query & { name?: string } = new pg.Query(text, params);
  query.name = statementName(text);
  return pool.query(query) as unknown as Promise<pg.QueryResult>;
}

/**
 * A runner that can also run several statements in one transaction: on the pool, one connection
 * between BEGIN and COMMIT (ROLLBACK when `fn` throws) with no Prisma round trip; inside a
 * request's transaction, that transaction itself (no nesting).
 */
export type TransactionalSql = Sql & {
  transaction<T>(fn: (sql: Sql) => Promise<T>): Promise<T>;
  /** Under an Idempotency-Key, on a record's write: the claim it may fold into its one statement (http/idempotency.ts). */
  keyClaim?: KeyClaim;
  /**
   * Under an Idempotency-Key, on a write whose surface answers it again from the rows it stored (a
   * batch): the key keeps `recordId` (the first record written) and `reference` (what else the
   * answer holds) instead of the answer (http/idempotency.ts).
   */
  answerFromRows?(recordId: string, reference: string): void;
};

/**
 * Statements on a pg pool. `namedStatements`: the pool may prepare the statements asked to be
 * (QueryOptions.prepare). Only on a real PostgreSQL: the embedded one is a single session that all
 * the pool's connections share (embedded.ts), where a second connection preparing the same name
 * would be refused.
 */
export function sqlOfPool(pool: pg.Pool, { namedStatements = false }: { namedStatements?: boolean } = {}): TransactionalSql {
  return {
    query: async (text, values, options) => poolQuery(pool, text, values, options, namedStatements) as never,
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
        const result = await fn({
          query: async (text, values, options) => client.query(pgQuery(text, values, options, namedStatements)) as never,
        });
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
