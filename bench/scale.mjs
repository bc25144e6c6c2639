// pnpm bench:scale — the service at 10 million records over 5,000 establishments, on the local
// PostgreSQL (BENCH_DATABASE_URL to change). Seeds with set-based SQL, starts the built server on it,
// times what a customer calls (lists, analytics, benchmarking, chain verification, forecast, plan),
// prints a table, writes bench/results/scale.json and drops its database (run under tsx, which loads the
// server's TypeScript modules it imports, as `pnpm bench:scale` does). Not part of CI: the seed
// alone takes several minutes and about 8 GB of disk.
//
// The data:
// - one large establishment (a central kitchen) with a real chain of BIG_CHAIN records over two
//   years, hashed with the server's own definition (apps/server/src/modules/records/hash.ts), so
//   verification is timed on a chain it accepts;
// - 4,999 establishments with FILLER_PER_ESTABLISHMENT records each over the same two years, all in
//   one sector (the worst case for sector benchmarking); their hashes are placeholders, and no
//   verification is timed on them;
// - the day totals rebuilt from the records, as the migration that introduced them did.
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { canonicalRecordJson, chainHash, GENESIS_HASH } from '../apps/server/src/modules/records/hash.ts';
import { rebuildDayTotals } from './insights.mjs';
import { freePort, newKey, sha256, stopAndDrop, waitFor } from './lib.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const DB_NAME = 'merma_scale';
const ESTABLISHMENTS = Number(process.env.SCALE_ESTABLISHMENTS ?? 5000);
const BIG_CHAIN = Number(process.env.SCALE_BIG_CHAIN ?? 1_000_000);
const TOTAL = Number(process.env.SCALE_RECORDS ?? 10_000_000);
const FILLER_PER_ESTABLISHMENT = Math.ceil((TOTAL - BIG_CHAIN) / (ESTABLISHMENTS - 1));
const DAYS = 730;
const CATEGORIES = ['meat', 'fish', 'fruit_veg', 'dairy', 'bakery', 'prepared_meals', 'others'];
const STAGES = ['receiving', 'storage', 'preparation', 'service', 'post_service', null];
const dbUrl = (() => {
  const u = new URL(ADMIN_URL);
  u.pathname = `/${DB_NAME}`;
  return u.toString();
})();

let server;

const seconds = (start) => ((performance.now() - start) / 1000).toFixed(1);

async function step(label, fn) {
  const start = performance.now();
  process.stdout.write(`  ${label}… `);
  const out = await fn();
  console.log(`${seconds(start)} s`);
  return out;
}

/** The large establishment's chain: BIG_CHAIN records, one every DAYS/BIG_CHAIN days, hashed as the server hashes. */
async function seedBigChain(client, establishmentId, destinations, causes) {
  const CHUNK = 20_000;
  const start = Date.now() - DAYS * 86_400_000;
  const step = Math.floor((DAYS * 86_400_000) / BIG_CHAIN);
  let prev = GENESIS_HASH;
  for (let from = 0; from < BIG_CHAIN; from += CHUNK) {
    const cols = { id: [], seq: [], cat: [], kg: [], dest: [], cause: [], product: [], stage: [], prev: [], hash: [], at: [] };
    for (let i = from; i < Math.min(BIG_CHAIN, from + CHUNK); i++) {
      const at = new Date(start + i * step).toISOString();
      // 60 kinds of waste (category, destination, cause, stage), as a large kitchen has: its day
      // totals hold up to 60 rows a day, not one per record.
      const c = (i * 7919) % 60;
      const f = {
        id: randomUUID(),
        establishment_id: establishmentId,
        livemode: false,
        food_category: CATEGORIES[c % CATEGORIES.length],
        weight_kg: (250 + ((i * 37) % 9750)) / 1000,
        destino_id: destinations[c % 5],
        causa_id: c % 3 === 0 ? null : causes[c % 6],
        product_name: `Producto ${i % 300}`,
        waste_stage: STAGES[c % STAGES.length],
        shift_id: null,
        session_id: null,
        notes: null,
        photo_url: null,
        source: 'api',
        created_at: at,
        occurred_at: at,
      };
      const hash = chainHash(prev, canonicalRecordJson(f));
      cols.id.push(f.id);
      cols.seq.push(i + 1);
      cols.cat.push(f.food_category);
      cols.kg.push(f.weight_kg);
      cols.dest.push(f.destino_id);
      cols.cause.push(f.causa_id);
      cols.product.push(f.product_name);
      cols.stage.push(f.waste_stage);
      cols.prev.push(prev);
      cols.hash.push(hash);
      cols.at.push(at);
      prev = hash;
    }
    await client.query(
      `INSERT INTO records (id, establishment_id, livemode, chain_seq, food_category, weight_kg, destino_id, causa_id, product_name,
         waste_stage, source, prev_hash, record_hash, created_at, occurred_at)
       SELECT u.id, $1::uuid, false, u.seq, u.cat, u.kg, u.dest, u.cause, u.product, u.stage, 'api', u.prev, u.hash, u.at, u.at
       FROM unnest($2::uuid[], $3::bigint[], $4::text[], $5::numeric[], $6::uuid[], $7::uuid[], $8::text[], $9::text[], $10::text[],
         $11::text[], $12::timestamptz[]) AS u(id, seq, cat, kg, dest, cause, product, stage, prev, hash, at)`,
      [
        establishmentId,
        cols.id,
        cols.seq,
        cols.cat,
        cols.kg,
        cols.dest,
        cols.cause,
        cols.product,
        cols.stage,
        cols.prev,
        cols.hash,
        cols.at,
      ],
    );
  }
  await client.query(`INSERT INTO record_chain_heads (establishment_id, livemode, seq, last_hash) VALUES ($1, false, $2, $3)`, [
    establishmentId,
    BIG_CHAIN,
    prev,
  ]);
}

