import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  CAUSA_CADUCIDAD,
  countRecords,
  createTenant,
  DESTINO_LANDFILL,
  startTestApp,
  type TestContext,
  validRecord,
} from './helpers.js';

/**
 * A record written under an Idempotency-Key claims the key in the record's own statement, and the
 * key's row names the record instead of storing its answer (http/idempotency.ts, `KeyClaim`). What
 * the contract promises stays: a replay is the first answer, byte for byte, and the key, the
 * record, its day totals and its event commit together or not at all.
 */

let t: TestContext;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

const keyRows = (establishmentId: string) =>
  t.db.$queryRawUnsafe<{ key: string; status_code: number; response_body: string; record_id: string | null }[]>(
    'SELECT key, status_code, response_body, record_id::text FROM idempotency_keys WHERE establishment_id = $1::uuid ORDER BY created_at',
    establishmentId,
  );
const chainHeads = (establishmentId: string) =>
  t.db.$queryRawUnsafe<{ seq: number }[]>(
    'SELECT seq::int FROM record_chain_heads WHERE establishment_id = $1::uuid AND NOT livemode',
    establishmentId,
  );
const events = (establishmentId: string) =>
  t.db.$queryRawUnsafe<{ n: number }[]>('SELECT count(*)::int AS n FROM events WHERE establishment_id = $1::uuid', establishmentId);

/** Every field a record may carry, several that the service rounds or normalises on the way in. */
const everyField = (sessionId: string) =>
  validRecord({
    food_category: 'bakery',
    weight_kg: 3.1,
    destino_id: DESTINO_LANDFILL,
    causa_id: CAUSA_CADUCIDAD,
    waste_stage: 'preparation',
    session_id: sessionId,
    product_name: 'Pan de centeno «Ñ» 🍞',
    notes: 'Cierre de turno',
    measurement_method: 'direct_weighing',
    scale_id: 'BAL-01',
    edible: 'inedible',
    tare_kg: 0.2504,
    hierarchy_reason: 'no_taker',
    hierarchy_note: 'Sin recogida hoy',
    transfer_document_ref: 'DI-2026/000123',
    occurred_at: new Date(Date.now() - 3_600_000).toISOString().replace('Z', '+00:00'),
  });

describe('a record under an Idempotency-Key', () => {
  it('is replayed byte for byte from its row, and the key keeps nothing of the record', async () => {
    const kitchen = await createTenant(t.db);
    // An establishment whose chain has no head yet (one made before heads were made with it).
    await t.db.$executeRawUnsafe('DELETE FROM record_chain_heads WHERE establishment_id = $1::uuid', kitchen.establishmentId);
    const client = api(t.app, kitchen.key);
    const session = (await client.post('/api/v1/sessions', { name: 'Cierre' })).json().data;
    const body = everyField(session.id);
    const headers = { 'idempotency-key': 'erp-line-every-field' };
    const first = await client.post('/api/v1/records', body, { headers });
    expect(first.statusCode, first.body).toBe(201);
    // The chain's first record: its head is made on the way, and moved once.
    expect(await chainHeads(kitchen.establishmentId)).toEqual([{ seq: 1 }]);
    const again = await client.post('/api/v1/records', body, { headers });
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    const record = first.json().data;
    expect(first.json().timestamp).toBe(record.created_at);
    expect(await keyRows(kitchen.establishmentId)).toEqual([
      { key: 'erp-line-every-field', status_code: 201, response_body: '', record_id: record.id },
    ]);
    expect(await countRecords(t.db, kitchen.establishmentId)).toBe(1);
    expect(await events(kitchen.establishmentId)).toEqual([{ n: 1 }]);
    // The list reads the same record.
    const listed = (await client.get('/api/v1/records')).json().data;
    expect(listed).toEqual([record]);
  });

  it('written concurrently under one key: one record, one key, the same answer to every request', async () => {
    const kitchen = await createTenant(t.db);
    const client = api(t.app, kitchen.key);
    await client.post('/api/v1/records', validRecord()); // the chain head is there
    const headers = { 'idempotency-key': 'race-single' };
    const results = await Promise.all(
      Array.from({ length: 6 }, () => client.post('/api/v1/records', validRecord({ weight_kg: 2 }), { headers })),
    );
    expect(results.map((r) => r.statusCode)).toEqual(Array(6).fill(201));
    expect(new Set(results.map((r) => r.body)).size).toBe(1);
    expect(results.filter((r) => r.headers['idempotent-replayed'] === 'true')).toHaveLength(5);
    expect(await countRecords(t.db, kitchen.establishmentId)).toBe(2);
    expect(await chainHeads(kitchen.establishmentId)).toEqual([{ seq: 2 }]);
    expect(await keyRows(kitchen.establishmentId)).toHaveLength(1);
  });

  it('refused before its statement (a reference that is not there): no key is claimed, and the key can be used again', async () => {
    const kitchen = await createTenant(t.db);
    const client = api(t.app, kitchen.key);
    const headers = { 'idempotency-key': 'erp-line-retry' };
    const refused = await client.post('/api/v1/records', validRecord({ causa_id: '00000000-0000-4000-8000-000000000009' }), { headers });
    expect(refused.statusCode).toBe(400);
    expect(await keyRows(kitchen.establishmentId)).toEqual([]);
    expect(await chainHeads(kitchen.establishmentId)).toEqual([{ seq: 0 }]);
    const stored = await client.post('/api/v1/records', validRecord(), { headers });
    expect(stored.statusCode).toBe(201);
    expect(stored.headers['idempotent-replayed']).toBeUndefined();
    expect(await countRecords(t.db, kitchen.establishmentId)).toBe(1);
  });

  it('sent again to another route (the batch) is another request: 409, and nothing more is written', async () => {
    const kitchen = await createTenant(t.db);
    const client = api(t.app, kitchen.key);
    const headers = { 'idempotency-key': 'one-key-two-routes' };
    expect((await client.post('/api/v1/records', validRecord(), { headers })).statusCode).toBe(201);
    const batch = await client.post('/api/v1/records/batch', { records: [validRecord()] }, { headers });
    expect(batch.statusCode).toBe(409);
    expect(batch.json()).toMatchObject({ code: 'conflict' });
    expect(await countRecords(t.db, kitchen.establishmentId)).toBe(1);
  });
});

