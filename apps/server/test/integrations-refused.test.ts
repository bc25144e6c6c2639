import { WebhookEvent } from '@merma/schema';
import { verifyWebhook } from '@merma/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { importProducts } from '../src/admin/service.js';
import { createMember, DashboardBrowser, failure, jobsDone, PASSWORD } from './dashboard-client.js';
import { exampleOrder, orderUpdatedEvent, squareExample, squareSignature, startSquareApi } from './fixtures/square-api.js';
import { createTenant, startTestApp, subscribe, type Tenant, type TestContext } from './helpers.js';
import { startReceiver, waitFor } from './receiver.js';

/**
 * Lines an integration cannot store are kept (modules/integrations/refused.ts): counted on the
 * card, listed, announced by `integration.lines_refused`, and stored once their item is mapped to
 * a product — never only a "last error" the next good order clears.
 */
const TOKEN = 'EAAAl-square-access-token-for-tests';
const KEY = 'sq-signature-key-AbC123xyz';
const LOCATION = 'L8X2QBJ4GMCYP';
const CROISSANT = 'W62UWFY35CWMYGVWK6TWJDNI';
const NEW_ITEM = 'NEWVARIATIONTARTAQUESO01';

let t: TestContext;
let square: Awaited<ReturnType<typeof startSquareApi>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  square = await startSquareApi({ accessToken: TOKEN });
  receiver = await startReceiver();
  t = await startTestApp({
    worker: true,
    config: { SQUARE_API_URL: square.url, PUBLIC_URL: 'https://merma.test', WEBHOOKS_ALLOW_PRIVATE: 'true' },
  });
});
afterAll(async () => {
  await t?.close();
  await square?.close();
  await receiver?.close();
});
beforeEach(() => {
  square.requests.length = 0;
});

type Shop = Tenant & {
  owner: DashboardBrowser;
  scope: { establishment_id: string; livemode: boolean };
  integration: { id: string; url: string };
};

async function shop(): Promise<Shop> {
  const tenant = await createTenant(t.db);
  await importProducts(t.db, {
    org: tenant.organizationId,
    csv: `name;food_category;ean;pos_ref;unit_weight_kg\nCroissant;bakery;8410000000023;${CROISSANT};0,06\nTarta de queso;bakery;8410000000030;;0,12\n`,
  });
  const member = await createMember(t.db, tenant.organizationId, 'owner');
  const owner = new DashboardBrowser(t.app);
  await owner.signIn(member.email, PASSWORD);
  const scope = { establishment_id: tenant.establishmentId, livemode: false };
  const integration = await owner.mutate('integrations.create', {
    ...scope,
    kind: 'square',
    name: 'Square Madrid',
    signature_key: KEY,
    access_token: TOKEN,
    location_id: LOCATION,
  });
  return { ...tenant, owner, scope, integration };
}

function notify(s: Shop, orderId: string) {
  const body = JSON.stringify(
    orderUpdatedEvent({ orderId, locationId: LOCATION, state: 'COMPLETED', createdAt: new Date().toISOString() }),
  );
  return t.app.inject({
    method: 'POST',
    url: new URL(s.integration.url).pathname,
    headers: { 'content-type': 'application/json', 'x-square-hmacsha256-signature': squareSignature(KEY, s.integration.url, body) },
    payload: body,
  });
}

const yesterdayNoon = () => `${new Date(Date.now() - 86_400_000).toISOString().slice(0, 10)}T11:00:00.000Z`;
type Line = Record<string, unknown>;

/** A COMPLETED order of the spec's example whose lines are the given ones (each based on the example's first line). */
function order(id: string, lines: Line[], overrides: Line = {}) {
  const example = squareExample<{ order: { line_items: Line[] } }>('RetrieveOrderResponse').order;
  const [first] = example.line_items;
  return exampleOrder({
    id,
    location_id: LOCATION,
    state: 'COMPLETED',
    version: 6,
    closed_at: yesterdayNoon(),
    line_items: lines.map((l, i) => {
      const { catalog_object_id: _c, quantity_unit: _u, ...base } = first as Line;
      return { ...base, uid: `${id}-L${i}`, ...l };
    }),
    ...overrides,
  });
}

async function received(s: Shop, orderId: string) {
  const res = await notify(s, orderId);
  expect(res.json().data, res.body).toMatchObject({ status: 'queued' });
  await jobsDone(t.db, 'integrations.square_fetch');
}

const salesOf = (s: Shop) =>
  t.db.sale
    .findMany({ where: { establishment_id: s.establishmentId }, orderBy: { external_ref: 'asc' } })
    .then((rows) => rows.map((r) => ({ ref: r.external_ref, product_id: r.product_id, quantity: Number(r.quantity) })));
