import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { deadline } from '@merma/testing';
import pg from 'pg';
import { freshDatabase } from './database.js';

const execFileAsync = promisify(execFile);

/** apps/server, found through the @merma/server package (a dev dependency, so turbo builds it first). */
const SERVER_DIR = dirname(createRequire(import.meta.url).resolve('@merma/server/package.json'));
export const SERVER_MAIN = join(SERVER_DIR, 'dist/main.js');
export const SERVER_ADMIN = join(SERVER_DIR, 'dist/admin.js');

export type TestServerOptions = {
  /**
   * Server configuration (apps/server/src/config.ts), on top of the test defaults below:
   * e.g. `{ RATE_LIMIT_GENERAL_PER_MINUTE: '2', RATE_LIMIT_WINDOW_SECONDS: '2' }` or
   * `{ WEBHOOKS_ALLOW_PRIVATE: 'true' }`.
   */
  env?: Record<string, string>;
  /** Run the server's job worker (webhook deliveries, alerts). Off unless asked, as in the server's own tests. */
  worker?: boolean;
  /** How long to wait for GET /readyz (the embedded database migrates at boot). */
  readyTimeoutMs?: number;
};

export type Tenant = { organizationId: string; establishmentId: string; key: string; keyId: string };

export type TenantOptions = {
  plan?: string;
  mode?: 'test' | 'live';
  permissions?: string;
  timezone?: string;
  sector?: string;
  /** Add the establishment to this organisation instead of creating one. */
  organizationId?: string;
};

export type TestServer = {
  /** `http://127.0.0.1:<port>`; the API is under `${url}/api/v1`. */
  url: string;
  /** 'postgresql' with DATABASE_URL set (a fresh database on it), otherwise the server's embedded PGlite. */
  databaseKind: 'postgresql' | 'pglite';
  /**
   * SQL on the server's own database, for assertions and for arranging state no API offers
   * (`await server.sql.query('SELECT count(*)::int AS n FROM records WHERE establishment_id = $1', [id])`).
   */
  sql: pg.Pool;
  /** The URL `sql` connects to (the fresh PostgreSQL database, or the embedded PGlite's loopback port). */
  databaseUrl: string;
  /** The server's DATA_DIR (a temporary directory, removed by close). */
  dataDir: string;
  /** Runs `merma-admin <args>` (the built CLI) against this server's database and returns the JSON it prints. */
  admin<T = unknown>(args: string[]): Promise<T>;
  /** An organisation (enterprise unless told), an establishment and a key (test mode, every permission unless told). */
  createTenant(options?: TenantOptions): Promise<Tenant>;
  /** The last lines the server printed, for failure messages. */
  output(): string;
  /** SIGTERM, wait for the process to exit, drop the database and remove the data directory. */
  close(): Promise<void>;
};

const LOG_TAIL = 30_000;
// Fastify's info line once the socket is bound; PORT=0 lets the kernel choose a free port, so no
// port is picked here and then raced for.
const LISTENING = /"msg":"Server listening at (http:\/\/[^"]+)"/;

