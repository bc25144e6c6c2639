import { randomUUID } from 'node:crypto';
import { addDays } from '@merma/schema';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importProducts } from '../src/admin/service.js';
import { OLDEST_OVER_EVENTS, PURGE_BATCH, purgeExpired } from '../src/modules/retention/purge.js';
import { createMember } from './dashboard-client.js';
import { createTenant, startTestApp, subscribe, type Tenant, type TestContext } from './helpers.js';

/**
 * The retention job on a real database: what is over and old goes, in batches; what is still
 * needed stays — pending deliveries however old, recent rows, records.
 */
let t: TestContext;
let tenant: Tenant;
let pool: pg.Pool;
const T0 = new Date('2026-06-01T12:00:00.000Z');
const day = 86_400_000;
const at = (days: number) => new Date(T0.getTime() + days * day);

beforeAll(async () => {
  t = await startTestApp({ config: { WEBHOOKS_ALLOW_PRIVATE: 'true' }, clock: () => T0 });
  tenant = await createTenant(t.db);
  pool = new pg.Pool({ connectionString: t.database.url, max: 2 });
});
afterAll(async () => {
  await pool?.end();
  await t?.close();
});

async function event(createdAt: Date, deliveries: { subscription: string; status: 'pending' | 'succeeded' | 'failed' }[] = []) {
  const id = randomUUID();
  await t.db.$executeRaw`INSERT INTO events (id, establishment_id, livemode, type, payload, created_at, dispatched_at)
    VALUES (${id}::uuid, ${tenant.establishmentId}::uuid, false, 'record.created', '{}'::jsonb, ${createdAt}, ${createdAt})`;
  for (const d of deliveries) {
    const delivery = randomUUID();
    await t.db.$executeRaw`INSERT INTO webhook_deliveries (id, subscription_id, event_id, event_type, status, created_at, completed_at)
      VALUES (${delivery}::uuid, ${d.subscription}::uuid, ${id}::uuid, 'record.created', ${d.status}, ${createdAt},
        ${d.status === 'pending' ? null : createdAt})`;
    await t.db.$executeRaw`INSERT INTO webhook_delivery_attempts (id, delivery_id, attempt, attempted_at, response_status, duration_ms)
      VALUES (${randomUUID()}::uuid, ${delivery}::uuid, 1, ${createdAt}, ${d.status === 'succeeded' ? 200 : 500}, 12)`;
  }
  return id;
}

