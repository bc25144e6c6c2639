import pg from 'pg';
import type { Log } from '../context.js';
import { isDatabaseUnavailable } from '../errors.js';

/**
 * Errors of a database that is not up yet: nothing listens on its port, its name does not resolve
 * yet (a compose network or a Kubernetes Service still coming up), it is starting or recovering
 * (57P03), or the connection attempt timed out. Anything else (a wrong password, a database that
 * does not exist, TLS refused) is a mistake in DATABASE_URL and fails the boot at once.
 */
const NOT_UP_YET = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', '57P03']);
const notUpYet = (err: unknown) => {
  const e = err as { code?: string; message?: string };
  return NOT_UP_YET.has(e.code ?? '') || /timeout/i.test(e.message ?? '');
};

/**
 * Waits until the PostgreSQL at `url` accepts a connection, for at most `timeoutMs`: a server
 * started together with its database (compose without health conditions, a pod whose database
 * restarts) waits for it instead of exiting. Tries again after 0.25 s, doubling to 5 s, logging
 * each failure with the host (never the password). `timeoutMs` 0 tries once.
 */
export async function waitForDatabase(
  url: string,
  options: { timeoutMs: number; log?: Pick<Log, 'warn'>; sleep?: (ms: number) => Promise<void> },
): Promise<void> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const { hostname, port } = new URL(url);
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
    try {
      await client.connect();
      await client.end();
      return;
    } catch (err) {
      await client.end().catch(() => {});
      const waited = Date.now() - started;
      if (!notUpYet(err) || waited >= options.timeoutMs) throw err;
      const pause = Math.min(250 * 2 ** attempt, 5000, options.timeoutMs - waited);
      options.log?.warn(
        { host: hostname, port: port || '5432', code: (err as { code?: string }).code, waitedMs: waited, retryInMs: pause },
        'the database does not accept connections yet; trying again',
      );
      await sleep(pause);
    }
  }
}

/**
 * Runs `write` again while it fails because the database is away (errors.ts's
 * `isDatabaseUnavailable`: refused, cut, shutting down, a failover under way), pausing 0.25 s and
 * doubling to 4 s, for at most `budgetMs` (20 s) in all; any other error, or the last one, is
 * thrown. Only for a write that is safe to run twice: one whose commit may have happened before
 * the connection was cut (a guarded UPDATE that changes nothing the second time).
 *
 * For what a job must record after it acted outside the database: a webhook delivery received,
 * whose record, lost to a failover, would make the delivery run and be sent again.
 */
export async function whileUnavailable<T>(
  write: () => Promise<T>,
  options: { budgetMs?: number; sleep?: (ms: number) => Promise<void> } = {},
): Promise<T> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const budgetMs = options.budgetMs ?? 20_000;
  let waited = 0;
  for (let pause = 250; ; pause = Math.min(pause * 2, 4_000)) {
    try {
      return await write();
    } catch (err) {
      if (!isDatabaseUnavailable(err) || waited + pause > budgetMs) throw err;
      await sleep(pause);
      waited += pause;
    }
  }
}
