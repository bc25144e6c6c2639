import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { SERVER_DIR } from './paths.js';

const run = promisify(execFile);

export const freePort = () =>
  new Promise<number>((done, fail) => {
    const srv = createServer();
    srv.once('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => done(port));
    });
  });

export type BuiltServer = {
  url: string;
  /** One organisation + establishment + `*` key per call (`merma-admin quickstart`), so runtimes never share data. */
  createKey(): Promise<string>;
  /** The last lines the server printed, for failure messages. */
  output(): string;
  stop(): Promise<void>;
};

/**
 * A fresh database for the run. With DATABASE_URL set (CI's second pass), a new database on that
 * PostgreSQL, dropped afterwards: that pass exists to run every suite on the engine production
 * uses, and the SDK's batch inserts, paging and analytics are what it should see there. Without
 * it, the server's own embedded PGlite under a temporary DATA_DIR, which is what `pnpm start` runs.
 */
async function freshDatabase(): Promise<{ url: string | undefined; drop(): Promise<void> }> {
  const base = process.env.DATABASE_URL;
  if (!base) return { url: undefined, drop: async () => {} };
  const name = `merma_sdk_runtimes_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

async function waitReady(url: string, child: ChildProcess, output: () => string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`the server exited (${child.exitCode ?? child.signalCode}) before /readyz answered:\n${output()}`);
    }
    try {
      const res = await fetch(`${url}/readyz`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`the server did not become ready within ${timeoutMs} ms:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Starts the real built server (apps/server/dist/main.js, built by turbo before the tests) as a
 * child process, as the container and `pnpm start` run it, and waits for GET /readyz.
 */
export async function startBuiltServer(): Promise<BuiltServer> {
  const main = join(SERVER_DIR, 'dist/main.js');
  const admin = join(SERVER_DIR, 'dist/admin.js');
  if (!existsSync(main) || !existsSync(admin)) {
    throw new Error('apps/server/dist is missing: run `pnpm build` (turbo builds it before `pnpm test`)');
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'merma-sdk-runtimes-data-'));
  const database = await freshDatabase();
  const port = await freePort();
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    // The test's receiver listens on 127.0.0.1.
    WEBHOOKS_ALLOW_PRIVATE: 'true',
    // Every runtime sends ~10 requests with a fresh key; the defaults (10/min general, 10/hour
    // analytics) would make the client wait out rate limits instead of testing it.
    RATE_LIMIT_GENERAL_PER_MINUTE: '100000',
    RATE_LIMIT_RECORDS_PER_MINUTE: '100000',
    RATE_LIMIT_ANALYTICS_PER_HOUR: '100000',
    // Deliveries are woken by LISTEN/NOTIFY; a short poll only bounds the worst case.
    WORKER_POLL_INTERVAL_MS: '250',
    ...(database.url ? { DATABASE_URL: database.url } : {}),
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
  };
  let log = '';
  const child = spawn(process.execPath, [main], { cwd: SERVER_DIR, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const keep = (chunk: Buffer) => {
    log = (log + chunk.toString('utf8')).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killed = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(killed);
    }
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  };

  try {
    await waitReady(url, child, () => log, 90_000);
  } catch (err) {
    await stop();
    throw err;
  }

  return {
    url,
    output: () => log,
    stop,
    async createKey() {
      // The admin CLI reaches the server's embedded database through DATA_DIR (it connects to the
      // owning process), or the same DATABASE_URL.
      const { stdout } = await run(process.execPath, [admin, 'quickstart'], { cwd: SERVER_DIR, env, maxBuffer: 1024 * 1024 });
      const key = (JSON.parse(stdout) as { key?: { key?: string } }).key?.key;
      if (!key) throw new Error(`merma-admin quickstart printed no key: ${stdout}`);
      return key;
    },
  };
}
