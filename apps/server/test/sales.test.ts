import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importProducts } from '../src/admin/service.js';
import { api, countRecords, createTenant, startTestApp, type Tenant, type TestContext } from './helpers.js';

/**
 * Inbound `sales.recorded`: sale lines stored per establishment and mode for the demand forecast,
 * apart from waste records, with their day totals kept in the same statement.
 */
const NOW = new Date('2026-11-24T10:00:00.000Z');
let t: TestContext;

beforeAll(async () => {
  t = await startTestApp({ clock: () => NOW });
});
afterAll(() => t?.close());

const CATALOGUE = [
  'name;food_category;ean;pos_ref;unit_weight_kg',
  'Croissant;bakery;8410000000023;W62UWFY35CWMYGVWK6TWJDNI;0,06',
  'Pan de barra;bakery;8410000000016;57;0,25',
  'Pollo asado;prepared_meals;8410000000030;JXP6MJ3VN5QFUPHJ2K6NYWCA;',
].join('\n');

async function shop(options: Parameters<typeof createTenant>[1] = {}): Promise<Tenant> {
  const tenant = await createTenant(t.db, options);
  if (!options.organizationId) await importProducts(t.db, { org: tenant.organizationId, csv: CATALOGUE });
  return tenant;
}
const send = (key: string, body: unknown, headers: Record<string, string> = {}) =>
  api(t.app, key).post('/api/v1/webhooks/inbound', body, { headers });
const productId = async (tenant: Tenant, name: string) =>
  (await t.db.product.findFirstOrThrow({ where: { organization_id: tenant.organizationId, name } })).id;
const totals = async (tenant: Tenant) =>
  (
    await t.db.saleDayTotal.findMany({
      where: { establishment_id: tenant.establishmentId },
      orderBy: [{ day: 'asc' }, { product_id: 'asc' }],
    })
  ).map((r) => ({
    product_id: r.product_id,
    day: r.day.toISOString().slice(0, 10),
    units: Number(r.units),
    kg: Number(r.kg),
    lines: r.lines,
    livemode: r.livemode,
  }));
const fixture = (name: string) => JSON.parse(readFileSync(new URL(`./fixtures/pos/${name}`, import.meta.url), 'utf8'));

