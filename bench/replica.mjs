// pnpm bench:replica: GET /api/v1/analytics with and without a streaming replica, in one run.
// Makes a hot standby of the PostgreSQL cluster of BENCH_DATABASE_URL (pg_basebackup -R, pg_ctl
// start on a free port; the cluster must accept replication connections from 127.0.0.1), starts
// two servers of the same build on core 0 — one with DATABASE_URL only, one with
// DATABASE_REPLICA_URL too — and loads them in turn from core 1 (A, B, A, B; the better run of each
// counts). Drops its database and removes the standby at the end.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { rebuildDayTotals } from './insights.mjs';
import { freePort, newKey, sha256, startPinned, stopAndDrop, waitFor } from './lib.mjs';

const run = promisify(execFile);
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const BIN = process.env.PG_BIN_DIR ?? '/usr/lib/postgresql/15/bin';
const DB_NAME = 'merma_bench_replica';
const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
// Runs per server, alternating: other work on a shared machine moves single runs by a third.
const ROUNDS = 3;
const ESTABLISHMENTS = 50;
const PER_DAY = 20; // a year of records each: 365,000 in all
const DESTINO = '6ccf7d29-f6d9-403d-a9b0-2f907f15477b';
const asRoot = process.getuid?.() === 0;
const dbUrl = (port) => {
  const u = new URL(ADMIN_URL);
  u.pathname = `/${DB_NAME}`;
  if (port) u.host = `127.0.0.1:${port}`;
  return u.toString();
};

const asPostgres = (tool, args) =>
  asRoot ? run('/usr/sbin/runuser', ['-u', 'postgres', '--', join(BIN, tool), ...args]) : run(join(BIN, tool), args);

const children = [];
function startServer(label, env) {
  return startPinned(children, {
    label,
    args: ['apps/server/dist/main.js'],
    cwd: ROOT,
    env: {
      NODE_ENV: 'development',
      API_RESPONSE_CHECK: 'off', // as in production (the development default parses every answer)
      LOG_LEVEL: 'warn',
      RATE_LIMIT_ENABLED: 'false',
      DATABASE_POOL_SIZE: '10',
      WORKER_CONCURRENCY: '0',
      ...env,
    },
  });
}

async function seed(client) {
  const org = randomUUID();
  await client.query(`INSERT INTO organizations (id, name, plan) VALUES ($1, 'Bench', 'enterprise')`, [org]);
  const keys = [];
  for (let i = 0; i < ESTABLISHMENTS; i++) {
    const id = randomUUID();
    const key = newKey();
    keys.push(key);
    await client.query(`INSERT INTO establishments (id, organization_id, name, cif, sector) VALUES ($1, $2, $3, 'B00000000', 'horeca')`, [
      id,
      org,
      `Bench ${i}`,
    ]);
    await client.query(
      `INSERT INTO api_keys (id, establishment_id, livemode, key_hash, prefix, last4, permissions) VALUES ($1, $2, false, $3, 'svc_test_', $4, '{*}')`,
      [randomUUID(), id, sha256(key), key.slice(-4)],
    );
    await client.query(
      `INSERT INTO records (id, establishment_id, livemode, chain_seq, food_category, weight_kg, destino_id, waste_stage, prev_hash, record_hash, created_at, occurred_at)
       SELECT gen_random_uuid(), $1::uuid, false, g, (ARRAY['meat','fish','dairy','bakery','fruit_veg'])[1 + g % 5], 0.5 + (g % 40) / 8.0, $2,
              (ARRAY['storage','preparation','service',NULL])[1 + g % 4], repeat('0', 64), md5(g::text) || md5($1::text || g::text),
              now() - (g * interval '1 day' / $3), now() - (g * interval '1 day' / $3)
       FROM generate_series(1, $3 * 365) g`,
      [id, DESTINO, PER_DAY],
    );
    await client.query(
      `INSERT INTO record_chain_heads (establishment_id, livemode, seq, last_hash) VALUES ($1, false, $2, repeat('a', 64))`,
      [id, PER_DAY * 365],
    );
  }
  await rebuildDayTotals(client);
  await client.query('VACUUM ANALYZE records');
  await client.query('VACUUM ANALYZE record_day_totals');
  return keys;
}

async function pgQuery(url, text) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}

function load(port, path, keys) {
  let n = 0;
  return new Promise((done, fail) => {
    const instance = autocannon(
      {
        url: `http://127.0.0.1:${port}${path}`,
        connections: CONNECTIONS,
        duration: DURATION,
        requests: [
          {
            setupRequest: (req) => {
              n += 1;
              return { ...req, headers: { ...req.headers, authorization: `Bearer ${keys[n % keys.length]}` } };
            },
          },
        ],
      },
      (err, r) => (err ? fail(err) : done({ rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx })),
    );
    instance.on('error', fail);
  });
}