const productId = (s: Shop, name: string) =>
  t.db.product.findFirstOrThrow({ where: { organization_id: s.organizationId, name } }).then((p) => p.id);
const card = async (s: Shop) =>
  ((await s.owner.query('integrations.list', s.scope)) as { id: string; refused_count: number; last_error: string | null }[]).find(
    (i) => i.id === s.integration.id,
  );
const refusedLines = (s: Shop) => s.owner.query('integrations.refusedLines', { ...s.scope, integration_id: s.integration.id });
const refusedEvents = (s: Shop) =>
  t.db.event
    .findMany({ where: { establishment_id: s.establishmentId, type: 'integration.lines_refused' }, orderBy: { created_at: 'asc' } })
    .then((rows) => rows.map((r) => r.payload as { event: string; data: Record<string, unknown> }));

describe('lines a Square integration cannot store', () => {
  it('are kept with the vendor ids and the reason, counted on the card after the next good order, and announced by a webhook event', async () => {
    const s = await shop();
    square.orders.set(
      'ORDER-R1',
      order('ORDER-R1', [
        { catalog_object_id: CROISSANT, quantity: '4', name: 'Croissant' },
        { catalog_object_id: NEW_ITEM, quantity: '2', name: 'Tarta de queso', variation_name: 'Porción' },
        { quantity: '1', name: 'Importe personalizado' },
      ]),
    );
    await received(s, 'ORDER-R1');
    expect((await salesOf(s)).map((x) => x.ref)).toEqual(['ORDER-R1:ORDER-R1-L0']);

    const lines = await refusedLines(s);
    expect(lines).toHaveLength(2);
    const byRef = Object.fromEntries(lines.map((l: { line_ref: string }) => [l.line_ref, l]));
    expect(byRef['ORDER-R1:ORDER-R1-L1']).toMatchObject({
      order_ref: 'ORDER-R1',
      item_ref: NEW_ITEM,
      item_name: 'Tarta de queso · Porción',
      mappable: true,
      quantity: 2,
      unit: 'unit',
      reason: expect.stringContaining('no product of this organisation'),
    });
    expect(byRef['ORDER-R1:ORDER-R1-L2']).toMatchObject({
      order_ref: 'ORDER-R1',
      item_ref: null,
      item_name: 'Importe personalizado',
      mappable: true,
      reason: expect.stringContaining('product_id, ean or product_ref is required'),
    });

    // The event, on the outbox: one per read that refused new lines.
    const [event, ...more] = await refusedEvents(s);
    expect(more).toEqual([]);
    expect(event).toMatchObject({
      event: 'integration.lines_refused',
      data: { integration_id: s.integration.id, kind: 'square', refused: 2, open_refused: 2, establishment_id: s.establishmentId },
    });
    expect(((event?.data.lines ?? []) as { item_ref: string | null }[]).map((l) => l.item_ref).sort()).toEqual([NEW_ITEM, null].sort());

    // A good order clears the last error; the kept lines stay, counted. The same order read again keeps nothing twice.
    square.orders.set('ORDER-R2', order('ORDER-R2', [{ catalog_object_id: CROISSANT, quantity: '3', name: 'Croissant' }]));
    await received(s, 'ORDER-R2');
    expect(await card(s)).toMatchObject({ last_error: null, refused_count: 2 });
    await received(s, 'ORDER-R1'); // another notification of the same order: read again
    expect(await refusedLines(s)).toHaveLength(2);
    expect(await refusedEvents(s)).toHaveLength(1);
  });

  it('are stored once their item is mapped to a product, which then maps the later lines of that item too', async () => {
    const s = await shop();
    square.orders.set(
      'ORDER-M1',
      order('ORDER-M1', [
        { catalog_object_id: NEW_ITEM, quantity: '2', name: 'Tarta de queso' },
        { quantity: '1', name: 'Importe personalizado' },
      ]),
    );
    square.orders.set('ORDER-M2', order('ORDER-M2', [{ catalog_object_id: NEW_ITEM, quantity: '5', name: 'Tarta de queso' }]));
    await received(s, 'ORDER-M1');
    await received(s, 'ORDER-M2');
    expect(await salesOf(s)).toEqual([]);
    const lines: { id: string; item_ref: string | null; line_ref: string }[] = await refusedLines(s);
    expect(lines).toHaveLength(3);
    expect((await card(s))?.refused_count).toBe(3);

    const tarta = await productId(s, 'Tarta de queso');
    const croissant = await productId(s, 'Croissant');
    const item = lines.find((l) => l.item_ref === NEW_ITEM) as { id: string };
    // A product already mapped to another item is not moved.
    expect(
      await failure(
        s.owner.mutate('integrations.mapRefusedLine', {
          ...s.scope,
          integration_id: s.integration.id,
          line_id: item.id,
          product_id: croissant,
        }),
      ),
    ).toMatchObject({ status: 409, message: expect.stringContaining(CROISSANT) });

    const mapped = await s.owner.mutate('integrations.mapRefusedLine', {
      ...s.scope,
      integration_id: s.integration.id,
      line_id: item.id,
      product_id: tarta,
    });
    expect(mapped).toEqual({ stored: 2, still_refused: [] });
    expect((await t.db.product.findUniqueOrThrow({ where: { id: tarta } })).pos_ref).toBe(NEW_ITEM);
    expect(await salesOf(s)).toEqual([
      { ref: 'ORDER-M1:ORDER-M1-L0', product_id: tarta, quantity: 2 },
      { ref: 'ORDER-M2:ORDER-M2-L0', product_id: tarta, quantity: 5 },
    ]);
    // What the forecast reads: the day totals.
    const totals = await t.db.saleDayTotal.findMany({ where: { establishment_id: s.establishmentId, product_id: tarta } });
    expect(totals.map((x) => Number(x.units))).toEqual([7]);

    // The custom amount has no item id: it is stored alone as the product chosen.
    const custom = lines.find((l) => l.item_ref === null) as { id: string };
    expect(
      await s.owner.mutate('integrations.mapRefusedLine', {
        ...s.scope,
        integration_id: s.integration.id,
        line_id: custom.id,
        product_id: croissant,
      }),
    ).toEqual({ stored: 1, still_refused: [] });
    expect((await salesOf(s)).find((x) => x.ref === 'ORDER-M1:ORDER-M1-L1')).toMatchObject({ product_id: croissant, quantity: 1 });
    expect(await refusedLines(s)).toEqual([]);
    expect((await card(s))?.refused_count).toBe(0);
    const audit = (await s.owner.query('audit.list', {})).entries.filter((e: { action: string }) => e.action === 'integration.line_mapped');
    expect(audit).toHaveLength(2);

    // A later order of the item is stored directly.
    square.orders.set('ORDER-M3', order('ORDER-M3', [{ catalog_object_id: NEW_ITEM, quantity: '1', name: 'Tarta de queso' }]));
    await received(s, 'ORDER-M3');
    expect((await salesOf(s)).map((x) => x.ref)).toContain('ORDER-M3:ORDER-M3-L0');
    expect(await refusedLines(s)).toEqual([]);
  });

  it('include an order without its state, kept as the whole order and not mappable', async () => {
    const s = await shop();
    const { state: _s, ...stateless } = order('ORDER-S1', [{ catalog_object_id: CROISSANT, quantity: '1', name: 'Croissant' }]) as Line;
    square.orders.set('ORDER-S1', stateless);
    await received(s, 'ORDER-S1');
    const [line, ...more] = await refusedLines(s);
    expect(more).toEqual([]);
    expect(line).toMatchObject({
      order_ref: 'ORDER-S1',
      line_ref: 'order:ORDER-S1',
      mappable: false,
      reason: expect.stringContaining('state'),
    });
    const croissant = await productId(s, 'Croissant');
    expect(
      await failure(
        s.owner.mutate('integrations.mapRefusedLine', {
          ...s.scope,
          integration_id: s.integration.id,
          line_id: line.id,
          product_id: croissant,
        }),
      ),
    ).toMatchObject({ status: 409 });
  });

  it('include an order whose notification says no state: it is read, and stored when Square answers it COMPLETED', async () => {
    const s = await shop();
    square.orders.set('ORDER-N1', order('ORDER-N1', [{ catalog_object_id: CROISSANT, quantity: '2', name: 'Croissant' }]));
    const event = orderUpdatedEvent({ orderId: 'ORDER-N1', locationId: LOCATION, createdAt: new Date().toISOString() }) as {
      data: { object: { order_updated: Record<string, unknown> } };
    };
    delete event.data.object.order_updated.state;
    const body = JSON.stringify(event);
    const res = await t.app.inject({
      method: 'POST',
      url: new URL(s.integration.url).pathname,
      headers: { 'content-type': 'application/json', 'x-square-hmacsha256-signature': squareSignature(KEY, s.integration.url, body) },
      payload: body,
    });
    expect(res.json().data, res.body).toMatchObject({ status: 'queued' });
    await jobsDone(t.db, 'integrations.square_fetch');
    expect((await salesOf(s)).map((x) => [x.ref, x.quantity])).toEqual([['ORDER-N1:ORDER-N1-L0', 2]]);
  });

  it('are listed and mapped only within the establishment, and mapped by builders only', async () => {
    const s = await shop();
    square.orders.set('ORDER-T1', order('ORDER-T1', [{ catalog_object_id: NEW_ITEM, quantity: '1', name: 'Tarta de queso' }]));
    await received(s, 'ORDER-T1');
    const [line] = await refusedLines(s);
    const tarta = await productId(s, 'Tarta de queso');

    const other = await shop();
    const foreign = { ...other.scope, integration_id: s.integration.id };
    expect(await failure(other.owner.query('integrations.refusedLines', foreign))).toMatchObject({ status: 404 });
    expect(
      await failure(other.owner.mutate('integrations.mapRefusedLine', { ...foreign, line_id: line.id, product_id: tarta })),
    ).toMatchObject({ status: 404 });

    const member = await createMember(t.db, s.organizationId, 'viewer');
    const viewer = new DashboardBrowser(t.app);
    await viewer.signIn(member.email, PASSWORD);
    expect(await viewer.query('integrations.refusedLines', { ...s.scope, integration_id: s.integration.id })).toHaveLength(1);
    expect(
      await failure(
        viewer.mutate('integrations.mapRefusedLine', { ...s.scope, integration_id: s.integration.id, line_id: line.id, product_id: tarta }),
      ),
    ).toMatchObject({ status: 403 });
    expect(await refusedLines(s)).toHaveLength(1);
  });
});

