import type { ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Merma } from '@merma/sdk';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEstablishment, createKey, createOrganization } from '../src/admin/service.js';
import { createPrisma } from '../src/db/client.js';
import { redisUp, spawnBuiltServer, startRedis, stopRedis, uncleanAnswers, writeRecords } from './built-server.js';

/**
 * Durability under load, and faults. The built server (`dist/main.js`, what the container runs)
 * is started as a child process on a fresh database of the real PostgreSQL, with Redis for the
 * rate limits; LOAD_CLIENTS SDK clients create records for LOAD_SECONDS, then keep going while
 * faults are injected one after the other: every connection of the server terminated
 * (pg_terminate_backend), the records table locked for a few seconds, the server killed (-9) and
 * started again, Redis stopped and started again. Afterwards every acknowledged record must exist
 * once with its hash, no request may have been lost or stored twice, every chain must verify,
 * and every acknowledged record of the subscribed establishment must have reached the webhook
 * receiver. Sizes: LOAD_CLIENTS (32), LOAD_SECONDS (30).
 */
const ADMIN_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const CLIENTS = Number(process.env.LOAD_CLIENTS ?? 32);
const SECONDS = Number(process.env.LOAD_SECONDS ?? 30);
const TENANTS = 8;
const REQUEST_TIMEOUT_MS = 10_000;
// One key for every start of the server (it is restarted mid-run), as a deployment configures it.
const ENCRYPTION_KEY = `load:${randomBytes(32).toString('base64')}`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Ack = { id: string; hash: string; marker: string; tenant: number };
type Seen = { status: number; ms: number; phase: string; retryAfter: string | null; body: string };

let dbUrl: string;
let dbName: string;
let port: number;
let server: ChildProcess | undefined;
let receiver: http.Server;
let receiverUrl: string;
const delivered = new Map<string, number>(); // record id -> deliveries received
const serverLog: string[] = [];

async function startServer() {
  const child = spawnBuiltServer({
    databaseUrl: dbUrl,
    redisUrl: REDIS_URL,
    port,
    encryptionKey: ENCRYPTION_KEY,
    requestTimeoutMs: REQUEST_TIMEOUT_MS,
    log: serverLog,
  });
  server = child;
  await waitReady(30_000);
  return child;
}

async function waitReady(timeoutMs: number): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < timeoutMs) {
    const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) return performance.now() - started;
    await sleep(100);
  }
  throw new Error(`server not ready after ${timeoutMs} ms\n${serverLog.slice(-20).join('')}`);
}

