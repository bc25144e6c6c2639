import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importProducts } from '../src/admin/service.js';
import { odooEventOf } from '../src/modules/integrations/vendors/odoo/connector.js';
import { api, countRecords, createTenant, startTestApp, type Tenant, type TestContext } from './helpers.js';

/**
 * The Square and Odoo connectors of `POST /api/v1/webhooks/inbound`, fed the vendors' own payloads
 * (fixtures/square and fixtures/odoo, each file's source in the folder's README.md): what is stored,
 * and what is refused with a 400 that says what to send instead, storing nothing.
 */
const NOW = new Date('2026-11-24T10:00:00.000Z');
let t: TestContext;
let squareOrg: string;
let odooOrg: string;

const SQUARE_CATALOGUE = [
  'name;food_category;ean;pos_ref;unit_weight_kg',
  'Croissant;bakery;8410000000023;W62UWFY35CWMYGVWK6TWJDNI;0,06',
  'Huevos camperos;others;8410000000047;E5NV8QWZ2J4KX7BTYL3DHM6R;0,06',
  'Queso curado;dairy;8410000000054;BHJZ4F3Q7N6GXKZ5WQYB2M7T;',
  'Azafrán;others;8410000000061;Q4KJ7ZSN2B5D3XW6YAHCV8PE;',
  'Patatas;fruit_veg;8410000000078;P7TY3LMB6QX2NW4KZD5RJ8HC;',
  'Pollo asado;prepared_meals;8410000000030;JXP6MJ3VN5QFUPHJ2K6NYWCA;',
].join('\n');
const ODOO_CATALOGUE = [
  'name;food_category;ean;pos_ref;unit_weight_kg',
  'Pan de barra;bakery;8410000000016;57;0,25',
  'Huevos camperos;others;8410000000047;58;0,06',
  'Harina;cereals;8410000000085;59;',
  'Queso curado;dairy;8410000000054;60;',
  'Aceite de oliva;others;8410000000092;61;',
].join('\n');

beforeAll(async () => {
  t = await startTestApp({ clock: () => NOW });
  squareOrg = (await createTenant(t.db)).organizationId;
  odooOrg = (await createTenant(t.db)).organizationId;
  await importProducts(t.db, { org: squareOrg, csv: SQUARE_CATALOGUE });
  await importProducts(t.db, { org: odooOrg, csv: ODOO_CATALOGUE });
});
afterAll(() => t?.close());

const square = (name: string) => JSON.parse(readFileSync(new URL(`./fixtures/square/${name}`, import.meta.url), 'utf8'));
const odoo = (name: string) => JSON.parse(readFileSync(new URL(`./fixtures/odoo/${name}`, import.meta.url), 'utf8'));
const send = (tenant: Tenant, body: unknown) => api(t.app, tenant.key).post('/api/v1/webhooks/inbound', body);
const squareShop = () => createTenant(t.db, { organizationId: squareOrg });
const odooShop = () => createTenant(t.db, { organizationId: odooOrg });

/** The records an establishment holds, as [product, kg, occurred_at, notes, source]. */
async function records(tenant: Tenant) {
  const rows = await t.db.record.findMany({ where: { establishment_id: tenant.establishmentId }, orderBy: { occurred_at: 'asc' } });
  return rows.map((r) => [r.product_name, Number(r.weight_kg), r.occurred_at.toISOString(), r.notes, r.source]);
}
/** The sale lines an establishment holds, as [external_ref, product, quantity, unit, sold_at]. */
async function sales(tenant: Tenant) {
  const rows = await t.db.sale.findMany({ where: { establishment_id: tenant.establishmentId }, orderBy: { external_ref: 'asc' } });
  const products = await t.db.product.findMany({ where: { id: { in: rows.map((s) => s.product_id) } } });
  const name = new Map(products.map((p) => [p.id, p.name]));
  return rows.map((s) => [s.external_ref, name.get(s.product_id), Number(s.quantity), s.unit, s.sold_at.toISOString()]);
}
/** Nothing stored, and nothing remembered as received (a later, fixed send is not a duplicate). */
async function expectNothingStored(tenant: Tenant) {
  expect(await countRecords(t.db, tenant.establishmentId)).toBe(0);
  expect(await t.db.sale.count({ where: { establishment_id: tenant.establishmentId } })).toBe(0);
  expect(await t.db.inboundEvent.count({ where: { establishment_id: tenant.establishmentId } })).toBe(0);
}