async function seed(client) {
  const destinations = (await client.query('SELECT id::text FROM destinations ORDER BY id')).rows.map((r) => r.id);
  const causes = (await client.query('SELECT id::text FROM causes ORDER BY id')).rows.map((r) => r.id);
  const org = randomUUID();
  await client.query(`INSERT INTO organizations (id, name, plan) VALUES ($1, 'Scale', 'enterprise')`, [org]);
  const ids = await step(`${ESTABLISHMENTS} establishments`, async () => {
    const { rows } = await client.query(
      `INSERT INTO establishments (id, organization_id, name, cif, sector)
       SELECT gen_random_uuid(), $1, 'Establecimiento ' || g, 'B00000000', 'horeca' FROM generate_series(1, $2::int) g
       ORDER BY g RETURNING id::text`,
      [org, ESTABLISHMENTS],
    );
    return rows.map((r) => r.id);
  });
  const [big] = ids;
  await step(`a real chain of ${BIG_CHAIN.toLocaleString('en')} records (hashed in Node)`, () =>
    seedBigChain(client, big, destinations, causes),
  );
  const others = ids.slice(1);
  const GROUP = 250;
  await step(
    `${(others.length * FILLER_PER_ESTABLISHMENT).toLocaleString('en')} records over ${others.length} establishments (SQL)`,
    async () => {
      for (let i = 0; i < others.length; i += GROUP) {
        await client.query(
          `INSERT INTO records (id, establishment_id, livemode, chain_seq, food_category, weight_kg, destino_id, causa_id, product_name,
           waste_stage, source, prev_hash, record_hash, created_at, occurred_at)
         SELECT gen_random_uuid(), e.id, false, g, ($4::text[])[1 + (g + e.n) % 7], (250 + ((g * 37 + e.n) % 9750)) / 1000.0,
           ($5::uuid[])[1 + (g + e.n) % cardinality($5::uuid[])],
           CASE WHEN g % 3 = 0 THEN NULL ELSE ($6::uuid[])[1 + (g * 7 + e.n) % cardinality($6::uuid[])] END,
           'Producto ' || (g % 300), ($7::text[])[1 + (g + e.n) % 6], 'api', repeat('0', 64), md5(e.id::text || g) || md5(g::text),
           t.at, t.at
         FROM (SELECT id, row_number() OVER () AS n FROM unnest($1::uuid[]) AS id) e,
           generate_series(1, $2::int) g,
           LATERAL (SELECT now() - (($2::int - g) * ($3::int * interval '1 day') / $2::int) - (e.n * interval '1 second') AS at) t`,
          [others.slice(i, i + GROUP), FILLER_PER_ESTABLISHMENT, DAYS, CATEGORIES, destinations, causes, STAGES.slice(0, 5)],
        );
      }
      await client.query(
        `INSERT INTO record_chain_heads (establishment_id, livemode, seq, last_hash)
       SELECT id, false, $2, repeat('f', 64) FROM unnest($1::uuid[]) AS id`,
        [others, FILLER_PER_ESTABLISHMENT],
      );
    },
  );
  await step('day totals rebuilt from the records', () => rebuildDayTotals(client));
  await step('VACUUM ANALYZE', () => client.query('VACUUM ANALYZE'));
}