describe('a batch under an Idempotency-Key', () => {
  /** Fifty records and three refused items among them: a weight below zero, a cause that is not there, an empty item. */
  const batchBody = () => ({
    records: Array.from({ length: 53 }, (_, i) => {
      if (i === 0) return validRecord({ weight_kg: -1 });
      if (i === 17) return validRecord({ causa_id: '00000000-0000-4000-8000-000000000009' });
      if (i === 52) return {};
      return validRecord({ weight_kg: 1 + i / 100, ...(i === 30 ? { occurred_at: new Date(Date.now() - 7_200_000).toISOString() } : {}) });
    }),
  });

  it('is replayed byte for byte from its rows after more records joined the chain; the key keeps its first record, counts and errors', async () => {
    const kitchen = await createTenant(t.db);
    const client = api(t.app, kitchen.key);
    const headers = { 'idempotency-key': 'erp-batch-53' };
    const body = batchBody();
    const first = await client.post('/api/v1/records/batch', body, { headers });
    expect(first.statusCode, first.body).toBe(200);
    const answer = first.json();
    expect(answer.data).toMatchObject({ inserted: 50, failed: 3 });
    expect(answer.data.errors.map((e: { index: number }) => e.index)).toEqual([0, 17, 52]);
    expect(answer.data.records.map((r: { index: number }) => r.index)).toEqual(
      Array.from({ length: 53 }, (_, i) => i).filter((i) => ![0, 17, 52].includes(i)),
    );
    expect(answer.timestamp).toBe(answer.data.records[0].created_at);
    // More records join the chain after the batch's.
    for (let i = 0; i < 3; i++) expect((await client.post('/api/v1/records', validRecord())).statusCode).toBe(201);

    const again = await client.post('/api/v1/records/batch', body, { headers });
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    const [row] = await keyRows(kitchen.establishmentId);
    expect(row).toMatchObject({ key: 'erp-batch-53', status_code: 200, record_id: answer.data.records[0].id });
    // Sealed, it holds the counts and the three errors, not the fifty records (their answer is 8 kB and more).
    expect(row?.response_body.length).toBeGreaterThan(0);
    expect(row?.response_body.length).toBeLessThan(first.body.length / 4);
    expect(await countRecords(t.db, kitchen.establishmentId)).toBe(53);
    expect(await chainHeads(kitchen.establishmentId)).toEqual([{ seq: 53 }]);
  });

  it('sent concurrently under one key: written once, the same answer to every request', async () => {
    const kitchen = await createTenant(t.db);
    const client = api(t.app, kitchen.key);
    const headers = { 'idempotency-key': 'race-batch' };
    const body = batchBody();
    const results = await Promise.all(Array.from({ length: 4 }, () => client.post('/api/v1/records/batch', body, { headers })));
    const statuses = results.map((r) => r.statusCode);
    // A request that met the first while it was still being answered is told to retry (409); none differs.
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    const answered = results.filter((r) => r.statusCode === 200);
    expect(answered.filter((r) => r.headers['idempotent-replayed'] !== 'true')).toHaveLength(1);
    const again = await client.post('/api/v1/records/batch', body, { headers });
    expect(new Set([...answered, again].map((r) => r.body)).size).toBe(1);
    expect(await countRecords(t.db, kitchen.establishmentId)).toBe(50);
  });

  it('with every item refused writes nothing and replays its stored answer', async () => {
    const kitchen = await createTenant(t.db);
    const client = api(t.app, kitchen.key);
    const headers = { 'idempotency-key': 'all-refused' };
    const body = { records: [validRecord({ weight_kg: -1 }), {}] };
    const first = await client.post('/api/v1/records/batch', body, { headers });
    expect(first.statusCode).toBe(200);
    expect(first.json().data).toMatchObject({ inserted: 0, failed: 2, records: [] });
    const again = await client.post('/api/v1/records/batch', body, { headers });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    expect(await keyRows(kitchen.establishmentId)).toMatchObject([{ key: 'all-refused', status_code: 200, record_id: null }]);
    expect(await countRecords(t.db, kitchen.establishmentId)).toBe(0);
  });
});