describe('Square connector: inventory.loss', () => {
  it('reads the unit of an InventoryChange (1.5 lb is 0.68 kg), for a product without a unit weight', async () => {
    const shop = await squareShop();
    const body = { event: 'inventory.loss', connector: 'square', payload: square('inventory-change-lb.json') };
    const res = await send(shop, body);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.status).toBe('processed');
    expect(await records(shop)).toEqual([['Queso curado', 0.68, '2026-11-22T20:30:00.000Z', 'Square: IN_STOCK → WASTE', 'inbound:square']]);
    expect((await send(shop, body)).json().data.status).toBe('duplicate');
    expect(await countRecords(t.db, shop.establishmentId)).toBe(1);
  });

  it("takes the Node SDK's camelCase InventoryChange like the API's snake_case (a kg adjustment)", async () => {
    const shop = await squareShop();
    const res = await send(shop, { event: 'inventory.loss', connector: 'square', payload: square('inventory-change.sdk.json') });
    expect(res.statusCode, res.body).toBe(200);
    expect(await records(shop)).toEqual([['Pollo asado', 0.75, '2026-11-22T21:40:00.000Z', 'Square: IN_STOCK → WASTE', 'inbound:square']]);
  });

  it('converts every weight unit of MeasurementUnitWeight, and counts a generic UNIT with the unit weight', async () => {
    const shop = await squareShop();
    const cases: [string, Record<string, string>, string, number][] = [
      ['BHJZ4F3Q7N6GXKZ5WQYB2M7T', { weight_unit: 'METRIC_GRAM' }, '250', 0.25],
      ['BHJZ4F3Q7N6GXKZ5WQYB2M7T', { weight_unit: 'METRIC_MILLIGRAM' }, '250000', 0.25],
      ['BHJZ4F3Q7N6GXKZ5WQYB2M7T', { weight_unit: 'IMPERIAL_WEIGHT_OUNCE' }, '8', 0.227],
      ['P7TY3LMB6QX2NW4KZD5RJ8HC', { weight_unit: 'IMPERIAL_STONE' }, '0.5', 3.175],
      ['W62UWFY35CWMYGVWK6TWJDNI', { generic_unit: 'UNIT', type: 'TYPE_GENERIC' }, '4', 0.24],
    ];
    for (const [i, [product, unit, quantity, kg]] of cases.entries()) {
      const change = square('inventory-change-lb.json');
      change.adjustment = { ...change.adjustment, id: `ADJ-${i}`, catalog_object_id: product, quantity };
      change.measurement_unit.measurement_unit = unit;
      const res = await send(shop, { event: 'inventory.loss', connector: 'square', payload: change });
      expect(res.statusCode, `${JSON.stringify(unit)} ${res.body}`).toBe(200);
      const record = await t.db.record.findUniqueOrThrow({ where: { id: res.json().data.record_id } });
      expect(Number(record.weight_kg), JSON.stringify(unit)).toBe(kg);
    }
  });

  it('takes RetrieveInventoryAdjustment ({adjustment}) in units of the variation, once', async () => {
    const shop = await squareShop();
    const body = { event: 'inventory.loss', connector: 'square', payload: square('retrieve-inventory-adjustment.json') };
    expect((await send(shop, body)).statusCode).toBe(200);
    expect((await send(shop, body)).json().data.status).toBe('duplicate');
    expect(await records(shop)).toEqual([['Croissant', 0.42, '2026-11-22T21:10:00.000Z', 'Square: IN_STOCK → WASTE', 'inbound:square']]);
  });

  it('refuses an inventory.count.updated notification, a unit that is not a weight or a count, and a move that is not WASTE', async () => {
    const shop = await squareShop();
    const count = await send(shop, { event: 'inventory.loss', connector: 'square', payload: square('inventory-count-updated-event.json') });
    expect(count.statusCode).toBe(400);
    expect(count.json().error).toMatch(/inventory\.count\.updated.*counts.*InventoryAdjustment/s);
    expect(count.json().details.map((d: { path: string }) => d.path)).toEqual(['payload.data.object.inventory_counts']);

    const litres = square('inventory-change-lb.json');
    litres.measurement_unit.measurement_unit = { volume_unit: 'GENERIC_FLUID_OUNCE', type: 'TYPE_VOLUME' };
    const volume = await send(shop, { event: 'inventory.loss', connector: 'square', payload: litres });
    expect(volume.statusCode).toBe(400);
    expect(volume.json().details).toEqual([
      // A volume is weighed with the product's density, which this one lacks.
      {
        path: 'payload.measurement_unit.measurement_unit',
        message: expect.stringMatching(/Queso curado has no density: set the product's density \(density_kg_per_l\)/),
      },
    ]);

    const sold = square('inventory-change-lb.json');
    sold.adjustment.to_state = 'SOLD';
    const notWaste = await send(shop, { event: 'inventory.loss', connector: 'square', payload: sold });
    expect(notWaste.statusCode).toBe(400);
    expect(notWaste.json().details).toEqual([{ path: 'payload.adjustment.to_state', message: 'expected WASTE, got "SOLD"' }]);

    const sdk = square('inventory-change.sdk.json');
    sdk.adjustment.toState = 'SOLD';
    const camel = await send(shop, { event: 'inventory.loss', connector: 'square', payload: sdk });
    expect(camel.json().details).toEqual([{ path: 'payload.adjustment.toState', message: 'expected WASTE, got "SOLD"' }]);
    await expectNothingStored(shop);
  });
});

