import { deadline } from '@merma/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { importProducts } from '../src/admin/service.js';
import { createMember, DashboardBrowser, jobsDone } from './dashboard-client.js';
import {
  exampleAdjustment,
  exampleOrder,
  inventoryCountUpdatedEvent,
  orderFulfillmentUpdatedEvent,
  orderUpdatedEvent,
  squareExample,
  squareSignature,
  startSquareApi,
} from './fixtures/square-api.js';
import { api, createTenant, startTestApp, type Tenant, type TestContext } from './helpers.js';

/**
 * A Square account end to end: a notification signed as Square signs it → the integration's URL →
 * a job reads the order or the inventory changes from a local Square API held to Square's
 * published OpenAPI document (fixtures/square-api.ts: Prism in front of a fake, both sides
 * validated) → sales and losses stored once → the demand forecast sees the sales.
 */
const TOKEN = 'EAAAl-square-access-token-for-tests';
const KEY = 'sq-signature-key-AbC123xyz';
const LOCATION = 'L8X2QBJ4GMCYP';
const CROISSANT = 'W62UWFY35CWMYGVWK6TWJDNI';
const POLLO = 'JXP6MJ3VN5QFUPHJ2K6NYWCA';

let t: TestContext;
let square: Awaited<ReturnType<typeof startSquareApi>>;

beforeAll(async () => {
  square = await startSquareApi({ accessToken: TOKEN });
  t = await startTestApp({ worker: true, config: { SQUARE_API_URL: square.url, PUBLIC_URL: 'https://merma.test' } });
});
afterAll(async () => {
  await t?.close();
  await square?.close();
});
beforeEach(() => {
  square.requests.length = 0;
});

type Shop = Tenant & { integration: { id: string; url: string } };

async function shop(): Promise<Shop> {
  const tenant = await createTenant(t.db);
  await importProducts(t.db, {
    org: tenant.organizationId,
    csv: `name;food_category;ean;pos_ref;unit_weight_kg\nCroissant;bakery;8410000000023;${CROISSANT};0,06\nPollo asado;prepared_meals;8410000000030;${POLLO};\n`,
  });
  const member = await createMember(t.db, tenant.organizationId, 'owner');
  const owner = new DashboardBrowser(t.app);
  await owner.signIn(member.email, 'correct horse battery staple');
  const integration = await owner.mutate('integrations.create', {
    establishment_id: tenant.establishmentId,
    livemode: false,
    kind: 'square',
    name: 'Square Madrid',
    signature_key: KEY,
    access_token: TOKEN,
    location_id: LOCATION,
  });
  return { ...tenant, integration };
}

/** POSTs a notification to the integration's URL, signed as Square signs it. */
function notify(s: Shop, notification: object) {
  const body = JSON.stringify(notification);
  return t.app.inject({
    method: 'POST',
    url: new URL(s.integration.url).pathname,
    headers: { 'content-type': 'application/json', 'x-square-hmacsha256-signature': squareSignature(KEY, s.integration.url, body) },
    payload: body,
  });
}

const hoursAgo = (h: number) => new Date(Date.now() - h * 3600_000).toISOString();

/** The spec's example order, completed at this location, its two lines a croissant count and chicken by the pound. */
function completedOrder(id: string) {
  const example = squareExample<{ order: { line_items: Record<string, unknown>[] } }>('RetrieveOrderResponse').order;
  const [first, second] = example.line_items;
  return exampleOrder({
    id,
    location_id: LOCATION,
    state: 'COMPLETED',
    // The order as read after the notifications (the spec's examples notify versions up to 6).
    version: 6,
    // Yesterday at noon in Madrid: the forecast reads whole days, up to yesterday.
    closed_at: `${new Date(Date.now() - 86_400_000).toISOString().slice(0, 10)}T11:00:00.000Z`,
    line_items: [
      { ...first, catalog_object_id: CROISSANT, quantity: '12' },
      {
        ...second,
        catalog_object_id: POLLO,
        quantity: '1.50',
        quantity_unit: { measurement_unit: { weight_unit: 'IMPERIAL_POUND' }, precision: 2 },
      },
    ],
  });
}

const salesOf = (s: Shop) =>
  t.db.sale
    .findMany({ where: { establishment_id: s.establishmentId }, orderBy: { external_ref: 'asc' } })
    .then((rows) => rows.map((r) => ({ ref: r.external_ref, quantity: Number(r.quantity), unit: r.unit, source: r.source })));