/**
 * The real built server (apps/server/dist/main.js, as the container and `pnpm start` run it) as a
 * child process on a fresh database, ready (GET /readyz answered) when this resolves.
 */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  if (!existsSync(SERVER_MAIN) || !existsSync(SERVER_ADMIN)) {
    throw new Error(`${SERVER_DIR}/dist is missing: run \`pnpm build\` (turbo builds it before \`pnpm test\`)`);
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'merma-test-server-'));
  const database = await freshDatabase();
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    NODE_ENV: 'test',
    HOST: '127.0.0.1',
    PORT: '0',
    // info: the port is read from the "Server listening" line.
    LOG_LEVEL: 'info',
    DATA_DIR: dataDir,
    // Tests make many requests with one key; the defaults (10/min) would make clients wait.
    RATE_LIMIT_GENERAL_PER_MINUTE: '10000',
    RATE_LIMIT_RECORDS_PER_MINUTE: '10000',
    RATE_LIMIT_ANALYTICS_PER_HOUR: '10000',
    WORKER_CONCURRENCY: options.worker ? '4' : '0',
    WORKER_POLL_INTERVAL_MS: '50',
    ...(database.url ? { DATABASE_URL: database.url } : {}),
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
    ...options.env,
  };

  let log = '';
  let pending = '';
  let announced: string | undefined;
  const child = spawn(process.execPath, [SERVER_MAIN], { cwd: SERVER_DIR, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const keep = (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    log = (log + text).slice(-LOG_TAIL);
    if (announced) return;
    pending += text;
    announced = LISTENING.exec(pending)?.[1];
    pending = pending.slice(pending.lastIndexOf('\n') + 1);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  let sql: pg.Pool | undefined;
  const close = async () => {
    await sql?.end().catch(() => {});
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killed = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(killed);
    }
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  };

  let url: string;
  let databaseUrl: string;
  try {
    url = await waitReady(
      child,
      () => announced,
      () => log,
      options.readyTimeoutMs ?? deadline(120_000),
    );
    databaseUrl = database.url ?? embeddedUrl(dataDir);
    sql = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    // An idle connection the server drops at shutdown must not crash the test process.
    sql.on('error', () => {});
  } catch (err) {
    await close();
    throw err;
  }
  const pool = sql;

  // The CLI reads the same configuration, so it reaches the same database: DATABASE_URL, or the
  // embedded PGlite the running server owns under DATA_DIR. The server has migrated already.
  const adminEnv = { ...env, MIGRATE_ON_BOOT: 'false' };
  const admin = async <T>(args: string[]): Promise<T> => {
    try {
      const { stdout } = await execFileAsync(process.execPath, [SERVER_ADMIN, ...args], {
        cwd: SERVER_DIR,
        env: adminEnv,
        maxBuffer: 16 * 1024 * 1024,
      });
      return JSON.parse(stdout) as T;
    } catch (err) {
      const e = err as Error & { stderr?: string; stdout?: string };
      throw new Error(`merma-admin ${args.join(' ')} failed: ${e.stderr || e.stdout || e.message}`);
    }
  };

  return {
    url,
    databaseKind: database.url ? 'postgresql' : 'pglite',
    sql: pool,
    databaseUrl,
    dataDir,
    admin,
    createTenant: (o) => createTenant(admin, o),
    output: () => log,
    close,
  };
}

/**
 * The embedded PGlite serves one loopback port, which its owner (the server) writes to
 * DATA_DIR/embedded.json; `merma-admin` joins a running server the same way.
 */
function embeddedUrl(dataDir: string): string {
  const { port } = JSON.parse(readFileSync(join(dataDir, 'embedded.json'), 'utf8')) as { port: number };
  return `postgresql://postgres@127.0.0.1:${port}/postgres?sslmode=disable`;
}

async function waitReady(child: ChildProcess, announced: () => string | undefined, output: () => string, timeoutMs: number) {
  const giveUpAt = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`the server exited (${child.exitCode ?? child.signalCode}) before /readyz answered:\n${output()}`);
    }
    const url = announced();
    if (url) {
      try {
        const res = await fetch(`${url}/readyz`);
        if (res.ok) return url;
      } catch {
        // not answering yet
      }
    }
    if (Date.now() > giveUpAt) throw new Error(`the server was not ready within ${timeoutMs} ms:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

let counter = 0;

async function createTenant(admin: TestServer['admin'], options: TenantOptions = {}): Promise<Tenant> {
  counter += 1;
  const organizationId =
    options.organizationId ??
    (await admin<{ id: string }>(['org', 'create', '--name', `Org ${counter}`, '--plan', options.plan ?? 'enterprise'])).id;
  const establishment = await admin<{ id: string }>([
    'establishment',
    'create',
    '--org',
    organizationId,
    '--name',
    `Cocina ${counter}`,
    '--cif',
    `B${String(10_000_000 + counter).slice(-8)}`,
    '--sector',
    options.sector ?? 'horeca',
    ...(options.timezone ? ['--timezone', options.timezone] : []),
  ]);
  const key = await admin<{ id: string; key: string }>([
    'key',
    'create',
    '--establishment',
    establishment.id,
    '--mode',
    options.mode ?? 'test',
    ...(options.permissions !== undefined ? ['--permissions', options.permissions] : []),
  ]);
  return { organizationId, establishmentId: establishment.id, key: key.key, keyId: key.id };
}
