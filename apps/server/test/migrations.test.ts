import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrisma, type Db } from '../src/db/client.js';
import { migrate, readMigrations } from '../src/db/migrate.js';
import { dispatchEvents } from '../src/modules/webhooks/dispatch.js';
import {
  api,
  buildTestApp,
  CAUSA_CADUCIDAD,
  createTestDatabase,
  DESTINO_DONATION,
  DESTINO_LANDFILL,
  type TestDatabase,
  testConfig,
  verifyAllChains,
} from './helpers.js';

let database: TestDatabase;
let db: Db;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await db?.$disconnect();
  await database?.drop();
});

/** A fresh, empty database for one test, dropped after it. */
async function withFreshDatabase(test: (fresh: TestDatabase) => Promise<void>) {
  const fresh = await createTestDatabase();
  try {
    await test(fresh);
  } finally {
    await fresh.drop();
  }
}

describe('migrations at boot', () => {
  // One migrated database for the tests that read or fill it; the two that need an empty one, or
  // spoil the record of what was applied, have their own.
  beforeAll(async () => {
    await migrate(database.url);
    db = createPrisma(database.url, 2);
  });

  it('applies every migration once, even when several replicas boot together', async () => {
    await withFreshDatabase(async (fresh) => {
      const results = await Promise.all([migrate(fresh.url), migrate(fresh.url), migrate(fresh.url)]);
      const applied = results.flatMap((r) => r.applied);
      const names = readMigrations().map((m) => m.name);
      expect(applied.sort()).toEqual([...names].sort());
      expect((await migrate(fresh.url)).applied).toEqual([]);
    });
  });

  it('records them in _prisma_migrations as prisma migrate deploy does', async () => {
    const rows = await db.$queryRaw<{ migration_name: string; checksum: string; finished_at: Date | null; applied_steps_count: number }[]>`
      SELECT migration_name, checksum, finished_at, applied_steps_count FROM "_prisma_migrations" ORDER BY migration_name`;
    const files = readMigrations();
    expect(rows.map((r) => r.migration_name)).toEqual(files.map((m) => m.name));
    expect(rows.map((r) => r.checksum)).toEqual(files.map((m) => m.checksum));
    expect(rows.every((r) => r.finished_at instanceof Date && r.applied_steps_count === 1)).toBe(true);
  });

  it('produces a schema the Prisma client can use for every model', async () => {
    const orgId = randomUUID();
    const estId = randomUUID();
    await db.organization.create({ data: { id: orgId, name: 'O', plan: 'enterprise', admin_email: 'a@example.com' } });
    await db.establishment.create({ data: { id: estId, organization_id: orgId, name: 'E', cif: 'B12345678', sector: 'retail' } });
    await db.apiKey.create({
      data: {
        id: randomUUID(),
        establishment_id: estId,
        livemode: true,
        key_hash: 'f'.repeat(64),
        prefix: 'svc_live_',
        last4: 'abcd',
        permissions: ['records:read'],
      },
    });
    await db.product.create({
      data: { id: randomUUID(), organization_id: orgId, name: 'P', food_category: 'dairy', ean: '4006381333931' },
    });
    const shift = await db.shift.create({
      data: { id: randomUUID(), establishment_id: estId, livemode: true, name: 'S', start_time: '22:00', end_time: '06:00' },
    });
    const session = await db.session.create({
      data: { id: randomUUID(), establishment_id: estId, livemode: true, name: 'Cierre', shift_id: shift.id },
    });
    await db.recordChainHead.create({ data: { establishment_id: estId, livemode: true, seq: 1n, last_hash: 'a'.repeat(64) } });
    const destination = await db.destination.findFirstOrThrow({ where: { code: 'composting' } });
    const cause = await db.cause.findFirstOrThrow({ where: { activo: true } });
    const record = await db.record.create({
      data: {
        id: randomUUID(),
        establishment_id: estId,
        livemode: true,
        chain_seq: 1n,
        food_category: 'dairy',
        weight_kg: '2.125',
        destino_id: destination.id,
        causa_id: cause.id,
        shift_id: shift.id,
        session_id: session.id,
        prev_hash: '0'.repeat(64),
        record_hash: 'a'.repeat(64),
        created_at: new Date(),
        occurred_at: new Date(),
      },
    });
    expect(Number(record.weight_kg)).toBe(2.125);
    await db.idempotencyKey.create({
      data: {
        id: randomUUID(),
        establishment_id: estId,
        livemode: true,
        api_key_id: randomUUID(),
        key: 'k',
        fingerprint: 'b'.repeat(64),
        status_code: 201,
        response_body: '{}',
      },
    });
    const subscription = await db.webhookSubscription.create({
      data: {
        id: randomUUID(),
        establishment_id: estId,
        livemode: true,
        url: 'https://93.184.216.34/hook',
        events: ['record.created'],
        secret: 'whsec_new',
        previous_secret: 'whsec_old',
        previous_secret_expires_at: new Date('2026-11-24T10:00:00.000Z'),
      },
    });
    const event = await db.event.create({
      data: { id: randomUUID(), establishment_id: estId, livemode: true, type: 'record.created', payload: {} },
    });
    const delivery = await db.webhookDelivery.create({
      data: {
        id: randomUUID(),
        subscription_id: subscription.id,
        event_id: event.id,
        event_type: 'record.created',
        schedule_base: 6,
        attempt_rows: { create: { id: randomUUID(), attempt: 1, attempted_at: new Date(), duration_ms: 5 } },
      },
    });
    expect(delivery).toMatchObject({ status: 'pending', attempts: 0, schedule_base: 6, manual: false });
    expect(subscription.previous_secret_expires_at?.toISOString()).toBe('2026-11-24T10:00:00.000Z');
    expect(await db.record.count()).toBe(1);
    expect(await db.destination.count()).toBe(7);
    expect(await db.cause.count()).toBe(11);
  });

  it('enforces the data rules in the database as well', async () => {
    // An establishment of its own, with a live shift and a subscription in a secret rotation.
    const org = await db.organization.create({ data: { id: randomUUID(), name: 'Rules', plan: 'enterprise' } });
    const est = await db.establishment.create({
      data: { id: randomUUID(), organization_id: org.id, name: 'Rules', cif: 'B12345678', sector: 'retail' },
    });
    const shift = await db.shift.create({
      data: { id: randomUUID(), establishment_id: est.id, livemode: true, name: 'S', start_time: '08:00', end_time: '16:00' },
    });
    const subscription = await db.webhookSubscription.create({
      data: {
        id: randomUUID(),
        establishment_id: est.id,
        livemode: true,
        url: 'https://93.184.216.34/hook',
        events: ['record.created'],
        secret: 'whsec_new',
        previous_secret: 'whsec_old',
        previous_secret_expires_at: new Date('2026-11-24T10:00:00.000Z'),
      },
    });
    const destination = await db.destination.findFirstOrThrow();
    const base = {
      establishment_id: est.id,
      livemode: true,
      food_category: 'meat',
      weight_kg: '1',
      destino_id: destination.id,
      prev_hash: '0'.repeat(64),
      record_hash: 'a'.repeat(64),
      created_at: new Date(),
      occurred_at: new Date(),
    };
    await expect(db.record.create({ data: { ...base, id: randomUUID(), chain_seq: 50n, weight_kg: '0' } })).rejects.toThrow();
    await expect(db.record.create({ data: { ...base, id: randomUUID(), chain_seq: 51n, food_category: 'candy' } })).rejects.toThrow();
    // A previous webhook secret always has its expiry, and the reverse.
    await expect(
      db.webhookSubscription.update({ where: { id: subscription.id }, data: { previous_secret_expires_at: null } }),
    ).rejects.toThrow();
    await expect(db.webhookSubscription.update({ where: { id: subscription.id }, data: { previous_secret: null } })).rejects.toThrow();
    // A shift of the live mode cannot be referenced by a test-mode record.
    await expect(
      db.record.create({ data: { ...base, id: randomUUID(), chain_seq: 52n, livemode: false, shift_id: shift.id } }),
    ).rejects.toThrow();
    // A product's prices keep the advice's critical ratio a share: no negative amount, no cost above
    // the price, no leftover worth more than its cost. The same prices in order are stored.
    const product = (ean: string, prices: Record<string, string | null>) =>
      db.product.create({ data: { id: randomUUID(), organization_id: org.id, name: ean, food_category: 'bakery', ean, ...prices } });
    await expect(product('8410000000061', { price: '-1' })).rejects.toThrow(/products_price_check/);
    await expect(product('8410000000078', { price: '1', unit_cost: '1.5' })).rejects.toThrow(/products_unit_cost_check/);
    await expect(product('8410000000085', { price: '2', unit_cost: '1', salvage_value: '1.5' })).rejects.toThrow(
      /products_salvage_value_check/,
    );
    await expect(product('8410000000092', { price: '2', unit_cost: '1', salvage_value: '0.5' })).resolves.toMatchObject({
      ean: '8410000000092',
    });
    // A density, when given, is above zero (a volume is weighed with it).
    await expect(product('8410000000108', { density_kg_per_l: '0' })).rejects.toThrow(/products_density_kg_per_l_check/);
    await expect(product('8410000000115', { density_kg_per_l: '-1.03' })).rejects.toThrow(/products_density_kg_per_l_check/);
  });

  it('refuses to start when an applied migration file was edited', async () => {
    await withFreshDatabase(async (fresh) => {
      await migrate(fresh.url);
      const client = new pg.Client({ connectionString: fresh.url });
      await client.connect();
      try {
        await client.query(`UPDATE "_prisma_migrations" SET checksum = $1`, ['0'.repeat(64)]);
      } finally {
        await client.end();
      }
      await expect(migrate(fresh.url)).rejects.toThrow(/modified after it was applied/);
    });
  });
});