const integrationRow = (s: Shop) => t.db.integration.findUniqueOrThrow({ where: { id: s.integration.id } });
const orderCalls = () => square.requests.filter((r) => r.path === '/v2/orders/batch-retrieve');

describe('a Square order notification', () => {
  it('is answered at once, and its COMPLETED order read from Square and stored as sales once, seen by the forecast', async () => {
    const s = await shop();
    square.orders.set('ORDER-1', completedOrder('ORDER-1'));
    const event = orderUpdatedEvent({ orderId: 'ORDER-1', locationId: LOCATION, state: 'COMPLETED', createdAt: new Date().toISOString() });
    const res = await notify(s, event);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ status: 'queued', event_id: expect.any(String) });
    await jobsDone(t.db, 'integrations.square_fetch');
    expect(await salesOf(s)).toEqual([
      {
        ref: `ORDER-1:${(completedOrder('ORDER-1') as { line_items: { uid: string }[] }).line_items[0]?.uid}`,
        quantity: 12,
        unit: 'unit',
        source: 'square',
      },
      {
        ref: `ORDER-1:${(completedOrder('ORDER-1') as { line_items: { uid: string }[] }).line_items[1]?.uid}`,
        quantity: 0.68,
        unit: 'kg',
        source: 'square',
      },
    ]);
    const [call] = orderCalls();
    expect(call?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(call?.body).toEqual({ location_id: LOCATION, order_ids: ['ORDER-1'] });

    // The same event again: a duplicate, not fetched again. Another event for the same order
    // (its fulfillment updated): fetched, but no line is stored twice.
    expect((await notify(s, event)).json().data).toMatchObject({ status: 'duplicate' });
    const fulfilled = orderFulfillmentUpdatedEvent({
      orderId: 'ORDER-1',
      locationId: LOCATION,
      state: 'COMPLETED',
      createdAt: new Date().toISOString(),
    });
    expect((await notify(s, fulfilled)).json().data).toMatchObject({ status: 'queued' });
    await jobsDone(t.db, 'integrations.square_fetch');
    expect(orderCalls()).toHaveLength(2);
    expect(await salesOf(s)).toHaveLength(2);
    expect((await integrationRow(s)).last_error).toBeNull();

    const demand = await api(t.app, s.key).get('/api/v1/predict?type=demand&horizon=7');
    expect(demand.statusCode, demand.body).toBe(200);
    const names = demand
      .json()
      .data.products.map((p: { product_name: string }) => p.product_name)
      .sort();
    expect(names).toEqual(['Croissant', 'Pollo asado']);
  });

  it('of an order not COMPLETED, or of another location, is answered `ignored` and nothing is read from Square', async () => {
    const s = await shop();
    const open = await notify(
      s,
      orderUpdatedEvent({ orderId: 'ORDER-2', locationId: LOCATION, state: 'OPEN', createdAt: new Date().toISOString() }),
    );
    expect(open.json().data).toMatchObject({ status: 'ignored', reason: expect.stringContaining('OPEN') });
    const elsewhere = await notify(
      s,
      orderUpdatedEvent({ orderId: 'ORDER-3', locationId: 'OTHERLOCATION', state: 'COMPLETED', createdAt: new Date().toISOString() }),
    );
    expect(elsewhere.json().data).toMatchObject({ status: 'ignored', reason: expect.stringContaining(LOCATION) });
    await jobsDone(t.db, 'integrations.square_fetch');
    expect(orderCalls()).toHaveLength(0);
    expect(await salesOf(s)).toEqual([]);
  });

  it('is never held up by Square: answered while Square has not answered the read', async () => {
    const s = await shop();
    square.orders.set('ORDER-4', completedOrder('ORDER-4'));
    square.stallNext(3000);
    const res = await notify(
      s,
      orderUpdatedEvent({ orderId: 'ORDER-4', locationId: LOCATION, state: 'COMPLETED', createdAt: new Date().toISOString() }),
    );
    expect(res.json().data).toMatchObject({ status: 'queued' });
    expect(await salesOf(s)).toEqual([]);
    await jobsDone(t.db, 'integrations.square_fetch', 30_000);
    expect(await salesOf(s)).toHaveLength(2);
  });

  it('is read again when Square rate-limits (after its Retry-After) or fails, and the failure shows meanwhile', async () => {
    const s = await shop();
    square.orders.set('ORDER-5', completedOrder('ORDER-5'));
    square.failNext(429, { 'retry-after': '1' });
    const res = await notify(
      s,
      orderUpdatedEvent({ orderId: 'ORDER-5', locationId: LOCATION, state: 'COMPLETED', createdAt: new Date().toISOString() }),
    );
    expect(res.json().data).toMatchObject({ status: 'queued' });
    await expect.poll(async () => (await integrationRow(s)).last_error, { timeout: deadline(10_000) }).toMatch(/429|rate/i);
    await jobsDone(t.db, 'integrations.square_fetch', 30_000);
    expect(await salesOf(s)).toHaveLength(2);
    expect(orderCalls()).toHaveLength(2);
    expect((await integrationRow(s)).last_error).toBeNull();

    square.orders.set('ORDER-6', completedOrder('ORDER-6'));
    square.failNext(503);
    await notify(
      s,
      orderUpdatedEvent({ orderId: 'ORDER-6', locationId: LOCATION, state: 'COMPLETED', createdAt: new Date().toISOString() }),
    );
    await jobsDone(t.db, 'integrations.square_fetch', 30_000);
    expect(await salesOf(s)).toHaveLength(4);
  });

  it('whose order names a product Merma does not know stores the others and says which on the integration', async () => {
    const s = await shop();
    const order = completedOrder('ORDER-7') as { line_items: Record<string, unknown>[] };
    (order.line_items[1] as Record<string, unknown>).catalog_object_id = 'UNKNOWNVARIATION';
    square.orders.set('ORDER-7', order);
    await notify(
      s,
      orderUpdatedEvent({ orderId: 'ORDER-7', locationId: LOCATION, state: 'COMPLETED', createdAt: new Date().toISOString() }),
    );
    await jobsDone(t.db, 'integrations.square_fetch');
    expect((await salesOf(s)).map((x) => x.quantity)).toEqual([12]);
    expect((await integrationRow(s)).last_error).toMatch(/1 not stored: line 1/);
  });
});