describe('Square connector: sales.recorded', () => {
  const EXPECTED = [
    ['CAISEM82RcpmcFBM0TfOyiHV3es:945986d1-9586-11e6-ad5a-28cfe92138cf', 'Croissant', 3, 'unit', '2026-11-22T09:14:07.000Z'],
    ['CAISEM82RcpmcFBM0TfOyiHV3es:a8f4168c-9586-11e6-bdf0-28cfe92138cf', 'Huevos camperos', 12, 'unit', '2026-11-22T09:14:07.000Z'],
    ['CAISEM82RcpmcFBM0TfOyiHV3es:b7c1d2e3-9586-11e6-bdf0-28cfe92138cf', 'Queso curado', 0.68, 'kg', '2026-11-22T09:14:07.000Z'],
    ['CAISEM82RcpmcFBM0TfOyiHV3es:c8d2e3f4-9586-11e6-bdf0-28cfe92138cf', 'Azafrán', 0.005, 'kg', '2026-11-22T09:14:07.000Z'],
    ['CAISEM82RcpmcFBM0TfOyiHV3es:d9e3f4a5-9586-11e6-bdf0-28cfe92138cf', 'Patatas', 12.701, 'kg', '2026-11-22T09:14:07.000Z'],
  ];

  it('stores the completed orders of BatchRetrieveOrders: counted, generic UNIT, lb, mg and stone lines', async () => {
    const shop = await squareShop();
    const res = await send(shop, { event: 'sales.recorded', connector: 'square', payload: square('batch-retrieve-orders.json') });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ status: 'processed', sales: { received: 5, stored: 5, duplicates: 0, errors: [] } });
    expect(await sales(shop)).toEqual(EXPECTED);
  });

  it("stores the Node SDK's camelCase orders exactly like the API's", async () => {
    const shop = await squareShop();
    const res = await send(shop, { event: 'sales.recorded', connector: 'square', payload: square('batch-retrieve-orders.sdk.json') });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.sales).toMatchObject({ received: 5, stored: 5, errors: [] });
    expect(await sales(shop)).toEqual(EXPECTED);
    // A problem is reported under the sender's own (camelCase) names.
    const litres = square('batch-retrieve-orders.sdk.json');
    litres.orders[0].id = 'ANOTHER';
    litres.orders[0].lineItems[2].quantityUnit.measurementUnit = { volumeUnit: 'GENERIC_LITER' };
    const refused = (await send(shop, { event: 'sales.recorded', connector: 'square', payload: litres })).json().data.sales;
    expect(refused.errors.map((e: { details: { path: string }[] }) => e.details[0]?.path)).toEqual([
      'payload.orders.0.lineItems.2.quantityUnit',
    ]);
  });

  it.each([
    ['order-created-event.json', 'order.created', 'payload.data.object.order_created'],
    ['order-updated-event.json', 'order.updated', 'payload.data.object.order_updated'],
    ['order-fulfillment-updated-event.json', 'order.fulfillment.updated', 'payload.data.object.order_fulfillment_updated'],
  ])('refuses a %s notification (no line items) saying what to send instead', async (file, type, path) => {
    const shop = await squareShop();
    const res = await send(shop, { event: 'sales.recorded', connector: 'square', payload: square(file) });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('validation_error');
    expect(res.json().error).toContain(`Square ${type} notification`);
    expect(res.json().error).toMatch(/line_items/);
    expect(res.json().error).toMatch(/Square integration's notification URL \(dashboard → Integrations\)/);
    expect(res.json().details.map((d: { path: string }) => d.path)).toEqual([path]);
    await expectNothingStored(shop);
  });

  it('refuses SearchOrders entries (return_entries) and a payload without orders; an empty window is received', async () => {
    const shop = await squareShop();
    const entries = await send(shop, { event: 'sales.recorded', connector: 'square', payload: square('search-orders-entries.json') });
    expect(entries.statusCode).toBe(400);
    expect(entries.json().error).toMatch(/return_entries.*order ids/s);
    expect(entries.json().details.map((d: { path: string }) => d.path)).toEqual(['payload.order_entries']);
    for (const payload of [{}, { cursor: 'abc' }, { order: { id: 'X', location_id: 'L' } }]) {
      const res = await send(shop, { event: 'sales.recorded', connector: 'square', payload });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().error).toMatch(/Square Order/);
    }
    await expectNothingStored(shop);
    // A window without orders, or without a completed one, is genuinely empty.
    const none = await send(shop, { event: 'sales.recorded', connector: 'square', payload: { orders: [] } });
    expect(none.statusCode).toBe(200);
    expect(none.json().data).toMatchObject({ status: 'processed', sales: { received: 0, stored: 0 } });
    const open = square('batch-retrieve-orders.json');
    open.orders = open.orders.slice(1);
    expect((await send(shop, { event: 'sales.recorded', connector: 'square', payload: open })).json().data.sales.received).toBe(0);
  });

  it('stores a SearchOrders page of more than 2000 lines whole', async () => {
    const shop = await squareShop();
    const orders = Array.from({ length: 3 }, (_, o) => ({
      id: `BIG-${o}`,
      location_id: 'L88917AVBK2S5',
      state: 'COMPLETED',
      closed_at: '2026-11-22T12:00:00.000Z',
      line_items: Array.from({ length: 700 }, (_, i) => ({
        uid: `uid-${i}`,
        catalog_object_id: 'W62UWFY35CWMYGVWK6TWJDNI',
        quantity: '1',
        item_type: 'ITEM',
      })),
    }));
    const res = await send(shop, { event: 'sales.recorded', connector: 'square', payload: { orders, cursor: '' } });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(res.json().data.sales).toMatchObject({ received: 2100, stored: 2100, duplicates: 0, errors: [] });
    expect(await t.db.sale.count({ where: { establishment_id: shop.establishmentId } })).toBe(2100);
    const totals = await t.db.saleDayTotal.findMany({ where: { establishment_id: shop.establishmentId } });
    expect(totals.map((r) => [r.day.toISOString().slice(0, 10), Number(r.units), r.lines])).toEqual([['2026-11-22', 2100, 2100]]);
  });
});

