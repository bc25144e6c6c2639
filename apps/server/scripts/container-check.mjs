#!/usr/bin/env node
/**
 * `pnpm test:container`: builds apps/server/Dockerfile with the container engine on this machine
 * (docker, else podman) and checks the running image the way an operator meets it. One line per
 * check, then `N passed, M failed`; exit 1 when a check failed, 2 when nothing could be checked (no
 * engine, no database).
 *
 *   pnpm test:container
 *
 * The container runs on the host's network against a fresh database on the PostgreSQL named by
 * CONTAINER_DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/postgres; the database is made
 * and dropped here). The checks: it refuses to start in production without DATABASE_URL; it is ready,
 * with its migrations applied, and says how long that took; it runs as uid 1000 with its code owned
 * by root, on a read-only root filesystem; plain HTTP is refused and HTTPS from the trusted proxy
 * served (the OpenAPI document, /dashboard with its compressed assets); `merma-admin` is on PATH
 * inside and its key records waste; the HEALTHCHECK is in the image and passes; SIGTERM answers a
 * half-sent request before exiting 0; the image's and node_modules' sizes.
 *
 * Settings: CONTAINER_ENGINE (docker|podman), CONTAINER_IMAGE (default merma-server:check),
 * CONTAINER_SKIP_BUILD=true (check an image built already), CONTAINER_BUILD_ARGS (added to the
 * build command, e.g. a registry or a proxy's CA: see the Dockerfile's head). On a shared host:
 * CONTAINER_PORT and CONTAINER_METRICS_PORT (default: ports the kernel reports free),
 * CONTAINER_DATABASE_NAME (default merma_container_<random>; created here, refused if it exists,
 * dropped at the end) — container-settings.mjs.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { containerSettings } from './container-settings.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const IMAGE = process.env.CONTAINER_IMAGE ?? 'merma-server:check';
const results = [];
const check = (name, ok, detail) => {
  results.push(ok);
  console.log(`${ok ? 'ok    ' : 'FAILED'} ${name}${detail ? ` — ${detail}` : ''}`);
};

const works = (bin) => spawnSync(bin, ['version'], { stdio: 'ignore' }).status === 0;
const engine = process.env.CONTAINER_ENGINE ?? ['docker', 'podman'].find(works);
if (!engine || !works(engine)) {
  console.log('test:container: no container engine on this machine (neither docker nor podman answers `version`): nothing was checked.');
  process.exit(2);
}
const run = (args, options = {}) => spawnSync(engine, args, { encoding: 'utf8', ...options });
const out = (args) => {
  const r = run(args);
  if (r.status !== 0) throw new Error(`${engine} ${args.join(' ')}: ${r.stderr || r.stdout}`);
  return r.stdout.trim();
};
console.log(`test:container with ${engine} ${out(['version', '--format', '{{.Client.Version}}'])}`);

if (process.env.CONTAINER_SKIP_BUILD !== 'true') {
  const started = Date.now();
  const args = ['build', ...(engine === 'podman' ? ['--format', 'docker'] : []), '-f', 'apps/server/Dockerfile', '-t', IMAGE];
  args.push(...(process.env.CONTAINER_BUILD_ARGS ?? '').split(/\s+/).filter(Boolean), '.');
  const build = spawnSync(engine, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  check('the image builds from a checkout', build.status === 0, `${((Date.now() - started) / 1000).toFixed(0)} s`);
  if (build.status !== 0) process.exit(1);
}

// A fresh database for the container.
const adminUrl = process.env.CONTAINER_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
let settings;
try {
  settings = await containerSettings();
} catch (err) {
  console.log(`test:container: ${err.message}. Nothing was run.`);
  process.exit(2);
}
const { port, metricsPort, databaseName: dbName } = settings;
const admin = new pg.Client({ connectionString: adminUrl });
try {
  await admin.connect();
} catch (err) {
  console.log(`test:container: no PostgreSQL at ${adminUrl} (${err.message}): set CONTAINER_DATABASE_URL. Nothing was run.`);
  process.exit(2);
}
try {
  await admin.query(`CREATE DATABASE ${dbName}`);
} catch (err) {
  // Someone else's database (CONTAINER_DATABASE_NAME names an existing one): neither used nor dropped.
  console.log(
    `test:container: cannot create database ${dbName} (${err.message}): name another with CONTAINER_DATABASE_NAME. Nothing was run.`,
  );
  await admin.end();
  process.exit(2);
}
const dbUrl = Object.assign(new URL(adminUrl), { pathname: `/${dbName}` }).toString();

const name = `merma-check-${randomBytes(3).toString('hex')}`;
const secrets = mkdtempSync(join(tmpdir(), 'merma-container-'));
// Readable by the container's user (uid 1000), as a mounted secret is.
chmodSync(secrets, 0o755);
writeFileSync(join(secrets, 'key'), `k1:${randomBytes(32).toString('base64')}\n`, { mode: 0o644 });
const PUBLIC_URL = 'https://merma.example.test';
const env = {
  DATABASE_URL: dbUrl,
  HOST: '127.0.0.1',
  PORT: String(port),
  METRICS_HOST: '127.0.0.1',
  METRICS_PORT: String(metricsPort),
  PUBLIC_URL,
  MAIL_TO_LOG: 'true',
  // This script stands for the TLS proxy in front: on loopback, sending X-Forwarded-Proto.
  TRUST_PROXY: '127.0.0.1',
  MERMA_ENCRYPTION_KEY_FILE: '/run/merma/key',
};
const envArgs = (e) => Object.entries(e).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
const base = `http://127.0.0.1:${port}`;
const viaProxy = { 'x-forwarded-proto': 'https' };

try {
  // 1. Production without a database: refused, not an embedded database in a throwaway layer.
  const { DATABASE_URL: _, ...withoutDb } = env;
  const refused = run(['run', '--rm', '--network=host', '-v', `${secrets}:/run/merma:ro`, ...envArgs(withoutDb), IMAGE]);
  check(
    'refuses to start in production without DATABASE_URL',
    refused.status !== 0 && /DATABASE_URL: required when NODE_ENV=production/.test(refused.stderr + refused.stdout),
    `exit ${refused.status}`,
  );

  // 2. Started as an operator should: read-only root, the secret as a file.
  const started = Date.now();
  out([
    'run',
    '-d',
    '--name',
    name,
    '--network=host',
    '--read-only',
    '--tmpfs',
    '/tmp',
    '-v',
    `${secrets}:/run/merma:ro`,
    ...envArgs(env),
    IMAGE,
  ]);
  let ready = false;
  while (Date.now() - started < 90_000) {
    ready = await fetch(`${base}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  check('ready (GET /readyz 200), migrations applied', ready, `${((Date.now() - started) / 1000).toFixed(1)} s after start`);
  if (!ready) throw new Error(run(['logs', name]).stdout);
  const migrations = await new pg.Client({ connectionString: dbUrl });
  await migrations.connect();
  const applied = (await migrations.query('SELECT count(*)::int AS n FROM _prisma_migrations WHERE finished_at IS NOT NULL')).rows[0].n;
  await migrations.end();
  check('every migration recorded in _prisma_migrations', applied > 0, `${applied} applied`);

  // 3. Who it runs as, and what it can write.
  check('runs as uid 1000 (node)', out(['exec', name, 'id', '-u']) === '1000');
  check('its code belongs to root', out(['exec', name, 'stat', '-c', '%U', '/app/dist/main.js', '/app/package.json']) === 'root\nroot');
  check('the root filesystem is read-only', run(['exec', name, 'sh', '-c', 'touch /app/x']).status !== 0);

  // 4. HTTP as the proxy passes it on, and without the proxy.
  const plain = await fetch(`${base}/api/v1/openapi.json`);
  check('plain HTTP is refused (403) in production', plain.status === 403);
  const openapi = await fetch(`${base}/api/v1/openapi.json`, { headers: viaProxy });
  const doc = openapi.ok ? await openapi.json() : {};
  check(
    'the OpenAPI document over HTTPS from the proxy',
    openapi.status === 200 && /^3\.1/.test(doc.openapi ?? ''),
    `openapi ${doc.openapi}`,
  );
  const page = await fetch(`${base}/dashboard/`, { headers: viaProxy });
  const html = await page.text();
  const asset = /src="(\/dashboard\/assets\/[^"]+\.js)"/.exec(html)?.[1];
  const script = asset ? await fetch(`${base}${asset}`, { headers: { ...viaProxy, 'accept-encoding': 'br, gzip' } }) : undefined;
  check(
    '/dashboard serves the app, its scripts compressed',
    page.status === 200 && /frame-ancestors 'none'/.test(page.headers.get('content-security-policy') ?? '') && script?.status === 200,
    `script ${asset} ${script?.headers.get('content-encoding') ?? 'uncompressed'}`,
  );

  // 5. merma-admin inside the container, and its key at work.
  const qs = run(['exec', name, 'merma-admin', 'quickstart']);
  let quick = {};
  try {
    quick = JSON.parse(qs.stdout);
  } catch {}
  check(
    '`merma-admin quickstart` on PATH inside, its link on PUBLIC_URL',
    qs.status === 0 && /^svc_test_/.test(quick.key?.key ?? '') && String(quick.dashboard?.sign_in_link).startsWith(PUBLIC_URL),
    qs.status === 0 ? undefined : qs.stderr.trim().split('\n').pop(),
  );
  const created = await fetch(`${base}/api/v1/records`, {
    method: 'POST',
    headers: { ...viaProxy, authorization: `Bearer ${quick.key?.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ food_category: 'bakery', weight_kg: 3.2, destino_id: '6ccf7d29-f6d9-403d-a9b0-2f907f15477b' }),
  });
  check('a record stored with that key (201)', created.status === 201);

  // 6. The HEALTHCHECK: in the image's configuration, and passing.
  const health = out(['image', 'inspect', '--format', '{{json .Config.Healthcheck}}', IMAGE]);
  let healthy = false;
  if (engine === 'podman') healthy = run(['healthcheck', 'run', name]).status === 0;
  else {
    for (let i = 0; i < 60 && !healthy; i++) {
      healthy = out(['inspect', '--format', '{{.State.Health.Status}}', name]) === 'healthy';
      if (!healthy) await new Promise((r) => setTimeout(r, 1000));
    }
  }
  check('HEALTHCHECK present and passing', health !== 'null' && /healthz/.test(health) && healthy);

  // 7. Sizes.
  const bytes = Number(out(['image', 'inspect', '--format', '{{.Size}}', IMAGE]));
  const modules = out(['exec', name, 'du', '-sm', '/app/node_modules']).split(/\s/)[0];
  check(
    'production node_modules without build tools (≤ 250 MB)',
    Number(modules) <= 250,
    `image ${(bytes / 1e6).toFixed(0)} MB, node_modules ${modules} MB`,
  );

  // 8. SIGTERM while a request is half sent: answered, then exit 0.
  const body = JSON.stringify({ food_category: 'dairy', weight_kg: 1, destino_id: '6ccf7d29-f6d9-403d-a9b0-2f907f15477b' });
  const socket = connect(port, '127.0.0.1');
  await new Promise((r) => socket.once('connect', r));
  let answer = '';
  socket.on('data', (d) => {
    answer += d;
  });
  const closed = new Promise((r) => socket.once('close', r));
  socket.write(
    `POST /api/v1/records HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Forwarded-Proto: https\r\nAuthorization: Bearer ${quick.key?.key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.slice(0, 20)}`,
  );
  await new Promise((r) => setTimeout(r, 300));
  const stopAt = Date.now();
  out(['kill', '--signal', 'TERM', name]);
  await new Promise((r) => setTimeout(r, 300));
  socket.write(body.slice(20));
  await closed;
  run(['wait', name]);
  const exit = out(['inspect', '--format', '{{.State.ExitCode}}', name]);
  check(
    'SIGTERM: the half-sent request answered, then exit 0',
    /^HTTP\/1\.1 201/.test(answer) && exit === '0',
    `${answer.split('\r\n')[0] || 'no answer'}, exit ${exit} ${((Date.now() - stopAt) / 1000).toFixed(2)} s after the signal`,
  );
} catch (err) {
  check('the checks ran to the end', false, err.message.split('\n').slice(0, 5).join(' | '));
} finally {
  run(['rm', '-f', '-v', name]);
  rmSync(secrets, { recursive: true, force: true });
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => {});
  await admin.end();
}

const failed = results.filter((ok) => !ok).length;
console.log(`\n${results.length - failed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
