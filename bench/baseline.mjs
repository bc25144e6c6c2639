// The bare baseline of `pnpm bench`: a plain Fastify server with `pg`, on the same database, doing
// the same database work as each measured endpoint with nothing around it: the same zod validation
// (from @merma/schema) and the same SQL (the single chain-append statement with its day-totals
// upsert and outbox event; the batch transaction with one INSERT … SELECT FROM unnest, the day
// totals and the events; the same indexed SELECT + count, same columns), and the same answer (the
// record; a batch's counts, refused items and each record stored). No auth, rate limit, tRPC,
// Prisma or envelope: the ratio is what our stack costs on top.
// /records/plain is a plain INSERT without the hash chain, for reference. With an Idempotency-Key
// header, POST /records claims the key in the append's one statement (the key's row naming the
// record), and /records/batch claims the key, writes, and stores the counts and errors with the
// first record's id in one transaction on one connection, as the API does for the requests the SDK sends.
import { hash as digest, randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';
import { BatchRecordsInput, CreateRecordInput } from '../packages/schema/dist/index.js';

const { DATABASE_URL, PORT, ESTABLISHMENT_ID } = process.env;
const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 10 });
const app = Fastify({ logger: false, bodyLimit: 1024 * 1024 });
const ZERO = '0'.repeat(64);
// Node's one-shot hash, as the API's chain hash and request fingerprint use.
const hash = (s) => digest('sha256', s, 'hex');
// The bucket day of the day totals, in the establishments' zone (the bench's are all in Madrid).
const localDay = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Madrid', year: 'numeric', month: '2-digit', day: '2-digit' });
const ADD_TO_DAY_TOTALS = `
  INSERT INTO record_day_totals AS t (establishment_id, livemode, day, food_category, destino_id, causa_id, waste_stage, kg, records)
  SELECT establishment_id, livemode, day, food_category, destino_id, causa_id, waste_stage, sum(kg), count(*)::int
  FROM src GROUP BY 1, 2, 3, 4, 5, 6, 7
  ON CONFLICT ON CONSTRAINT record_day_totals_key
  DO UPDATE SET kg = t.kg + excluded.kg, records = t.records + excluded.records`;

function canonical(id, establishment, r, createdAt) {
  return JSON.stringify({ id, establishment_id: establishment, ...r, created_at: createdAt });
}

// The same single statement as the API's append: move the chain head, insert from its RETURNING,
// add the record to its day's totals and write the record.created event to the outbox (which the
// workers dispatch afterwards). Under an Idempotency-Key, as the API's: the statement first claims
// the key (its row naming the record: $14 the row's id, $15 the API key, $16 the key, $17 the
// request's fingerprint), and moves the head only if it did.
const appendSql = (keyed) => `WITH ${
  keyed
    ? `claim AS (
    INSERT INTO idempotency_keys (id, establishment_id, livemode, api_key_id, key, fingerprint, status_code, response_body, record_id)
    SELECT $14, $2, false, $15, $16, $17, 201, '', $1
    WHERE EXISTS (SELECT 1 FROM record_chain_heads WHERE establishment_id = $2 AND livemode = false)
    ON CONFLICT (establishment_id, livemode, api_key_id, key) DO NOTHING RETURNING id),`
    : ''
} moved AS (
    UPDATE record_chain_heads SET seq = seq + 1, prev_hash = last_hash,
      last_hash = encode(sha256(convert_to(last_hash::text || $3::text, 'UTF8')), 'hex')
    WHERE establishment_id = $2 AND livemode = false${keyed ? ' AND EXISTS (SELECT 1 FROM claim)' : ''}
    RETURNING seq, last_hash, prev_hash),
  stored AS (
  INSERT INTO records (id, establishment_id, livemode, chain_seq, food_category, weight_kg, destino_id, causa_id,
    product_name, waste_stage, notes, photo_url, prev_hash, record_hash, created_at, occurred_at)
  SELECT $1, $2, false, moved.seq, $4, $5, $6, $7, $8, $9, $10, $11, moved.prev_hash, moved.last_hash, $12, $12 FROM moved
  RETURNING record_hash),
  src AS (
  SELECT $2::uuid AS establishment_id, false AS livemode, $13::date AS day, $4::text AS food_category, $6::uuid AS destino_id,
    $7::uuid AS causa_id, $9::text AS waste_stage, $5::numeric AS kg FROM stored),
  totals AS (${ADD_TO_DAY_TOTALS}),
  emitted AS (
  INSERT INTO events (id, establishment_id, livemode, type, payload, created_at)
  SELECT gen_random_uuid(), $2, false, 'record.created',
    jsonb_build_object('event', 'record.created', 'timestamp', $12::text, 'data', jsonb_build_object('id', $1::text, 'record_hash', stored.record_hash)),
    $12 FROM stored)
  SELECT record_hash FROM stored`;