describe('sales.recorded', () => {
  it('stores one sale, and a resend with the same external_id is a duplicate stored once', async () => {
    const tenant = await shop();
    const event = {
      event: 'sales.recorded',
      payload: { source: 'tpv', external_id: 'T-0001/1', ean: '8410000000023', quantity: 3, sold_at: '2026-11-23T08:15:00+01:00' },
    };
    const first = await send(tenant.key, event);
    expect(first.statusCode).toBe(200);
    expect(first.json().data).toMatchObject({
      status: 'processed',
      record_id: null,
      sales: { received: 1, stored: 1, duplicates: 0, errors: [] },
    });
    const again = await send(tenant.key, event);
    expect(again.json().data).toMatchObject({ status: 'duplicate', sales: { received: 1, stored: 0, duplicates: 1 } });

    const croissant = await productId(tenant, 'Croissant');
    const sales = await t.db.sale.findMany({ where: { establishment_id: tenant.establishmentId } });
    expect(sales).toHaveLength(1);
    expect(sales[0]).toMatchObject({ product_id: croissant, source: 'tpv', external_ref: 'T-0001/1', unit: 'unit', livemode: false });
    expect(Number(sales[0]?.quantity)).toBe(3);
    expect(sales[0]?.sold_at.toISOString()).toBe('2026-11-23T07:15:00.000Z');
    expect(await totals(tenant)).toEqual([{ product_id: croissant, day: '2026-11-23', units: 3, kg: 0, lines: 1, livemode: false }]);
    // Sales are not waste: no record, no link in the record chain.
    expect(await countRecords(t.db, tenant.establishmentId)).toBe(0);
    const heads = await t.db.recordChainHead.findMany({ where: { establishment_id: tenant.establishmentId } });
    expect(heads.map((h) => Number(h.seq))).toEqual(heads.map(() => 0));
  });

  it("takes a day's sales in one call: by id, EAN or POS ref, in units or by weight; the invalid lines reported by index", async () => {
    const tenant = await shop();
    const [croissant, barra, pollo] = (await Promise.all(
      ['Croissant', 'Pan de barra', 'Pollo asado'].map((n) => productId(tenant, n)),
    )) as [string, string, string];
    const res = await send(tenant.key, {
      event: 'sales.recorded',
      payload: {
        source: 'z-report',
        sales: [
          { product_id: croissant, quantity: 40, sold_at: '2026-11-22' },
          { ean: '8410000000016', quantity: 25, unit: 'unit', sold_at: '2026-11-22' },
          { product_ref: 'JXP6MJ3VN5QFUPHJ2K6NYWCA', quantity: 3500, unit: 'g', sold_at: '2026-11-22' },
          { ean: '8410000099999', quantity: 1, sold_at: '2026-11-22' },
          { product_id: croissant, quantity: 0, sold_at: '2026-11-22' },
          { product_id: croissant, quantity: 2, sold_at: '2026-11-25' },
          { product_id: croissant, quantity: 2, sold_at: '2025-10-01' },
          { product_id: croissant, quantity: 2, sold_at: '2026-11-24T10:30:00Z' },
          { quantity: 2, sold_at: '2026-11-22' },
          { product_id: pollo, quantity: 1, unit: 'lb', sold_at: '2026-11-21T19:00:00Z', external_id: 'x-1' },
          { product_id: pollo, quantity: 1, unit: 'lb', sold_at: '2026-11-21T19:00:00Z', external_id: 'x-1' },
        ],
      },
    });
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data).toMatchObject({ status: 'processed', record_id: null });
    expect(data.sales).toMatchObject({ received: 11, stored: 4, duplicates: 1 });
    expect(data.sales.errors.map((e: { index: number; details: { path: string }[] }) => [e.index, e.details.map((d) => d.path)])).toEqual([
      [3, ['payload.sales.3.ean']],
      [4, ['payload.sales.4.quantity']],
      [5, ['payload.sales.5.sold_at']],
      [6, ['payload.sales.6.sold_at']],
      [7, ['payload.sales.7.sold_at']],
      [8, ['payload.sales.8.product_id']],
    ]);
    expect(data.sales.errors[0].error).toBe('payload.sales.3.ean: no product of this organisation');
    expect(await totals(tenant)).toEqual(
      [
        { product_id: pollo, day: '2026-11-21', units: 0, kg: 0.454, lines: 1, livemode: false },
        { product_id: croissant, day: '2026-11-22', units: 40, kg: 0, lines: 1, livemode: false },
        { product_id: barra, day: '2026-11-22', units: 25, kg: 0, lines: 1, livemode: false },
        { product_id: pollo, day: '2026-11-22', units: 0, kg: 3.5, lines: 1, livemode: false },
      ].sort((a, b) => a.day.localeCompare(b.day) || a.product_id.localeCompare(b.product_id)),
    );
    // A day total (a date alone) is sold at noon of that day in the establishment's zone (Madrid).
    const day = await t.db.sale.findFirstOrThrow({ where: { establishment_id: tenant.establishmentId, product_id: croissant } });
    expect(day.sold_at.toISOString()).toBe('2026-11-22T11:00:00.000Z');
  });

  it('refuses an event with no valid line with 400, writing nothing', async () => {
    const tenant = await shop();
    const cases = [
      { source: 'tpv', sales: [{ ean: '8410000099999', quantity: 1, sold_at: '2026-11-22' }] },
      { source: 'tpv', sales: [] },
      { source: 'tpv', sales: 'all of them' },
      { sales: [{ ean: '8410000000023', quantity: 1, sold_at: '2026-11-22' }] },
      { source: 'tpv', ean: '8410000000023', quantity: 1 },
      { source: 'tpv', ean: '8410000000023', quantity: 1, sold_at: 'yesterday' },
      { source: 'tpv', sales: Array.from({ length: 2001 }, () => ({ ean: '8410000000023', quantity: 1, sold_at: '2026-11-22' })) },
    ];
    for (const payload of cases) {
      const res = await send(tenant.key, { event: 'sales.recorded', payload });
      expect(res.statusCode, JSON.stringify(payload).slice(0, 80)).toBe(400);
      expect(res.json()).toMatchObject({ code: 'validation_error', status: 400 });
      expect(res.json().details.length).toBeGreaterThan(0);
    }
    expect(await t.db.sale.count({ where: { establishment_id: tenant.establishmentId } })).toBe(0);
    expect(await t.db.saleDayTotal.count({ where: { establishment_id: tenant.establishmentId } })).toBe(0);
    expect(await t.db.inboundEvent.count({ where: { establishment_id: tenant.establishmentId } })).toBe(0);
  });

  it('answers a request replayed with the same Idempotency-Key as a duplicate, without storing its lines again', async () => {
    const tenant = await shop();
    const body = {
      event: 'sales.recorded',
      payload: { source: 'tpv', sales: [{ ean: '8410000000023', quantity: 4, sold_at: '2026-11-23' }] },
    };
    const first = await send(tenant.key, body, { 'idempotency-key': 'z-2026-11-23' });
    expect(first.json().data.sales.stored).toBe(1);
    const replay = await send(tenant.key, body, { 'idempotency-key': 'z-2026-11-23' });
    expect(replay.json().data).toMatchObject({
      event_id: first.json().data.event_id,
      status: 'duplicate',
      sales: { stored: 0, duplicates: 1 },
    });
    expect(await t.db.sale.count({ where: { establishment_id: tenant.establishmentId } })).toBe(1);
    expect((await totals(tenant))[0]?.units).toBe(4);
  });

  it('refuses the same Idempotency-Key with other sales (409), and a quantity that rounds to nothing per line', async () => {
    const tenant = await shop();
    const day = {
      event: 'sales.recorded',
      payload: { source: 'tpv', sales: [{ ean: '8410000000023', quantity: 4, sold_at: '2026-11-23' }] },
    };
    expect((await send(tenant.key, day, { 'idempotency-key': 'z-day' })).statusCode).toBe(200);
    const other = { ...day, payload: { ...day.payload, sales: [{ ean: '8410000000023', quantity: 5, sold_at: '2026-11-23' }] } };
    const clash = await send(tenant.key, other, { 'idempotency-key': 'z-day' });
    expect(clash.statusCode).toBe(409);
    expect(clash.json()).toMatchObject({ code: 'conflict' });
    expect(clash.headers['x-should-retry']).toBe('false');

    const tiny = await send(tenant.key, {
      event: 'sales.recorded',
      payload: {
        source: 'tpv',
        sales: [
          { ean: '8410000000023', quantity: 0.0004, sold_at: '2026-11-23' },
          { ean: '8410000000030', quantity: 0.4, unit: 'g', sold_at: '2026-11-23' },
          { ean: '8410000000030', quantity: 1.5, unit: 'g', sold_at: '2026-11-23' },
        ],
      },
    });
    expect(tiny.statusCode).toBe(200);
    expect(tiny.json().data.sales.errors.map((e: { details: unknown }) => e.details)).toEqual([
      [{ path: 'payload.sales.0.quantity', message: 'under 0.001 units once rounded' }],
      [{ path: 'payload.sales.1.quantity', message: 'under 0.001 kg once rounded' }],
    ]);
    const rows = (await totals(tenant)).map((r) => [r.units, r.kg]);
    expect(rows).toHaveLength(2);
    expect(rows).toEqual(
      expect.arrayContaining([
        [4, 0],
        [0, 0.002],
      ]),
    );
  });

  it('keeps tenants apart: products of another organisation are unknown; modes and establishments do not mix', async () => {
    const a = await shop();
    const b = await shop();
    const sibling = await shop({ organizationId: a.organizationId });
    const live = await shop({ organizationId: a.organizationId, mode: 'live' });
    const foreign = await productId(b, 'Croissant');
    const refused = await send(a.key, {
      event: 'sales.recorded',
      payload: { source: 'tpv', product_id: foreign, quantity: 1, sold_at: '2026-11-23' },
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().details).toEqual([{ path: 'payload.product_id', message: 'no product of this organisation' }]);

    // The same external id from two establishments (or modes) of one organisation: both stored.
    const line = { source: 'tpv', external_id: 'T-9', ean: '8410000000023', quantity: 2, sold_at: '2026-11-23' };
    for (const tenant of [a, sibling, live]) {
      expect((await send(tenant.key, { event: 'sales.recorded', payload: line })).json().data.sales.stored).toBe(1);
    }
    expect((await totals(a)).map((r) => [r.units, r.livemode])).toEqual([[2, false]]);
    expect((await totals(sibling)).map((r) => [r.units, r.livemode])).toEqual([[2, false]]);
    expect((await totals(live)).map((r) => [r.units, r.livemode])).toEqual([[2, true]]);
    expect(await t.db.sale.count({ where: { establishment_id: b.establishmentId } })).toBe(0);
  });

  it('needs the inbound:write permission', async () => {
    const tenant = await shop({ permissions: 'predict:read' });
    const res = await send(tenant.key, {
      event: 'sales.recorded',
      payload: { source: 'tpv', ean: '8410000000023', quantity: 1, sold_at: '2026-11-23' },
    });
    expect(res.statusCode).toBe(403);
    expect(await t.db.sale.count({ where: { establishment_id: tenant.establishmentId } })).toBe(0);
  });

  describe('POS connectors (fixtures of their documented formats)', () => {
    it("square: SearchOrders' completed orders become sale lines, once; a custom amount is reported", async () => {
      const tenant = await shop();
      const body = { event: 'sales.recorded', connector: 'square', payload: fixture('square-search-orders.json') };
      const res = await send(tenant.key, body);
      expect(res.statusCode).toBe(200);
      expect(res.json().data.sales).toMatchObject({ received: 3, stored: 2, duplicates: 0 });
      expect(res.json().data.sales.errors).toEqual([
        expect.objectContaining({
          index: 2,
          details: [{ path: 'payload.orders.0.line_items.2.catalog_object_id', message: 'product_id, ean or product_ref is required' }],
        }),
      ]);
      const sales = await t.db.sale.findMany({ where: { establishment_id: tenant.establishmentId }, orderBy: { external_ref: 'asc' } });
      expect(sales.map((s) => [s.source, s.external_ref, Number(s.quantity), s.unit, s.sold_at.toISOString()])).toEqual([
        ['square', 'CAISENgvlJ6jLWAzERDzjyHVybY:9mQqS2Nwqm6ZtiVbLaBkK', 2, 'unit', '2026-11-22T09:14:07.000Z'],
        ['square', 'CAISENgvlJ6jLWAzERDzjyHVybY:lXKdUJ7Pm8gyyC2tY9Xl6C', 0.45, 'kg', '2026-11-22T09:14:07.000Z'],
      ]);
      // The open order is not a sale yet; the same orders sent again store nothing.
      const again = await send(tenant.key, body);
      expect(again.json().data).toMatchObject({ status: 'duplicate', sales: { stored: 0, duplicates: 2 } });
      expect(await t.db.sale.count({ where: { establishment_id: tenant.establishmentId } })).toBe(2);
      // A page without a completed order (a quiet hour) is received, with nothing to store.
      const open = fixture('square-search-orders.json');
      open.orders = open.orders.slice(1);
      const quiet = await send(tenant.key, { event: 'sales.recorded', connector: 'square', payload: open });
      expect(quiet.statusCode).toBe(200);
      expect(quiet.json().data).toMatchObject({ status: 'processed', sales: { received: 0, stored: 0, duplicates: 0, errors: [] } });
      // A unit Square measures that is not a weight: the line is refused where Square put it.
      const litres = fixture('square-search-orders.json');
      litres.orders[0].line_items[1].quantity_unit = { measurement_unit: { volume_unit: 'GENERIC_LITER' }, precision: 1 };
      litres.orders[0].id = 'ANOTHER-ORDER';
      const refused = (await send(tenant.key, { event: 'sales.recorded', connector: 'square', payload: litres })).json().data.sales;
      expect(refused.errors.map((e: { details: { path: string }[] }) => e.details[0]?.path)).toEqual([
        'payload.orders.0.line_items.1.quantity_unit',
        'payload.orders.0.line_items.2.catalog_object_id',
      ]);
    });

    it("odoo: a day's pos.order.line records and a webhook line become sale lines; a refund line lowers the sales of the day it refunds", async () => {
      const tenant = await shop();
      const [barra, pollo] = (await Promise.all(['Pan de barra', 'Pollo asado'].map((n) => productId(tenant, n)))) as [string, string];
      await t.db.product.update({ where: { id: pollo }, data: { pos_ref: '58' } });
      const day = await send(tenant.key, { event: 'sales.recorded', connector: 'odoo', payload: fixture('odoo-pos-order-lines.json') });
      expect(day.statusCode).toBe(200);
      // The refund line (qty -2, no refunded_orderline_id among the fields read) is a negative line on its own day.
      expect(day.json().data.sales).toMatchObject({ received: 3, stored: 3, duplicates: 0, errors: [] });
      const hook = await send(tenant.key, {
        event: 'sales.recorded',
        connector: 'odoo',
        payload: fixture('odoo-pos-order-line-webhook.json'),
      });
      expect(hook.json().data).toMatchObject({ status: 'processed', sales: { received: 1, stored: 1 } });
      const sales = await t.db.sale.findMany({ where: { establishment_id: tenant.establishmentId }, orderBy: { external_ref: 'asc' } });
      expect(sales.map((s) => [s.external_ref, s.product_id, Number(s.quantity), s.unit, s.sold_at.toISOString()])).toEqual([
        ['pos.order.line:5012', barra, 12, 'unit', '2026-11-22T08:31:05.000Z'],
        ['pos.order.line:5013', pollo, 1.25, 'kg', '2026-11-22T08:31:05.000Z'],
        ['pos.order.line:5020', barra, -2, 'unit', '2026-11-22T12:03:44.000Z'],
        ['pos.order.line:5031', barra, 3, 'unit', '2026-11-22T17:45:12.000Z'],
      ]);
      expect((await totals(tenant)).find((r) => r.product_id === barra)).toMatchObject({ day: '2026-11-22', units: 13, lines: 2 });
      // A refund the next day that names the line it refunds lowers that line's day, not its own; sent twice, counted once.
      const refund = {
        _model: 'pos.order.line',
        _id: 5040,
        id: 5040,
        product_id: 57,
        qty: -1,
        product_uom_id: 1,
        x_uom_name: 'Units',
        refunded_orderline_id: 5012,
        create_date: '2026-11-23 09:00:00',
      };
      for (const _ of [1, 2]) await send(tenant.key, { event: 'sales.recorded', connector: 'odoo', payload: refund });
      expect((await totals(tenant)).filter((r) => r.product_id === barra)).toEqual([
        expect.objectContaining({ day: '2026-11-22', units: 12 }),
      ]);
      // A webhook sends many2one fields as bare ids: without x_uom_name the line cannot say counted or weighed.
      const { x_uom_name: _name, ...bare } = { ...fixture('odoo-pos-order-line-webhook.json'), _id: 5032, id: 5032 };
      const refused = await send(tenant.key, { event: 'sales.recorded', connector: 'odoo', payload: bare });
      expect(refused.statusCode).toBe(400);
      expect(refused.json().details).toEqual([{ path: 'payload.product_uom_id', message: expect.stringMatching(/bare id .*x_uom_name/) }]);
      // Without create_date among the webhook's fields: refused, naming the field to add.
      const { create_date: _date, ...undated } = { ...fixture('odoo-pos-order-line-webhook.json'), _id: 5033, id: 5033 };
      const noDate = await send(tenant.key, { event: 'sales.recorded', connector: 'odoo', payload: undated });
      expect(noDate.statusCode).toBe(400);
      expect(noDate.json().details).toEqual([
        { path: 'payload.create_date', message: expect.stringMatching(/^create_date is missing: add it/) },
      ]);
      expect(await t.db.sale.count({ where: { establishment_id: tenant.establishmentId } })).toBe(5);
    });
  });
});
