import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrisma, type Db } from '../src/db/client.js';
import { migrate, readMigrations } from '../src/db/migrate.js';
import { createTestDatabase, type TestDatabase } from './helpers.js';

let database: TestDatabase;
let db: Db;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await db?.$disconnect();
  await database?.drop();
});

describe('migrations at boot', () => {
  it('applies every migration once, even when several replicas boot together', async () => {
    const results = await Promise.all([migrate(database.url), migrate(database.url), migrate(database.url)]);
    const applied = results.flatMap((r) => r.applied);
    const names = readMigrations().map((m) => m.name);
    expect(applied.sort()).toEqual([...names].sort());
    expect((await migrate(database.url)).applied).toEqual([]);
  });

  it('records them in _prisma_migrations as prisma migrate deploy does', async () => {
    db = createPrisma(database.url, 2);
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
      },
    });
    expect(Number(record.weight_kg)).toBe(2.125);
    await db.idempotencyKey.create({
      data: {
        id: randomUUID(),
        establishment_id: estId,
        livemode: true,
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
    const est = await db.establishment.findFirstOrThrow();
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
    };
    await expect(db.record.create({ data: { ...base, id: randomUUID(), chain_seq: 50n, weight_kg: '0' } })).rejects.toThrow();
    await expect(db.record.create({ data: { ...base, id: randomUUID(), chain_seq: 51n, food_category: 'candy' } })).rejects.toThrow();
    // A previous webhook secret always has its expiry, and the reverse.
    const subscription = await db.webhookSubscription.findFirstOrThrow();
    await expect(
      db.webhookSubscription.update({ where: { id: subscription.id }, data: { previous_secret_expires_at: null } }),
    ).rejects.toThrow();
    await expect(db.webhookSubscription.update({ where: { id: subscription.id }, data: { previous_secret: null } })).rejects.toThrow();
    // A shift of the live mode cannot be referenced by a test-mode record.
    const shift = await db.shift.findFirstOrThrow();
    await expect(
      db.record.create({ data: { ...base, id: randomUUID(), chain_seq: 52n, livemode: false, shift_id: shift.id } }),
    ).rejects.toThrow();
  });

  it('refuses to start when an applied migration file was edited', async () => {
    await db.$executeRaw`UPDATE "_prisma_migrations" SET checksum = ${'0'.repeat(64)}`;
    await expect(migrate(database.url)).rejects.toThrow(/modified after it was applied/);
  });
});