describe('connector selection', () => {
  it('routes by `connector` only, in any case; a standard event whose source is "square" stays standard', async () => {
    const shop = await squareShop();
    const standard = await send(shop, {
      event: 'inventory.loss',
      payload: { source: 'square', external_id: 'S-1', ean: '8410000000054', quantity_kg: 1.2, occurred_at: '2026-11-22' },
    });
    expect(standard.statusCode, standard.body).toBe(200);
    const named = await send(shop, { event: 'inventory.loss', connector: 'Square', payload: square('retrieve-inventory-adjustment.json') });
    expect(named.statusCode, named.body).toBe(200);
    expect(await records(shop)).toEqual([
      ['Queso curado', 1.2, '2026-11-22T11:00:00.000Z', null, 'inbound:square'],
      ['Croissant', 0.42, '2026-11-22T21:10:00.000Z', 'Square: IN_STOCK → WASTE', 'inbound:square'],
    ]);
    const other = await odooShop();
    const upper = await send(other, { event: 'inventory.loss', connector: 'ODOO', payload: odoo('stock-scrap-webhook-done.json') });
    expect(upper.statusCode, upper.body).toBe(200);
  });
});

describe('Odoo connector: inventory.loss (stock.scrap)', () => {
  it('stores a validated scrap sent by a webhook (bare ids, a related unit name), once', async () => {
    const shop = await odooShop();
    const body = { event: 'inventory.loss', connector: 'odoo', payload: odoo('stock-scrap-webhook-done.json') };
    const res = await send(shop, body);
    expect(res.statusCode, res.body).toBe(200);
    // A webhook reads many2many fields as ids: the reason tags are named by id.
    expect(await records(shop)).toEqual([['Pan de barra', 2.5, '2026-11-22T19:45:12.000Z', 'Odoo scrap reason tags 2, 5', 'inbound:odoo']]);
    expect((await send(shop, body)).json().data.status).toBe('duplicate');
    expect(await countRecords(t.db, shop.establishmentId)).toBe(1);
  });

  it('recognises a resend of a search_read scrap by its id, and reads Spanish unit names (2 Docenas)', async () => {
    const shop = await odooShop();
    const body = { event: 'inventory.loss', connector: 'odoo', payload: odoo('stock-scrap-search-read.json') };
    const first = await send(shop, body);
    expect(first.statusCode, first.body).toBe(200);
    const again = await send(shop, body);
    expect(again.json().data).toEqual({ ...first.json().data, status: 'duplicate' });
    expect(await records(shop)).toEqual([['Huevos camperos', 1.44, '2026-11-22T20:05:41.000Z', 'Roto', 'inbound:odoo']]);
    const events = await t.db.inboundEvent.findMany({ where: { establishment_id: shop.establishmentId } });
    expect(events.map((e) => e.external_ref)).toEqual(['stock.scrap:129']);
  });

  it('refuses a draft scrap without remembering it, then stores the validated one', async () => {
    const shop = await odooShop();
    const draft = await send(shop, { event: 'inventory.loss', connector: 'odoo', payload: odoo('stock-scrap-webhook-draft.json') });
    expect(draft.statusCode).toBe(400);
    expect(draft.json().error).toMatch(/only validated \(done\) scraps are losses/i);
    expect(draft.json().details).toEqual([{ path: 'payload.state', message: expect.stringMatching(/"draft"/) }]);
    await expectNothingStored(shop);
    const done = { ...odoo('stock-scrap-webhook-draft.json'), state: 'done', date_done: '2026-11-23 07:30:00', name: 'SP/00131' };
    const res = await send(shop, { event: 'inventory.loss', connector: 'odoo', payload: done });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.status).toBe('processed');
    expect(await records(shop)).toEqual([['Pan de barra', 1.2, '2026-11-23T07:30:00.000Z', 'Odoo scrap', 'inbound:odoo']]);
  });

  it('refuses a scrap without state or date_done, never dating it now', async () => {
    const shop = await odooShop();
    const noState = await send(shop, { event: 'inventory.loss', connector: 'odoo', payload: odoo('stock-scrap-webhook-no-state.json') });
    expect(noState.statusCode).toBe(400);
    expect(noState.json().details).toEqual([
      { path: 'payload.state', message: expect.stringMatching(/add the fields state and date_done to the webhook/) },
    ]);
    const undated = { ...odoo('stock-scrap-webhook-done.json'), date_done: false };
    const noDate = await send(shop, { event: 'inventory.loss', connector: 'odoo', payload: undated });
    expect(noDate.statusCode).toBe(400);
    expect(noDate.json().details).toEqual([{ path: 'payload.date_done', message: expect.stringMatching(/date_done/) }]);
    const noId = { ...odoo('stock-scrap-search-read.json'), id: undefined };
    const anonymous = await send(shop, { event: 'inventory.loss', connector: 'odoo', payload: noId });
    expect(anonymous.statusCode).toBe(400);
    expect(anonymous.json().details.map((d: { path: string }) => d.path)).toEqual(['payload.id']);
    await expectNothingStored(shop);
  });

  it('refuses a unit given by bare id without a name, a volume unit for a product without density, and a record of another model', async () => {
    const shop = await odooShop();
    const { x_uom_name: _n, ...bare } = odoo('stock-scrap-webhook-done.json');
    const noName = await send(shop, { event: 'inventory.loss', connector: 'odoo', payload: bare });
    expect(noName.statusCode).toBe(400);
    expect(noName.json().details).toEqual([
      { path: 'payload.product_uom_id', message: expect.stringMatching(/bare id.*x_uom_name.*x_studio_/) },
    ]);
    const litres = { ...odoo('stock-scrap-webhook-done.json'), x_uom_name: 'L' };
    const volume = await send(shop, { event: 'inventory.loss', connector: 'odoo', payload: litres });
    expect(volume.statusCode).toBe(400);
    expect(volume.json().details).toEqual([
      {
        path: 'payload.product_uom_id',
        message: expect.stringMatching(/Pan de barra has no density: set the product's density \(density_kg_per_l\)/),
      },
    ]);
    const line = await send(shop, { event: 'inventory.loss', connector: 'odoo', payload: odoo('pos-order-line-webhook-studio.json') });
    expect(line.statusCode).toBe(400);
    expect(line.json().details).toEqual([{ path: 'payload._model', message: expect.stringMatching(/stock\.scrap/) }]);
    await expectNothingStored(shop);
  });
});