describe('a Square inventory.count.updated notification', () => {
  it('has its WASTE adjustments read from Square and stored as losses once, in the unit of the change', async () => {
    const s = await shop();
    const at = hoursAgo(0.2);
    square.adjustments.push(
      exampleAdjustment({
        id: 'ADJ-POLLO',
        catalog_object_id: POLLO,
        location_id: LOCATION,
        quantity: '1.5',
        created_at: at,
        occurred_at: at,
      }),
      exampleAdjustment({
        id: 'ADJ-CROISSANT',
        catalog_object_id: CROISSANT,
        location_id: LOCATION,
        quantity: '10',
        created_at: at,
        occurred_at: at,
      }),
    );
    square.units.set('ADJ-POLLO', { measurement_unit: { weight_unit: 'IMPERIAL_POUND', type: 'TYPE_WEIGHT' }, precision: 1 });
    const event = inventoryCountUpdatedEvent({
      createdAt: new Date().toISOString(),
      counts: [
        { catalog_object_id: POLLO, location_id: LOCATION, state: 'IN_STOCK', calculated_at: at },
        { catalog_object_id: CROISSANT, location_id: LOCATION, state: 'IN_STOCK', calculated_at: at },
      ],
    });
    const res = await notify(s, event);
    expect(res.json().data).toMatchObject({ status: 'queued' });
    await jobsDone(t.db, 'integrations.square_fetch');
    const records = await t.db.record.findMany({ where: { establishment_id: s.establishmentId }, orderBy: { product_name: 'asc' } });
    expect(records.map((r) => [r.product_name, Number(r.weight_kg), r.source])).toEqual([
      ['Croissant', 0.6, 'inbound:square'],
      ['Pollo asado', 0.68, 'inbound:square'],
    ]);
    const [call] = square.requests.filter((r) => r.path === '/v2/inventory/changes/batch-retrieve');
    expect(call?.body).toMatchObject({ types: ['ADJUSTMENT'], states: ['WASTE'], location_ids: [LOCATION] });
    expect(((call?.body ?? {}) as { catalog_object_ids?: string[] }).catalog_object_ids?.sort()).toEqual([CROISSANT, POLLO].sort());

    // Another count update of the same items: the same adjustments are read again, and stored once.
    await notify(s, { ...event, event_id: 'another-event-id' });
    await jobsDone(t.db, 'integrations.square_fetch');
    expect(await t.db.record.count({ where: { establishment_id: s.establishmentId } })).toBe(2);
  });
});

