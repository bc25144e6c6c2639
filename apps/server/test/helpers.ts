import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { createEstablishment, createKey, createOrganization } from '../src/admin/service.js';
import { type Config, loadConfig } from '../src/config.js';
import { createPrisma, type Db } from '../src/db/client.js';
import { startEphemeralPostgres } from '../src/db/embedded.js';
import { migrate } from '../src/db/migrate.js';
import { buildApp } from '../src/http/app.js';
import { startWorker, type Worker } from '../src/jobs/worker.js';
import type { Mailer } from '../src/mail.js';

/**
 * Test database: a fresh database on the PostgreSQL named by DATABASE_URL when it is set (dropped
 * afterwards), otherwise an in-memory PGlite served on a loopback port. Either way the server code
 * talks to it through the same pg driver adapter as in production.
 */
export type TestDatabase = { url: string; kind: 'postgresql' | 'pglite'; drop(): Promise<void> };

export async function createTestDatabase(): Promise<TestDatabase> {
  const base = process.env.DATABASE_URL;
  if (!base) {
    const embedded = await startEphemeralPostgres();
    return { url: embedded.url, kind: 'pglite', drop: () => embedded.close() };
  }
  const name = `merma_test_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    kind: 'postgresql',
    async drop() {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_GENERAL_PER_MINUTE: '10000',
    RATE_LIMIT_RECORDS_PER_MINUTE: '10000',
    RATE_LIMIT_ANALYTICS_PER_HOUR: '10000',
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
    ...overrides,
  });
}

export type TestContext = {
  app: FastifyInstance;
  db: Db;
  database: TestDatabase;
  config: Config;
  /** The job worker, when started (`worker` option). */
  worker: Worker | undefined;
  /** Starts (another) worker on this database, as a second replica would. */
  startWorker(options?: WorkerTestOptions): Promise<Worker>;
  close(): Promise<void>;
};

export type WorkerTestOptions = {
  random?: () => number;
  mailer?: Mailer;
  log?: TestLog;
  config?: Partial<Config>;
  dispatchIntervalMs?: number;
};
type TestLog = Parameters<typeof startWorker>[0]['log'];
const silentLog: TestLog = { info() {}, warn() {}, error() {}, debug() {} };

/** A migrated database and the app on it. `clock` fixes "now" for time-window tests. */
export async function startTestApp(
  options: {
    config?: Record<string, string>;
    clock?: () => Date;
    logStream?: NodeJS.WritableStream;
    logLevel?: string;
    /** Start a job worker (webhook deliveries, alerts) polling every 50 ms. */
    worker?: boolean | WorkerTestOptions;
  } = {},
): Promise<TestContext> {
  const database = await createTestDatabase();
  await migrate(database.url);
  const db = createPrisma(database.url, 5);
  const config = testConfig(options.config);
  const workers: Worker[] = [];
  const app = await buildApp({
    config,
    db,
    afterWrite: () => {
      for (const w of workers) w.wake();
    },
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.logStream ? { logStream: options.logStream } : {}),
    ...(options.logLevel ? { logLevel: options.logLevel } : {}),
  });
  await app.ready();
  const launch = async (o: WorkerTestOptions = {}) => {
    const w = await startWorker({
      databaseUrl: database.url,
      embedded: database.kind === 'pglite',
      config: { ...config, worker: { concurrency: 4, pollIntervalMs: 50 }, ...o.config },
      log: o.log ?? silentLog,
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
    keyId: tenant.keyId,
    establishmentId: tenant.establishmentId,
    organizationId: tenant.organizationId,
    livemode: options.livemode ?? false,
    plan: (options.plan ?? 'enterprise') as 'enterprise',
    permissions: ['*'],
    timezone: options.timezone ?? 'Europe/Madrid',
    sector: (options.sector ?? 'horeca') as 'horeca',
  };
}