async function main() {
  const probe = new pg.Client({ connectionString: ADMIN_URL, replication: true });
  await probe.connect().catch((err) => {
    throw new Error(
      `${ADMIN_URL} refuses replication connections (${err.message}): its pg_hba.conf needs e.g. "host replication all 127.0.0.1/32 trust"`,
    );
  });
  await probe.end();

  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${DB_NAME}`);
  await admin.end();

  // The first server applies the migrations; the data is seeded before the standby is copied.
  const plainPort = await freePort();
  startServer('primary only', { DATABASE_URL: dbUrl(), PORT: String(plainPort) });
  await waitFor(`http://127.0.0.1:${plainPort}/readyz`);
  const client = new pg.Client({ connectionString: dbUrl() });
  await client.connect();
  console.log(`seeding ${ESTABLISHMENTS * PER_DAY * 365} records over ${ESTABLISHMENTS} establishments…`);
  const keys = await seed(client);
  await client.end();

  const dir = mkdtempSync(join(tmpdir(), 'merma-bench-standby-'));
  const standbyPort = await freePort();
  const data = join(dir, 'data');
  const pgCtl = (...args) => asPostgres('pg_ctl', ['-D', data, ...args]);
  try {
    if (asRoot) await run('chown', ['postgres:postgres', dir]);
    const primary = new URL(ADMIN_URL);
    await asPostgres('pg_basebackup', [
      '-R',
      '--checkpoint=fast',
      '-X',
      'stream',
      '-D',
      data,
      '-h',
      primary.hostname,
      '-p',
      primary.port || '5432',
      '-U',
      decodeURIComponent(primary.username || 'postgres'),
    ]);
    if (!existsSync(join(data, 'postgresql.conf'))) writeFileSync(join(data, 'postgresql.conf'), 'hot_standby = on\n');
    writeFileSync(join(data, 'pg_hba.conf'), 'local all all trust\nhost all all 127.0.0.1/32 trust\n');
    if (asRoot) await run('chown', ['-R', 'postgres:postgres', dir]);
    await pgCtl('-l', join(dir, 'log'), '-o', `-p ${standbyPort} -k /tmp -c listen_addresses=127.0.0.1`, '-w', 'start');

    const replicaPort = await freePort();
    const metricsPort = await freePort();
    startServer('with replica', {
      DATABASE_URL: dbUrl(),
      // BENCH_REPLICA=primary: the control, the same second pool and checks pointed at the primary itself.
      DATABASE_REPLICA_URL: process.env.BENCH_REPLICA === 'primary' ? dbUrl() : dbUrl(standbyPort),
      PORT: String(replicaPort),
      METRICS_PORT: String(metricsPort),
      MIGRATE_ON_BOOT: 'false',
    });
    await waitFor(`http://127.0.0.1:${replicaPort}/readyz`);
    await new Promise((r) => setTimeout(r, 2000)); // the replica's first checks

    const today = new Date().toISOString().slice(0, 10);
    const from = new Date(Date.now() - 364 * 86_400_000).toISOString().slice(0, 10);
    const path = `/api/v1/analytics?from=${from}&to=${today}&group_by=week`;
    const servers = [
      { name: 'primary only', port: plainPort, runs: [] },
      { name: 'with replica', port: replicaPort, runs: [] },
    ];
    for (const s of servers) await load(s.port, path, keys); // warm-up (caches, JIT, connections)
    for (let round = 0; round < ROUNDS; round++) for (const s of servers) s.runs.push(await load(s.port, path, keys));

    // The database alone: one statement of the same kind (a year of one establishment's records
    // summed by category), timed on the primary and on the standby in turn, without the servers.
    const ids = (await pgQuery(dbUrl(), 'SELECT id FROM establishments ORDER BY id')).map((r) => r.id);
    const statement = `SELECT food_category, sum(weight_kg)::float8 AS kg, count(*)::int AS n FROM records
       WHERE establishment_id = $1::uuid AND livemode = false AND occurred_at >= now() - interval '1 year' GROUP BY 1`;
    const raw = { primary: [], standby: [] };
    const clients = {
      primary: new pg.Client({ connectionString: dbUrl() }),
      standby: new pg.Client({ connectionString: dbUrl(standbyPort) }),
    };
    for (const c of Object.values(clients)) await c.connect();
    for (let i = 0; i < 60; i++) {
      for (const side of ['primary', 'standby']) {
        const started = performance.now();
        await clients[side].query(statement, [ids[i % ids.length]]);
        if (i >= 10) raw[side].push(performance.now() - started); // the first 10 warm the caches
      }
    }
    for (const c of Object.values(clients)) await c.end();
    const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];

    // What the server with the replica says of it: its state, lag and the reads it sent to the primary.
    const replicaLines = (await fetch(`http://127.0.0.1:${metricsPort}/metrics`).then((r) => r.text()))
      .split('\n')
      .filter((line) => line.startsWith('merma_db_replica_'));

    console.log(`\nGET ${path} — ${CONNECTIONS} connections, ${DURATION} s per run, ${ROUNDS} runs each (A, B, A, B…)`);
    console.log('| server | requests/s of each run | best | p50 ms | p99 ms | non-2xx |');
    console.log('|---|---|---|---|---|---|');
    const best = servers.map((s) => ({ ...s, best: s.runs.reduce((a, b) => (b.rps > a.rps ? b : a)) }));
    for (const s of best) {
      const each = s.runs.map((r) => r.rps.toFixed(0)).join(', ');
      const non2xx = s.runs.reduce((n, r) => n + r.non2xx, 0);
      console.log(`| ${s.name} | ${each} | ${s.best.rps.toFixed(0)} | ${s.best.p50} | ${s.best.p99} | ${non2xx} |`);
    }
    const [a, b] = best;
    console.log(`\nratio with/without replica (best runs): ${(b.best.rps / a.best.rps).toFixed(2)}×`);
    console.log(
      `one statement (a year of an establishment's records by category), median of 50: primary ${median(raw.primary).toFixed(1)} ms, standby ${median(raw.standby).toFixed(1)} ms`,
    );
    console.log(replicaLines.join('\n'));
  } finally {
    await stopAndDrop(children, ADMIN_URL, DB_NAME);
    await pgCtl('-m', 'fast', '-w', 'stop').catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch(async (err) => {
  console.error(err);
  await stopAndDrop(children, ADMIN_URL, DB_NAME);
  process.exit(1);
});