const APPEND = appendSql(false);
const APPEND_CLAIMING_KEY = appendSql(true);

/** The establishment's API key, which an Idempotency-Key is scoped to (the API's key of the request). */
const keyIds = new Map();
async function apiKeyOf(runner, establishment) {
  let id = keyIds.get(establishment);
  if (!id) {
    id = (await runner.query('SELECT id FROM api_keys WHERE establishment_id = $1 LIMIT 1', [establishment])).rows[0].id;
    keyIds.set(establishment, id);
  }
  return id;
}
const CLAIM = `INSERT INTO idempotency_keys (id, establishment_id, livemode, api_key_id, key, fingerprint, status_code, response_body)
  VALUES ($1, $2, false, $3, $4, $5, 0, '') ON CONFLICT (establishment_id, livemode, api_key_id, key) DO NOTHING RETURNING id`;
const STORE_REFERENCE = 'UPDATE idempotency_keys SET status_code = $2, response_body = $3, record_id = $4 WHERE id = $1';

/** A record's columns from food_category to photo_url, in the order both INSERTs list them. */
const columnValues = (r) => [
  r.food_category,
  r.weight_kg,
  r.destino_id,
  r.causa_id ?? null,
  r.product_name ?? null,
  r.waste_stage ?? null,
  r.notes ?? null,
  r.photo_url ?? null,
];

app.post('/records', async (req, reply) => {
  const parsed = CreateRecordInput.safeParse(req.body);
  if (!parsed.success) return reply.code(400).send({ error: 'invalid' });
  const r = parsed.data;
  const establishment = req.headers['x-establishment'];
  const key = req.headers['idempotency-key'];
  const id = randomUUID();
  const createdAt = new Date().toISOString();
  const claim = key ? [randomUUID(), await apiKeyOf(pool, establishment), key, hash(JSON.stringify(req.body))] : [];
  const { rows } = await pool.query(key ? APPEND_CLAIMING_KEY : APPEND, [
    id,
    establishment,
    canonical(id, establishment, r, createdAt),
    ...columnValues(r),
    createdAt,
    localDay.format(new Date(createdAt)),
    ...claim,
  ]);
  // Nothing written under a key: another request's (the bench sends none twice).
  if (!rows[0]) return reply.code(409).send({ error: 'replayed' });
  return reply.code(201).send({ id, ...r, record_hash: rows[0].record_hash, created_at: createdAt, occurred_at: createdAt });
});

// For reference: a plain INSERT without the hash chain (what the chain costs in the database).
app.post('/records/plain', async (req, reply) => {
  const parsed = CreateRecordInput.safeParse(req.body);
  if (!parsed.success) return reply.code(400).send({ error: 'invalid' });
  const r = parsed.data;
  const id = randomUUID();
  const createdAt = new Date().toISOString();
  await pool.query(
    `INSERT INTO records (id, establishment_id, livemode, chain_seq, food_category, weight_kg, destino_id, causa_id,
       product_name, waste_stage, notes, photo_url, prev_hash, record_hash, created_at, occurred_at)
     VALUES ($1, $2, false, nextval('bench_baseline_seq'), $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13)`,
    [id, ESTABLISHMENT_ID, ...columnValues(r), ZERO, hash(id), createdAt],
  );
  return reply.code(201).send({ id, ...r, created_at: createdAt });
});

