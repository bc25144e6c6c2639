import type { DbTx } from './client.js';

/**
 * Runs `fn` in a transaction. When `db` is already a transaction's client (the request runs under
 * an Idempotency-Key, see http/idempotency.ts) it joins that transaction instead of nesting.
 */
export async function inTransaction<T>(db: DbTx, fn: (tx: DbTx) => Promise<T>): Promise<T> {
  const maybe = db as DbTx & { $transaction?: (fn: (tx: DbTx) => Promise<T>, opts?: object) => Promise<T> };
  if (typeof maybe.$transaction === 'function') {
    return maybe.$transaction(fn, { maxWait: 10_000, timeout: 30_000 });
  }
  return fn(db);
}