// ---------------------------------------------------------------------------------------------
// Upgrading a database that holds data

/** A directory holding copies of the first `count` migrations (same files, so the same checksums). */
function firstMigrations(count: number): { dir: string; names: string[]; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'merma-migrations-'));
  const chosen = readMigrations().slice(0, count);
  for (const m of chosen) {
    mkdirSync(join(dir, m.name));
    writeFileSync(join(dir, m.name, 'migration.sql'), m.sql);
  }
  return { dir, names: chosen.map((m) => m.name), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * The record hash as the first version of the service wrote it (hash.ts at the first migration):
 * SHA-256 of the previous hash and the JSON of these 15 fields, keys sorted. Kept frozen here so
 * that a change of the definition that breaks stored chains fails this test.
 */
const FIRST_HASHED_KEYS = [
  'causa_id',
  'created_at',
  'destino_id',
  'establishment_id',
  'food_category',
  'id',
  'livemode',
  'notes',
  'photo_url',
  'product_name',
  'session_id',
  'shift_id',
  'source',
  'waste_stage',
  'weight_kg',
] as const;
type FirstRecord = Record<(typeof FIRST_HASHED_KEYS)[number], string | number | boolean | null>;
const firstVersionHash = (prev: string, r: FirstRecord) =>
  createHash('sha256')
    .update(prev + `{${FIRST_HASHED_KEYS.map((k) => `${JSON.stringify(k)}:${JSON.stringify(r[k])}`).join(',')}}`)
    .digest('hex');

describe('upgrading a database that holds data', () => {
  let old: TestDatabase;
  let sql: pg.Client;
  const q = async <T = Record<string, unknown>>(text: string, values: unknown[] = []) => (await sql.query(text, values)).rows as T[];
  afterAll(async () => {
    await sql?.end();
    await old?.drop();
  });

  it('keeps rows written under the first schema through every later migration, with sensible new columns and a chain that verifies', async () => {
    old = await createTestDatabase();
    const all = readMigrations().map((m) => m.name);
    sql = new pg.Client({ connectionString: old.url });
    await sql.connect();

    /** Every row of each table as JSON, in a stable order. */
    const dump = async (tables: string[]) => {
      const out: Record<string, Record<string, unknown>[]> = {};
      for (const table of tables) {
        const rows = await q<{ row: Record<string, unknown> }>(`SELECT to_jsonb(t) AS row FROM ${table} t ORDER BY to_jsonb(t)::text`);
        out[table] = rows.map((r) => r.row);
      }
      return out;
    };
    /** The columns of each row of `after` that `before` did not have, with their values. */
    const added = (before: Record<string, unknown>[] | undefined, after: Record<string, unknown>[] | undefined) =>
      (after ?? []).map((row, i) => Object.fromEntries(Object.entries(row).filter(([column]) => !(column in ((before ?? [])[i] ?? {})))));

    // 1. The first schema only, and data as the first version wrote it.
    const first = firstMigrations(1);
    try {
      expect((await migrate(old.url, first.dir)).applied).toEqual(first.names);
    } finally {
      first.remove();
    }
    const org = randomUUID();
    const est = randomUUID();
    const keyId = randomUUID();
    const key = `svc_test_${'Ab3'.repeat(10)}xy`;
    const shift = randomUUID();
    const session = randomUUID();
    await q(
      `INSERT INTO organizations (id, name, plan, admin_email, created_at) VALUES ($1, 'Grupo Fogón', 'enterprise', 'jefa@fogon.test', '2026-01-05T09:00:00Z')`,
      [org],
    );
    await q(
      `INSERT INTO establishments (id, organization_id, name, cif, sector, timezone, created_at)
       VALUES ($1, $2, 'Fogón Centro', 'B12345678', 'horeca', 'Europe/Madrid', '2026-01-05T09:00:00Z')`,
      [est, org],
    );
    await q(
      `INSERT INTO api_keys (id, establishment_id, livemode, key_hash, prefix, last4, permissions, created_at)
       VALUES ($1, $2, false, $3, 'svc_test_', $4, ARRAY['*'], '2026-01-05T09:00:00Z')`,
      [keyId, est, createHash('sha256').update(key).digest('hex'), key.slice(-4)],
    );
    await q(
      `INSERT INTO products (id, organization_id, name, food_category, ean) VALUES ($1, $2, 'Yogur natural', 'dairy', '4006381333931')`,
      [randomUUID(), org],
    );
    await q(
      `INSERT INTO shifts (id, establishment_id, livemode, name, start_time, end_time) VALUES ($1, $2, false, 'Mañana', '08:00', '16:00')`,
      [shift, est],
    );
    await q(
      `INSERT INTO sessions (id, establishment_id, livemode, name, shift_id, status, started_at, completed_at, record_count, total_kg)
       VALUES ($1, $2, false, 'Cierre', $3, 'completed', '2026-01-06T15:00:00Z', '2026-01-06T15:30:00Z', 2, 3.625)`,
      [session, est, shift],
    );
    const records: (FirstRecord & { chain_seq: number })[] = [
      { food_category: 'meat', weight_kg: 1.5, causa_id: CAUSA_CADUCIDAD, notes: 'caducado 👩🏽‍🍳', shift_id: shift, session_id: session },
      { food_category: 'dairy', weight_kg: 2.125, causa_id: null, notes: null, shift_id: shift, session_id: session },
      { food_category: 'bakery', weight_kg: 0.75, causa_id: null, notes: 'pan de ayer', shift_id: null, session_id: null },
      { food_category: 'fish', weight_kg: 4, causa_id: null, notes: null, shift_id: null, session_id: null, livemode: true },
    ].map((r, i) => ({
      id: randomUUID(),
      establishment_id: est,
      livemode: false,
      destino_id: i === 2 ? DESTINO_LANDFILL : DESTINO_DONATION,
      product_name: i === 0 ? 'Solomillo' : null,
      waste_stage: i === 1 ? 'storage' : null,
      photo_url: null,
      source: 'api',
      created_at: `2026-01-06T1${i}:00:00.000Z`,
      ...r,
      chain_seq: 0,
    }));
    const heads = new Map<boolean, { seq: number; last: string; prev: string | null }>();
    for (const r of records) {
      const head = heads.get(r.livemode as boolean) ?? { seq: 0, last: '0'.repeat(64), prev: null };
      const hash = firstVersionHash(head.last, r);
      r.chain_seq = head.seq + 1;
      await q(
        `INSERT INTO records (id, establishment_id, livemode, chain_seq, food_category, weight_kg, destino_id, causa_id, product_name,
           waste_stage, shift_id, session_id, notes, photo_url, source, prev_hash, record_hash, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`,
        [
          r.id,
          r.establishment_id,
          r.livemode,
          r.chain_seq,
          r.food_category,
          r.weight_kg,
          r.destino_id,
          r.causa_id,
          r.product_name,
          r.waste_stage,
          r.shift_id,
          r.session_id,
          r.notes,
          r.photo_url,
          r.source,
          head.last,
          hash,
          r.created_at,
        ],
      );
      heads.set(r.livemode as boolean, { seq: r.chain_seq, last: hash, prev: head.last });
    }
    for (const [livemode, head] of heads) {
      await q(`INSERT INTO record_chain_heads (establishment_id, livemode, seq, last_hash, prev_hash) VALUES ($1, $2, $3, $4, $5)`, [
        est,
        livemode,
        head.seq,
        head.last,
        head.prev,
      ]);
    }
    await q(
      `INSERT INTO idempotency_keys (id, establishment_id, livemode, key, fingerprint, status_code, response_body)
       VALUES ($1, $2, false, 'pedido-1', $3, 201, '{"success":true}')`,
      [randomUUID(), est, 'c'.repeat(64)],
    );

    const firstTables = [
      'organizations',
      'establishments',
      'api_keys',
      'products',
      'shifts',
      'sessions',
      'records',
      'record_chain_heads',
      'idempotency_keys',
    ];
    const beforeFirst = await dump(firstTables);

    // 2. Up to the webhook deliveries (the fan-out trigger era): a subscription, two events — one it
    // listens to, which the trigger queued a webhooks.fanout job for — and a delivery with its attempt.
    const upToDeliveries = firstMigrations(all.indexOf('20261123040000_deliveries') + 1);
    try {
      expect((await migrate(old.url, upToDeliveries.dir)).applied).toEqual(upToDeliveries.names.slice(1));
    } finally {
      upToDeliveries.remove();
    }
    const sub = randomUUID();
    const listened = randomUUID();
    const unlistened = randomUUID();
    const delivery = randomUUID();
    await q(
      `INSERT INTO webhook_subscriptions (id, establishment_id, livemode, url, events, secret, description, created_at)
       VALUES ($1, $2, false, 'https://93.184.216.34/hook', ARRAY['record.created'], 'whsec_old_secret', 'ERP', '2026-01-06T09:00:00Z')`,
      [sub, est],
    );
    const payload = (id: string) => JSON.stringify({ event: 'record.created', timestamp: '2026-01-06T10:00:00.000Z', data: { id } });
    await q(
      `INSERT INTO events (id, establishment_id, livemode, type, payload, created_at) VALUES
         ($1, $3, false, 'record.created', $4::jsonb, '2026-01-06T10:00:00Z'),
         ($2, $3, false, 'session.completed', '{"event":"session.completed"}'::jsonb, '2026-01-06T15:30:00Z')`,
      [listened, unlistened, est, payload(String(records[0]?.id))],
    );
    expect(await q(`SELECT task_identifier FROM graphile_worker.jobs`)).toEqual([{ task_identifier: 'webhooks.fanout' }]);
    await q(
      `INSERT INTO webhook_deliveries (id, subscription_id, event_id, event_type, status, attempts, created_at, completed_at)
       VALUES ($1, $2, $3, 'record.created', 'succeeded', 1, '2026-01-06T10:00:01Z', '2026-01-06T10:00:02Z')`,
      [delivery, sub, listened],
    );
    await q(
      `INSERT INTO webhook_delivery_attempts (id, delivery_id, attempt, attempted_at, response_status, duration_ms)
       VALUES ($1, $2, 1, '2026-01-06T10:00:01Z', 200, 42)`,
      [randomUUID(), delivery],
    );
    await q(
      `INSERT INTO inbound_events (id, establishment_id, livemode, event, source, external_ref, record_id, payload)
       VALUES ($1, $2, false, 'waste.created', 'erp', 'x-1', $3, '{"source":"erp"}')`,
      [randomUUID(), est, records[2]?.id],
    );

    // 3. Every later migration over that data.
    const laterTables = ['webhook_subscriptions', 'events', 'webhook_deliveries', 'webhook_delivery_attempts', 'inbound_events'];
    const beforeLater = await dump(laterTables);
    const rest = await migrate(old.url);
    expect(rest.applied).toEqual(all.slice(all.indexOf('20261123040000_deliveries') + 1));
    const afterFirst = await dump(firstTables);
    const afterLater = await dump(laterTables);

    // Every column that existed keeps its value (the stored Idempotency-Key answers excepted: they
    // named no API key and were kept in clear, so the key-scoping migration deletes them)...
    expect(afterFirst.idempotency_keys).toEqual([]);
    for (const table of firstTables.filter((table) => table !== 'idempotency_keys')) {
      expect(afterFirst[table], table).toMatchObject(beforeFirst[table] as Record<string, unknown>[]);
    }
    for (const table of laterTables) expect(afterLater[table], table).toMatchObject(beforeLater[table] as Record<string, unknown>[]);
    // ...and the columns added since hold what they mean for old rows.
    const addedFirst = Object.fromEntries(firstTables.map((table) => [table, added(beforeFirst[table], afterFirst[table])]));
    expect(addedFirst).toEqual({
      // The size and premises "am I obliged?" rests on are not known for old rows: the answer says they are missing.
      organizations: [{ canceled_at: null, headcount: null, annual_turnover_eur: null, balance_sheet_eur: null }],
      establishments: [{ nace_code: null, floor_area_m2: null }],
      api_keys: [{ name: '', created_by: null, last_used_at: null }],
      // A product stored before prices existed has none: its advice keeps the waste rule; and it is active.
      products: [
        {
          pos_ref: null,
          unit_weight_kg: null,
          density_kg_per_l: null,
          price: null,
          unit_cost: null,
          salvage_value: null,
          deactivated_at: null,
        },
      ],
      // A shift that existed before archiving did is active.
      shifts: [{ archived_at: null }],
      sessions: [{}],
      // A record stored before occurred_at existed happened when it was stored.
      // A record stored before records named their product names none (and hashes as it did).
      // A record stored before undos existed voids nothing (and hashes as it did).
      records: (afterFirst.records as { created_at: Date }[]).map((r) => ({
        supersedes_id: null,
        superseded_by: null,
        occurred_at: r.created_at,
        product_id: null,
        voided: false,
        // Nor said how it was measured, edible or its tare (and hashes as it did).
        measurement_method: null,
        scale_id: null,
        estimated: null,
        edible: null,
        tare_kg: null,
        // Nor justified a step of the hierarchy.
        hierarchy_reason: null,
        hierarchy_note: null,
        // Nor said a transfer document.
        transfer_document_ref: null,
      })),
      record_chain_heads: [{}, {}],
      idempotency_keys: [],
    });
    expect(added(beforeLater.webhook_subscriptions, afterLater.webhook_subscriptions)).toEqual([
      { previous_secret: null, previous_secret_expires_at: null, deactivation_reason: null },
    ]);
    // An answer stored before answers were kept is unknown, not empty.
    expect(added(beforeLater.webhook_delivery_attempts, afterLater.webhook_delivery_attempts)).toEqual([
      { response_body: null, response_body_truncated: false },
    ]);
    expect(added(beforeLater.webhook_deliveries, afterLater.webhook_deliveries)).toEqual([{ schedule_base: 0 }]);
    // The event whose fan-out job was still queued waits for dispatch again (that job is retired);
    // the other counts as dispatched when it was written.
    const events = await q<{ id: string; dispatched_at: Date | null; created_at: Date }>(
      `SELECT id::text, dispatched_at, created_at FROM events`,
    );
    expect(events.find((e) => e.id === listened)?.dispatched_at).toBeNull();
    const other = events.find((e) => e.id === unlistened);
    expect(other?.dispatched_at?.toISOString()).toBe(other?.created_at.toISOString());
    expect(await q(`SELECT task_identifier FROM graphile_worker.jobs`)).toEqual([]);

    // The chains written by the first version verify with today's verifier.
    const db = createPrisma(old.url, 2);
    try {
      expect(await verifyAllChains(db)).toEqual([
        { establishment_id: est, livemode: false, checked: 3, valid: true, first_invalid: null },
        { establishment_id: est, livemode: true, checked: 1, valid: true, first_invalid: null },
      ]);

      // Dispatching the re-queued event creates nothing twice: its delivery exists.
      const pool = new pg.Pool({ connectionString: old.url, max: 1 });
      try {
        expect(await dispatchEvents({ pool, clock: () => new Date() })).toEqual({ events: 1, deliveries: 0 });
      } finally {
        await pool.end();
      }
      expect(await q(`SELECT id::text FROM webhook_deliveries WHERE event_id = $1`, [listened])).toEqual([{ id: delivery }]);

      // The service runs on the upgraded database: the old key works, old records read back as
      // stored, and a new record extends the old chain.
      const app = await buildTestApp({ config: testConfig(), db });
      try {
        const client = api(app, key);
        const listed = await client.get('/api/v1/records', { query: { from: '2026-01-01' } });
        expect(listed.statusCode).toBe(200);
        expect(listed.json().data.map((r: { id: string; notes: string | null }) => [r.id, r.notes])).toEqual(
          records
            .filter((r) => !r.livemode)
            .reverse()
            .map((r) => [r.id, r.notes]),
        );
        const created = await client.post('/api/v1/records', { food_category: 'meat', weight_kg: 1, destino_id: DESTINO_DONATION });
        expect(created.statusCode).toBe(201);
        expect((await client.get('/api/v1/records/verify')).json().data).toMatchObject({
          valid: true,
          checked: 4,
          head_hash: created.json().data.record_hash,
        });
        expect(await q(`SELECT prev_hash FROM records WHERE id = $1`, [created.json().data.id])).toEqual([
          { prev_hash: heads.get(false)?.last },
        ]);
      } finally {
        await app.close();
      }
    } finally {
      await db.$disconnect();
    }
  });
});
