// Helpers shared by the benchmarks (run.mjs, scale.mjs, replica.mjs).
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';

/**
 * Starts `node args…` in `cwd` pinned to one core (`taskset`; the benchmarks keep servers on core 0
 * and load generators on core 1) with `env` over this process's, and adds it to `children` (which
 * `stopAndDrop` stops).
 */
export function startPinned(children, { label, args, env = {}, core = '0', cwd }) {
  const child = spawn('taskset', ['-c', core, process.execPath, ...args], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  child.label = label;
  children.push(child);
  return child;
}

/**
 * The environment our API server is measured in: as customers deploy it, NODE_ENV=production
 * behind a load balancer on this machine, with what production requires set. The development
 * defaults cost each request more (Prisma keeps every call's stack for its error messages, each
 * answer is checked against its schema) and serve no customer.
 */
export const PRODUCTION = {
  NODE_ENV: 'production',
  TRUST_PROXY: 'loopback',
  PUBLIC_URL: 'https://merma.example',
  CORS_ORIGINS: 'https://erp.example',
  MAIL_TO_LOG: 'true',
  MERMA_ENCRYPTION_KEY: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
};

/** What the load balancer adds to every request it passes on (TLS ends there); the baseline gets it too. */
export const FORWARDED = { 'x-forwarded-proto': 'https' };

/** A free TCP port on loopback. */
export const freePort = () =>
  new Promise((done) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => done(port));
    });
  });

/** Resolves once `url` answers below 500 (a server that is up), within `attempts` × 100 ms. */
export async function waitFor(url, attempts = 300) {
  for (let i = 0; i < attempts; i++) {
    if (
      await fetch(url).then(
        (r) => r.status < 500,
        () => false,
      )
    )
      return;
    await sleep(100);
  }
  throw new Error(`${url} did not come up`);
}

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** A test-mode API key in the service's format; it is stored as its SHA-256 (`sha256`). */
export const newKey = () => `svc_test_${[...randomBytes(32)].map((b) => ALPHABET[b % 62]).join('')}`;
export const sha256 = (s) => createHash('sha256').update(s).digest('hex');

/**
 * Stops `children` (SIGTERM; at most 10 s to drain and exit, then SIGKILL), then drops `dbName` unless `keep`:
 * the end of every benchmark, on success or failure.
 */
export async function stopAndDrop(children, adminUrl, dbName, { keep = false } = {}) {
  const running = children.filter((c) => c && c.exitCode === null && c.signalCode === null);
  const exited = running.map((c) => new Promise((r) => c.once('exit', r)));
  for (const c of running) c.kill('SIGTERM');
  await Promise.race([Promise.all(exited), sleep(10_000)]);
  // One still draining after 10 s is killed before its database is dropped under it (it went on
  // logging that the database no longer exists).
  const stuck = running.filter((c) => c.exitCode === null && c.signalCode === null);
  for (const c of stuck) c.kill('SIGKILL');
  await Promise.race([Promise.all(exited), sleep(5_000)]);
  if (keep) return;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect().then(
    () => admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).finally(() => admin.end()),
    () => {},
  );
}
