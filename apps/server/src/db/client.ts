import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from '../generated/prisma/client.ts';

export type Db = PrismaClient;
/** A Prisma client or the client of an open interactive transaction: services accept either. */
export type DbTx = Omit<PrismaClient, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'>;

const pools = new WeakMap<PrismaClient, pg.Pool>();

/**
 * A Prisma client over its own `pg` pool (driver adapter, no native engine). The pool is ended with
 * the client (`$disconnect`). A request that waits `acquireTimeoutMs` for a connection (all busy,
 * or the database unreachable) fails, and is answered 503 with Retry-After; the tests stretch it
 * with the rest of their deadlines on a loaded machine.
 */
export function createPrisma(databaseUrl: string, poolSize: number, acquireTimeoutMs = 5_000): PrismaClient {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: poolSize,
    connectionTimeoutMillis: acquireTimeoutMs,
    idleTimeoutMillis: 30_000,
  });
  // An idle connection that drops (database restart) is discarded and replaced by the pool.
  pool.on('error', () => {});
  const client = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
  pools.set(client, pool);
  return client;
}

/**
 * A Prisma client on a pool that someone else owns and ends (the job worker's): the domain
 * services that take a Prisma client run in jobs too.
 */
export function prismaOnPool(pool: pg.Pool): PrismaClient {
  return new PrismaClient({ adapter: new PrismaPg(pool) });
}

/**
 * The pg pool under a Prisma client, for the hottest paths (the record list, a record's append, a
 * batch's transaction: db/sql.ts), where Prisma's per-value row mapping and transaction round
 * trips cost more than the query itself. Never used inside a request's Prisma transaction.
 */
export function poolOf(db: Db): pg.Pool {
  const pool = pools.get(db);
  if (!pool) throw new Error('This Prisma client was not created by createPrisma');
  return pool;
}