beforeAll(async () => {
  dbName = `merma_load_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  await admin.end();
  const u = new URL(ADMIN_URL);
  u.pathname = `/${dbName}`;
  dbUrl = u.toString();

  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { id: string } };
      delivered.set(body.data.id, (delivered.get(body.data.id) ?? 0) + 1);
      res.end('ok');
    });
  });
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

  const probe = http.createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  port = (probe.address() as AddressInfo).port;
  await new Promise((r) => probe.close(r));
  await startServer();
});

afterAll(async () => {
  // The server's own log, for when an assertion above fails.
  writeFileSync(join(tmpdir(), 'merma-load-server.log'), serverLog.join(''));
  server?.kill('SIGKILL');
  receiver?.close();
  if (!redisUp(REDIS_URL)) startRedis(REDIS_URL);
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  await admin.end();
});

describe('durability under load, with faults', () => {
  it(`keeps every acknowledged record exactly once (${CLIENTS} clients, ${SECONDS} s + faults)`, async () => {
    const db = createPrisma(dbUrl, 2);
    const org = await createOrganization(db, { name: 'Load', plan: 'enterprise' });
    const tenants: { key: string; establishmentId: string }[] = [];
    for (let i = 0; i < TENANTS; i++) {
      const est = await createEstablishment(db, {
        org: org.id,
        name: `Load ${i}`,
        cif: `B${String(20_000_000 + i)}`,
        sector: 'horeca',
        timezone: 'Europe/Madrid',
      });
      tenants.push({ key: (await createKey(db, { establishment: est.id, mode: 'test' })).key, establishmentId: est.id });
    }
    // The first establishment has a webhook subscription: its events must survive the faults too.
    await new Merma({ apiKey: tenants[0]?.key, baseUrl: `http://127.0.0.1:${port}` }).webhooks.create({
      url: receiverUrl,
      events: ['record.created'],
    });
    await db.$disconnect();

    let phase = 'steady';
    const seen: Seen[] = [];
    const acks: Ack[] = [];
    const failures: { marker: string; error: string }[] = [];
    const countingFetch: typeof fetch = async (input, init) => {
      const started = performance.now();
      const from = phase;
      // An attempt belongs to a phase when it started and ended in it; one that spans a change is
      // counted with the later phase (the fault that may have hit it).
      const at = () => (phase === from ? from : phase);
      try {
        const res = await fetch(input, init);
        const body = res.status >= 500 ? await res.clone().text() : '';
        seen.push({ status: res.status, ms: performance.now() - started, phase: at(), retryAfter: res.headers.get('retry-after'), body });
        return res;
      } catch (err) {
        seen.push({ status: 0, ms: performance.now() - started, phase: at(), retryAfter: null, body: String(err) });
        throw err;
      }
    };

    let running = true;
    const clients = Array.from({ length: CLIENTS }, (_, n) =>
      writeRecords({
        n,
        apiKey: tenants[n % TENANTS]?.key,
        baseUrl: `http://127.0.0.1:${port}`,
        maxRetries: 10,
        timeoutMs: REQUEST_TIMEOUT_MS + 5_000,
        fetch: countingFetch,
        going: () => running,
        acked: (r, marker) => acks.push({ id: r.id, hash: r.record_hash, marker, tenant: n % TENANTS }),
        failed: (marker, err) => failures.push({ marker, error: String(err) }),
      }),
    );

    await sleep(SECONDS * 1000);
    const steady = { acked: acks.length, responses: seen.length };

    // Faults, one after the other, under the same load.
    const faults: { name: string; recoveredMs: number }[] = [];
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();

    phase = 'terminate';
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [dbName]);
    faults.push({ name: 'every database connection terminated', recoveredMs: await waitReady(10_000) });
    await sleep(2_000);

    phase = 'lock';
    const locker = new pg.Client({ connectionString: dbUrl });
    await locker.connect();
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE records IN ACCESS EXCLUSIVE MODE');
    await sleep(4_000);
    await locker.query('COMMIT');
    await locker.end();
    faults.push({ name: 'records table locked for 4 s', recoveredMs: await waitReady(10_000) });
    await sleep(2_000);

    phase = 'kill';
    server?.kill('SIGKILL');
    await once(server as ChildProcess, 'exit');
    const restarted = performance.now();
    await startServer();
    faults.push({ name: 'server killed (-9) and started again', recoveredMs: performance.now() - restarted });
    await sleep(2_000);

    if (redisUp(REDIS_URL)) {
      phase = 'redis';
      stopRedis(REDIS_URL);
      await sleep(3_000);
      startRedis(REDIS_URL);
      const t0 = performance.now();
      while (!redisUp(REDIS_URL)) await sleep(50);
      faults.push({ name: 'Redis stopped for 3 s', recoveredMs: performance.now() - t0 });
      await sleep(2_000);
    }
    phase = 'after';
    await sleep(3_000);
    running = false;
    await Promise.all(clients);
    await admin.end();

    // 1. Responses: 201, or a clean 503 (error shape, Retry-After) while a fault lasts; never
    //    another 5xx, never a request longer than the server's request timeout.
    const fiveXX = seen.filter((s) => s.status >= 500);
    const unclean = uncleanAnswers(fiveXX);
    expect(unclean.slice(0, 3)).toEqual([]);
    expect(seen.filter((s) => s.phase === 'steady' && s.status !== 201)).toEqual([]);
    const slowest = Math.max(...seen.map((s) => s.ms));
    expect(slowest).toBeLessThan(REQUEST_TIMEOUT_MS + 2_000);
    expect(seen.filter((s) => s.status !== 0 && s.status !== 201 && s.status !== 503)).toEqual([]);
    // The SDK's retries turned every transient failure into a success.
    expect(failures).toEqual([]);

    // 2. Every acknowledged record is stored once, with its id and hash; nothing else was stored.
    const check = new pg.Client({ connectionString: dbUrl });
    await check.connect();
    const { rows } = await check.query<{ id: string; record_hash: string; notes: string }>(
      'SELECT id::text, record_hash, notes FROM records WHERE source = $1',
      ['api'],
    );
    const stored = new Map(rows.map((r) => [r.id, r]));
    const missing = acks.filter((a) => stored.get(a.id)?.record_hash !== a.hash);
    expect(missing).toEqual([]);
    const markers = new Map<string, number>();
    for (const r of rows) markers.set(r.notes, (markers.get(r.notes) ?? 0) + 1);
    expect([...markers].filter(([, n]) => n > 1)).toEqual([]); // no request stored twice
    expect(rows.length).toBe(acks.length);

    // 3. Every chain verifies.
    for (const t of tenants) {
      const verify = await new Merma({ apiKey: t.key, baseUrl: `http://127.0.0.1:${port}` }).records.verify();
      expect(verify).toMatchObject({ valid: true, first_invalid: null });
    }

    // 4. Every acknowledged record of the subscribed establishment reached the receiver, including
    //    those whose jobs were queued when the server was killed.
    const subscribed = acks.filter((a) => a.tenant === 0);
    const deadline = performance.now() + 60_000;
    while (subscribed.some((a) => !delivered.has(a.id)) && performance.now() < deadline) await sleep(250);
    const undelivered = subscribed.filter((a) => !delivered.has(a.id));
    if (undelivered.length > 0) {
      // Where the missing ones stand: their outbox rows, deliveries and jobs.
      const { rows: where } = await check.query(
        `SELECT e.payload->'data'->>'id' AS record_id, e.created_at, e.dispatched_at,
           d.status, d.attempts, j.locked_by, j.locked_at, j.attempts AS job_attempts, j.last_error
         FROM events e
         LEFT JOIN webhook_deliveries d ON d.event_id = e.id
         LEFT JOIN graphile_worker.jobs j ON j.key = 'delivery:' || d.id::text
         WHERE e.payload->'data'->>'id' = ANY($1::text[])`,
        [undelivered.map((a) => a.id)],
      );
      console.log('undelivered:', JSON.stringify(where), '\n', serverLog.slice(-40).join(''));
    }
    expect(undelivered.length).toBe(0);
    await check.end();

    const byPhase = (p: string) => seen.filter((s) => s.phase === p);
    console.log(
      [
        `load: ${CLIENTS} clients, ${SECONDS} s steady (${steady.acked} acknowledged, ${(steady.acked / SECONDS).toFixed(0)}/s), then faults`,
        `requests made ${acks.length + failures.length}, HTTP attempts ${seen.length}, acknowledged ${acks.length}, stored ${rows.length}, client failures ${failures.length}`,
        `5xx: ${fiveXX.length} (all clean 503 with Retry-After during faults; ${fiveXX.filter((s) => s.phase === 'steady').length} in the steady phase); connection errors retried: ${seen.filter((s) => s.status === 0).length}`,
        `slowest attempt ${slowest.toFixed(0)} ms (request timeout ${REQUEST_TIMEOUT_MS} ms)`,
        ...faults.map(
          (f) =>
            `fault survived: ${f.name}; ready again after ${f.recoveredMs.toFixed(0)} ms; 503s during it: ${
              byPhase(
                f.name.startsWith('every')
                  ? 'terminate'
                  : f.name.startsWith('records')
                    ? 'lock'
                    : f.name.startsWith('server')
                      ? 'kill'
                      : 'redis',
              ).filter((s) => s.status === 503).length
            }`,
        ),
        `webhooks: ${subscribed.length} acknowledged records of the subscribed establishment, all delivered (${[...delivered.values()].filter((n) => n > 1).length} delivered more than once)`,
      ].join('\n'),
    );
  });
});
