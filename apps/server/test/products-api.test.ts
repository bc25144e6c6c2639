import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createTenant, startTestApp, type Tenant, type TestContext } from './helpers.js';

/**
 * Customers manage their catalogue: `/api/v1/products` creates, changes, deactivates and lists
 * products and imports a CSV (with a dry run to preview it), through the checks the operator's
 * import has; bad input is a 400 that writes nothing, a taken EAN a 409.
 */
const NOW = new Date('2026-11-24T10:00:00.000Z');
let t: TestContext;

beforeAll(async () => {
  t = await startTestApp({ clock: () => NOW });
});
afterAll(() => t?.close());

const send = (key: string, method: 'GET' | 'POST' | 'PATCH', url: string, body?: unknown) =>
  t.app.inject({
    method,
    url: `/api/v1${url}`,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });

const stored = (tenant: Tenant) => t.db.product.findMany({ where: { organization_id: tenant.organizationId }, orderBy: { name: 'asc' } });

const CROISSANT = {
  name: 'Croissant',
  food_category: 'bakery',
  ean: '8410000000023',
  pos_ref: 'SQ-1',
  unit_weight_kg: 0.06,
  price: 1.2,
  unit_cost: 0.4,
};

describe('/api/v1/products', () => {
  it('creates a product with its prices, lists it, changes only what is sent and deactivates it', async () => {
    const tenant = await createTenant(t.db, { mode: 'live' });
    const created = await send(tenant.key, 'POST', '/products', CROISSANT);
    expect(created.statusCode, created.body).toBe(201);
    const product = created.json().data;
    expect(product).toEqual({ id: expect.any(String), ...CROISSANT, density_kg_per_l: null, salvage_value: null, active: true });

    const changed = await send(tenant.key, 'PATCH', `/products/${product.id}`, { salvage_value: 0.1, pos_ref: null });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json().data).toEqual({ ...product, salvage_value: 0.1, pos_ref: null });

    // A cost above the price it keeps: refused, nothing changed.
    const refused = await send(tenant.key, 'PATCH', `/products/${product.id}`, { unit_cost: 2 });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().details).toEqual([{ path: 'unit_cost', message: '2 is above price 1.2 (every sale would lose money)' }]);
    expect(Number((await stored(tenant))[0]?.unit_cost)).toBe(0.4);

    const off = await send(tenant.key, 'PATCH', `/products/${product.id}`, { active: false });
    expect(off.json().data.active).toBe(false);
    expect((await stored(tenant))[0]?.deactivated_at).toEqual(NOW);
    expect((await send(tenant.key, 'GET', '/products')).json().data).toEqual([]);
    expect((await send(tenant.key, 'GET', '/products?include_inactive=true')).json().data).toEqual([off.json().data]);
    const on = await send(tenant.key, 'PATCH', `/products/${product.id}`, { active: true });
    expect(on.json().data.active).toBe(true);
    expect((await send(tenant.key, 'GET', '/products')).json().data).toHaveLength(1);
  });

  it.each([
    ['an EAN with a wrong check digit', { ...CROISSANT, ean: '8410000000024' }, 'ean'],
    ['a cost above the price', { ...CROISSANT, unit_cost: 1.5 }, 'unit_cost'],
    ['a leftover worth more than its cost', { ...CROISSANT, salvage_value: 0.5 }, 'salvage_value'],
    ['a negative price', { ...CROISSANT, price: -1, unit_cost: null }, 'price'],
    ['an unknown category', { ...CROISSANT, food_category: 'sweets' }, 'food_category'],
    ['an empty name', { ...CROISSANT, name: '  ' }, 'name'],
    ['an unknown field', { ...CROISSANT, colour: 'gold' }, ''],
    ['a density of 0', { ...CROISSANT, density_kg_per_l: 0 }, 'density_kg_per_l'],
    ['a negative density', { ...CROISSANT, density_kg_per_l: -1.03 }, 'density_kg_per_l'],
    ['a density that is not a number', { ...CROISSANT, density_kg_per_l: '1,03' }, 'density_kg_per_l'],
  ])('refuses %s with a 400 and stores nothing', async (_, body, path) => {
    const tenant = await createTenant(t.db, { mode: 'live' });
    const res = await send(tenant.key, 'POST', '/products', body);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({ status: 400, code: 'validation_error' });
    if (path) expect(res.json().details.map((d: { path: string }) => d.path)).toContain(path);
    expect(await stored(tenant)).toEqual([]);
  });

  it('sets, changes and clears a density; a bad one on update is a 400 that changes nothing', async () => {
    const tenant = await createTenant(t.db, { mode: 'live' });
    const milk = { name: 'Leche entera', food_category: 'dairy', ean: '8410000000016', density_kg_per_l: 1.03 };
    const created = await send(tenant.key, 'POST', '/products', milk);
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().data.density_kg_per_l).toBe(1.03);
    const id = created.json().data.id;
    for (const density of [0, -0.5, 'mucha', '0.92']) {
      const refused = await send(tenant.key, 'PATCH', `/products/${id}`, { density_kg_per_l: density });
      expect(refused.statusCode, JSON.stringify(density)).toBe(400);
      expect(refused.json().details.map((d: { path: string }) => d.path)).toEqual(['density_kg_per_l']);
    }
    expect(Number((await stored(tenant))[0]?.density_kg_per_l)).toBe(1.03);
    const oil = await send(tenant.key, 'PATCH', `/products/${id}`, { density_kg_per_l: 0.92 });
    expect(oil.json().data.density_kg_per_l).toBe(0.92);
    expect(Number((await stored(tenant))[0]?.density_kg_per_l)).toBe(0.92);
    const cleared = await send(tenant.key, 'PATCH', `/products/${id}`, { density_kg_per_l: null });
    expect(cleared.json().data.density_kg_per_l).toBeNull();
    expect((await stored(tenant))[0]?.density_kg_per_l).toBeNull();
  });

  it('imports the density_kg_per_l column with a decimal comma; a density of 0 or not a number refuses the file', async () => {
    const tenant = await createTenant(t.db, { mode: 'live' });
    const csv =
      'name;food_category;ean;density_kg_per_l\nLeche entera;dairy;8410000000016;1,03\nAceite;others;8410000000023;0,92\nPan;bakery;8410000000030;\n';
    const done = await send(tenant.key, 'POST', '/products/import', { csv });
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json().data.products.map((p: { product: { density_kg_per_l: number | null } }) => p.product.density_kg_per_l)).toEqual([
      1.03,
      0.92,
      null,
    ]);
    expect((await stored(tenant)).map((p) => [p.name, p.density_kg_per_l === null ? null : Number(p.density_kg_per_l)])).toEqual([
      ['Aceite', 0.92],
      ['Leche entera', 1.03],
      ['Pan', null],
    ]);
    const bad = 'name;food_category;ean;density_kg_per_l\nZumo;others;8410000000047;0\nNata;dairy;8410000000054;densa\n';
    const refused = await send(tenant.key, 'POST', '/products/import', { csv: bad });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().details).toEqual([
      expect.objectContaining({ code: 'not_a_number', params: { line: 2, field: 'density_kg_per_l', value: '0' } }),
      expect.objectContaining({ code: 'not_a_number', params: { line: 3, field: 'density_kg_per_l', value: 'densa' } }),
    ]);
    expect(await stored(tenant)).toHaveLength(3);
  });

  it('answers 409 for an EAN or POS reference another product has, 404 for another organisation’s product, 403 without catalog:write', async () => {
    const tenant = await createTenant(t.db, { mode: 'live' });
    const first = (await send(tenant.key, 'POST', '/products', CROISSANT)).json().data;
    const again = await send(tenant.key, 'POST', '/products', { ...CROISSANT, pos_ref: 'SQ-2' });
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toBe('Another product of this organisation has the EAN 8410000000023');
    const ref = await send(tenant.key, 'POST', '/products', { ...CROISSANT, ean: '8410000000030' });
    expect(ref.statusCode).toBe(409);
    expect(ref.json().error).toBe('Another product of this organisation has pos_ref SQ-1');
    expect(await stored(tenant)).toHaveLength(1);

    const other = await createTenant(t.db, { mode: 'live' });
    expect((await send(other.key, 'PATCH', `/products/${first.id}`, { name: 'Mine' })).statusCode).toBe(404);
    const reader = await createTenant(t.db, { permissions: 'catalog:read', mode: 'live' });
    expect((await send(reader.key, 'POST', '/products', CROISSANT)).statusCode).toBe(403);
    expect(await stored(reader)).toEqual([]);
  });

  it('a test key reads the catalogue and previews an import, but changes nothing: the catalogue is shared by both modes', async () => {
    const live = await createTenant(t.db, { mode: 'live' });
    const product = (await send(live.key, 'POST', '/products', CROISSANT)).json().data;
    const test = await createTenant(t.db, { organizationId: live.organizationId });
    expect((await send(test.key, 'GET', '/products')).json().data).toEqual([product]);
    for (const [method, url, body] of [
      ['POST', '/products', { ...CROISSANT, ean: '8410000000030', pos_ref: null }],
      ['PATCH', `/products/${product.id}`, { price: 9 }],
      ['POST', '/products/import', { csv: 'name,food_category,ean\nBarra,bakery,8410000000030\n' }],
    ] as const) {
      const res = await send(test.key, method, url, body);
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(res.json().error).toMatch(/shared by test and live data: change it with a live key/);
    }
    const preview = await send(test.key, 'POST', '/products/import', {
      csv: 'name,food_category,ean\nBarra,bakery,8410000000030\n',
      dry_run: true,
    });
    expect(preview.statusCode).toBe(200);
    expect(preview.json().data.created).toBe(1);
    expect((await stored(live)).map((p) => [p.ean, Number(p.price)])).toEqual([['8410000000023', 1.2]]);
  });

  it('imports a CSV: a dry run previews it, a bad line refuses the whole file, and a known EAN is updated', async () => {
    const tenant = await createTenant(t.db, { mode: 'live' });
    await send(tenant.key, 'POST', '/products', { ...CROISSANT, pos_ref: null });
    const csv =
      'name;food_category;ean;price;unit_cost\nCroissant de mantequilla;bakery;8410000000023;1,30;0,45\nBarra;bakery;8410000000030;0,9;0,2\n';

    const preview = await send(tenant.key, 'POST', '/products/import', { csv, dry_run: true });
    expect(preview.statusCode, preview.body).toBe(200);
    expect(preview.json().data).toMatchObject({
      dry_run: true,
      created: 1,
      updated: 1,
      products: [
        { line: 2, action: 'update', product: { name: 'Croissant de mantequilla', price: 1.3, unit_cost: 0.45 } },
        { line: 3, action: 'create', product: { name: 'Barra', ean: '8410000000030' } },
      ],
    });
    expect((await stored(tenant)).map((p) => p.name)).toEqual(['Croissant']);

    const bad = `${csv}Leche;dairy;123;2;3\n`;
    const refused = await send(tenant.key, 'POST', '/products/import', { csv: bad });
    expect(refused.statusCode).toBe(400);
    // Each problem in English, and by its code with its values, for a client that words it itself.
    expect(refused.json().details).toEqual([
      {
        path: 'csv',
        message: 'line 4: ean "123" is not a valid EAN/GTIN',
        code: 'invalid_gtin',
        params: { line: 4, field: 'ean', value: '123' },
      },
      {
        path: 'csv',
        message: 'line 4: unit_cost 3 is above price 2 (every sale would lose money)',
        code: 'above',
        params: { line: 4, field: 'unit_cost', other: 'price' },
      },
    ]);
    expect((await stored(tenant)).map((p) => p.name)).toEqual(['Croissant']);

    const done = await send(tenant.key, 'POST', '/products/import', { csv });
    expect(done.json().data).toMatchObject({ dry_run: false, created: 1, updated: 1 });
    const products = await stored(tenant);
    expect(products.map((p) => [p.name, Number(p.price), Number(p.unit_cost)])).toEqual([
      ['Barra', 0.9, 0.2],
      ['Croissant de mantequilla', 1.3, 0.45],
    ]);
  });

  it('a deactivated product is no longer forecast, unless asked for by its id', async () => {
    const tenant = await createTenant(t.db, { mode: 'live' });
    const product = (await send(tenant.key, 'POST', '/products', CROISSANT)).json().data;
    const sales = Array.from({ length: 20 }, (_, i) => ({
      product_id: product.id,
      quantity: 10 + (i % 7),
      sold_at: new Date(NOW.getTime() - (i + 1) * 86_400_000).toISOString().slice(0, 10),
    }));
    expect(
      (await api(t.app, tenant.key).post('/api/v1/webhooks/inbound', { event: 'sales.recorded', payload: { source: 'tpv', sales } }))
        .statusCode,
    ).toBe(200);
    const demand = async (query = '') => (await api(t.app, tenant.key).get(`/api/v1/predict?type=demand${query}`)).json().data.products;
    expect(await demand()).toHaveLength(1);
    await send(tenant.key, 'PATCH', `/products/${product.id}`, { active: false });
    expect(await demand()).toEqual([]);
    expect(await demand(`&product_id=${product.id}`)).toHaveLength(1);
  });
});
