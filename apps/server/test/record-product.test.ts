import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importProducts } from '../src/admin/service.js';
import { api, countRecords, createTenant, startTestApp, type Tenant, type TestContext, validRecord } from './helpers.js';

/**
 * A record may name its product (`product_id`): checked against the organisation's catalogue (a
 * 400 that stores nothing otherwise), stored, answered, hashed into the chain (which still
 * verifies, with records that name none beside it), and the demand advice counts its waste for
 * that product whatever its `product_name` says.
 */
const NOW = new Date('2026-11-24T10:00:00.000Z');
let t: TestContext;
let tenant: Tenant;
let croissant: string;

beforeAll(async () => {
  t = await startTestApp({ clock: () => NOW });
  tenant = await createTenant(t.db);
  await importProducts(t.db, { org: tenant.organizationId, csv: 'name;food_category;ean\nCroissant;bakery;8410000000023\n' });
  croissant = (await t.db.product.findFirstOrThrow({ where: { organization_id: tenant.organizationId } })).id;
});
afterAll(() => t?.close());

describe('records that name their product', () => {
  it('stores and answers product_id, and the chain verifies with records that name none', async () => {
    const client = api(t.app, tenant.key);
    expect((await client.post('/api/v1/records', validRecord())).statusCode).toBe(201);
    const res = await client.post(
      '/api/v1/records',
      validRecord({ food_category: 'bakery', product_id: croissant, product_name: 'cruasán' }),
    );
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toMatchObject({ product_id: croissant, product_name: 'cruasán' });
    const batch = await client.post('/api/v1/records/batch', { records: [validRecord({ product_id: croissant }), validRecord()] });
    expect(batch.json().data.inserted).toBe(2);
    const listed = (await client.get('/api/v1/records?limit=10')).json().data;
    expect(listed.filter((r: { product_id: string | null }) => r.product_id === croissant)).toHaveLength(2);
    expect((await client.get('/api/v1/records/verify')).json().data).toMatchObject({ valid: true, checked: 4 });
  });

  it('refuses a product of another organisation or none at all, storing nothing; a batch refuses that item alone', async () => {
    const other = await createTenant(t.db);
    const before = await countRecords(t.db, other.establishmentId);
    const client = api(t.app, other.key);
    for (const id of [croissant, '00000000-0000-4000-8000-000000000099']) {
      const res = await client.post('/api/v1/records', validRecord({ product_id: id }));
      expect(res.statusCode).toBe(400);
      expect(res.json().details).toEqual([{ path: 'product_id', message: 'no product of this organisation has this id' }]);
    }
    expect(await countRecords(t.db, other.establishmentId)).toBe(before);
    const batch = (await client.post('/api/v1/records/batch', { records: [validRecord(), validRecord({ product_id: croissant })] })).json()
      .data;
    expect(batch.inserted).toBe(1);
    expect(batch.errors[0]).toMatchObject({ index: 1, details: [{ path: 'product_id' }] });
  });

  it('counts the waste of a record naming the product for it, whatever its product_name says', async () => {
    const own = await createTenant(t.db);
    await importProducts(t.db, { org: own.organizationId, csv: 'name;food_category;ean\nCroissant;bakery;8410000000023\n' });
    const product = (await t.db.product.findFirstOrThrow({ where: { organization_id: own.organizationId } })).id;
    const client = api(t.app, own.key);
    const sales = Array.from({ length: 21 }, (_, i) => ({
      product_id: product,
      quantity: 20,
      sold_at: new Date(NOW.getTime() - (i + 1) * 86_400_000).toISOString().slice(0, 10),
    }));
    expect((await client.post('/api/v1/webhooks/inbound', { event: 'sales.recorded', payload: { source: 'tpv', sales } })).statusCode).toBe(
      200,
    );
    const at = (daysAgo: number) => new Date(NOW.getTime() - daysAgo * 86_400_000).toISOString();
    // Named by id with another name, by name alone, and a third by another name and no id (not counted).
    await client.post(
      '/api/v1/records',
      validRecord({ food_category: 'bakery', weight_kg: 2, product_id: product, product_name: 'bollería', occurred_at: at(3) }),
    );
    await client.post(
      '/api/v1/records',
      validRecord({ food_category: 'bakery', weight_kg: 1, product_name: 'croissant', occurred_at: at(2) }),
    );
    await client.post(
      '/api/v1/records',
      validRecord({ food_category: 'bakery', weight_kg: 4, product_name: 'bollería', occurred_at: at(1) }),
    );
    const demand = (await client.get('/api/v1/predict?type=demand&horizon=1')).json().data;
    expect(demand.products[0].advice.last_4_weeks.waste_kg).toBe(3);
  });
});
