import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { poolOf } from '../src/db/client.js';
import { sqlOfPool } from '../src/db/sql.js';
import { predictDemand } from '../src/modules/predict/demand.js';
import { DEFAULT_DEMAND_HORIZON, queueEveningForecasts } from '../src/modules/predict/evening.js';
import { seedKitchen } from './forecast-fixture.js';
import { addKey, api, authOf, createTenant, startTestApp, type Tenant, type TestContext } from './helpers.js';

/**
 * The demand forecast kept in `demand_forecasts` (modules/predict/stored.ts) and precomputed in the
 * evening (modules/predict/evening.ts): served while it is what a computation would give, computed
 * again as soon as anything it depends on is written — and only that establishment's, in that mode.
 */
const TODAY = '2026-11-24';
const BEFORE_CLOSE = new Date(`${TODAY}T18:00:00.000Z`); // 19:00 in Madrid; the last shift ends at 22:00
const AFTER_CLOSE = new Date(`${TODAY}T21:30:00.000Z`); // 22:30 in Madrid
let now = BEFORE_CLOSE;
/** What a kept answer is marked with, to tell it from a computed one. */
const MARK = '1999-01-01T00:00:00.000Z';

describe('demand forecast kept and served from storage', () => {
  let t: TestContext;

  beforeAll(async () => {
    t = await startTestApp({ clock: () => now, worker: { clock: () => now } });
  });
  afterAll(() => t?.close());

  type Kitchen = Tenant & { testKey: string; products: string[] };
  /** An establishment with live sales (and a few test-mode ones), a live key and a test key. */
  async function kitchen(options: { organizationId?: string } = {}): Promise<Kitchen> {
    const tenant = await createTenant(t.db, { mode: 'live', ...options });
    const products = await seedKitchen(t.db, tenant, { products: 6, days: 90, today: TODAY, livemode: true });
    await seedKitchen(t.db, tenant, { products: 2, days: 30, today: TODAY, livemode: false, seed: 3 });
    const test = await addKey(t.db, tenant.establishmentId, 'test');
    return { ...tenant, testKey: test.key, products };
  }

  const demand = async (key: string, query = '') => {
    const res = await api(t.app, key).get(`/api/v1/predict?type=demand${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data;
  };
  const send = (key: string, method: 'PUT' | 'PATCH', url: string, body: unknown) =>
    t.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
  const fresh = (k: Kitchen, livemode = true) =>
    predictDemand({ sql: sqlOfPool(poolOf(t.db)), clock: () => now }, authOf(k, { livemode }), { horizon: DEFAULT_DEMAND_HORIZON });
  /** Marks the kept answer, so that a response carrying the mark was read from storage. */
  const mark = async (k: Kitchen, livemode = true) => {
    const { rowCount } = await poolOf(t.db).query(
      `UPDATE demand_forecasts SET answer = jsonb_set(answer::jsonb, '{generated_at}', to_jsonb($3::text))::json
       WHERE establishment_id = $1::uuid AND livemode = $2`,
      [k.establishmentId, livemode, MARK],
    );
    expect(rowCount).toBe(1);
  };
  const kept = async (k: Kitchen, livemode = true) =>
    (
      await poolOf(t.db).query('SELECT answer, computed_at FROM demand_forecasts WHERE establishment_id = $1::uuid AND livemode = $2', [
        k.establishmentId,
        livemode,
      ])
    ).rows[0];
  const sell = (key: string, product: string, quantity = 3) =>
    api(t.app, key)
      .post('/api/v1/webhooks/inbound', {
        event: 'sales.recorded',
        payload: { source: 'tpv', sales: [{ product_id: product, quantity, sold_at: `${TODAY}T12:00:00+01:00` }] },
      })
      .then((res) => expect(res.statusCode, res.body).toBe(200));
  async function at<T>(instant: Date, fn: () => Promise<T>): Promise<T> {
    const before = now;
    now = instant;
    try {
      return await fn();
    } finally {
      now = before;
    }
  }

  it('keeps what it computed, equal to a fresh computation, and serves it while nothing changes', async () => {
    const k = await kitchen();
    const first = await demand(k.key);
    expect(first.products).toHaveLength(6);
    expect(first).toEqual(await fresh(k));
    expect((await kept(k)).answer).toEqual(first);
    await mark(k);
    expect((await demand(k.key)).generated_at).toBe(MARK);
    // The dashboard's Forecast page reads the same kept answer (same service, same default horizon).
    expect((await demand(k.key, `&horizon=${DEFAULT_DEMAND_HORIZON}`)).generated_at).toBe(MARK);
    // A filtered answer is computed, never the kept one.
    expect((await demand(k.key, '&food_category=prepared_meals')).generated_at).toBe(now.toISOString());
  });

  it('computes again on the next request once a sale is received, and keeps that', async () => {
    const k = await kitchen();
    await sell(k.key, k.products[0] as string);
    // Another sale of a product that sold today (its day's total updated), then of one that had not (a new day's total).
    for (const product of [k.products[0], k.products[1]] as string[]) {
      await demand(k.key);
      await mark(k);
      await sell(k.key, product);
      const after = await demand(k.key);
      expect(after.generated_at).not.toBe(MARK);
      expect(after).toEqual(await fresh(k));
      expect((await kept(k)).answer).toEqual(after);
    }
  });

  // Each of the forecast's inputs, written through the API by the establishment's live key.
  const writes: [string, (k: Kitchen) => Promise<unknown>][] = [
    ['a shift', (k) => api(t.app, k.key).post('/api/v1/shifts', { name: 'noche', start_time: '22:00', end_time: '23:30' })],
    ['a closure', (k) => api(t.app, k.key).post('/api/v1/opening-calendar/closures', { starts_on: '2026-12-01', ends_on: '2026-12-02' })],
    ['the closed weekdays', (k) => send(k.key, 'PUT', '/api/v1/opening-calendar/weekdays', { closed_weekdays: ['sunday'] })],
    ['the service level', (k) => send(k.key, 'PUT', '/api/v1/predict/settings', { service_level: 0.9 })],
    ['a product price', (k) => send(k.key, 'PATCH', `/api/v1/products/${k.products[1]}`, { price: 9.5, unit_cost: 2 })],
    [
      'a waste record',
      (k) =>
        api(t.app, k.key).post('/api/v1/records', {
          food_category: 'prepared_meals',
          weight_kg: 1.2,
          destino_id: '6ccf7d29-f6d9-403d-a9b0-2f907f15477b',
          product_name: 'Plato 002',
        }),
    ],
  ];
  it.each(writes)('computes again after %s is written', async (_, write) => {
    const k = await kitchen();
    await demand(k.key);
    await mark(k);
    const res = (await write(k)) as { statusCode: number; body: string };
    expect(res.statusCode, res.body).toBeLessThan(300);
    const after = await demand(k.key);
    expect(after.generated_at).not.toBe(MARK);
    expect(after).toEqual(await fresh(k));
  });

  it('computes again when the day closes, and on the next local day', async () => {
    const k = await kitchen();
    await sell(k.key, k.products[0] as string); // today's sales are in: after 22:00 they count
    await demand(k.key);
    await mark(k);
    expect((await demand(k.key)).generated_at).toBe(MARK);
    await at(AFTER_CLOSE, async () => {
      const closed = await demand(k.key);
      expect(closed.generated_at).toBe(AFTER_CLOSE.toISOString());
      expect(closed.products[0].notes.map((n: { code: string }) => n.code)).toContain('today_included');
      expect(closed).toEqual(await fresh(k));
      await mark(k);
      // Later the same evening: still the same side of the close.
      now = new Date(`${TODAY}T22:50:00.000Z`);
      expect((await demand(k.key)).generated_at).toBe(MARK);
      now = new Date('2026-11-25T09:00:00.000Z');
      const tomorrow = await demand(k.key);
      expect(tomorrow.generated_at).toBe(now.toISOString());
      expect(tomorrow).toEqual(await fresh(k));
    });
  });

  it('never lets a test-mode write change the kept live answer', async () => {
    const k = await kitchen();
    await demand(k.key);
    await demand(k.testKey);
    await mark(k, true);
    await mark(k, false);
    await sell(k.testKey, k.products[0] as string);
    for (const [name, write] of writes.filter(([name]) => name !== 'a product price')) {
      const res = (await write({ ...k, key: k.testKey })) as { statusCode: number; body: string };
      expect(res.statusCode, `${name}: ${res.body}`).toBeLessThan(300);
    }
    expect((await demand(k.key)).generated_at).toBe(MARK);
    // The test mode's own answer is computed again.
    const test = await demand(k.testKey);
    expect(test.generated_at).not.toBe(MARK);
    expect(test).toEqual(await fresh(k, false));
  });

  it("never lets another organisation's writes change the kept answer", async () => {
    const k = await kitchen();
    const other = await kitchen();
    await demand(k.key);
    await demand(k.testKey);
    await mark(k, true);
    await mark(k, false);
    await sell(other.key, other.products[0] as string);
    await sell(other.testKey, other.products[0] as string);
    for (const [name, write] of writes) {
      const res = (await write(other)) as { statusCode: number; body: string };
      expect(res.statusCode, `${name}: ${res.body}`).toBeLessThan(300);
    }
    expect((await demand(k.key)).generated_at).toBe(MARK);
    expect((await demand(k.testKey)).generated_at).toBe(MARK);
  });

  it('a product change moves every establishment of its organisation, in both modes', async () => {
    const k = await kitchen();
    const sibling = await kitchen({ organizationId: k.organizationId });
    for (const x of [k, sibling]) {
      await demand(x.key);
      await demand(x.testKey);
      await mark(x, true);
      await mark(x, false);
    }
    const res = await send(k.key, 'PATCH', `/api/v1/products/${sibling.products[0]}`, { price: 3, unit_cost: 1 });
    expect(res.statusCode, res.body).toBe(200);
    for (const x of [k, sibling]) {
      expect((await demand(x.key)).generated_at).not.toBe(MARK);
      expect((await demand(x.testKey)).generated_at).not.toBe(MARK);
    }
  });

  it('precomputes the evening advice once the day is over and its sales are in, in a job per establishment', async () => {
    const k = await kitchen();
    const pool = poolOf(t.db);
    const queued = (): Promise<string[]> =>
      pool
        .query<{ key: string }>(`SELECT key FROM graphile_worker.jobs WHERE task_identifier = 'predict.demand' AND key LIKE $1`, [
          `demand:${k.establishmentId}:%`,
        ])
        .then((r) => r.rows.map((x) => x.key));
    await at(AFTER_CLOSE, async () => {
      // Today's sales not in yet (a POS that sends the day at night): nothing to precompute.
      await queueEveningForecasts({ pool, clock: () => now });
      expect(await queued()).toEqual([]);
      expect(await kept(k)).toBeUndefined();
    });
    await sell(k.key, k.products[0] as string);
    await at(BEFORE_CLOSE, async () => {
      await queueEveningForecasts({ pool, clock: () => now });
      expect(await queued()).toEqual([]);
    });
    await at(AFTER_CLOSE, async () => {
      await queueEveningForecasts({ pool, clock: () => now });
      // The live mode only: the test mode sold nothing today.
      await expect.poll(async () => (await kept(k))?.computed_at?.toISOString()).toBe(AFTER_CLOSE.toISOString());
      expect(await kept(k, false)).toBeUndefined();
      const served = await demand(k.key);
      expect(served.generated_at).toBe(AFTER_CLOSE.toISOString());
      expect(served).toEqual(await fresh(k));
      // Kept since the close: not queued again that evening.
      await expect.poll(queued).toEqual([]);
      await queueEveningForecasts({ pool, clock: () => now });
      expect(await queued()).toEqual([]);
    });
  });

  it('precomputes an establishment without shifts at 05:00 local time', async () => {
    const k = await kitchen();
    const pool = poolOf(t.db);
    await pool.query('DELETE FROM shifts WHERE establishment_id = $1::uuid', [k.establishmentId]);
    await at(new Date('2026-11-25T03:30:00.000Z'), async () => {
      await queueEveningForecasts({ pool, clock: () => now }); // 04:30 in Madrid
      expect(await kept(k)).toBeUndefined();
    });
    const five = new Date('2026-11-25T04:05:00.000Z');
    await at(five, async () => {
      await queueEveningForecasts({ pool, clock: () => now });
      await expect.poll(async () => (await kept(k))?.computed_at?.toISOString()).toBe(five.toISOString());
      await expect.poll(async () => (await kept(k, false))?.computed_at?.toISOString()).toBe(five.toISOString());
      expect(await demand(k.key)).toEqual(await fresh(k));
    });
  });
});
