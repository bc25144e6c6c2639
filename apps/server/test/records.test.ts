import { createPublicKey, verify } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { poolOf } from '../src/db/client.js';
import { canonicalRecordJson, chainHash, GENESIS_HASH } from '../src/modules/records/hash.js';
import {
  api,
  authOf,
  CAUSA_CADUCIDAD,
  CAUSA_RETIRED,
  countRecords,
  createTenant,
  DESTINO_DONATION,
  DESTINO_LANDFILL,
  startTestApp,
  type Tenant,
  type TestContext,
  validRecord,
} from './helpers.js';
import { waitFor } from './receiver.js';

let t: TestContext;
let tenant: Tenant;
const NOW = new Date('2026-06-15T10:30:00.000Z');

beforeAll(async () => {
  t = await startTestApp({ clock: () => NOW });
  tenant = await createTenant(t.db);
});
afterAll(() => t?.close());

describe('POST /api/v1/records', () => {
  it('stores a record and answers 201 with the stored record and its chain hash', async () => {
    const res = await api(t.app, tenant.key).post('/api/v1/records', {
      ...validRecord({ weight_kg: 2.5 }),
      causa_id: CAUSA_CADUCIDAD,
      product_name: 'Solomillo',
      waste_stage: 'storage',
      notes: 'Cadena de frío rota',
      photo_url: 'https://example.com/p.jpg',
    });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body.success).toBe(true);
    expect(body.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const r = body.data;
    expect(r).toMatchObject({
      establishment_id: tenant.establishmentId,
      livemode: false,
      food_category: 'meat',
      weight_kg: 2.5,
      destino_id: DESTINO_DONATION,
      causa_id: CAUSA_CADUCIDAD,
      product_name: 'Solomillo',
      waste_stage: 'storage',
      source: 'api',
      created_at: NOW.toISOString(),
    });
    expect(r.record_hash).toMatch(/^[0-9a-f]{64}$/);

    const stored = await t.db.record.findUniqueOrThrow({ where: { id: r.id } });
    expect(stored.record_hash).toBe(r.record_hash);
    expect(Number(stored.weight_kg)).toBe(2.5);
    expect(stored.notes).toBe('Cadena de frío rota');
    // The hash the database computed equals the documented formula.
    const expected = chainHash(stored.prev_hash, canonicalRecordJson({ ...r }));
    expect(r.record_hash).toBe(expected);
  });

  it('rounds weights to the gram and links each record to the previous hash', async () => {
    const other = await createTenant(t.db);
    const client = api(t.app, other.key);
    const first = (await client.post('/api/v1/records', validRecord({ weight_kg: 1.23456 }))).json().data;
    const second = (await client.post('/api/v1/records', validRecord({ weight_kg: 0.0015 }))).json().data;
    expect(first.weight_kg).toBe(1.235);
    expect(second.weight_kg).toBe(0.002);
    const rows = await t.db.record.findMany({ where: { establishment_id: other.establishmentId }, orderBy: { chain_seq: 'asc' } });
    expect(rows.map((r) => Number(r.chain_seq))).toEqual([1, 2]);
    expect(rows[0]?.prev_hash).toBe(GENESIS_HASH);
    expect(rows[1]?.prev_hash).toBe(first.record_hash);
  });

  it('serialises concurrent writers into one unbroken chain', async () => {
    const other = await createTenant(t.db);
    const client = api(t.app, other.key);
    const results = await Promise.all(
      Array.from({ length: 25 }, (_, i) => client.post('/api/v1/records', validRecord({ weight_kg: i + 1 }))),
    );
    expect(results.map((r) => r.statusCode)).toEqual(Array(25).fill(201));
    const verify = (await client.get('/api/v1/records/verify')).json().data;
    expect(verify).toMatchObject({ valid: true, checked: 25, first_invalid: null });
  });

  const bad: [string, unknown, string][] = [
    ['missing food_category', { weight_kg: 1, destino_id: DESTINO_DONATION }, 'food_category'],
    ['missing weight_kg', { food_category: 'meat', destino_id: DESTINO_DONATION }, 'weight_kg'],
    ['missing destino_id', { food_category: 'meat', weight_kg: 1 }, 'destino_id'],
    ['unknown category', validRecord({ food_category: 'candy' }), 'food_category'],
    ['zero weight', validRecord({ weight_kg: 0 }), 'weight_kg'],
    ['negative weight', validRecord({ weight_kg: -3 }), 'weight_kg'],
    ['weight as string', validRecord({ weight_kg: '1.5' }), 'weight_kg'],
    ['weight NaN as string', validRecord({ weight_kg: 'NaN' }), 'weight_kg'],
    ['huge weight', validRecord({ weight_kg: 1e308 }), 'weight_kg'],
    ['weight rounding to zero', validRecord({ weight_kg: 0.0001 }), 'weight_kg'],
    ['notes over 500 characters', validRecord({ notes: 'x'.repeat(501) }), 'notes'],
    ['NUL byte in product_name', validRecord({ product_name: 'a\u0000b' }), 'product_name'],
    ['bad waste_stage', validRecord({ waste_stage: 'eating' }), 'waste_stage'],
    ['destino_id not a uuid', validRecord({ destino_id: "1' OR '1'='1" }), 'destino_id'],
    ['unknown destino_id', validRecord({ destino_id: '00000000-0000-4000-8000-000000000000' }), 'destino_id'],
    ['unknown causa_id', validRecord({ causa_id: '00000000-0000-4000-8000-000000000000' }), 'causa_id'],
    ['retired causa_id', validRecord({ causa_id: CAUSA_RETIRED }), 'causa_id'],
    ['unknown shift_id', validRecord({ shift_id: '00000000-0000-4000-8000-000000000000' }), 'shift_id'],
    ['unknown session_id', validRecord({ session_id: '00000000-0000-4000-8000-000000000000' }), 'session_id'],
    ['unknown field', validRecord({ destination_id: DESTINO_DONATION }), ''],
    ['photo_url not http(s)', validRecord({ photo_url: 'javascript:alert(1)' }), 'photo_url'],
    ['array body', [validRecord()], ''],
  ];
  it.each(bad)('refuses %s with 400 and writes nothing', async (_name, body, path) => {
    const other = await createTenant(t.db);
    const res = await api(t.app, other.key).post('/api/v1/records', body);
    expect(res.statusCode).toBe(400);
    const err = res.json();
    expect(err).toMatchObject({ status: 400, code: 'validation_error' });
    expect(typeof err.error).toBe('string');
    expect(err.timestamp).toMatch(/Z$/);
    if (path) expect(err.details.map((d: { path: string }) => d.path)).toContain(path);
    expect(await countRecords(t.db, other.establishmentId)).toBe(0);
  });

  it('stores SQL-looking text verbatim', async () => {
    const text = "'); DROP TABLE records; --";
    const res = await api(t.app, tenant.key).post('/api/v1/records', validRecord({ product_name: text, notes: text }));
    expect(res.statusCode).toBe(201);
    const stored = await t.db.record.findUniqueOrThrow({ where: { id: res.json().data.id } });
    expect(stored.product_name).toBe(text);
  });

  it('accepts a shift of its own establishment but not one of another establishment', async () => {
    const other = await createTenant(t.db);
    const shift = (await api(t.app, tenant.key).post('/api/v1/shifts', { name: 'Mañana', start_time: '07:00', end_time: '15:00' })).json()
      .data;
    const own = await api(t.app, tenant.key).post('/api/v1/records', validRecord({ shift_id: shift.id }));
    expect(own.statusCode).toBe(201);
    expect(own.json().data.shift_id).toBe(shift.id);
    const foreign = await api(t.app, other.key).post('/api/v1/records', validRecord({ shift_id: shift.id }));
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json().details[0].path).toBe('shift_id');
  });
});