describe('the integration.lines_refused event', () => {
  it('is delivered, signed, to an endpoint subscribed to it, with the lines and the vendor ids', async () => {
    const s = await shop();
    const hook = await subscribe(t, s, `${receiver.url}/refused`, ['integration.lines_refused']);
    square.orders.set('ORDER-W1', order('ORDER-W1', [{ catalog_object_id: NEW_ITEM, quantity: '2', name: 'Tarta de queso' }]));
    await received(s, 'ORDER-W1');
    const delivery = await waitFor(
      () => receiver.received.find((r) => r.path === '/refused' && r.body.includes(s.integration.id)),
      15_000,
      'the integration.lines_refused delivery',
    );
    const event = await verifyWebhook({ payload: delivery.body, headers: delivery.headers as Record<string, string>, secret: hook.secret });
    expect(WebhookEvent.parse(JSON.parse(delivery.body))).toEqual(event);
    expect(event).toMatchObject({
      event: 'integration.lines_refused',
      data: {
        integration_id: s.integration.id,
        kind: 'square',
        refused: 1,
        open_refused: 1,
        lines: [
          { order_ref: 'ORDER-W1', line_ref: 'ORDER-W1:ORDER-W1-L0', item_ref: NEW_ITEM, item_name: 'Tarta de queso', mappable: true },
        ],
      },
    });
  });
});