describe('a Square order read older than its notification', () => {
  it('is read again until Square answers the notified version and state, the card saying so meanwhile, then stored', async () => {
    const s = await shop();
    const order = completedOrder('ORDER-V1');
    // Square's read lags: an older version, then the notified version not yet COMPLETED, then the sale.
    const answers = [
      { ...order, version: 7, state: 'OPEN' },
      { ...order, version: 8, state: 'OPEN' },
      { ...order, version: 8 },
    ];
    let reads = 0;
    const get = square.orders.get.bind(square.orders);
    square.orders.get = (id: string) => (id === 'ORDER-V1' ? answers[Math.min(reads++, answers.length - 1)] : get(id));
    try {
      const res = await notify(
        s,
        orderUpdatedEvent({
          orderId: 'ORDER-V1',
          locationId: LOCATION,
          state: 'COMPLETED',
          version: 8,
          createdAt: new Date().toISOString(),
        }),
      );
      expect(res.json().data).toMatchObject({ status: 'queued' });
      await expect
        .poll(async () => (await integrationRow(s)).last_error, { timeout: deadline(10_000) })
        .toMatch(
          /^Square answered order ORDER-V1 (at version 7, older than the notified version 8|OPEN, not COMPLETED as notified): reading it again/,
        );
      await jobsDone(t.db, 'integrations.square_fetch', 30_000);
      expect(reads).toBe(3);
      expect(await salesOf(s)).toHaveLength(2);
      const row = await integrationRow(s);
      expect(row.last_error).toBeNull();
      expect(row.failed_count).toBe(0);
    } finally {
      square.orders.get = get;
    }
  });
});

describe('a Square return order', () => {
  it('lowers the sales of the day of the sale it returns, once', async () => {
    const s = await shop();
    const sale = completedOrder('ORDER-RS') as { line_items: { uid: string }[]; closed_at: string };
    square.orders.set('ORDER-RS', sale);
    await notify(
      s,
      orderUpdatedEvent({ orderId: 'ORDER-RS', locationId: LOCATION, state: 'COMPLETED', createdAt: new Date().toISOString() }),
    );
    await jobsDone(t.db, 'integrations.square_fetch');
    const croissantUid = sale.line_items[0]?.uid as string;
    // Returned today: two of the twelve croissants sold yesterday.
    square.orders.set(
      'RETURN-1',
      exampleOrder({
        id: 'RETURN-1',
        location_id: LOCATION,
        state: 'COMPLETED',
        version: 6,
        closed_at: new Date().toISOString(),
        line_items: [],
        returns: [
          {
            uid: 'RET-1',
            source_order_id: 'ORDER-RS',
            return_line_items: [
              { uid: 'RL-1', source_line_item_uid: croissantUid, catalog_object_id: CROISSANT, quantity: '2', name: 'Croissant' },
            ],
          },
        ],
      }),
    );
    for (const _ of [1, 2]) {
      await notify(
        s,
        orderUpdatedEvent({ orderId: 'RETURN-1', locationId: LOCATION, state: 'COMPLETED', createdAt: new Date().toISOString() }),
      );
      await jobsDone(t.db, 'integrations.square_fetch');
    }
    const croissant = await t.db.product.findFirstOrThrow({ where: { organization_id: s.organizationId, pos_ref: CROISSANT } });
    const yesterday = sale.closed_at.slice(0, 10);
    const returned = await t.db.sale.findMany({ where: { establishment_id: s.establishmentId, quantity: { lt: 0 } } });
    expect(returned.map((r) => [r.external_ref, r.product_id, Number(r.quantity), r.day.toISOString().slice(0, 10)])).toEqual([
      ['RETURN-1:RL-1', croissant.id, -2, yesterday],
    ]);
    const totals = await t.db.saleDayTotal.findMany({ where: { establishment_id: s.establishmentId, product_id: croissant.id } });
    expect(totals.map((x) => [x.day.toISOString().slice(0, 10), Number(x.units)])).toEqual([[yesterday, 10]]);
    expect((await integrationRow(s)).last_error).toBeNull();
  });
});