describe('POST /api/v1/records/batch', () => {
  it('stores valid items, reports invalid ones by index', async () => {
    const other = await createTenant(t.db);
    const res = await api(t.app, other.key).post('/api/v1/records/batch', {
      records: [
        validRecord({ weight_kg: 1 }),
        { food_category: 'meat' },
        validRecord({ weight_kg: 2 }),
        validRecord({ destino_id: '00000000-0000-4000-8000-000000000000' }),
        'not an object',
        validRecord({ weight_kg: 3 }),
      ],
    });
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data.inserted).toBe(3);
    expect(data.failed).toBe(3);
    expect(data.errors.map((e: { index: number }) => e.index)).toEqual([1, 3, 4]);
    expect(data.errors[0]).toMatchObject({ code: 'validation_error' });
    expect(data.errors[1].details[0].path).toBe('destino_id');
    expect(data.records.map((r: { index: number }) => r.index)).toEqual([0, 2, 5]);
    const rows = await t.db.record.findMany({ where: { establishment_id: other.establishmentId }, orderBy: { chain_seq: 'asc' } });
    expect(rows.map((r) => Number(r.weight_kg))).toEqual([1, 2, 3]);
    expect(rows.map((r) => r.source)).toEqual(['batch', 'batch', 'batch']);
    const verify = (await api(t.app, other.key).get('/api/v1/records/verify')).json().data;
    expect(verify).toMatchObject({ valid: true, checked: 3 });
  });

  it('stores each field of a record as a single write stores it, the text and the decimals exactly as sent', async () => {
    // The batch's rows travel as each record's canonical JSON (records/service.ts): every field,
    // escaped text and an exact decimal included, must come back as the single write keeps it.
    const other = await createTenant(t.db);
    const client = api(t.app, other.key);
    const everything = {
      ...validRecord({ weight_kg: 1.005, destino_id: DESTINO_LANDFILL }),
      causa_id: CAUSA_CADUCIDAD,
      product_name: 'Croissant "mantequilla" \\ 🥐',
      waste_stage: 'storage',
      notes: 'línea 1\nlínea 2\t"fin"',
      photo_url: 'https://example.com/p.jpg',
      measurement_method: 'direct_weighing',
      scale_id: 'BAL-01',
      estimated: false,
      edible: 'inedible',
      tare_kg: 0.25,
      hierarchy_reason: 'no_taker',
      hierarchy_note: 'sin "entidad" cerca',
      transfer_document_ref: 'DI;"48"\n=1',
      occurred_at: '2026-06-14T21:15:00.000Z',
    };
    const single = await client.post('/api/v1/records', everything);
    expect(single.statusCode, single.body).toBe(201);
    const batch = await client.post('/api/v1/records/batch', { records: [everything, validRecord({ weight_kg: 0.1 })] });
    expect(batch.statusCode, batch.body).toBe(200);
    expect(batch.json().data).toMatchObject({ inserted: 2, failed: 0 });
    const [first, second] = batch.json().data.records as { id: string; occurred_at: string }[];
    expect(first?.occurred_at).toBe('2026-06-14T21:15:00.000Z');
    expect(second?.occurred_at).toBe(NOW.toISOString());
    const rows = await t.db.record.findMany({ where: { establishment_id: other.establishmentId }, orderBy: { chain_seq: 'asc' } });
    const fieldsOf = (row: (typeof rows)[number] | undefined) => {
      const { id: _id, chain_seq: _seq, prev_hash: _prev, record_hash: _hash, source: _source, ...fields } = row ?? ({} as never);
      return fields;
    };
    expect(rows.map((r) => r.id)).toEqual([single.json().data.id, first?.id, second?.id]);
    expect(fieldsOf(rows[1])).toEqual(fieldsOf(rows[0]));
    expect(rows.map((r) => [r.weight_kg.toString(), r.tare_kg?.toString() ?? null, r.notes, r.occurred_at.toISOString()])).toEqual([
      ['1.005', '0.25', 'línea 1\nlínea 2\t"fin"', '2026-06-14T21:15:00.000Z'],
      ['1.005', '0.25', 'línea 1\nlínea 2\t"fin"', '2026-06-14T21:15:00.000Z'],
      ['0.1', null, null, NOW.toISOString()],
    ]);
    expect(rows[1]?.product_name).toBe('Croissant "mantequilla" \\ 🥐');
    expect((await client.get('/api/v1/records/verify')).json().data).toMatchObject({ valid: true, checked: 3 });
  });

  it('stores 500 records in one call and continues the chain of single creates', async () => {
    const other = await createTenant(t.db);
    const client = api(t.app, other.key);
    await client.post('/api/v1/records', validRecord());
    const res = await client.post('/api/v1/records/batch', {
      records: Array.from({ length: 500 }, (_, i) => validRecord({ weight_kg: i + 1 })),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ inserted: 500, failed: 0, errors: [] });
    await client.post('/api/v1/records', validRecord());
    expect(await countRecords(t.db, other.establishmentId)).toBe(502);
    expect((await client.get('/api/v1/records/verify')).json().data).toMatchObject({ valid: true, checked: 502 });
  });

  it('batches and single writes to one chain at the same time make one unbroken chain, with one event per record', async () => {
    const other = await createTenant(t.db);
    const client = api(t.app, other.key);
    const batch = (n: number) => client.post('/api/v1/records/batch', { records: Array.from({ length: n }, () => validRecord()) });
    const results = await Promise.all([
      batch(40),
      ...Array.from({ length: 8 }, () => client.post('/api/v1/records', validRecord())),
      batch(1),
      batch(60),
    ]);
    expect(results.map((r) => r.statusCode)).toEqual([200, ...Array(8).fill(201), 200, 200]);
    expect(await countRecords(t.db, other.establishmentId)).toBe(109);
    expect((await client.get('/api/v1/records/verify')).json().data).toMatchObject({ valid: true, checked: 109 });
    const [head] = await t.db.$queryRaw<{ seq: bigint }[]>`
      SELECT seq FROM record_chain_heads WHERE establishment_id = ${other.establishmentId}::uuid AND livemode = false`;
    expect(head?.seq).toBe(109n);
    const events = await t.db.$queryRaw<{ id: string; hash: string; timestamp: string }[]>`
      SELECT e.payload->'data'->>'id' AS id, e.payload->'data'->>'record_hash' AS hash, e.payload->>'timestamp' AS timestamp
      FROM events e WHERE e.establishment_id = ${other.establishmentId}::uuid AND e.type = 'record.created'`;
    const records = await t.db.record.findMany({ where: { establishment_id: other.establishmentId } });
    expect(new Map(events.map((e) => [e.id, [e.hash, e.timestamp]]))).toEqual(
      new Map(records.map((r) => [r.id, [r.record_hash, r.created_at.toISOString()]])),
    );
  });

  it('under an Idempotency-Key, a replay answers the same and stores the batch once', async () => {
    const other = await createTenant(t.db);
    const client = api(t.app, other.key);
    const body = { records: [validRecord({ weight_kg: 1 }), { food_category: 'meat' }, validRecord({ weight_kg: 2 })] };
    const headers = { 'idempotency-key': 'erp-batch-2026-06-15' };
    const first = await client.post('/api/v1/records/batch', body, { headers });
    expect(first.statusCode).toBe(200);
    expect(first.json().data).toMatchObject({ inserted: 2, failed: 1 });
    const again = await client.post('/api/v1/records/batch', body, { headers });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(first.json());
    expect(await countRecords(t.db, other.establishmentId)).toBe(2);
    expect((await client.get('/api/v1/records/verify')).json().data).toMatchObject({ valid: true, checked: 2 });
  });

  it('a batch the database refuses halfway stores nothing, leaves the chain head, and the next batch goes on', async () => {
    const other = await createTenant(t.db);
    const client = api(t.app, other.key);
    await client.post('/api/v1/records/batch', { records: [validRecord(), validRecord()] });
    // A failure inside the write statement, after some rows are in: the whole batch must roll back.
    await t.db.$executeRawUnsafe(`CREATE FUNCTION refuse_boom() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.product_name = 'boom' THEN RAISE EXCEPTION 'refused by the test'; END IF; RETURN NEW; END $$`);
    await t.db.$executeRawUnsafe(
      `CREATE TRIGGER refuse_boom BEFORE INSERT ON records FOR EACH ROW WHEN (NEW.product_name = 'boom') EXECUTE FUNCTION refuse_boom()`,
    );
    try {
      const refused = await client.post('/api/v1/records/batch', {
        records: [validRecord(), validRecord(), validRecord({ product_name: 'boom' }), validRecord()],
      });
      expect(refused.statusCode).toBe(500);
      expect(refused.json()).toMatchObject({ status: 500 });
    } finally {
      await t.db.$executeRawUnsafe('DROP TRIGGER refuse_boom ON records');
      await t.db.$executeRawUnsafe('DROP FUNCTION refuse_boom()');
    }
    expect(await countRecords(t.db, other.establishmentId)).toBe(2);
    const [head] = await t.db.$queryRaw<{ seq: bigint }[]>`
      SELECT seq FROM record_chain_heads WHERE establishment_id = ${other.establishmentId}::uuid AND livemode = false`;
    expect(head?.seq).toBe(2n);
    const [events] = await t.db.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM events WHERE establishment_id = ${other.establishmentId}::uuid`;
    expect(events?.n).toBe(2);
    // Every pooled connection still works (a connection left inside the failed transaction would not).
    const next = await Promise.all(Array.from({ length: 12 }, () => client.post('/api/v1/records/batch', { records: [validRecord()] })));
    expect(next.map((r) => r.statusCode)).toEqual(Array(12).fill(200));
    expect((await client.get('/api/v1/records/verify')).json().data).toMatchObject({ valid: true, checked: 14 });
  });

  it('called without the pool (from the Prisma client alone), concurrent batches still take turns on the chain head', async () => {
    const { createRecordsBatch } = await import('../src/modules/records/service.js');
    const { createCatalogCache } = await import('../src/modules/catalog/service.js');
    const other = await createTenant(t.db);
    const deps = { db: t.db, clock: () => NOW, catalog: createCatalogCache() };
    const results = await Promise.all(
      [30, 1, 20, 5].map((n) =>
        createRecordsBatch(
          deps,
          authOf(other),
          Array.from({ length: n }, () => validRecord()),
        ),
      ),
    );
    expect(results.map((r) => r.result.inserted)).toEqual([30, 1, 20, 5]);
    expect((await api(t.app, other.key).get('/api/v1/records/verify')).json().data).toMatchObject({ valid: true, checked: 56 });
  });

  // PGlite is one backend in this process: terminating it would end the embedded database itself.
  it.skipIf(!process.env.DATABASE_URL)(
    'a connection lost in the middle of a batch (needs DATABASE_URL): 503 to retry, nothing stored, the server goes on',
    async () => {
      const other = await createTenant(t.db);
      const client = api(t.app, other.key);
      await t.db.$executeRawUnsafe(`CREATE FUNCTION lose_connection() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN PERFORM pg_terminate_backend(pg_backend_pid()); RETURN NEW; END $$`);
      await t.db.$executeRawUnsafe(
        `CREATE TRIGGER lose_connection BEFORE INSERT ON records FOR EACH ROW WHEN (NEW.product_name = 'lost') EXECUTE FUNCTION lose_connection()`,
      );
      // The lost connection's 'error' event may arrive after the answer, and would end the process
      // if nobody heard it. The pool drops a connection once it has ended (whichever way it went
      // back to the pool: released as broken, or idle and then failed), and nothing comes from it
      // after that: its removal is the end of what the lost connection can do.
      const pool = poolOf(t.db);
      let removed = 0;
      const onRemove = () => removed++;
      pool.on('remove', onRemove);
      try {
        const lost = await client.post('/api/v1/records/batch', { records: [validRecord(), validRecord({ product_name: 'lost' })] });
        expect(lost.statusCode).toBe(503);
        expect(lost.json()).toMatchObject({ code: 'service_unavailable' });
        await waitFor(() => removed > 0, 10_000, 'the lost connection to leave the pool');
        expect(removed).toBe(1);
      } finally {
        pool.off('remove', onRemove);
        await t.db.$executeRawUnsafe('DROP TRIGGER lose_connection ON records');
        await t.db.$executeRawUnsafe('DROP FUNCTION lose_connection()');
      }
      expect(await countRecords(t.db, other.establishmentId)).toBe(0);
      const next = await Promise.all(Array.from({ length: 12 }, () => client.post('/api/v1/records/batch', { records: [validRecord()] })));
      expect(next.map((r) => r.statusCode)).toEqual(Array(12).fill(200));
      expect((await client.get('/api/v1/records/verify')).json().data).toMatchObject({ valid: true, checked: 12 });
    },
  );

  it.each([
    ['more than 500 items', { records: Array.from({ length: 501 }, () => validRecord()) }],
    ['10,000 items', { records: Array.from({ length: 10_000 }, () => ({ food_category: 'meat' })) }],
    ['an empty array', { records: [] }],
    ['records not an array', { records: 'x' }],
    ['no records field', {}],
  ])('refuses %s with 400 and stores nothing', async (_name, body) => {
    const other = await createTenant(t.db);
    const res = await api(t.app, other.key).post('/api/v1/records/batch', body);
    expect([400, 413]).toContain(res.statusCode);
    expect(res.json().status).toBe(res.statusCode);
    expect(await countRecords(t.db, other.establishmentId)).toBe(0);
  });
});

describe('GET /api/v1/records', () => {
  let reader: Tenant;
  beforeAll(async () => {
    reader = await createTenant(t.db);
    // Records on chosen dates, written straight through the service's batch path with a fixed clock.
    const dates = [
      '2026-06-15T09:00:00.000Z',
      '2026-06-10T12:00:00.000Z',
      '2026-05-16T21:59:00.000Z',
      '2026-05-15T21:59:00.000Z',
      '2026-04-01T10:00:00.000Z',
    ];
    for (const [i, d] of dates.entries()) {
      const app = await startClockApp(new Date(d));
      const res = await api(app.app, reader.key).post(
        '/api/v1/records',
        validRecord({ weight_kg: i + 1, food_category: i % 2 ? 'fish' : 'meat' }),
      );
      expect(res.statusCode).toBe(201);
      await app.app.close();
    }
  });

  async function startClockApp(at: Date) {
    const { buildTestApp } = await import('./helpers.js');
    const app = await buildTestApp({ config: t.config, db: t.db, clock: () => at });
    return { app };
  }

  it('lists the last 30 days newest first, with pagination meta', async () => {
    const res = await api(t.app, reader.key).get('/api/v1/records');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    // Today is 2026-06-15 in Madrid; 30 days back is 2026-05-16 (Madrid), which starts 2026-05-15T22:00Z.
    expect(body.data.map((r: { weight_kg: number }) => r.weight_kg)).toEqual([1, 2, 3]);
    expect(body.meta.pagination).toEqual({ limit: 50, offset: 0, total: 3, has_more: false });
  });

  it('filters by dates in the establishment time zone and by category, and pages', async () => {
    const client = api(t.app, reader.key);
    const all = (await client.get('/api/v1/records?from=2026-01-01&to=2026-06-30')).json();
    expect(all.meta.pagination.total).toBe(5);
    const fish = (await client.get('/api/v1/records?from=2026-01-01&to=2026-06-30&food_category=fish')).json();
    expect(fish.data.map((r: { weight_kg: number }) => r.weight_kg)).toEqual([2, 4]);
    const page = (await client.get('/api/v1/records?from=2026-01-01&to=2026-06-30&limit=2&offset=2')).json();
    expect(page.data.map((r: { weight_kg: number }) => r.weight_kg)).toEqual([3, 4]);
    expect(page.meta.pagination).toEqual({ limit: 2, offset: 2, total: 5, has_more: true });
    // 2026-05-15T21:59Z is 23:59 on 15 May in Madrid.
    const day = (await client.get('/api/v1/records?from=2026-05-15&to=2026-05-15')).json();
    expect(day.data.map((r: { weight_kg: number }) => r.weight_kg)).toEqual([4]);
    const instant = (await client.get('/api/v1/records?from=2026-06-10T00:00:00Z&to=2026-06-11T00:00:00Z')).json();
    expect(instant.data.map((r: { weight_kg: number }) => r.weight_kg)).toEqual([2]);
  });

  it.each([
    ['limit=0'],
    ['limit=201'],
    ['limit=-1'],
    ['limit=abc'],
    ['offset=-1'],
    ['offset=1e20'],
    ['from=2026-02-30'],
    ['from=yesterday'],
    ['from=2026-06-10&to=2026-06-01'],
    ['food_category=candy'],
    ['unknown=1'],
  ])('refuses %s with 400', async (qs) => {
    const res = await api(t.app, reader.key).get(`/api/v1/records?${qs}`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ status: 400, code: 'validation_error' });
  });

  it('accepts limit=200', async () => {
    const res = await api(t.app, reader.key).get('/api/v1/records?limit=200');
    expect(res.statusCode).toBe(200);
    expect(res.json().meta.pagination.limit).toBe(200);
  });
});

describe('GET /api/v1/records/verify', () => {
  async function chainOf(n: number) {
    const owner = await createTenant(t.db);
    const res = await api(t.app, owner.key).post('/api/v1/records/batch', {
      records: Array.from({ length: n }, (_, i) => validRecord({ weight_kg: i + 1 })),
    });
    expect(res.json().data.inserted).toBe(n);
    const rows = await t.db.record.findMany({ where: { establishment_id: owner.establishmentId }, orderBy: { chain_seq: 'asc' } });
    return { owner, rows };
  }

  it('reports an intact chain as valid', async () => {
    const { owner } = await chainOf(5);
    const res = await api(t.app, owner.key).get('/api/v1/records/verify');
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ valid: true, checked: 5, first_invalid: null });
  });

  it('detects a record whose weight was altered in the database', async () => {
    const { owner, rows } = await chainOf(5);
    await t.db.$executeRaw`UPDATE records SET weight_kg = 0.5 WHERE id = ${rows[2]?.id}::uuid`;
    const data = (await api(t.app, owner.key).get('/api/v1/records/verify')).json().data;
    expect(data).toMatchObject({ valid: false, checked: 2, first_invalid: { id: rows[2]?.id, chain_seq: 3, reason: 'hash_mismatch' } });
  });

  it('reports the first of several problems, as a walk in order meets them', async () => {
    // Content altered at 2, link broken at 4: the content of 2 comes first.
    const a = await chainOf(5);
    await t.db.$executeRaw`UPDATE records SET notes = 'x' WHERE id = ${a.rows[1]?.id}::uuid`;
    await t.db.$executeRaw`UPDATE records SET prev_hash = ${'f'.repeat(64)} WHERE id = ${a.rows[3]?.id}::uuid`;
    const first = (await api(t.app, a.owner.key).get('/api/v1/records/verify')).json().data;
    expect(first).toMatchObject({
      valid: false,
      checked: 1,
      rehashed: 1,
      first_invalid: { id: a.rows[1]?.id, chain_seq: 2, reason: 'hash_mismatch' },
    });
    // Link broken at 2 (which also breaks its content), content altered at 4: the link of 2 comes first.
    const b = await chainOf(5);
    await t.db.$executeRaw`UPDATE records SET prev_hash = ${'f'.repeat(64)} WHERE id = ${b.rows[1]?.id}::uuid`;
    await t.db.$executeRaw`UPDATE records SET weight_kg = 99 WHERE id = ${b.rows[3]?.id}::uuid`;
    const second = (await api(t.app, b.owner.key).get('/api/v1/records/verify')).json().data;
    expect(second).toMatchObject({ valid: false, checked: 1, first_invalid: { id: b.rows[1]?.id, chain_seq: 2, reason: 'broken_link' } });
    // A record missing at 3, content altered at 4: the gap comes first.
    const c = await chainOf(5);
    await t.db.record.delete({ where: { id: c.rows[2]?.id as string } });
    await t.db.$executeRaw`UPDATE records SET weight_kg = 99 WHERE id = ${c.rows[3]?.id}::uuid`;
    const third = (await api(t.app, c.owner.key).get('/api/v1/records/verify')).json().data;
    expect(third).toMatchObject({ valid: false, checked: 2, first_invalid: { id: c.rows[3]?.id, chain_seq: 3, reason: 'sequence_gap' } });
  });

  it('detects a deleted record and a deleted last record', async () => {
    const { owner, rows } = await chainOf(5);
    await t.db.record.delete({ where: { id: rows[1]?.id as string } });
    const middle = (await api(t.app, owner.key).get('/api/v1/records/verify')).json().data;
    expect(middle).toMatchObject({ valid: false, first_invalid: { chain_seq: 2, reason: 'sequence_gap' } });

    const second = await chainOf(3);
    await t.db.record.delete({ where: { id: second.rows[2]?.id as string } });
    const tail = (await api(t.app, second.owner.key).get('/api/v1/records/verify')).json().data;
    expect(tail).toMatchObject({ valid: false, first_invalid: { id: null, chain_seq: 3, reason: 'truncated' } });
  });

  it('detects a record whose hash was rewritten to match its new content', async () => {
    const { owner, rows } = await chainOf(4);
    const row = rows[1];
    if (!row) throw new Error('missing row');
    await t.db.$executeRaw`UPDATE records SET notes = 'edited' WHERE id = ${row.id}::uuid`;
    const edited = await api(t.app, owner.key).get('/api/v1/records?from=2020-01-01&limit=200');
    const current = edited.json().data.find((r: { id: string }) => r.id === row.id);
    const forged = chainHash(row.prev_hash, canonicalRecordJson(current));
    await t.db.$executeRaw`UPDATE records SET record_hash = ${forged} WHERE id = ${row.id}::uuid`;
    const data = (await api(t.app, owner.key).get('/api/v1/records/verify')).json().data;
    expect(data).toMatchObject({ valid: false, first_invalid: { chain_seq: 3, reason: 'broken_link' } });
  });
  it('an intact chain gets a signed checkpoint; the next verification re-hashes only what follows it', async () => {
    const { owner } = await chainOf(5);
    const client = api(t.app, owner.key);
    const first = (await client.get('/api/v1/records/verify')).json().data;
    expect(first).toMatchObject({ valid: true, checked: 5, rehashed: 5, mode: 'incremental', from_seq: 1 });
    expect(first.checkpoint).toMatchObject({
      establishment_id: owner.establishmentId,
      livemode: false,
      seq: 5,
      head_hash: first.head_hash,
    });

    // The signature verifies with the published key, over the documented message.
    const keys = await t.app.inject({ method: 'GET', url: '/.well-known/merma-checkpoint-keys.json' });
    expect(keys.statusCode).toBe(200);
    const jwk = keys.json().keys.find((k: { kid: string }) => k.kid === first.checkpoint.key_id);
    expect(jwk).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA' });
    const c = first.checkpoint;
    const message = `merma-checkpoint:v1|${c.establishment_id}|test|${c.seq}|${c.head_hash}|${c.signed_at}`;
    const publicKey = createPublicKey({ key: jwk, format: 'jwk' });
    expect(verify(null, Buffer.from(message), publicKey, Buffer.from(c.signature, 'base64url'))).toBe(true);
    expect(verify(null, Buffer.from(message.replace('|5|', '|6|')), publicKey, Buffer.from(c.signature, 'base64url'))).toBe(false);

    await client.post('/api/v1/records/batch', { records: [validRecord(), validRecord()] });
    const next = (await client.get('/api/v1/records/verify')).json().data;
    expect(next).toMatchObject({ valid: true, checked: 7, rehashed: 2, from_seq: 6, checkpoint: { seq: 7 } });
    const full = (await client.get('/api/v1/records/verify', { query: { full: 'true' } })).json().data;
    expect(full).toMatchObject({ valid: true, checked: 7, rehashed: 7, mode: 'full', from_seq: 1, checkpoint: { seq: 7 } });
    const listed = (await client.get('/api/v1/records/checkpoints')).json().data;
    expect(listed.map((k: { seq: number }) => k.seq)).toEqual([7, 5]);
  });

  it('after a checkpoint: a rewrite that recomputes the hashes breaks its anchor; an edit in place needs full=true', async () => {
    const { owner, rows } = await chainOf(4);
    const client = api(t.app, owner.key);
    expect((await client.get('/api/v1/records/verify')).json().data.checkpoint.seq).toBe(4);
    // An edit in place (hash left alone) before the checkpoint: the routine check trusts the
    // checkpoint for those records; the full one finds it.
    await t.db.$executeRaw`UPDATE records SET weight_kg = 99 WHERE id = ${rows[1]?.id}::uuid`;
    expect((await client.get('/api/v1/records/verify')).json().data).toMatchObject({ valid: true, rehashed: 0 });
    expect((await client.get('/api/v1/records/verify', { query: { full: 'true' } })).json().data).toMatchObject({
      valid: false,
      first_invalid: { chain_seq: 2, reason: 'hash_mismatch' },
    });
    // Put the weight back; then rewrite the records from there on with every hash recomputed.
    await t.db.$executeRaw`UPDATE records SET weight_kg = 2, notes = 'rewritten' WHERE id = ${rows[1]?.id}::uuid`;
    const listed = (await client.get('/api/v1/records?from=2020-01-01&limit=200')).json().data as { id: string }[];
    let prev = rows[0]?.record_hash as string;
    for (const row of rows.slice(1)) {
      const current = listed.find((r) => r.id === row.id);
      const forged = chainHash(prev, canonicalRecordJson(current as never));
      await t.db.$executeRaw`UPDATE records SET prev_hash = ${prev}, record_hash = ${forged} WHERE id = ${row.id}::uuid`;
      prev = forged;
    }
    await t.db.$executeRaw`UPDATE record_chain_heads SET last_hash = ${prev} WHERE establishment_id = ${owner.establishmentId}::uuid`;
    // Link by link it holds together; against what was signed, it does not.
    expect((await client.get('/api/v1/records/verify', { query: { full: 'true' } })).json().data).toMatchObject({
      valid: false,
      first_invalid: { id: rows[3]?.id, chain_seq: 4, reason: 'checkpoint_mismatch' },
    });
    expect((await client.get('/api/v1/records/verify')).json().data).toMatchObject({
      valid: false,
      first_invalid: { id: rows[3]?.id, chain_seq: 4, reason: 'checkpoint_mismatch' },
    });
  });
});

describe('occurred_at: when the waste happened', () => {
  // Each test on a tenant of its own: the counts, lists and totals below are of its own records only.
  it('defaults to the storing time; a given one is stored to the millisecond, in UTC, and hashed', async () => {
    const dated = await createTenant(t.db);
    const client = api(t.app, dated.key);
    const plain = (await client.post('/api/v1/records', validRecord())).json().data;
    expect(plain.occurred_at).toBe(NOW.toISOString());
    expect(plain.created_at).toBe(NOW.toISOString());
    // Yesterday evening in Madrid, uploaded this morning.
    const late = await client.post('/api/v1/records', validRecord({ occurred_at: '2026-06-14T21:40:00+02:00' }));
    expect(late.statusCode).toBe(201);
    const r = late.json().data;
    expect(r).toMatchObject({ occurred_at: '2026-06-14T19:40:00.000Z', created_at: NOW.toISOString() });
    const stored = await t.db.record.findUniqueOrThrow({ where: { id: r.id } });
    expect(stored.occurred_at.toISOString()).toBe('2026-06-14T19:40:00.000Z');
    // Its hash covers occurred_at (it differs from created_at); a plain record's hashes as before.
    expect(canonicalRecordJson(r)).toContain('"occurred_at":"2026-06-14T19:40:00.000Z"');
    expect(canonicalRecordJson(plain)).not.toContain('occurred_at');
    expect(r.record_hash).toBe(chainHash(stored.prev_hash, canonicalRecordJson(r)));
    expect((await client.get('/api/v1/records/verify')).json().data).toMatchObject({ valid: true, checked: 2 });
  });

  it('lists, ranges and analytics go by occurred_at', async () => {
    const dated = await createTenant(t.db);
    const client = api(t.app, dated.key);
    // One stored now, one that happened yesterday evening in Madrid (stored after it).
    expect((await client.post('/api/v1/records', validRecord())).statusCode).toBe(201);
    expect((await client.post('/api/v1/records', validRecord({ occurred_at: '2026-06-14T21:40:00+02:00' }))).statusCode).toBe(201);
    const yesterday = (await client.get('/api/v1/records', { query: { from: '2026-06-14', to: '2026-06-14' } })).json();
    expect(yesterday.data.map((r: { occurred_at: string }) => r.occurred_at)).toEqual(['2026-06-14T19:40:00.000Z']);
    const analytics = (await client.get('/api/v1/analytics', { query: { from: '2026-06-14', to: '2026-06-15' } })).json().data;
    expect(analytics.trend).toEqual([
      { period: '2026-06-14', total_kg: 1.5 },
      { period: '2026-06-15', total_kg: 1.5 },
    ]);
    // Newest waste first, whatever the storing order.
    const all = (await client.get('/api/v1/records')).json().data;
    expect(all.map((r: { occurred_at: string }) => r.occurred_at)).toEqual([NOW.toISOString(), '2026-06-14T19:40:00.000Z']);
  });

  it('refuses a time more than 5 minutes ahead or more than 400 days back, and stores nothing', async () => {
    const dated = await createTenant(t.db);
    const client = api(t.app, dated.key);
    const before = await countRecords(t.db, dated.establishmentId);
    const ahead = await client.post('/api/v1/records', validRecord({ occurred_at: new Date(NOW.getTime() + 6 * 60_000).toISOString() }));
    expect(ahead.statusCode).toBe(400);
    expect(ahead.json()).toMatchObject({
      code: 'validation_error',
      details: [{ path: 'occurred_at', message: expect.stringContaining('5 minutes') }],
    });
    const old = await client.post(
      '/api/v1/records',
      validRecord({ occurred_at: new Date(NOW.getTime() - 401 * 86_400_000).toISOString() }),
    );
    expect(old.statusCode).toBe(400);
    expect(old.json().details).toEqual([{ path: 'occurred_at', message: 'may be at most 400 days back' }]);
    const noOffset = await client.post('/api/v1/records', validRecord({ occurred_at: '2026-06-14T21:40:00' }));
    expect(noOffset.statusCode).toBe(400);
    // A clock a little ahead (4 minutes) is fine.
    const drift = await client.post('/api/v1/records', validRecord({ occurred_at: new Date(NOW.getTime() + 4 * 60_000).toISOString() }));
    expect(drift.statusCode).toBe(201);
    expect(await countRecords(t.db, dated.establishmentId)).toBe(before + 1);
  });

  it('in a batch, each item has its own; an item out of the window is reported by index', async () => {
    const dated = await createTenant(t.db);
    const res = await api(t.app, dated.key).post('/api/v1/records/batch', {
      records: [validRecord({ occurred_at: '2026-06-01T08:00:00Z' }), validRecord({ occurred_at: '2024-01-01T08:00:00Z' }), validRecord()],
    });
    expect(res.statusCode).toBe(200);
    const body = res.json().data;
    expect(body).toMatchObject({ inserted: 2, failed: 1 });
    expect(body.errors).toEqual([
      expect.objectContaining({ index: 1, details: [{ path: 'occurred_at', message: 'may be at most 400 days back' }] }),
    ]);
    expect(body.records.map((r: { index: number; occurred_at: string }) => [r.index, r.occurred_at])).toEqual([
      [0, '2026-06-01T08:00:00.000Z'],
      [2, NOW.toISOString()],
    ]);
    expect((await api(t.app, dated.key).get('/api/v1/records/verify')).json().data).toMatchObject({ valid: true });
  });

  it('a stored occurred_at moved afterwards breaks the chain', async () => {
    const mover = await createTenant(t.db);
    const client = api(t.app, mover.key);
    const r = (await client.post('/api/v1/records', validRecord())).json().data;
    await t.db.$executeRaw`UPDATE records SET occurred_at = occurred_at - interval '1 day' WHERE id = ${r.id}::uuid`;
    expect((await client.get('/api/v1/records/verify')).json().data).toMatchObject({
      valid: false,
      first_invalid: { id: r.id, reason: 'hash_mismatch' },
    });
  });
});