describe('Odoo connector: sales.recorded', () => {
  it('reads units by name (es_ES too) or by category and ratio; a volume unit for a product without density is refused on its line', async () => {
    const shop = await odooShop();
    const res = await send(shop, { event: 'sales.recorded', connector: 'odoo', payload: odoo('pos-order-lines-search-read.json') });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.sales, JSON.stringify(res.json().data.sales.errors)).toMatchObject({ received: 5, stored: 4 });
    expect(res.json().data.sales.errors).toEqual([
      expect.objectContaining({
        index: 4,
        details: [
          { path: 'payload.lines.4.product_uom_id', message: expect.stringMatching(/Aceite de oliva has no density.*density_kg_per_l/) },
        ],
      }),
    ]);
    expect(await sales(shop)).toEqual([
      ['pos.order.line:5012', 'Pan de barra', 12, 'unit', '2026-11-22T08:31:05.000Z'],
      ['pos.order.line:5013', 'Harina', 250, 'kg', '2026-11-22T08:31:05.000Z'],
      ['pos.order.line:5014', 'Queso curado', 0.5, 'kg', '2026-11-22T09:12:40.000Z'],
      ['pos.order.line:5015', 'Huevos camperos', 18, 'unit', '2026-11-22T09:12:40.000Z'],
    ]);
  });

  it('reads a Studio related field (x_studio_…) like x_uom_name: 2 Docenas are 24 units', async () => {
    const shop = await odooShop();
    const res = await send(shop, { event: 'sales.recorded', connector: 'odoo', payload: odoo('pos-order-line-webhook-studio.json') });
    expect(res.statusCode, res.body).toBe(200);
    expect(await sales(shop)).toEqual([['pos.order.line:5040', 'Huevos camperos', 24, 'unit', '2026-11-22T18:02:31.000Z']]);
  });

  it('refuses a pos.order webhook (its lines are ids) with the automation to set up instead', async () => {
    const shop = await odooShop();
    const res = await send(shop, { event: 'sales.recorded', connector: 'odoo', payload: odoo('pos-order-webhook.json') });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatch(/pos\.order.*ids/);
    expect(res.json().details).toEqual([
      { path: 'payload.lines', message: expect.stringMatching(/automation rule on pos\.order\.line.*qty.*product_uom_id.*x_uom_name/) },
    ]);
    await expectNothingStored(shop);
  });

  it('refuses a payload with no line it can read; an empty search_read is received', async () => {
    const shop = await odooShop();
    for (const payload of [{}, { records: [] }, { lines: [5031, 5032] }]) {
      const res = await send(shop, { event: 'sales.recorded', connector: 'odoo', payload });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().error).toMatch(/pos\.order\.line/);
    }
    await expectNothingStored(shop);
    const empty = await send(shop, { event: 'sales.recorded', connector: 'odoo', payload: { lines: [] } });
    expect(empty.statusCode).toBe(200);
    expect(empty.json().data.sales).toMatchObject({ received: 0, stored: 0 });
  });

  it('names the event of a webhook body by its model', () => {
    expect(odooEventOf(odoo('stock-scrap-webhook-done.json'))).toBe('inventory.loss');
    expect(odooEventOf(odoo('pos-order-line-webhook-studio.json'))).toBe('sales.recorded');
    expect(odooEventOf(odoo('pos-order-webhook.json'))).toBe('sales.recorded');
    expect(odooEventOf({ _model: 'res.partner', _id: 1 })).toBeUndefined();
    expect(odooEventOf({ lines: [] })).toBeUndefined();
  });
});

