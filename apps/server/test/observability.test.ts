import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { deadline } from '@merma/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/log.js';
import { serveMetrics } from '../src/metrics.js';
import {
  api,
  buildTestApp,
  createTenant,
  createTestDatabase,
  drain,
  startTestApp,
  subscribe,
  type TestContext,
  type TestDatabase,
  testConfig,
  validRecord,
} from './helpers.js';
import { startReceiver, waitFor } from './receiver.js';

/** One sample of a Prometheus text exposition: `name{labels} value`, or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const found = Object.fromEntries([...line.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => found[k] === v)) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describe('metrics', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await startTestApp({
      config: { WEBHOOKS_ALLOW_PRIVATE: 'true', RATE_LIMIT_ANALYTICS_PER_HOUR: '1', METRICS_TOKEN: 'scrape-token-0123456789' },
      worker: true,
    });
  });
  afterAll(() => t?.close());

  it('counts requests, rate-limit refusals, deliveries and stored records, and reads the queue gauges', async () => {
    const server = await serveMetrics(t.metrics, { host: '127.0.0.1', port: 0 });
    const scrape = async () => {
      const res = await fetch(`http://127.0.0.1:${server.port}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      return res.text();
    };
    try {
      const before = await scrape();
      expect(sample(before, 'merma_records_stored', { mode: 'test' })).toBe(0);
      expect(sample(before, 'merma_outbox_backlog_events')).toBe(0);

      const tenant = await createTenant(t.db);
      const receiver = await startReceiver();
      try {
        await subscribe(t, tenant, `${receiver.url}/ok`, ['record.created']);
        const client = api(t.app, tenant.key);
        for (let i = 0; i < 3; i++) expect((await client.post('/api/v1/records', validRecord())).statusCode).toBe(201);
        expect((await client.post('/api/v1/records', { weight_kg: -1 })).statusCode).toBe(400);
        expect((await client.get('/api/v1/analytics')).statusCode).toBe(200);
        expect((await client.get('/api/v1/analytics')).statusCode).toBe(429);
        await waitFor(() => receiver.received.length >= 3, 10_000, 'three deliveries');
        await drain(t.db);
      } finally {
        await receiver.close();
      }

      const after = await scrape();
      const route = { method: 'POST', route: '/api/v1/records' };
      expect(sample(after, 'merma_http_request_duration_seconds_count', { ...route, status: '201' })).toBe(3);
      expect(sample(after, 'merma_http_request_duration_seconds_count', { ...route, status: '400' })).toBe(1);
      expect(sample(after, 'merma_http_request_duration_seconds_bucket', { ...route, status: '201', le: '+Inf' })).toBe(3);
      expect(sample(after, 'merma_rate_limit_rejections_total', { bucket: 'analytics' })).toBe(1);
      expect(sample(after, 'merma_webhook_delivery_duration_seconds_count', { outcome: 'succeeded' })).toBe(3);
      expect(sample(after, 'merma_outbox_events_dispatched_total')).toBeGreaterThanOrEqual(3);
      expect(sample(after, 'merma_records_stored', { mode: 'test' })).toBe(3);
      expect(sample(after, 'merma_outbox_backlog_events')).toBe(0);
      expect(sample(after, 'merma_outbox_oldest_waiting_seconds')).toBe(0);
      expect(sample(after, 'merma_db_pool_connections', { pool: 'api', state: 'waiting' })).toBe(0);
      expect(sample(after, 'merma_db_pool_connections', { pool: 'worker', state: 'idle' })).toBeGreaterThan(0);
      expect(sample(after, 'merma_process_resident_memory_bytes')).toBeGreaterThan(0);

      // The outbox gauges see events no worker has taken yet.
      await t.worker?.stop();
      await api(t.app, tenant.key).post('/api/v1/records', validRecord());
      const waiting = await scrape();
      expect(sample(waiting, 'merma_outbox_backlog_events')).toBe(1);
      expect(sample(waiting, 'merma_outbox_oldest_waiting_seconds')).toBeGreaterThan(0);
      expect(sample(waiting, 'merma_records_stored', { mode: 'test' })).toBe(4);

      expect((await fetch(`http://127.0.0.1:${server.port}/`)).status).toBe(404);
    } finally {
      await server.close();
    }
  });

  it('serves /metrics on the API port only with METRICS_TOKEN', async () => {
    expect((await t.app.inject({ url: '/metrics' })).statusCode).toBe(401);
    expect((await t.app.inject({ url: '/metrics', headers: { authorization: 'Bearer wrong-token-0123456789' } })).statusCode).toBe(401);
    const ok = await t.app.inject({ url: '/metrics', headers: { authorization: 'Bearer scrape-token-0123456789' } });
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toContain('merma_http_request_duration_seconds_count');

    const withoutToken = await buildTestApp({ config: testConfig(), db: t.db });
    try {
      expect((await withoutToken.inject({ url: '/metrics' })).statusCode).toBe(404);
    } finally {
      await withoutToken.close();
    }
  });
});

describe('request logs', () => {
  it('write one line per request with its id, establishment and key id, never the key', async () => {
    const lines: Record<string, unknown>[] = [];
    const logStream = new Writable({
      write(chunk, _enc, done) {
        for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
        done();
      },
    });
    const t = await startTestApp({ logStream, logLevel: 'info' });
    try {
      const tenant = await createTenant(t.db);
      const res = await api(t.app, tenant.key).post('/api/v1/records', validRecord());
      expect(res.statusCode).toBe(201);
      await t.app.inject({ url: '/healthz' });
      const requestLines = lines.filter((l) => l.msg === 'request completed');
      expect(requestLines).toHaveLength(1); // the healthy probe is not logged
      expect(requestLines[0]).toMatchObject({
        level: 30,
        reqId: res.headers['x-request-id'],
        establishment_id: tenant.establishmentId,
        key_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        method: 'POST',
        url: '/api/v1/records',
        route: '/api/v1/records',
        status: 201,
        responseTime: expect.any(Number),
      });
      const all = JSON.stringify(lines);
      expect(all).not.toContain(tenant.key);
      expect(all).not.toContain(tenant.key.slice(9));
    } finally {
      await t.close();
    }
  });

  it('keep an Odoo integration URL’s token out of the log, but its last four characters', async () => {
    const lines: string[] = [];
    const logStream = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const t = await startTestApp({ logStream, logLevel: 'info' });
    try {
      const token = 'mit_Zx81kQpL0aB3cD4eF5gH6iJ7kL8mN9oP';
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/v1/integrations/odoo/${token}`,
        headers: { 'content-type': 'application/json' },
        payload: '{}',
      });
      expect(res.statusCode).toBe(401);
      const logged = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'request completed');
      expect(logged).toMatchObject({ url: '/api/v1/integrations/odoo/mit_…N9oP', status: 401 });
      expect(lines.join('')).not.toContain(token.slice(4, 30));
    } finally {
      await t.close();
    }
  });

  it('censor the Authorization header wherever request headers are logged', () => {
    const out: string[] = [];
    const log = createLogger(testConfig(), {
      level: 'info',
      stream: new Writable({
        write(chunk, _enc, done) {
          out.push(String(chunk));
          done();
        },
      }),
    });
    log.info({ req: { headers: { authorization: 'Bearer svc_test_secret' } }, headers: { authorization: 'Bearer x' } }, 'headers');
    expect(out.join('')).not.toContain('svc_test_secret');
    expect(JSON.parse(out.join(''))).toMatchObject({
      req: { headers: { authorization: '[redacted]' } },
      headers: { authorization: '[redacted]' },
    });
  });
});

describe('the built server', () => {
  const main = join(__dirname, '../dist/main.js');
  let database: TestDatabase;
  let child: ChildProcess | undefined;
  let dataDir: string;
  beforeAll(async () => {
    expect(existsSync(main), 'run `pnpm build` first (turbo does)').toBe(true);
    database = await createTestDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'merma-logs-'));
  });
  afterAll(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('logs JSON lines only, from boot to shutdown, without warnings, and serves its metrics', async () => {
    let output = '';
    child = spawn(process.execPath, [main], {
      env: {
        PATH: process.env.PATH ?? '',
        NODE_ENV: 'development', // not a terminal: JSON even in development
        HOST: '127.0.0.1',
        PORT: '0',
        // On PGlite runs, the server's own embedded database (a PGlite served to it as DATABASE_URL
        // would be taken for a PostgreSQL, with prepared statements its shared session cannot hold).
        ...(database.kind === 'postgresql' ? { DATABASE_URL: database.url } : {}),
        DATA_DIR: dataDir,
        LOG_LEVEL: 'debug',
        METRICS_TOKEN: 'scrape-token-0123456789',
        WORKER_CONCURRENCY: '5',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (d) => (output += d));
    child.stderr?.on('data', (d) => (output += d));
    const url = await waitFor(() => /"msg":"Server listening at (http:\/\/127\.0\.0\.1:\d+)"/.exec(output)?.[1], 60_000, 'the server');
    await waitFor(() => output.includes('Merma API ready'), 10_000, 'the ready line');
    const metrics = await fetch(`${url}/metrics`, { headers: { authorization: 'Bearer scrape-token-0123456789' } });
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('merma_job_queue_depth');
    // On PostgreSQL the server hears API key changes as they commit (serve.ts gives it the channel).
    const heard = database.kind === 'postgresql' ? '1' : '0';
    const scrape = async () =>
      (await (await fetch(`${url}/metrics`, { headers: { authorization: 'Bearer scrape-token-0123456789' } })).text()).match(
        /^merma_api_key_changes_heard (\d)$/m,
      )?.[1];
    let last = await scrape();
    const giveUpAt = Date.now() + deadline(10_000);
    while (last !== heard && Date.now() < giveUpAt) {
      await new Promise((r) => setTimeout(r, 50));
      last = await scrape();
    }
    expect(last).toBe(heard);
    const exited = new Promise<number | null>((done) => child?.once('exit', (code) => done(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);

    const lines = output.split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThan(3);
    const parsed = lines.map((l) => {
      try {
        return JSON.parse(l) as { level: number; msg: string };
      } catch {
        throw new Error(`not a JSON log line: ${l}`);
      }
    });
    // Nothing at warn (40) or above on a clean boot: no pool-size or crontab complaint from the
    // job queue, no connection errors.
    expect(parsed.filter((l) => l.level >= 40)).toEqual([]);
    expect(parsed.map((l) => l.msg)).toEqual(
      expect.arrayContaining(['migrations checked', 'Merma API ready', expect.stringMatching(/^shutting down/)]),
    );
    // The ready line says where to go: this process's own address, its port included.
    expect(parsed.find((l) => l.msg === 'Merma API ready')).toMatchObject({
      dashboard: `${url}/dashboard`,
      api: `${url}/api/v1`,
      docs: `${url}/docs`,
    });
  });
});

describe('the Grafana dashboard (docs/grafana-dashboard.json)', () => {
  it('queries only metrics the service exports', async () => {
    const dashboard = JSON.parse(readFileSync(join(__dirname, '../../../docs/grafana-dashboard.json'), 'utf8')) as {
      panels: { title: string; targets: { expr: string }[] }[];
    };
    const t = await startTestApp({ worker: true });
    try {
      const tenant = await createTenant(t.db);
      await api(t.app, tenant.key).post('/api/v1/records', validRecord());
      const exported = new Set(
        (await t.metrics.scrape())
          .split('\n')
          .filter((l) => l.startsWith('# TYPE '))
          .map((l) => l.split(' ')[2]),
      );
      const used = dashboard.panels.flatMap((p) => p.targets.flatMap((x) => x.expr.match(/merma_\w+/g) ?? []));
      expect(used.length).toBeGreaterThan(10);
      const missing = used.filter((name) => !exported.has(name.replace(/_(bucket|count|sum)$/, '')));
      expect(missing).toEqual([]);
    } finally {
      await t.close();
    }
  });
});
