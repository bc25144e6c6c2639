// The bare baseline of `pnpm bench`: a plain Fastify server with `pg`, on the same database, doing
// only the essential work of each measured endpoint: the same zod validation (from @merma/schema)
// and the same SQL (one INSERT; one INSERT … SELECT FROM unnest; the same indexed SELECT + count).
// No auth, no rate limit, no hash chain, no envelope: what a request costs at the least. The list
// selects and returns the same columns as the API's records.
import { createHash, randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';
import { BatchRecordsInput, CreateRecordInput } from '../packages/schema/dist/index.js';

const { DATABASE_URL, PORT, ESTABLISHMENT_ID } = process.env;
const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 10 });
const app = Fastify({ logger: false, bodyLimit: 1024 * 1024 });
const ZERO = '0'.repeat(64);
const hash = (s) => createHash('sha256').update(s).digest('hex');

app.post('/records', async (req, reply) => {
  const parsed = CreateRecordInput.safeParse(req.body);
  if (!parsed.success) return reply.code(400).send({ error: 'invalid' });
  const r = parsed.data;
  const id = randomUUID();
  const createdAt = new Date().toISOString();
  await pool.query(
    `INSERT INTO records (id, establishment_id, livemode, chain_seq, food_category, weight_kg, destino_id, causa_id,
       product_name, waste_stage, notes, photo_url, prev_hash, record_hash, created_at)
     VALUES ($1, $2, false, nextval('bench_baseline_seq'), $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
    [id, ESTABLISHMENT_ID, r.food_category, r.weight_kg, r.destino_id, r.causa_id ?? null, r.product_name ?? null,
      r.waste_stage ?? null, r.notes ?? null, r.photo_url ?? null, ZERO, hash(id), createdAt],
  );
  return reply.code(201).send({ id, food_category: r.food_category, weight_kg: r.weight_kg, created_at: createdAt });
});

app.post('/records/batch', async (req, reply) => {
  const body = BatchRecordsInput.safeParse(req.body);
  if (!body.success) return reply.code(400).send({ error: 'invalid' });
  const items = [];
  for (const item of body.data.records) {
    const parsed = CreateRecordInput.safeParse(item);
    if (parsed.success) items.push(parsed.data);
  }
  const createdAt = new Date().toISOString();
  const ids = items.map(() => randomUUID());
  await pool.query(
    `INSERT INTO records (id, establishment_id, livemode, chain_seq, food_category, weight_kg, destino_id, prev_hash, record_hash, created_at)
     SELECT u.id, $1, false, nextval('bench_baseline_seq'), u.cat, u.w, u.dest, $2, u.hash, $3
     FROM unnest($4::uuid[], $5::text[], $6::numeric[], $7::uuid[], $8::text[]) AS u(id, cat, w, dest, hash)`,
    [ESTABLISHMENT_ID, ZERO, createdAt, ids, items.map((i) => i.food_category), items.map((i) => i.weight_kg),
      items.map((i) => i.destino_id), ids.map(hash)],
  );
  return reply.send({ inserted: items.length, failed: body.data.records.length - items.length });
});

app.get('/records', async (req, reply) => {
  const establishment = req.headers['x-establishment'];
  const limit = Math.min(Number(req.query.limit ?? 50), 200);
  const to = new Date();
  const from = new Date(to.getTime() - 31 * 86_400_000);
  const where = 'establishment_id = $1 AND livemode = false AND created_at >= $2 AND created_at < $3';
  const { rows } = await pool.query(
    `SELECT id, establishment_id, livemode, food_category, weight_kg::float8 AS weight_kg, destino_id, causa_id,
       product_name, waste_stage, shift_id, session_id, notes, photo_url, source, record_hash, created_at,
       (SELECT count(*) FROM records WHERE ${where}) AS total
     FROM records WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $4`,
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
