import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importProducts } from '../src/admin/service.js';
import {
  api,
  countRecords,
  createTenant,
  DESTINO_DONATION,
  DESTINO_LANDFILL,
  startTestApp,
  type Tenant,
  type TestContext,
} from './helpers.js';

let t: TestContext;
let tenant: Tenant;

beforeAll(async () => {
  // The fixtures' events happened on 22 November 2026; the server takes occurred_at up to 400 days back.
  t = await startTestApp({ clock: () => new Date('2026-11-24T10:00:00.000Z') });
  tenant = await createTenant(t.db);
  await importProducts(t.db, { org: tenant.organizationId, csv: 'name,food_category,ean\nYogur natural,dairy,8410000810004\n' });
});
afterAll(() => t?.close());

const send = (body: unknown, headers: Record<string, string> = {}, key = tenant.key) =>
  api(t.app, key).post('/api/v1/webhooks/inbound', body, { headers });

describe('POST /api/v1/webhooks/inbound', () => {
  it('turns waste.created into a record, and a resend with the same external_id into a duplicate', async () => {
    const owner = await createTenant(t.db);
    const event = {
      event: 'waste.created',
      payload: { source: 'sap-b1', external_id: 'MERMA-2026-0001', food_category: 'meat', weight_kg: 2.5, destino_id: DESTINO_DONATION },
    };
    const first = await send(event, {}, owner.key);
    expect(first.statusCode).toBe(200);
    expect(first.json().data).toMatchObject({ status: 'processed' });
    const again = await send(event, {}, owner.key);
    expect(again.json().data).toEqual({ ...first.json().data, status: 'duplicate' });
    const records = await t.db.record.findMany({ where: { establishment_id: owner.establishmentId } });
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ source: 'inbound:sap-b1', food_category: 'meat' });
    expect(records[0]?.id).toBe(first.json().data.record_id);
  });

  it('treats the same Idempotency-Key as a duplicate when there is no external_id', async () => {
    const owner = await createTenant(t.db);
    const event = {
      event: 'waste.created',
      payload: { source: 'pos', food_category: 'bakery', weight_kg: 1, destino_id: DESTINO_DONATION },
    };
    expect((await send(event, { 'idempotency-key': 'pos-1' }, owner.key)).json().data.status).toBe('processed');
    expect((await send(event, { 'idempotency-key': 'pos-1' }, owner.key)).json().data.status).toBe('duplicate');
    expect((await send(event, { 'idempotency-key': 'pos-2' }, owner.key)).json().data.status).toBe('processed');
    expect(await countRecords(t.db, owner.establishmentId)).toBe(2);
  });

  it('turns inventory.loss into a record with the product category, converting units, disposal by default', async () => {
    const res = await send({
      event: 'inventory.loss',
      payload: {
        source: 'tpv',
        external_id: 'L-7',
        ean: '8410000810004',
        quantity: 750,
        unit: 'g',
        reason: 'Caducado',
        occurred_at: '2026-11-22',
      },
    });
    expect(res.statusCode).toBe(200);
    const record = await t.db.record.findUniqueOrThrow({ where: { id: res.json().data.record_id } });
    expect(record).toMatchObject({
      food_category: 'dairy',
      product_name: 'Yogur natural',
      destino_id: DESTINO_LANDFILL,
      source: 'inbound:tpv',
      // Booked in the POS: a write-off, measured by what was booked.
      measurement_method: 'write_off',
      estimated: false,
    });
    expect(Number(record.weight_kg)).toBe(0.75);
    expect(record.notes).toBe('Caducado');
    // A date alone: noon of that day in the establishment's zone (Madrid, UTC+1 in November).
    expect(record.occurred_at.toISOString()).toBe('2026-11-22T11:00:00.000Z');
  });

  it.each([
    ['an unknown event', { event: 'waste.deleted', payload: { source: 'x' } }, 'event'],
    ['an unknown connector', { event: 'waste.created', connector: 'nope', payload: { source: 'x' } }, 'connector'],
    [
      'a missing source',
      { event: 'waste.created', payload: { food_category: 'meat', weight_kg: 1, destino_id: DESTINO_DONATION } },
      'payload.source',
    ],
    [
      'a bad weight',
      { event: 'waste.created', payload: { source: 'x', food_category: 'meat', weight_kg: -1, destino_id: DESTINO_DONATION } },
      'payload.weight_kg',
    ],
    ['an unknown product', { event: 'inventory.loss', payload: { source: 'x', ean: '4006381333931', quantity_kg: 1 } }, 'payload.ean'],
    ['a loss without quantity', { event: 'inventory.loss', payload: { source: 'x', ean: '8410000810004' } }, 'payload.quantity_kg'],
    ['a payload that is not an object', { event: 'waste.created', payload: 'meat' }, 'payload'],
  ])('refuses %s with 400 and details, writing nothing', async (_name, body, path) => {
    const owner = await createTenant(t.db);
    const res = await send(body, {}, owner.key);
    expect(res.statusCode).toBe(400);
    expect(res.json().details.map((d: { path: string }) => d.path)).toContain(path);
    expect(await countRecords(t.db, owner.establishmentId)).toBe(0);
    expect(await t.db.inboundEvent.count({ where: { establishment_id: owner.establishmentId } })).toBe(0);
  });

  describe('POS connectors (fixtures of their documented formats)', () => {
    const fixture = (name: string) => JSON.parse(readFileSync(new URL(`./fixtures/pos/${name}`, import.meta.url), 'utf8'));
    let owner: Tenant;
    beforeAll(async () => {
      owner = await createTenant(t.db);
      await importProducts(t.db, {
        org: owner.organizationId,
        csv: 'name;food_category;ean;pos_ref;unit_weight_kg\nYogur natural 125 g;dairy;8410000810004;W62UWFY35CWMYGVWK6TWJDNI;0,125\nPan de barra;bakery;8410000000016;57;\n',
      });
    });

    it('square: an InventoryAdjustment to WASTE becomes a record in kg, once', async () => {
      const body = { event: 'inventory.loss', connector: 'square', payload: fixture('square-inventory-adjustment.json') };
      const res = await send(body, {}, owner.key);
      expect(res.statusCode).toBe(200);
      expect(res.json().data.status).toBe('processed');
      const record = await t.db.record.findUniqueOrThrow({ where: { id: res.json().data.record_id } });
      expect(record).toMatchObject({
        food_category: 'dairy',
        product_name: 'Yogur natural 125 g',
        source: 'inbound:square',
        destino_id: DESTINO_LANDFILL,
      });
      expect(Number(record.weight_kg)).toBe(0.375); // 3 units × 0.125 kg
      expect(record.notes).toBe('Square: IN_STOCK → WASTE');
      expect(record.occurred_at.toISOString()).toBe('2026-11-22T21:10:00.000Z');
      expect((await send(body, {}, owner.key)).json().data.status).toBe('duplicate');
      expect(await countRecords(t.db, owner.establishmentId)).toBe(1);
    });

    it('square: other adjustments are refused with 400', async () => {
      const payload = fixture('square-inventory-adjustment.json');
      payload.data.object.inventory_adjustment.to_state = 'SOLD';
      const res = await send({ event: 'inventory.loss', connector: 'square', payload }, {}, owner.key);
      expect(res.statusCode).toBe(400);
      expect(res.json().details).toEqual([
        { path: 'payload.data.object.inventory_adjustment.to_state', message: 'expected WASTE, got "SOLD"' },
      ]);
    });

    it('odoo: a stock.scrap webhook becomes a record, matched by the product id in Odoo', async () => {
      const other = await createTenant(t.db, { organizationId: owner.organizationId });
      const body = { event: 'inventory.loss', connector: 'odoo', payload: fixture('odoo-stock-scrap.json') };
      const res = await send(body, {}, other.key);
      expect(res.statusCode).toBe(200);
      const record = await t.db.record.findUniqueOrThrow({ where: { id: res.json().data.record_id } });
      expect(record).toMatchObject({
        food_category: 'bakery',
        product_name: 'Pan de barra',
        source: 'inbound:odoo',
        measurement_method: 'write_off',
        estimated: false,
      });
      expect(Number(record.weight_kg)).toBe(2.5);
      expect(record.notes).toBe('Caducado');
      expect(record.occurred_at.toISOString()).toBe('2026-11-22T19:45:12.000Z');
      expect((await send(body, {}, other.key)).json().data.status).toBe('duplicate');
      // In units, for a product without a unit weight: a clear 400, nothing written.
      const units = { ...fixture('odoo-stock-scrap.json'), _id: 129, product_uom_id: [1, 'Units'] };
      const refused = await send({ event: 'inventory.loss', connector: 'odoo', payload: units }, {}, other.key);
      expect(refused.statusCode).toBe(400);
      expect(refused.json().details[0].path).toBe('payload.product_uom_id');
      expect(await countRecords(t.db, other.establishmentId)).toBe(1);
    });
  });

  it('needs the inbound:write permission', async () => {
    const limited = await createTenant(t.db, { permissions: 'records:write' });
    const res = await send(
      { event: 'waste.created', payload: { source: 'x', food_category: 'meat', weight_kg: 1, destino_id: DESTINO_DONATION } },
      {},
      limited.key,
    );
    expect(res.statusCode).toBe(403);
  });
});