/** Keys of the measured establishments: the large one and a typical one. */
async function keysFor(client) {
  const keys = {};
  for (const [name, n] of [
    ['big', 1],
    ['typical', 2],
  ]) {
    const { rows } = await client.query(`SELECT id::text FROM establishments WHERE name = $1`, [`Establecimiento ${n}`]);
    const key = newKey();
    keys[name] = { id: rows[0].id, key };
    await client.query(
      `INSERT INTO api_keys (id, establishment_id, livemode, key_hash, prefix, last4, permissions) VALUES ($1, $2, false, $3, 'svc_test_', $4, '{*}')`,
      [randomUUID(), rows[0].id, sha256(key), key.slice(-4)],
    );
  }
  return keys;
}

/** p50/p99 of `n` sequential runs of `fn`, in ms. */
async function timeIt(n, fn) {
  const times = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    await fn(i);
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return { n, p50: times[Math.floor(n / 2)], p99: times[Math.min(n - 1, Math.floor(n * 0.99))], max: times[n - 1] };
}

async function main() {
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  // SCALE_REUSE=1 measures a database kept by an earlier run (SCALE_KEEP_DATABASE=1) without seeding it again.
  const reuse =
    Boolean(process.env.SCALE_REUSE) && (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DB_NAME])).rowCount > 0;
  if (!reuse) {
    await admin.query(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${DB_NAME}`);
  }
  const port = await freePort();
  server = spawn(process.execPath, ['apps/server/dist/main.js'], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: dbUrl,
      PORT: String(port),
      NODE_ENV: 'development',
      API_RESPONSE_CHECK: 'off', // as in production (the development default parses every answer)
      LOG_LEVEL: 'warn',
      RATE_LIMIT_ENABLED: 'false',
      WORKER_CONCURRENCY: '0',
      MERMA_ENCRYPTION_KEY: `k1:${randomBytes(32).toString('base64')}`,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}/api/v1`;
  await waitFor(`http://127.0.0.1:${port}/readyz`, 600); // migrations applied (on a kept database, with new ones)

  const client = new pg.Client({ connectionString: dbUrl });
  client.on('error', () => {}); // the database may be dropped under it when a step fails
  await client.connect();
  console.log(`seeding ${TOTAL.toLocaleString('en')} records over ${ESTABLISHMENTS.toLocaleString('en')} establishments:`);
  const seedStart = performance.now();
  if (!reuse) await seed(client);
  const seedSeconds = reuse ? null : Number(seconds(seedStart));
  const keys = await keysFor(client);
  const sizes = (
    await client.query(
      `SELECT relname AS table, pg_total_relation_size(c.oid) AS bytes, c.reltuples::bigint AS rows FROM pg_class c
       WHERE relname IN ('records', 'record_day_totals') ORDER BY 1`,
    )
  ).rows;

  const call = async (who, method, path, body, expected = 200) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${keys[who].key}`, 'content-type': 'application/json' },
      ...(body ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(60_000),
    });
    const text = await res.text();
    if (res.status !== expected) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
    return JSON.parse(text);
  };
  const today = new Date().toISOString().slice(0, 10);
  const daysAgo = (n) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
  const rows = [];
  const measure = async (name, n, fn, goal) => {
    await fn(0); // warm: JIT, caches, the plan of the statement
    const t = await timeIt(n, fn);
    rows.push({ name, ...t, goal });
    console.log(`  ${name}: p50 ${t.p50.toFixed(1)} ms`);
  };

  console.log('measuring (sequential requests through the built server):');
  for (const who of ['typical', 'big']) {
    await measure(`GET /records?limit=50 (${who}, first page)`, 30, () =>
      call(who, 'GET', `/records?limit=50&from=${daysAgo(DAYS)}&to=${today}`),
    );
  }
  await measure('GET /records?limit=50&offset=100000 (big)', 10, () =>
    call('big', 'GET', `/records?limit=50&offset=100000&from=${daysAgo(DAYS)}&to=${today}`),
  );
  for (const who of ['typical', 'big']) {
    await measure(`GET /analytics 30 days by day (${who})`, 30, () =>
      call(who, 'GET', `/analytics?from=${daysAgo(29)}&to=${today}&group_by=day`),
    );
    await measure(
      `GET /analytics 2 years by month (${who})`,
      30,
      () => call(who, 'GET', `/analytics?from=${daysAgo(DAYS - 1)}&to=${today}&group_by=month`),
      who === 'big' ? 50 : undefined,
    );
  }
  await measure(
    `GET /benchmarking (sector of ${ESTABLISHMENTS.toLocaleString('en')})`,
    30,
    () => call('typical', 'GET', '/benchmarking'),
    50,
  );
  await measure('GET /predict?horizon=28 (big)', 20, () => call('big', 'GET', '/predict?horizon=28'));
  await measure('POST /prevention-plan (big)', 5, () => call('big', 'POST', '/prevention-plan', {}, 201));

  // Verification of the 1,000,000-record chain: full (every record re-hashed) — the first one signs
  // a checkpoint — then routine ones, each after 100 new records.
  // A kept database was verified (and checkpointed) before: the full verification still walks it all.
  const full = await call('big', 'GET', '/records/verify?full=true');
  if (!full.data.valid || full.data.checked < BIG_CHAIN) throw new Error(`the seeded chain does not verify: ${JSON.stringify(full.data)}`);
  await measure(
    `GET /records/verify?full=true (${BIG_CHAIN.toLocaleString('en')} records)`,
    3,
    () => call('big', 'GET', '/records/verify?full=true'),
    2000,
  );
  const destino = (await client.query('SELECT id::text FROM destinations ORDER BY id LIMIT 1')).rows[0].id;
  const batch = {
    records: Array.from({ length: 100 }, (_, i) => ({ food_category: 'bakery', weight_kg: 1 + i / 100, destino_id: destino })),
  };
  const incremental = [];
  for (let i = 0; i < 20; i++) {
    await call('big', 'POST', '/records/batch', batch);
    const start = performance.now();
    const res = await call('big', 'GET', '/records/verify');
    incremental.push(performance.now() - start);
    if (!res.data.valid || res.data.rehashed !== 100 || res.data.mode !== 'incremental')
      throw new Error(`incremental verify: ${JSON.stringify(res.data)}`);
  }
  incremental.sort((a, b) => a - b);
  rows.push({
    name: 'GET /records/verify (incremental, 100 new)',
    n: 20,
    p50: incremental[10],
    p99: incremental[19],
    max: incremental[19],
    goal: 100,
  });

  const pad = (v, n) => String(v).padStart(n);
  console.log(
    `\n${TOTAL.toLocaleString('en')} records, ${ESTABLISHMENTS.toLocaleString('en')} establishments; seeded in ${seedSeconds} s; ` +
      sizes.map((s) => `${s.table} ${(Number(s.bytes) / 2 ** 30).toFixed(2)} GiB (${Number(s.rows).toLocaleString('en')} rows)`).join(', '),
  );
  console.log(`\n${'request'.padEnd(52)}${pad('n', 4)}${pad('p50 ms', 10)}${pad('p99 ms', 10)}  goal`);
  for (const r of rows) {
    const goal = r.goal ? `p50 < ${r.goal} ms ${r.p50 < r.goal ? 'OK' : 'MISSED'}` : '';
    console.log(`${r.name.padEnd(52)}${pad(r.n, 4)}${pad(r.p50.toFixed(1), 10)}${pad(r.p99.toFixed(1), 10)}  ${goal}`);
  }
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(
    join(ROOT, 'bench/results/scale.json'),
    JSON.stringify({ at: new Date().toISOString(), records: TOTAL, establishments: ESTABLISHMENTS, seedSeconds, sizes, rows }, null, 2),
  );
  await client.end();
  await admin.end();
}

const cleanup = () => stopAndDrop([server], ADMIN_URL, DB_NAME, { keep: Boolean(process.env.SCALE_KEEP_DATABASE) });

main().then(cleanup, async (err) => {
  console.error(err);
  await cleanup();
  process.exitCode = 1;
});