describe('volumes: litres and fluid ounces weighed with the product density', () => {
  /** An organisation whose catalogue (imported with a decimal comma) has densities for milk and oil. */
  async function dairy() {
    const org = (await createTenant(t.db)).organizationId;
    await importProducts(t.db, {
      org,
      csv: [
        'name;food_category;ean;pos_ref;unit_weight_kg;density_kg_per_l',
        'Leche entera;dairy;8410000000016;MILKVAR;;1,03',
        'Aceite de oliva;others;8410000000092;61;;0,92',
        'Zumo de naranja;others;8410000000023;JUICE;1;',
      ].join('\n'),
    });
    return createTenant(t.db, { organizationId: org });
  }

  it('Square: an adjustment in litres is stored in kg with the density; without one it is refused with the field to set', async () => {
    const shop = await dairy();
    const change = square('inventory-change-lb.json');
    change.adjustment.catalog_object_id = 'MILKVAR';
    change.adjustment.quantity = '2';
    change.measurement_unit.measurement_unit = { volume_unit: 'METRIC_LITER', type: 'TYPE_VOLUME' };
    const res = await send(shop, { event: 'inventory.loss', connector: 'square', payload: change });
    expect(res.statusCode, res.body).toBe(200);
    expect(await records(shop)).toEqual([['Leche entera', 2.06, '2026-11-22T20:30:00.000Z', 'Square: IN_STOCK → WASTE', 'inbound:square']]);

    // A juice with a unit weight but no density: a volume is not counted, it is refused.
    const juice = square('inventory-change-lb.json');
    juice.adjustment.id = 'ANOTHER';
    juice.adjustment.catalog_object_id = 'JUICE';
    juice.measurement_unit.measurement_unit = { volume_unit: 'GENERIC_FLUID_OUNCE', type: 'TYPE_VOLUME' };
    const refused = await send(shop, { event: 'inventory.loss', connector: 'square', payload: juice });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().details).toEqual([
      {
        path: 'payload.measurement_unit.measurement_unit',
        message: expect.stringContaining("product Zumo de naranja has no density: set the product's density (density_kg_per_l)"),
      },
    ]);
    expect(await countRecords(t.db, shop.establishmentId)).toBe(1);
  });

  it('Square: an order line in fluid ounces is a sale in kg; one for a product without density is refused on its line', async () => {
    const shop = await dairy();
    const orders = square('batch-retrieve-orders.json');
    const order = orders.orders[0];
    order.line_items = order.line_items.slice(0, 2);
    order.line_items[0].catalog_object_id = 'MILKVAR';
    order.line_items[0].quantity = '16';
    order.line_items[0].quantity_unit = { measurement_unit: { volume_unit: 'GENERIC_FLUID_OUNCE' }, precision: 1 };
    order.line_items[1].catalog_object_id = 'JUICE';
    order.line_items[1].quantity = '1';
    order.line_items[1].quantity_unit = { measurement_unit: { volume_unit: 'METRIC_LITER' }, precision: 1 };
    orders.orders = [order];
    const res = await send(shop, { event: 'sales.recorded', connector: 'square', payload: orders });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.sales).toMatchObject({ received: 2, stored: 1 });
    expect(res.json().data.sales.errors).toEqual([
      expect.objectContaining({
        index: 1,
        details: [
          {
            path: 'payload.orders.0.line_items.1.quantity_unit',
            message: expect.stringContaining("product Zumo de naranja has no density: set the product's density (density_kg_per_l)"),
          },
        ],
      }),
    ]);
    // 16 US fl oz × 0.0295735295625 L × 1.03 kg/L = 0.48737… kg, stored to the gram.
    expect((await sales(shop)).map(([, product, quantity, unit]) => [product, quantity, unit])).toEqual([['Leche entera', 0.487, 'kg']]);
  });

  it('Odoo: a scrap in L and a POS line in ml (or by the Volume category) are stored in kg with the density', async () => {
    const shop = await dairy();
    const scrap = { ...odoo('stock-scrap-webhook-done.json'), product_id: 61, x_uom_name: 'L', scrap_qty: 5 };
    const loss = await send(shop, { event: 'inventory.loss', connector: 'odoo', payload: scrap });
    expect(loss.statusCode, loss.body).toBe(200);
    expect((await records(shop)).map(([product, kg]) => [product, kg])).toEqual([['Aceite de oliva', 4.6]]);

    const lines = odoo('pos-order-lines-search-read.json');
    lines.lines = [
      { ...lines.lines[4], id: 7001, product_id: [61, 'Aceite de oliva'], qty: 500, product_uom_id: [12, 'ml'] },
      {
        ...lines.lines[4],
        id: 7002,
        product_id: [61, 'Aceite de oliva'],
        qty: 2,
        product_uom_id: [13, 'Garrafa'],
        x_uom_category: 'Volume',
        x_uom_factor: 0.2,
      },
      { ...lines.lines[4], id: 7003, product_id: ['JUICE', 'Zumo'], qty: 1, product_uom_id: [11, 'L'] },
    ];
    const res = await send(shop, { event: 'sales.recorded', connector: 'odoo', payload: lines });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.sales).toMatchObject({ received: 3, stored: 2 });
    expect(res.json().data.sales.errors).toEqual([
      expect.objectContaining({
        index: 2,
        details: [{ path: 'payload.lines.2.product_uom_id', message: expect.stringContaining('(density_kg_per_l)') }],
      }),
    ]);
    // 500 ml × 0.92 = 0.46 kg; 2 garrafas of 5 L (factor 0.2) × 0.92 = 9.2 kg.
    expect((await sales(shop)).map(([ref, , quantity, unit]) => [ref, quantity, unit])).toEqual([
      ['pos.order.line:7001', 0.46, 'kg'],
      ['pos.order.line:7002', 9.2, 'kg'],
    ]);
  });

  it('the standard format: an inventory.loss and a sale in l, ml, cl or fl_oz; without a density a 400 that stores nothing', async () => {
    const shop = await dairy();
    const loss = await send(shop, {
      event: 'inventory.loss',
      payload: { source: 'pos', external_id: 'L1', product_ref: 'MILKVAR', quantity: 150, unit: 'cl', occurred_at: '2026-11-23' },
    });
    expect(loss.statusCode, loss.body).toBe(200);
    expect((await records(shop)).map(([product, kg]) => [product, kg])).toEqual([['Leche entera', 1.545]]);
    const noDensity = await send(shop, {
      event: 'inventory.loss',
      payload: { source: 'pos', external_id: 'L2', product_ref: 'JUICE', quantity: 1, unit: 'l' },
    });
    expect(noDensity.statusCode).toBe(400);
    expect(noDensity.json().details).toEqual([
      {
        path: 'payload.unit',
        message: expect.stringContaining("product Zumo de naranja has no density: set the product's density (density_kg_per_l)"),
      },
    ]);
    expect(await countRecords(t.db, shop.establishmentId)).toBe(1);
    const sale = await send(shop, {
      event: 'sales.recorded',
      payload: { source: 'pos', external_id: 'S1', product_ref: '61', quantity: 250, unit: 'ml', sold_at: '2026-11-23' },
    });
    expect(sale.statusCode, sale.body).toBe(200);
    expect((await sales(shop)).map(([ref, , quantity, unit]) => [ref, quantity, unit])).toEqual([['S1', 0.23, 'kg']]);
    const juice = await send(shop, {
      event: 'sales.recorded',
      payload: { source: 'pos', external_id: 'S2', product_ref: 'JUICE', quantity: 12, unit: 'fl_oz', sold_at: '2026-11-23' },
    });
    expect(juice.statusCode).toBe(400);
    expect(juice.json().details).toEqual([{ path: 'payload.unit', message: expect.stringContaining('(density_kg_per_l)') }]);
    expect(await t.db.sale.count({ where: { establishment_id: shop.establishmentId } })).toBe(1);
  });
});