describe('lines an Odoo integration cannot store', () => {
  it('are kept from its webhook too, with Odoo’s line and product ids, while Odoo is answered 400', async () => {
    const s = await shop();
    const made = await s.owner.mutate('integrations.create', { ...s.scope, kind: 'odoo', name: 'Odoo Centro' });
    const line = {
      _model: 'pos.order.line',
      _id: 5031,
      id: 5031,
      order_id: 77,
      product_id: 4242,
      qty: 3,
      product_uom_id: 1,
      x_uom_name: 'Units',
      create_date: new Date(Date.now() - 3600_000).toISOString().slice(0, 19).replace('T', ' '),
    };
    const res = await t.app.inject({
      method: 'POST',
      url: new URL(made.secret_url).pathname,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(line),
    });
    expect(res.statusCode, res.body).toBe(400);
    const kept = await s.owner.query('integrations.refusedLines', { ...s.scope, integration_id: made.id });
    expect(kept).toEqual([
      expect.objectContaining({ order_ref: '77', line_ref: 'pos.order.line:5031', item_ref: '4242', mappable: true, quantity: 3 }),
    ]);
    const tarta = await productId(s, 'Tarta de queso');
    expect(
      await s.owner.mutate('integrations.mapRefusedLine', { ...s.scope, integration_id: made.id, line_id: kept[0].id, product_id: tarta }),
    ).toEqual({ stored: 1, still_refused: [] });
    expect((await salesOf(s)).map((x) => [x.ref, x.product_id])).toEqual([['pos.order.line:5031', tarta]]);
  });
});