const count = async (table: string) => Number((await pool.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n);

describe('retention.purge', () => {
  it('deletes what is over and old, in batches, and keeps what is still needed', async () => {
    const subscription = (await subscribe(t, tenant, 'https://127.0.0.1:9/hook', ['record.created'])).id;
    // Events of 40 days ago: delivered, failed for good, still retrying, and one nobody listened to.
    const delivered = await event(at(-40), [{ subscription, status: 'succeeded' }]);
    const failed = await event(at(-40), [{ subscription, status: 'failed' }]);
    const retrying = await event(at(-40), [{ subscription, status: 'pending' }]);
    const unheard = await event(at(-40));
    const recent = await event(at(-10), [{ subscription, status: 'succeeded' }]);
    // More old events than one batch, without deliveries.
    await t.db.$executeRaw`INSERT INTO events (id, establishment_id, livemode, type, payload, created_at, dispatched_at)
      SELECT gen_random_uuid(), ${tenant.establishmentId}::uuid, false, 'record.created', '{}'::jsonb, ${at(-35)}, ${at(-35)}
      FROM generate_series(1, ${PURGE_BATCH * 2 + 5})`;
    // Not dispatched yet: the dispatcher still owes it, however old.
    const waiting = randomUUID();
    await t.db.$executeRaw`INSERT INTO events (id, establishment_id, livemode, type, payload, created_at)
      VALUES (${waiting}::uuid, ${tenant.establishmentId}::uuid, false, 'record.created', '{}'::jsonb, ${at(-60)})`;

    // Idempotency keys of 25 and 23 hours ago.
    for (const hoursAgo of [25, 23]) {
      await t.db.idempotencyKey.create({
        data: {
          id: randomUUID(),
          establishment_id: tenant.establishmentId,
          livemode: false,
          api_key_id: tenant.keyId,
          key: `k-${hoursAgo}`,
          fingerprint: '0'.repeat(64),
          status_code: 201,
          response_body: '{}',
          created_at: new Date(T0.getTime() - hoursAgo * 3_600_000),
        },
      });
    }
    // Inbound event ids of 31 and 29 days ago.
    for (const daysAgo of [31, 29]) {
      await t.db.inboundEvent.create({
        data: {
          id: randomUUID(),
          establishment_id: tenant.establishmentId,
          livemode: false,
          event: 'waste.created',
          source: 'erp',
          external_ref: `ev-${daysAgo}`,
          payload: {},
          created_at: at(-daysAgo),
        },
      });
    }
    // Dashboard sessions that ended 8 and 6 days ago.
    const user = await createMember(t.db, tenant.organizationId, 'viewer');
    for (const daysAgo of [8, 6]) {
      await t.db.userSession.create({
        data: {
          id: randomUUID(),
          token_hash: randomUUID().replaceAll('-', '').padEnd(64, '0'),
          user_id: user.id,
          organization_id: tenant.organizationId,
          expires_at: at(-daysAgo),
        },
      });
    }
    // Sale lines and daily totals 402 and 401 days back: the first is past RETENTION_SALES_DAYS (400)
    // and its day of margin, the second is kept.
    await importProducts(t.db, { org: tenant.organizationId, csv: 'name;food_category;ean\nPan;bakery;8410000000016\n' });
    const product = (await t.db.product.findFirstOrThrow({ where: { organization_id: tenant.organizationId } })).id;
    for (const daysAgo of [402, 401]) {
      const saleDay = addDays(T0.toISOString().slice(0, 10), -daysAgo);
      await t.db
        .$executeRaw`INSERT INTO sales (id, establishment_id, livemode, product_id, source, external_ref, quantity, unit, sold_at, day)
        VALUES (${randomUUID()}::uuid, ${tenant.establishmentId}::uuid, false, ${product}::uuid, 'tpv', ${`s-${daysAgo}`}, 3, 'unit',
          ${at(-daysAgo)}, ${saleDay}::date)`;
      await t.db.$executeRaw`INSERT INTO sale_day_totals (establishment_id, livemode, product_id, day, units, kg, lines)
        VALUES (${tenant.establishmentId}::uuid, false, ${product}::uuid, ${saleDay}::date, 3, 0, 1)`;
    }
    const recordsBefore = await count('records');

    const report = await purgeExpired({ pool, clock: () => T0 }, { eventDays: 30, inboundDedupeDays: 30, salesDays: 400 });
    expect(report).toEqual({
      idempotency_keys: 1,
      events: 3 + PURGE_BATCH * 2 + 5,
      deliveries: 2,
      inbound_events: 1,
      verification_runs: 0,
      account_rows: 1,
      sales: 1,
      sale_day_totals: 1,
    });

    const left = (await pool.query<{ id: string }>('SELECT id::text FROM events')).rows.map((r) => r.id);
    expect(left.sort()).toEqual([retrying, recent, waiting].sort());
    expect(left).not.toContain(delivered);
    expect(left).not.toContain(failed);
    expect(left).not.toContain(unheard);
    expect(await count('webhook_deliveries')).toBe(2);
    expect(await count('webhook_delivery_attempts')).toBe(2); // the deleted deliveries' attempts went with them
    expect((await pool.query('SELECT key FROM idempotency_keys')).rows).toEqual([{ key: 'k-23' }]);
    expect((await pool.query('SELECT external_ref FROM inbound_events')).rows).toEqual([{ external_ref: 'ev-29' }]);
    expect(await t.db.userSession.count({ where: { user_id: user.id } })).toBe(1);
    expect(await count('records')).toBe(recordsBefore);
    expect((await pool.query('SELECT external_ref FROM sales')).rows).toEqual([{ external_ref: 's-401' }]);
    expect((await pool.query("SELECT to_char(day, 'YYYY-MM-DD') AS day FROM sale_day_totals")).rows).toEqual([
      { day: addDays(T0.toISOString().slice(0, 10), -401) },
    ]);

    // A second run finds nothing more.
    expect(await purgeExpired({ pool, clock: () => T0 }, { eventDays: 30, inboundDedupeDays: 30, salesDays: 400 })).toEqual({
      idempotency_keys: 0,
      events: 0,
      deliveries: 0,
      inbound_events: 0,
      verification_runs: 0,
      account_rows: 0,
      sales: 0,
      sale_day_totals: 0,
    });
  });

  it('reads each batch of old events through their index, not the whole table sorted', async () => {
    // The planner's own choice depends on the table's size: with scans and sorts discouraged, a
    // plan that still needs one says there is no index giving the batch in its order.
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SET LOCAL enable_seqscan = off');
      await client.query('SET LOCAL enable_sort = off');
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${OLDEST_OVER_EVENTS}`, [at(0)]);
      const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
      expect(plan).toMatch(/Index (Only )?Scan using events_dispatched_idx on events/);
      expect(plan).not.toMatch(/Sort|Seq Scan on events/);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });
});