// The same transaction as the API's batch: lock the head, one INSERT … SELECT FROM unnest, move the head.
app.post('/records/batch', async (req, reply) => {
  const body = BatchRecordsInput.safeParse(req.body);
  if (!body.success) return reply.code(400).send({ error: 'invalid' });
  const items = [];
  const errors = [];
  body.data.records.forEach((item, index) => {
    const parsed = CreateRecordInput.safeParse(item);
    if (parsed.success) items.push({ index, item: parsed.data });
    else errors.push({ index, code: 'validation_error', error: 'invalid' });
  });
  const establishment = req.headers['x-establishment'];
  const createdAt = new Date().toISOString();
  const key = req.headers['idempotency-key'];
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const claimId = randomUUID();
    if (key) {
      const claimed = await client.query(CLAIM, [
        claimId,
        establishment,
        await apiKeyOf(client, establishment),
        key,
        hash(JSON.stringify(req.body)),
      ]);
      if (claimed.rows.length === 0) {
        await client.query('ROLLBACK');
        return reply.send({ replayed: true });
      }
    }
    const head = (
      await client.query('SELECT seq, last_hash FROM record_chain_heads WHERE establishment_id = $1 AND livemode = false FOR UPDATE', [
        establishment,
      ])
    ).rows[0];
    let prev = head.last_hash;
    let seq = BigInt(head.seq);
    const day = localDay.format(new Date(createdAt));
    const rows = [];
    const records = [];
    for (const { index, item } of items) {
      const id = randomUUID();
      const h = hash(prev + canonical(id, establishment, item, createdAt));
      seq += 1n;
      rows.push({
        id,
        seq: String(seq),
        cat: item.food_category,
        w: item.weight_kg,
        dest: item.destino_id,
        causa: item.causa_id ?? null,
        pname: item.product_name ?? null,
        stage: item.waste_stage ?? null,
        notes: item.notes ?? null,
        prev,
        hash: h,
        day,
      });
      records.push({ index, id, record_hash: h, created_at: createdAt, occurred_at: createdAt });
      prev = h;
    }
    // The API's statement: records, head, day totals and events from one JSON parameter.
    await client.query(
      `WITH u AS (
         SELECT * FROM json_to_recordset($3::json) AS u(id uuid, seq bigint, cat text, w numeric, dest uuid, causa uuid, pname text,
           stage text, notes text, prev text, hash text, day date)
       ), ins AS (
         INSERT INTO records (id, establishment_id, livemode, chain_seq, food_category, weight_kg, destino_id, causa_id, product_name,
           waste_stage, notes, prev_hash, record_hash, created_at, occurred_at)
         SELECT u.id, $1, false, u.seq, u.cat, u.w, u.dest, u.causa, u.pname, u.stage, u.notes, u.prev, u.hash, $2, $2 FROM u
         RETURNING 1
       ), head AS (
         UPDATE record_chain_heads SET seq = $4, last_hash = $5
         WHERE establishment_id = $1 AND livemode = false AND (SELECT count(*) FROM ins) = $6
         RETURNING 1
       ), src AS (
         SELECT $1::uuid AS establishment_id, false AS livemode, u.day, u.cat AS food_category, u.dest AS destino_id,
           u.causa AS causa_id, u.stage AS waste_stage, u.w AS kg
         FROM u
       ), totals AS (${ADD_TO_DAY_TOTALS}
       ), emitted AS (
         INSERT INTO events (id, establishment_id, livemode, type, payload, created_at)
         SELECT gen_random_uuid(), $1, false, 'record.created', jsonb_build_object('event', 'record.created', 'timestamp', $2::text,
           'data', jsonb_build_object('id', u.id, 'record_hash', u.hash)), $2
         FROM u ORDER BY u.seq
       )
       SELECT (SELECT count(*) FROM head)::int AS head`,
      [establishment, createdAt, JSON.stringify(rows), String(seq), prev, items.length],
    );
    // The API's answer: the counts, the refused items and each record stored. Under a key, as the
    // API keeps it: the counts and errors, and the first record (a replay reads the rest from the chain).
    const counts = { inserted: items.length, failed: errors.length, errors };
    if (key) await client.query(STORE_REFERENCE, [claimId, 200, JSON.stringify(counts), records[0]?.id ?? null]);
    await client.query('COMMIT');
    return reply.send({ ...counts, records });
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  } finally {
    client.release();
  }
});

app.get('/records', async (req, reply) => {
  // As the API lists by default: the last 30 local days (today included), newest waste first, the
  // rows from records and the total from the day totals, in one statement.
  const establishment = req.headers['x-establishment'];
  const limit = Math.min(Number(req.query.limit ?? 50), 200);
  const to = localDay.format(new Date());
  const from = localDay.format(new Date(Date.now() - 29 * 86_400_000));
  const { rows } = await pool.query(
    `SELECT id, establishment_id, livemode, food_category, weight_kg::float8 AS weight_kg, destino_id, causa_id,
       product_name, waste_stage, shift_id, session_id, notes, photo_url, source, record_hash, created_at, occurred_at, supersedes_id,
       (SELECT coalesce(sum(records), 0) FROM record_day_totals
        WHERE establishment_id = $1 AND livemode = false AND day >= $2::date AND day <= $3::date) AS total
     FROM records
     WHERE establishment_id = $1 AND livemode = false AND superseded_by IS NULL
       AND occurred_at >= ($2::date)::timestamp AT TIME ZONE 'Europe/Madrid' AND occurred_at < ($3::date + 1)::timestamp AT TIME ZONE 'Europe/Madrid'
     ORDER BY occurred_at DESC, id DESC LIMIT $4`,
    [establishment, from, to, limit],
  );
  return reply.send({ data: rows, total: Number(rows[0]?.total ?? 0) });
});

await app.listen({ host: '127.0.0.1', port: Number(PORT) });
process.on('SIGTERM', async () => {
  await app.close();
  await pool.end();
  process.exit(0);
});
