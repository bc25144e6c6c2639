import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importProducts } from '../src/admin/service.js';
import type { DbTx } from '../src/db/client.js';
import { createCatalogCache } from '../src/modules/catalog/service.js';
import { api, createTenant, startTestApp, type Tenant, type TestContext } from './helpers.js';

let t: TestContext;
let tenant: Tenant;

beforeAll(async () => {
  t = await startTestApp();
  tenant = await createTenant(t.db);
});
afterAll(() => t?.close());

describe('catalogues', () => {
  it('lists only active causes, each with an icon', async () => {
    const res = await api(t.app, tenant.key).get('/api/v1/causas');
    expect(res.statusCode).toBe(200);
    const causes = res.json().data;
    expect(causes.length).toBe(10);
    expect(causes.every((c: { activo: boolean; icono: string }) => c.activo && c.icono.length > 0)).toBe(true);
    expect(causes.map((c: { nombre: string }) => c.nombre)).not.toContain('Sin clasificar (retirada)');
    expect(await t.db.cause.count({ where: { activo: false } })).toBe(1);
  });

  it('lists destinations in the Ley 1/2025 hierarchy, only disposal not being recovery', async () => {
    const destinos = (await api(t.app, tenant.key).get('/api/v1/destinos')).json().data;
    expect(destinos.map((d: { code: string }) => d.code)).toEqual([
      'human_consumption',
      'donation',
      'animal_feed',
      'industrial_byproducts',
      'composting',
      'energy_recovery',
      'landfill',
    ]);
    expect(destinos.map((d: { orden: number }) => d.orden)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(destinos.filter((d: { es_recuperacion: boolean }) => !d.es_recuperacion).map((d: { code: string }) => d.code)).toEqual([
      'landfill',
    ]);
  });

  it("lists the organisation's products, not another organisation's", async () => {
    const other = await createTenant(t.db);
    await importProducts(t.db, {
      org: tenant.organizationId,
      csv: 'name,food_category,ean\nYogur natural,dairy,8410000810004\nPan de barra,bakery,4006381333931\n',
    });
    await importProducts(t.db, { org: other.organizationId, csv: 'name;food_category;ean\nMerluza;fish;5449000000996\n' });
    const mine = (await api(t.app, tenant.key).get('/api/v1/products')).json().data;
    expect(mine.map((p: { name: string }) => p.name)).toEqual(['Pan de barra', 'Yogur natural']);
    expect(mine[0]).toMatchObject({ food_category: 'bakery', ean: '4006381333931' });
    expect(mine[0].id).toMatch(/^[0-9a-f-]{36}$/);
    const theirs = (await api(t.app, other.key).get('/api/v1/products')).json().data;
    expect(theirs.map((p: { name: string }) => p.name)).toEqual(['Merluza']);
  });

  it('refuses query parameters on parameterless catalogue endpoints', async () => {
    const res = await api(t.app, tenant.key).get('/api/v1/causas?activo=false');
    expect(res.statusCode).toBe(400);
  });
});

describe('the in-process catalogue cache', () => {
  it("never makes a caller wait for another caller's read (a transaction cannot wait on a pool connection)", async () => {
    const cache = createCatalogCache();
    // A caller whose connection never answers, as a read queued behind a pool full of transactions.
    const never = new Promise<never>(() => {});
    const stalled = { cause: { findMany: () => never }, destination: { findMany: () => never } } as unknown as DbTx;
    void cache.get(stalled);
    const answer = await Promise.race([cache.get(t.db), new Promise<'waited'>((done) => setTimeout(() => done('waited'), 5_000))]);
    expect(answer).not.toBe('waited');
    const catalog = answer as Exclude<typeof answer, 'waited'>;
    expect(catalog.destinations.map((d) => d.code)).toContain('landfill');
    // Kept: later callers get the same object without reading again, even through the stalled one.
    expect(await cache.get(stalled)).toBe(catalog);
  });
});

describe('shifts', () => {
  it('creates shifts, including overnight ones, and lists them in start order', async () => {
    const owner = await createTenant(t.db);
    const client = api(t.app, owner.key);
    const night = await client.post('/api/v1/shifts', { name: 'Noche', start_time: '22:00', end_time: '06:00' });
    expect(night.statusCode).toBe(201);
    expect(night.json().data).toMatchObject({ name: 'Noche', start_time: '22:00', end_time: '06:00' });
    expect((await client.post('/api/v1/shifts', { name: '  Mañana ', start_time: '06:00', end_time: '14:00' })).statusCode).toBe(201);
    const list = (await client.get('/api/v1/shifts')).json().data;
    expect(list.map((s: { name: string }) => s.name)).toEqual(['Mañana', 'Noche']);
    const stored = await t.db.shift.findMany({ where: { establishment_id: owner.establishmentId } });
    expect(stored).toHaveLength(2);
    expect(stored.every((s) => s.livemode === false)).toBe(true);
  });

  it.each([
    [{ name: 'X', start_time: '24:00', end_time: '06:00' }, 'start_time'],
    [{ name: 'X', start_time: '7:00', end_time: '15:00' }, 'start_time'],
    [{ name: 'X', start_time: '07:00', end_time: '07:00' }, 'end_time'],
    [{ name: '', start_time: '07:00', end_time: '15:00' }, 'name'],
    [{ name: '   ', start_time: '07:00', end_time: '15:00' }, 'name'],
    [{ start_time: '07:00', end_time: '15:00' }, 'name'],
    [{ name: 'X', start_time: '07:00' }, 'end_time'],
    [{ name: 'X', start_time: '07:00', end_time: '15:00', color: 'red' }, ''],
  ])('refuses %j with 400 naming %s and stores nothing', async (body, path) => {
    const owner = await createTenant(t.db);
    const res = await api(t.app, owner.key).post('/api/v1/shifts', body);
    expect(res.statusCode).toBe(400);
    if (path) expect(res.json().details.map((d: { path: string }) => d.path)).toContain(path);
    expect(await t.db.shift.count({ where: { establishment_id: owner.establishmentId } })).toBe(0);
  });
});
