/*
 * Reads that may lag on a real streaming standby (db/replica.ts): the test makes a hot standby of
 * the PostgreSQL named by DATABASE_URL (pg_basebackup -R, then pg_ctl start on a free port), points
 * the app at both, and checks that the lists and analytics are served by the standby, and that the
 * API still answers right — from the primary, counted by the metrics — when the standby is stopped
 * and when its replay is paused past the max lag.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrisma, type Db } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { createMetrics, type Metrics } from '../src/metrics.js';
import { createMember, DashboardBrowser, PASSWORD } from './dashboard-client.js';
import { api, buildTestApp, createTenant, createTestDatabase, type Tenant, type TestDatabase, testConfig, validRecord } from './helpers.js';

const run = promisify(execFile);
const BIN = process.env.PG_BIN_DIR ?? '/usr/lib/postgresql/15/bin';
const primaryUrl = process.env.DATABASE_URL;
/** pg_ctl refuses to run as root: the standby's commands then run as the postgres user. */
const asRoot = process.getuid?.() === 0;

/** Why this machine cannot run a standby of DATABASE_URL's cluster; undefined when it can. */
async function cannotReplicate(): Promise<string | undefined> {
  if (!primaryUrl) return 'needs DATABASE_URL (a PostgreSQL; the embedded PGlite has no streaming replication)';
  for (const tool of ['pg_basebackup', 'pg_ctl']) if (!existsSync(join(BIN, tool))) return `no ${join(BIN, tool)} (set PG_BIN_DIR)`;
  if (asRoot && !existsSync('/usr/sbin/runuser')) return 'running as root without runuser to start the standby as postgres';
  const client = new pg.Client({ connectionString: primaryUrl });
  try {
    await client.connect();
    const { rows } = await client.query<{ wal_level: string; senders: number }>(
      "SELECT current_setting('wal_level') AS wal_level, current_setting('max_wal_senders')::int AS senders",
    );
    const r = rows[0];
    if (r?.wal_level === 'minimal') return 'the primary has wal_level=minimal (needs replica)';
    if (!r?.senders) return 'the primary has max_wal_senders=0';
  } catch (err) {
    return `cannot reach DATABASE_URL (${(err as Error).message})`;
  } finally {
    await client.end().catch(() => {});
  }
  // What pg_basebackup needs: a replication connection (pg_hba.conf's `replication` lines).
  const replication = new pg.Client({ connectionString: primaryUrl, replication: true } as pg.ClientConfig);
  try {
    await replication.connect();
  } catch (err) {
    return `the primary refuses replication connections: ${(err as Error).message} (pg_hba.conf needs e.g. "host replication all 127.0.0.1/32 trust")`;
  } finally {
    await replication.end().catch(() => {});
  }
  return undefined;
}

const reason = await cannotReplicate();

