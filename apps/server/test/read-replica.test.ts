/*
 * Reads that may lag on a real streaming standby (db/replica.ts): the test makes its own throwaway
 * primary (initdb in a temporary directory, trust for 127.0.0.1 including replication, started with
 * pg_ctl on a free port) and a hot standby of it (pg_basebackup -R, pg_ctl start on another free
 * port), migrates the primary, points the app at both, and checks that the lists and analytics are
 * served by the standby, and that the API still answers right — from the primary, counted by the
 * metrics — when the standby is stopped and when its replay is paused past the max lag.
 *
 * Always a cluster of its own rather than a standby of DATABASE_URL's: a shared cluster usually
 * refuses replication connections (no `replication` line in its pg_hba.conf, as on the CI machine)
 * and must not be reconfigured for a test, and a base backup of it would copy every other test's
 * databases; one path, the same everywhere, is also the one that is tested. DATABASE_URL only
 * selects the PostgreSQL pass (the embedded PGlite has no streaming replication); the test is
 * skipped, with the reason, when the PostgreSQL server binaries are missing.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deadline } from '@merma/testing';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrisma, type Db } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { createMetrics, type Metrics } from '../src/metrics.js';
import { createMember, DashboardBrowser, PASSWORD } from './dashboard-client.js';
import { api, buildTestApp, createTenant, type Tenant, testConfig, validRecord } from './helpers.js';
import { asPostgres, baseBackup, cannotRunClusters, freePort, initPrimary, ownedByPostgres, startCluster, until } from './pg-cluster.js';

const reason = process.env.DATABASE_URL
  ? cannotRunClusters()
  : 'runs in the PostgreSQL pass (DATABASE_URL set); the embedded PGlite has no streaming replication';

describe.skipIf(!!reason)(`reads on a streaming standby${reason ? ` (skipped: ${reason})` : ''}`, () => {
  let dir: string | undefined;
  const ports = { primary: 0, standby: 0 };
  const running = { primary: false, standby: false };
  let databaseUrl: string;
  let db: Db;
  let standby: pg.Client | undefined;
  /** Max lag of an hour: serves from the standby even while its replay is paused. */
  let patient: { app: FastifyInstance; metrics: Metrics };
  /** Max lag of one second. */
  let strict: { app: FastifyInstance; metrics: Metrics };

  type Node = keyof typeof ports;
  const dataDir = (node: Node) => join(dir as string, node);
  const pgCtl = async (node: Node, action: 'start' | 'stop') => {
    if (action === 'start') {
      await startCluster(dataDir(node), ports[node], dir as string, `${node}.log`);
      running[node] = true;
    } else {
      await asPostgres('pg_ctl', ['-D', dataDir(node), '-m', 'fast', '-w', 'stop']);
      running[node] = false;
    }
  };
  const urlOf = (node: Node, database = 'merma') => `postgresql://postgres@127.0.0.1:${ports[node]}/${database}`;

  const connectStandby = async () => {
    const client = new pg.Client({ connectionString: urlOf('standby') });
    client.on('error', () => {});
    await client.connect();
    return client;
  };

  const start = async (maxLagSeconds: string) => {
    const metrics = createMetrics();
    const config = testConfig({
      DATABASE_URL: databaseUrl,
      DATABASE_REPLICA_URL: urlOf('standby'),
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
    dir = mkdtempSync(join(tmpdir(), 'merma-replica-'));
    await ownedByPostgres(dir);
    ports.primary = await freePort();
    ports.standby = await freePort();

    // The primary. A throwaway cluster: no fsync (the standby's copy inherits the settings, hot_standby is on by default).
    await initPrimary(dataDir('primary'), 'fsync = off\n');
    await pgCtl('primary', 'start');
    const admin = new pg.Client({ connectionString: urlOf('primary', 'postgres') });
    await admin.connect();
    try {
      await admin.query('CREATE DATABASE merma');
    } finally {
      await admin.end();
    }
    databaseUrl = urlOf('primary');
    await migrate(databaseUrl);
    db = createPrisma(databaseUrl, 5);

    // The standby: a base backup of the migrated primary, with its recovery settings.
    await baseBackup(dataDir('standby'), ports.primary);
    await pgCtl('standby', 'start');
    standby = await connectStandby();
    const { rows } = await standby.query<{ r: boolean }>('SELECT pg_is_in_recovery() AS r');
    expect(rows[0]?.r).toBe(true);

    patient = await start('3600');
    strict = await start('1');
    for (const m of [patient.metrics, strict.metrics]) await until('the replica to be checked up', async () => (await stateOf(m)) === 'up');
  }, deadline(180_000));

  /** Runs every step even when one fails (or beforeAll stopped half-way), then reports the first failure. */
  afterAll(async () => {
    const errors: unknown[] = [];
    const step = async (fn: () => Promise<unknown> | undefined) => {
      try {
        await fn();
      } catch (err) {
        errors.push(err);
      }
    };
    await step(() => standby?.query('SELECT pg_wal_replay_resume()').catch(() => {}));
    await step(() => standby?.end());
    await step(() => patient?.app.close());
    await step(() => strict?.app.close());
    await step(() => db?.$disconnect());
    if (running.standby) await step(() => pgCtl('standby', 'stop'));
    if (running.primary) await step(() => pgCtl('primary', 'stop'));
    if (dir) rmSync(dir, { recursive: true, force: true });
    if (errors.length) throw errors[0];
  }, deadline(60_000));

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
    await pgCtl('standby', 'stop');

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
    await pgCtl('standby', 'start');
    standby = await connectStandby();
    await until('the patient app to see the standby up again', async () => (await stateOf(patient.metrics)) === 'up');
    const fallbacks = await metric(patient.metrics, 'merma_db_replica_fallbacks_total', { reason: 'down' });
    expect(await listed(patient.app, tenant)).toEqual([id]);
    expect(await metric(patient.metrics, 'merma_db_replica_fallbacks_total', { reason: 'down' })).toBe(fallbacks);
  });
});
