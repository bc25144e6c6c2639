import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importProducts } from '../src/admin/service.js';
import { addKey, api, createTenant, startTestApp, type Tenant, type TestContext } from './helpers.js';
import { rng } from './series.js';

/**
 * The production advice's service level (`/api/v1/predict/settings`): its default, setting it and
 * going back to the default, its refusals (nothing stored), its permissions and scope, and what
 * the advice does with it — a product without prices aims at it, one with prices does not.
 */

const NOW = new Date('2026-11-24T10:00:00.000Z');
const HISTORY = 84;
const day = (i: number) => new Date(Date.UTC(2026, 10, 24 - HISTORY + i)).toISOString().slice(0, 10);
const WEEKDAY = [90, 35, 30, 35, 40, 60, 85];

let t: TestContext;

beforeAll(async () => {
  t = await startTestApp({ clock: () => NOW });
});
afterAll(() => t?.close());

const send = (key: string, method: 'GET' | 'PUT', body?: unknown) =>
  t.app.inject({
    method,
    url: '/api/v1/predict/settings',
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });

const stored = (tenant: Tenant) =>
  t.db.$queryRawUnsafe<{ livemode: boolean; service_level: string }[]>(
    'SELECT livemode, service_level::text FROM production_settings WHERE establishment_id = $1::uuid',
    tenant.establishmentId,
  );

describe('/api/v1/predict/settings', () => {
  it('answers the default until set, stores a level rounded to hundredths, and goes back to the default with null', async () => {
    const tenant = await createTenant(t.db);
    const first = await send(tenant.key, 'GET');
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().data).toEqual({ service_level: 0.85, is_default: true, updated_at: null });

    const set = await send(tenant.key, 'PUT', { service_level: 0.904 });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json().data).toEqual({ service_level: 0.9, is_default: false, updated_at: NOW.toISOString() });
    expect(await stored(tenant)).toEqual([{ livemode: false, service_level: '0.90' }]);
    expect((await send(tenant.key, 'GET')).json().data.service_level).toBe(0.9);
    // Set again: the one row changes.
    expect((await send(tenant.key, 'PUT', { service_level: 0.7 })).json().data.service_level).toBe(0.7);
    expect(await stored(tenant)).toEqual([{ livemode: false, service_level: '0.70' }]);

    const reset = await send(tenant.key, 'PUT', { service_level: null });
    expect(reset.statusCode).toBe(200);
    expect(reset.json().data).toEqual({ service_level: 0.85, is_default: true, updated_at: null });
    expect(await stored(tenant)).toEqual([]);
  });

  it.each([
    ['below 0.5', { service_level: 0.49 }],
    ['above 0.99', { service_level: 0.995 }],
    ['a percentage', { service_level: 90 }],
    ['a string', { service_level: '0.9' }],
    ['missing', {}],
    ['an unknown field', { service_level: 0.9, quantile: 0.9 }],
  ])('refuses %s with a 400 and stores nothing', async (_, body) => {
    const tenant = await createTenant(t.db);
    const res = await send(tenant.key, 'PUT', body);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({ status: 400, code: 'validation_error' });
    expect(await stored(tenant)).toEqual([]);
  });

  it('needs predict:read to read and predict:write to set, and keeps each mode and establishment apart', async () => {
    const reader = await createTenant(t.db, { permissions: 'predict:read' });
    expect((await send(reader.key, 'GET')).statusCode).toBe(200);
    const refused = await send(reader.key, 'PUT', { service_level: 0.9 });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: 'forbidden' });
    expect(await stored(reader)).toEqual([]);

    const test = await createTenant(t.db);
    // The same establishment's live key.
    const live = await addKey(t.db, test.establishmentId, 'live');
    const other = await createTenant(t.db);
    expect((await send(test.key, 'PUT', { service_level: 0.6 })).statusCode).toBe(200);
    expect((await send(live.key, 'GET')).json().data).toMatchObject({ service_level: 0.85, is_default: true });
    expect((await send(other.key, 'GET')).json().data).toMatchObject({ service_level: 0.85, is_default: true });
    expect((await send(test.key, 'GET')).json().data).toMatchObject({ service_level: 0.6, is_default: false });
  });
});

describe('the advice aims at the service level', () => {
  let bakery: Tenant;

  beforeAll(async () => {
    bakery = await createTenant(t.db);
    // A loaf without prices, a croissant with (€1.20, costing €0.40: the critical ratio, 67 %).
    await importProducts(t.db, {
      org: bakery.organizationId,
      csv: 'name;food_category;ean;price;unit_cost\nPan;bakery;8410000000016;;\nCroissant;bakery;8410000000023;1.20;0.40\n',
    });
    const products = await t.db.product.findMany({ where: { organization_id: bakery.organizationId } });
    const r = rng(5);
    const sales: object[] = [];
    for (let i = 0; i < HISTORY; i++) {
      const weekday = new Date(`${day(i)}T12:00:00Z`).getUTCDay();
      for (const p of products)
        sales.push({ product_id: p.id, quantity: Math.round((WEEKDAY[weekday] as number) + (r() - 0.5) * 20), sold_at: day(i) });
    }
    const res = await api(t.app, bakery.key).post('/api/v1/webhooks/inbound', {
      event: 'sales.recorded',
      payload: { source: 'tpv', sales },
    });
    expect(res.statusCode, res.body).toBe(200);
  });

  type Product = { product_name: string; advice: { quantile: number; reason: string; prices: unknown }; points: { advised: number }[] };
  const advice = async () => {
    const res = await api(t.app, bakery.key).get('/api/v1/predict?type=demand&horizon=1');
    expect(res.statusCode, res.body).toBe(200);
    const products: Product[] = res.json().data.products;
    return Object.fromEntries(products.map((p) => [p.product_name, p]));
  };

  it('moves the quantile and the quantity of a product without prices, and says why; not those of a priced one', async () => {
    const before = await advice();
    expect(before.Pan?.advice).toMatchObject({
      quantile: 0.85,
      reason: 'waste of this product in its sales unit unknown: the 85 % quantile',
      prices: null,
    });
    expect(before.Croissant?.advice.quantile).toBe(0.67);

    expect((await send(bakery.key, 'PUT', { service_level: 0.6 })).statusCode).toBe(200);
    const lower = await advice();
    expect(lower.Pan?.advice).toMatchObject({
      quantile: 0.6,
      reason: "waste of this product in its sales unit unknown: the 60 % quantile, the establishment's service level",
    });
    expect(lower.Pan?.points[0]?.advised).toBeLessThan(before.Pan?.points[0]?.advised as number);
    // Prices decide for the croissant, whatever the level.
    expect(lower.Croissant?.advice).toEqual(before.Croissant?.advice);
    expect(lower.Croissant?.points[0]?.advised).toBe(before.Croissant?.points[0]?.advised);

    expect((await send(bakery.key, 'PUT', { service_level: 0.95 })).statusCode).toBe(200);
    const higher = await advice();
    expect(higher.Pan?.advice.quantile).toBe(0.95);
    expect(higher.Pan?.points[0]?.advised).toBeGreaterThan(before.Pan?.points[0]?.advised as number);
    expect((await send(bakery.key, 'PUT', { service_level: null })).statusCode).toBe(200);
    expect((await advice()).Pan?.advice.quantile).toBe(0.85);
  });
});