async function asPostgres(tool: string, args: string[]) {
  const [file, argv] = asRoot ? ['/usr/sbin/runuser', ['-u', 'postgres', '--', join(BIN, tool), ...args]] : [join(BIN, tool), args];
  return run(file, argv, { timeout: 120_000 });
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Polls `probe` until it returns true (or fails the test after `ms`). */
async function until(what: string, probe: () => Promise<boolean>, ms = 20_000) {
  const deadline = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(!!reason)(`reads on a streaming standby${reason ? ` (skipped: ${reason})` : ''}`, () => {
  let dir: string;
  let standbyPort: number;
  let standbyRunning = false;
  let database: TestDatabase;
  let db: Db;
  let standby: pg.Client | undefined;
  /** Max lag of an hour: serves from the standby even while its replay is paused. */
  let patient: { app: FastifyInstance; metrics: Metrics };
  /** Max lag of one second. */
  let strict: { app: FastifyInstance; metrics: Metrics };

  const pgCtl = (action: 'start' | 'stop') =>
    asPostgres(
      'pg_ctl',
      action === 'start'
        ? ['-D', join(dir, 'data'), '-l', join(dir, 'log'), '-o', `-p ${standbyPort} -k /tmp -c listen_addresses=127.0.0.1`, '-w', 'start']
        : ['-D', join(dir, 'data'), '-m', 'fast', '-w', 'stop'],
    );

  const connectStandby = async () => {
    const client = new pg.Client({ connectionString: standbyUrl() });
    client.on('error', () => {});
    await client.connect();
    return client;
  };
  const standbyUrl = () => {
    const url = new URL(database.url);
    url.host = `127.0.0.1:${standbyPort}`;
    return url.toString();
  };

  const start = async (maxLagSeconds: string) => {
    const metrics = createMetrics();
    const config = testConfig({
      DATABASE_URL: database.url,
      DATABASE_REPLICA_URL: standbyUrl(),
      DATABASE_REPLICA_MAX_LAG_SECONDS: maxLagSeconds,
    });
    const app = await buildTestApp({ config, db, metrics });
    await app.ready();
    return { app, metrics };
  };

  /** The sum of a metric's values with these labels (all of them with none given). */
  const metric = async (m: Metrics, name: string, labels: Record<string, string>) =>
    ((await m.registry.getSingleMetric(name)?.get())?.values ?? [])
      .filter((v) => Object.entries(labels).every(([k, value]) => v.labels[k] === value))
      .reduce((sum, v) => sum + v.value, 0);
  const stateOf = async (m: Metrics) => {
    for (const state of ['up', 'lagging', 'down']) if ((await metric(m, 'merma_db_replica_state', { state })) === 1) return state;
    return 'unknown';
  };

  /** A record written through the API (on the primary). */
  const write = async (tenant: Tenant, weight: number) => {
    const res = await api(patient.app, tenant.key).post('/api/v1/records', validRecord({ weight_kg: weight }));
    expect(res.statusCode).toBe(201);
    return (res.json() as { data: { id: string } }).data.id;
  };
  /** The ids of the tenant's records, newest first, as a list through `app` shows them. */
  const listed = async (app: FastifyInstance, tenant: Tenant) => {
    const res = await api(app, tenant.key).get('/api/v1/records?limit=200');
    expect(res.statusCode).toBe(200);
    return (res.json() as { data: { id: string }[] }).data.map((r) => r.id);
  };
  const totalKg = async (app: FastifyInstance, tenant: Tenant) => {
    const res = await api(app, tenant.key).get('/api/v1/analytics');
    expect(res.statusCode).toBe(200);
    return (res.json() as { data: { total_kg: number } }).data.total_kg;
  };
  /** The standby has replayed everything the primary wrote so far. */
  const caughtUp = async () => {
    const primary = await db.$queryRawUnsafe<{ lsn: string }[]>('SELECT pg_current_wal_lsn()::text AS lsn');
    const target = primary[0]?.lsn as string;
    await until('the standby to replay the primary’s writes', async () => {
      const { rows } = await (standby as pg.Client).query<{ done: boolean }>('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done', [
        target,
      ]);
      return rows[0]?.done === true;
    });
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    await migrate(database.url);
    db = createPrisma(database.url, 5);

    dir = mkdtempSync(join(tmpdir(), 'merma-standby-'));
    if (asRoot) await run('chown', ['postgres:postgres', dir]);
    const primary = new URL(primaryUrl as string);
    await asPostgres('pg_basebackup', [
      '-R',
      // An immediate checkpoint: the default spreads it over minutes.
      '--checkpoint=fast',
      '-X',
      'stream',
      '-D',
      join(dir, 'data'),
      '-h',
      primary.hostname,
      '-p',
      primary.port || '5432',
      '-U',
      decodeURIComponent(primary.username || 'postgres'),
    ]);
    // Debian keeps postgresql.conf and pg_hba.conf outside the data directory: the copy gets its own.
    const conf = join(dir, 'data', 'postgresql.conf');
    if (!existsSync(conf)) writeFileSync(conf, 'hot_standby = on\n');
    writeFileSync(join(dir, 'data', 'pg_hba.conf'), 'local all all trust\nhost all all 127.0.0.1/32 trust\n');
    if (asRoot) await run('chown', ['-R', 'postgres:postgres', dir]);
    standbyPort = await freePort();
    await pgCtl('start');
    standbyRunning = true;
    standby = await connectStandby();
    const { rows } = await standby.query<{ r: boolean }>('SELECT pg_is_in_recovery() AS r');
    expect(rows[0]?.r).toBe(true);

    patient = await start('3600');
    strict = await start('1');
    for (const m of [patient.metrics, strict.metrics]) await until('the replica to be checked up', async () => (await stateOf(m)) === 'up');
  }, 180_000);

  afterAll(async () => {
    await standby?.query('SELECT pg_wal_replay_resume()').catch(() => {});
    await standby?.end().catch(() => {});
    await patient?.app.close();
    await strict?.app.close();
    await db?.$disconnect();
    if (standbyRunning) await pgCtl('stop').catch(() => {});
    if (dir) rmSync(dir, { recursive: true, force: true });
    await database?.drop();
  }, 60_000);

  it('serves lists, analytics and the CSV export from the standby, on both doors: a write it has not replayed is not in them yet', async () => {
    const tenant = await createTenant(db);
    const member = await createMember(db, tenant.organizationId, 'viewer');
    const browser = new DashboardBrowser(patient.app);
    await browser.signIn(member.email, PASSWORD);
    const scope = { establishment_id: tenant.establishmentId, livemode: false };
    /** The records table, the overview's total and the CSV export of the dashboard. */
    const dashboard = async () => {
      const csv = await patient.app.inject({
        method: 'GET',
        url: `/export/records.csv?establishment_id=${tenant.establishmentId}&mode=test`,
        headers: { cookie: [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; '), 'sec-fetch-site': 'same-origin' },
      });
      expect(csv.statusCode).toBe(200);
      return {
        table: (await browser.query<{ data: { id: string }[] }>('records.list', scope)).data.map((r) => r.id),
        kg: (await browser.query<{ total_kg: number }>('analytics.get', scope)).total_kg,
        csvLines: csv.body.trim().split('\n').length - 1,
      };
    };
    const first = await write(tenant, 2);
    await caughtUp();
    expect(await listed(patient.app, tenant)).toEqual([first]);
    expect(await totalKg(patient.app, tenant)).toBe(2);
    expect(await dashboard()).toEqual({ table: [first], kg: 2, csvLines: 1 });
    const fallbacks = await metric(patient.metrics, 'merma_db_replica_fallbacks_total', {});

    await (standby as pg.Client).query('SELECT pg_wal_replay_pause()');
    let second: string;
    try {
      second = await write(tenant, 3);
      // The primary has it; the standby (replay paused) does not, and the lists read the standby.
      expect(await db.record.count({ where: { establishment_id: tenant.establishmentId } })).toBe(2);
      expect(await listed(patient.app, tenant)).toEqual([first]);
      expect(await totalKg(patient.app, tenant)).toBe(2);
      expect(await dashboard()).toEqual({ table: [first], kg: 2, csvLines: 1 });
      expect(await metric(patient.metrics, 'merma_db_replica_fallbacks_total', {})).toBe(fallbacks);
    } finally {
      await (standby as pg.Client).query('SELECT pg_wal_replay_resume()');
    }
    await caughtUp();
    expect(await listed(patient.app, tenant)).toEqual([second, first]);
    expect(await totalKg(patient.app, tenant)).toBe(5);
    expect(await dashboard()).toEqual({ table: [second, first], kg: 5, csvLines: 2 });
  });

  it('sends the reads to the primary while the standby is further behind than the max lag', async () => {
    const tenant = await createTenant(db);
    await write(tenant, 5);
    await caughtUp();
    await until('the strict app to see the standby up', async () => (await stateOf(strict.metrics)) === 'up');
    const fallbacks = await metric(strict.metrics, 'merma_db_replica_fallbacks_total', { reason: 'lagging' });
    await (standby as pg.Client).query('SELECT pg_wal_replay_pause()');
    try {
      const id = await write(tenant, 4);
      await until('the strict app to see the standby lagging', async () => (await stateOf(strict.metrics)) === 'lagging');
      // Past one second behind: the strict app reads the primary, which has the new record.
      expect((await listed(strict.app, tenant))[0]).toBe(id);
      expect(await totalKg(strict.app, tenant)).toBe(9);
      expect(await metric(strict.metrics, 'merma_db_replica_fallbacks_total', { reason: 'lagging' })).toBeGreaterThanOrEqual(fallbacks + 2);
      expect(await metric(strict.metrics, 'merma_db_replica_lag_seconds', {})).toBeGreaterThan(1);
      // The patient app (an hour allowed) still reads the paused standby.
      expect(await listed(patient.app, tenant)).not.toContain(id);
    } finally {
      await (standby as pg.Client).query('SELECT pg_wal_replay_resume()');
    }
    await caughtUp();
    await until('the strict app to see the standby up again', async () => (await stateOf(strict.metrics)) === 'up');
  });

  it('answers from the primary while the standby is stopped, and /readyz stays ready', async () => {
    const tenant = await createTenant(db);
    const id = await write(tenant, 1);
    await caughtUp();
    await until('the patient app to see the standby up', async () => (await stateOf(patient.metrics)) === 'up');
    expect(await totalKg(patient.app, tenant)).toBe(1);
    await standby?.end();
    standby = undefined;
    await pgCtl('stop');
    standbyRunning = false;

    // The first read may find its pooled connection dead (failed, run again on the primary), or
    // the check may have seen the standby down already: either way the answer is right.
    expect(await listed(patient.app, tenant)).toEqual([id]);
    expect(await totalKg(patient.app, tenant)).toBe(1);
    await until('the patient app to see the standby down', async () => (await stateOf(patient.metrics)) === 'down');
    const before = await metric(patient.metrics, 'merma_db_replica_fallbacks_total', { reason: 'down' });
    expect(await totalKg(patient.app, tenant)).toBe(1);
    const sessions = await api(patient.app, tenant.key).get('/api/v1/sessions');
    expect(sessions.statusCode).toBe(200);
    expect(await metric(patient.metrics, 'merma_db_replica_fallbacks_total', { reason: 'down' })).toBeGreaterThanOrEqual(before + 2);
    const ready = await patient.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);

    // Back up: the next checks send the reads to it again.
    await pgCtl('start');
    standbyRunning = true;
    standby = await connectStandby();
    await until('the patient app to see the standby up again', async () => (await stateOf(patient.metrics)) === 'up');
    const fallbacks = await metric(patient.metrics, 'merma_db_replica_fallbacks_total', { reason: 'down' });
    expect(await listed(patient.app, tenant)).toEqual([id]);
    expect(await metric(patient.metrics, 'merma_db_replica_fallbacks_total', { reason: 'down' })).toBe(fallbacks);
  });
});
