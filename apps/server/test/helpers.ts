import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deadline } from '@merma/testing';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { inject } from 'vitest';
import { createEstablishment, createKey, createOrganization } from '../src/admin/service.js';
import { type Config, loadConfig } from '../src/config.js';
import { createPrisma, type Db } from '../src/db/client.js';
import { startEphemeralPostgres } from '../src/db/embedded.js';
import { migrate } from '../src/db/migrate.js';
import { buildApp } from '../src/http/app.js';
import { startWorker, type Worker } from '../src/jobs/worker.js';
import { createLogger } from '../src/log.js';
import type { Mailer } from '../src/mail.js';
import { createMetrics, type Metrics } from '../src/metrics.js';
import { loadSecretBox } from '../src/secrets/keys.js';
import { createServices } from '../src/services.js';

/**
 * Test database: a fresh database on the PostgreSQL named by DATABASE_URL when it is set (dropped
 * afterwards), otherwise an in-memory PGlite served on a loopback port; for a caller that migrates
 * it next, either is a copy of the run's migrated database (test/global-setup.ts). Either way the server code
 * talks to it through the same pg driver adapter as in production.
 */
export type TestDatabase = { url: string; kind: 'postgresql' | 'pglite'; drop(): Promise<void> };

export async function createTestDatabase(options: { migrated?: boolean } = {}): Promise<TestDatabase> {
  const base = process.env.DATABASE_URL;
  if (!base) {
    // `migrated`: the caller migrates it next, so the run's migrated copy does (when the global
    // setup made one: vitest.config.ts); else an empty database, as on PostgreSQL.
    const template = options.migrated ? inject('migratedDatabase') : undefined;
    const embedded = await startEphemeralPostgres(template ? { from: new Blob([readFileSync(template)]) } : {});
    return { url: embedded.url, kind: 'pglite', drop: () => embedded.close() };
  }
  const name = `merma_test_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  // `migrated`: a copy of the run's migrated database (test/global-setup.ts), which nobody connects to.
  const template = options.migrated ? inject('migratedTemplate') : undefined;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(template ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    kind: 'postgresql',
    async drop() {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      // A pool's end() resolves once it has asked its connections to close, not once they have: a
      // forced drop at that moment terminates a backend whose client is still closing, and that
      // client reports the termination as an error nobody listens to. Wait for the database's
      // backends to leave (a few ms), and only force what is still there after 5 s.
      for (let waited = 0; waited < 5000; waited += 20) {
        const { rows } = await c.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [name]);
        if (rows[0]?.n === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/**
 * The key that encrypts webhook secrets in the tests' configuration: one random key per test
 * process (id `test`), so no test writes a key file and production-mode apps can be built.
 */
export const TEST_ENCRYPTION_KEY = `test:${randomBytes(32).toString('base64')}`;

/** The test processes' DATA_DIR: one per process, under the system's temporary directory. */
export const TEST_DATA_DIR = join(tmpdir(), `merma-test-data-${process.pid}`);

export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    MERMA_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    // What the app keeps on disk (the photos' files) goes to a directory of this test process,
    // never into the checkout's ./.data.
    DATA_DIR: TEST_DATA_DIR,
    RATE_LIMIT_GENERAL_PER_MINUTE: '10000',
    RATE_LIMIT_RECORDS_PER_MINUTE: '10000',
    RATE_LIMIT_ANALYTICS_PER_HOUR: '10000',
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
    // What production requires besides (config.ts): its database, public https address, a way for mail and its proxy.
    // (The tests' app is handed its own database; the URL only satisfies production's rule.)
    ...(overrides.NODE_ENV === 'production'
      ? {
          PUBLIC_URL: 'https://merma.test',
          MAIL_TO_LOG: 'true',
          DATABASE_URL: 'postgresql://merma.test/merma',
          // A proxy (TEST-NET-1) no test request comes from: requests stay plain HTTP unless a test trusts one.
          TRUST_PROXY: '192.0.2.1',
        }
      : {}),
    ...overrides,
  });
}

export type TestContext = {
  app: FastifyInstance;
  db: Db;
  database: TestDatabase;
  config: Config;
  /** The metrics of the app and of the workers started here. */
  metrics: Metrics;
  /** The job worker, when started (`worker` option). */
  worker: Worker | undefined;
  /** Starts (another) worker on this database, as a second replica would. */
  startWorker(options?: WorkerTestOptions): Promise<Worker>;
  close(): Promise<void>;
};

export type WorkerTestOptions = {
  /** The worker's "now" (spike detection's day, delivery times); the app's `clock` by default. */
  clock?: () => Date;
  random?: () => number;
  mailer?: Mailer;
  log?: TestLog;
  config?: Partial<Config>;
  dispatchIntervalMs?: number;
};
type TestLog = Parameters<typeof startWorker>[0]['log'];
const silentLog: TestLog = { info() {}, warn() {}, error() {}, debug() {} };

/**
 * The app on the services of `config` and `db` (services.ts), as serve.ts builds it. Logs go nowhere
 * (LOG_LEVEL silent) unless a `logStream` is given.
 */
export async function buildTestApp(options: {
  config: Config;
  db: Db;
  clock?: () => Date;
  logStream?: NodeJS.WritableStream;
  logLevel?: string;
  afterWrite?: () => void;
  metrics?: Metrics;
  /** Where the dashboard's e-mails (invitations, password resets) go. */
  mailer?: Mailer;
  /** As serve.ts: true on a real PostgreSQL (createServices). */
  namedStatements?: boolean;
}): Promise<FastifyInstance> {
  const log = createLogger(options.config, {
    pretty: false,
    ...(options.logStream ? { stream: options.logStream } : {}),
    ...(options.logLevel ? { level: options.logLevel } : {}),
  });
  const services = createServices({
    config: options.config,
    db: options.db,
    log,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(options.mailer ? { mailer: options.mailer } : {}),
    ...(options.namedStatements ? { namedStatements: true, listen: true } : {}),
  });
  return buildApp(services, options.afterWrite ? { afterWrite: options.afterWrite } : {});
}

/** A migrated database and the app on it. `clock` fixes "now" for time-window tests. */
export async function startTestApp(
  options: {
    config?: Record<string, string>;
    clock?: () => Date;
    logStream?: NodeJS.WritableStream;
    logLevel?: string;
    /** Start a job worker (webhook deliveries, alerts) polling every 50 ms. */
    worker?: boolean | WorkerTestOptions;
    /** Where the app's e-mails go (the dashboard's invitations and password resets). */
    mailer?: Mailer;
  } = {},
): Promise<TestContext> {
  const database = await createTestDatabase({ migrated: true });
  await migrate(database.url);
  // A connection is waited for as long as a loaded machine needs (40 requests at once on the
  // embedded database queue for it); a real outage still answers 503 (error-mapping tests).
  const db = createPrisma(database.url, 5, deadline(5_000));
  const config = testConfig(options.config);
  const workers: Worker[] = [];
  const metrics = createMetrics();
  const app = await buildTestApp({
    config,
    db,
    metrics,
    namedStatements: database.kind !== 'pglite',
    afterWrite: () => {
      for (const w of workers) w.wake();
    },
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.logStream ? { logStream: options.logStream } : {}),
    ...(options.logLevel ? { logLevel: options.logLevel } : {}),
    ...(options.mailer ? { mailer: options.mailer } : {}),
  });
  await app.ready();
  const launch = async (o: WorkerTestOptions = {}) => {
    const clock = o.clock ?? options.clock;
    const w = await startWorker({
      databaseUrl: database.url,
      embedded: database.kind === 'pglite',
      config: { ...config, worker: { concurrency: 4, pollIntervalMs: 50 }, ...o.config },
      log: o.log ?? silentLog,
      metrics,
      secrets: loadSecretBox({ ...config, ...o.config }), // a replica's own keys when its config names them
      ...(clock ? { clock } : {}),
      ...(o.random ? { random: o.random } : {}),
      ...(o.mailer ? { mailer: o.mailer } : {}),
      ...(o.dispatchIntervalMs ? { dispatchIntervalMs: o.dispatchIntervalMs } : {}),
    });
    workers.push(w);
    return w;
  };
  const worker = options.worker ? await launch(options.worker === true ? {} : options.worker) : undefined;
  return {
    app,
    db,
    database,
    config,
    metrics,
    worker,
    startWorker: launch,
    async close() {
      await Promise.all(workers.map((w) => w.stop()));
      await app.close();
      await db.$disconnect();
      await database.drop();
    },
  };
}

export type Tenant = {
  organizationId: string;
  establishmentId: string;
  key: string;
  keyId: string;
};

let counter = 0;

/** An organisation, an establishment and a key (test mode, every permission unless told). */
export async function createTenant(
  db: Db,
  options: { plan?: string; mode?: 'test' | 'live'; permissions?: string; organizationId?: string; timezone?: string } = {},
): Promise<Tenant> {
  counter += 1;
  const organizationId =
    options.organizationId ?? (await createOrganization(db, { name: `Org ${counter}`, plan: options.plan ?? 'enterprise' })).id;
  const est = await createEstablishment(db, {
    org: organizationId,
    name: `Cocina ${counter}`,
    cif: `B${String(10_000_000 + counter).slice(-8)}`,
    sector: 'horeca',
    timezone: options.timezone ?? 'Europe/Madrid',
  });
  const key = await createKey(db, {
    establishment: est.id,
    mode: options.mode ?? 'test',
    ...(options.permissions !== undefined ? { permissions: options.permissions } : {}),
  });
  return { organizationId, establishmentId: est.id, key: key.key, keyId: key.id };
}

/** A second key on an existing establishment. */
export async function addKey(db: Db, establishmentId: string, mode: 'test' | 'live', permissions = '*') {
  const key = await createKey(db, { establishment: establishmentId, mode, permissions });
  return { key: key.key, keyId: key.id };
}

export const DESTINO_DONATION = '6ccf7d29-f6d9-403d-a9b0-2f907f15477b';
export const DESTINO_LANDFILL = '261568e0-0830-4971-bb56-4a6153297696';
export const CAUSA_CADUCIDAD = '38c24669-6e85-43c2-a75a-a6059295af65';
export const CAUSA_RETIRED = '1ba04913-edd8-46b2-b05b-569f6bbc5150';

export function validRecord(overrides: Record<string, unknown> = {}) {
  return { food_category: 'meat', weight_kg: 1.5, destino_id: DESTINO_DONATION, ...overrides };
}

type InjectOptions = { headers?: Record<string, string>; query?: Record<string, string> };

export function api(app: FastifyInstance, key: string | undefined) {
  const headers = (extra?: Record<string, string>) => ({ ...(key ? { authorization: `Bearer ${key}` } : {}), ...extra });
  return {
    get: (url: string, opts: InjectOptions = {}) =>
      app.inject({ method: 'GET', url, headers: headers(opts.headers), ...(opts.query ? { query: opts.query } : {}) }),
    post: (url: string, body: unknown, opts: InjectOptions = {}) =>
      app.inject({
        method: 'POST',
        url,
        headers: headers({ 'content-type': 'application/json', ...opts.headers }),
        payload: typeof body === 'string' ? body : JSON.stringify(body),
      }),
  };
}

/** The status of `GET url` with `key` once it is no longer 200 (asked again every 20 ms), or 200 when the suite's deadline for it passes first. */
export async function statusOnceNot200(app: FastifyInstance, key: string, url: string, ms = 5_000): Promise<number> {
  const giveUpAt = Date.now() + deadline(ms);
  for (;;) {
    const status = (await api(app, key).get(url)).statusCode;
    if (status !== 200 || Date.now() >= giveUpAt) return status;
    await new Promise((r) => setTimeout(r, 20));
  }
}

export async function countRecords(db: Db, establishmentId?: string): Promise<number> {
  return db.record.count(establishmentId ? { where: { establishment_id: establishmentId } } : undefined);
}

/** Stores a record as if created at `at` (through the same service as the API). */
export async function recordAt(
  db: Db,
  tenant: Tenant,
  at: string,
  fields: Record<string, unknown> = {},
  options: { timezone?: string; livemode?: boolean; sector?: string } = {},
) {
  const { createRecord } = await import('../src/modules/records/service.js');
  const { createCatalogCache } = await import('../src/modules/catalog/service.js');
  const { CreateRecordInput } = await import('@merma/schema');
  catalog ??= createCatalogCache();
  const input = CreateRecordInput.parse(validRecord(fields));
  return createRecord({ db, clock: () => new Date(at), catalog }, authOf(tenant, options), input);
}
let catalog: import('../src/modules/catalog/service.js').CatalogCache | undefined;

export function authOf(tenant: Tenant, options: { timezone?: string; livemode?: boolean; sector?: string; plan?: string } = {}) {
  return {
    credential: { kind: 'api_key' as const, id: tenant.keyId },
    establishmentId: tenant.establishmentId,
    organizationId: tenant.organizationId,
    livemode: options.livemode ?? false,
    plan: (options.plan ?? 'enterprise') as 'enterprise',
    permissions: ['*'],
    timezone: options.timezone ?? 'Europe/Madrid',
    sector: (options.sector ?? 'horeca') as 'horeca',
  };
}

/** A webhook subscription through the API (201 checked); the secret is returned once, here. */
export async function subscribe(t: { app: FastifyInstance }, tenant: Tenant, url: string, events: string[]) {
  const res = await api(t.app, tenant.key).post('/api/v1/webhooks', { url, events });
  if (res.statusCode !== 201) throw new Error(`POST /api/v1/webhooks answered ${res.statusCode}: ${res.body}`);
  return res.json().data as { id: string; secret: string };
}

type Queryable = Db | pg.Pool;

async function rows<T>(on: Queryable, text: string, values: unknown[] = []): Promise<T[]> {
  if ('$queryRawUnsafe' in on) return on.$queryRawUnsafe<T[]>(text, ...values);
  return (await on.query(text, values)).rows as T[];
}

/**
 * Waits until the outbox and the job queue are idle: no event waits for dispatch, no job is running
 * (locked) and none is due at `now` (the test process's clock, which the workers compare run_at
 * with; a faked Date counts). Both are read in one statement, so one snapshot: dispatch marks an
 * event and adds its jobs atomically, and a job writes what it causes (deliveries' outcomes, retries,
 * alerts' events) before it is completed, so an idle snapshot means nothing more is on its way.
 * Use it before asserting that something did NOT happen, instead of sleeping. A job locked by a
 * worker that died keeps it waiting until `timeoutMs`, which then fails naming what was pending.
 */
export async function drain(
  on: Queryable,
  options: {
    now?: () => Date;
    timeoutMs?: number;
    /** Events a test leaves waiting on purpose (no dispatcher is to take them yet): not waited for. */
    leaveOutbox?: boolean;
    /** Workers a test made up as dead, holding jobs no one releases by themselves: those jobs are not waited for. */
    deadWorkers?: string[];
  } = {},
): Promise<void> {
  const now = options.now ?? (() => new Date());
  const giveUpAt = performance.now() + deadline(options.timeoutMs ?? 15_000);
  for (;;) {
    const [state] = await rows<{ waiting: number; jobs: { task: string; run_at: string; locked_by: string | null }[] | null }>(
      on,
      `SELECT (SELECT count(*)::int FROM events WHERE dispatched_at IS NULL) AS waiting,
         (SELECT json_agg(json_build_object('task', task_identifier, 'run_at', run_at, 'locked_by', locked_by))
          FROM graphile_worker.jobs
          WHERE (locked_at IS NOT NULL OR (attempts < max_attempts AND run_at <= $1::timestamptz))
            AND (locked_by IS NULL OR locked_by <> ALL($2::text[]))) AS jobs`,
      [now(), options.deadWorkers ?? []],
    );
    if (state && (state.waiting === 0 || options.leaveOutbox) && !state.jobs) return;
    if (performance.now() > giveUpAt) {
      throw new Error(`the queue did not drain: ${state?.waiting} events waiting, jobs ${JSON.stringify(state?.jobs)}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

export type ChainReport = {
  establishment_id: string;
  livemode: boolean;
  checked: number;
  valid: boolean;
  first_invalid: unknown;
};

/**
 * Walks every record chain in the database (each establishment and mode with records or a chain
 * head) with the service's verifier, as GET /api/v1/records/verify does for one key.
 */
export async function verifyAllChains(db: Db): Promise<ChainReport[]> {
  const { verifyRecordChain } = await import('../src/modules/records/verify.js');
  const { sqlOfTransaction } = await import('../src/db/sql.js');
  const chains = await db.$queryRaw<{ establishment_id: string; livemode: boolean }[]>`
    SELECT establishment_id::text, livemode FROM records
    UNION SELECT establishment_id::text, livemode FROM record_chain_heads
    ORDER BY 1, 2`;
  const reports: ChainReport[] = [];
  for (const chain of chains) {
    const auth = {
      credential: { kind: 'api_key' as const, id: '' },
      organizationId: '',
      establishmentId: chain.establishment_id,
      livemode: chain.livemode,
      plan: 'enterprise' as const,
      permissions: [],
      timezone: 'UTC',
      sector: 'horeca' as const,
    };
    const result = await verifyRecordChain(sqlOfTransaction(db), auth);
    reports.push({ ...chain, checked: result.checked, valid: result.valid, first_invalid: result.first_invalid });
  }
  return reports;
}

/** The chains of `verifyAllChains` that do not verify (an empty list when all do). */
export async function brokenChains(db: Db): Promise<ChainReport[]> {
  return (await verifyAllChains(db)).filter((c) => !c.valid);
}
