import { deadline } from '@merma/testing';
import { WebhooksHelper } from 'square';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SQUARE_VERSION, SquareApiError, squareApi } from '../src/modules/integrations/vendors/square/api.js';
import {
  exampleAdjustment,
  exampleOrder,
  inventoryCountUpdatedEvent,
  type LocalSquareApi,
  orderCreatedEvent,
  orderFulfillmentUpdatedEvent,
  orderUpdatedEvent,
  SQUARE_EXTRACT,
  squareExample,
  squareSchemaErrors,
  squareSignature,
  startSquareApi,
} from './fixtures/square-api.js';

/**
 * The Square API client against the local Square API (a fake behind Stoplight Prism, which checks
 * every request and answer against Square's published OpenAPI document). No database is involved.
 */
const TOKEN = 'EAAAl-test-merchant-token-0123456789';
let square: LocalSquareApi;

// A stand-in that does not start fails this hook, and so the file (its deadline scales with the
// machine: fixtures/square-api.ts); how fast it starts is no test's business.
beforeAll(async () => {
  square = await startSquareApi({ accessToken: TOKEN });
});
afterAll(async () => {
  await square?.close();
});
beforeEach(() => {
  square.requests.length = 0;
  square.orders.clear();
  square.adjustments.length = 0;
});

const client = (options: { accessToken?: string; timeoutMs?: number; baseUrl?: string } = {}) =>
  squareApi({ baseUrl: options.baseUrl ?? square.url, accessToken: options.accessToken ?? TOKEN, timeoutMs: options.timeoutMs });

async function failure(promise: Promise<unknown>): Promise<SquareApiError> {
  const error = await promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SquareApiError);
  const e = error as SquareApiError;
  expect(e.message).not.toContain(TOKEN);
  expect(e.message).not.toContain('wrong-token-xyz');
  return e;
}

const orderId = (i: number) => `ORDER${String(i).padStart(4, '0')}`;

describe('the local Square API', () => {
  it('starts Prism in front of the fake', () => {
    expect(square.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(square.url).not.toBe(square.upstreamUrl);
    expect(SQUARE_EXTRACT['x-extract']).toMatchObject({
      repository: 'https://github.com/square/connect-api-specification',
      file: 'api.json',
      square_version: SQUARE_VERSION,
    });
    expect(SQUARE_EXTRACT['x-extract'].commit).toMatch(/^[0-9a-f]{40}$/);
  });

  it('refuses a request that violates the specification before it reaches the fake', async () => {
    const post = (body: unknown, headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` }) =>
      fetch(`${square.url}/v2/orders/batch-retrieve`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    const stringIds = await post({ order_ids: 'CAISEM82RcpmcFBM0TfOyiHV3es' });
    expect(stringIds.status).toBe(422);
    const problem = (await stringIds.json()) as { validation: { location: string[]; message: string }[] };
    expect(problem.validation).toEqual([
      expect.objectContaining({ location: ['body', 'order_ids'], message: expect.stringContaining('must be array') }),
    ]);
    expect((await post({ location_id: 'L1' })).status).toBe(422); // order_ids is required
    const pageTooBig = await fetch(`${square.url}/v2/inventory/changes/batch-retrieve`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ limit: 5000 }),
    });
    expect(pageTooBig.status).toBe(422);
    expect((await post({ order_ids: ['A'] }, {})).status).toBe(401); // no bearer token: the oauth2 scheme
    expect(square.requests).toEqual([]);
    // The spec's own request example passes.
    const example = await post(squareExample('BatchRetrieveOrdersRequest'));
    expect(example.status).toBe(200);
    expect(await example.json()).toEqual({ orders: [] });
    expect(square.requests).toHaveLength(1);
  });

  it('turns an answer of the fake that violates the specification into a failed call', async () => {
    square.orders.set('BAD', { ...exampleOrder({ id: 'BAD' }), total_money: { amount: 'lots', currency: 'USD' } });
    const error = await failure(client().batchRetrieveOrders({ orderIds: ['BAD'] }));
    expect(error.status).toBe(500);
    expect(error.message).toContain('orders.0.total_money.amount');
    expect(square.requests).toHaveLength(1); // the request was valid and reached the fake
  });

  it('builds the four notifications from the spec examples, valid against their schemas', () => {
    const check = (name: string, value: unknown) => expect(squareSchemaErrors(name, value)).toBeNull();
    // The check bites: a quantity that is a number is not Square's shape.
    expect(squareSchemaErrors('InventoryCountUpdatedEvent', inventoryCountUpdatedEvent({ counts: [{ quantity: 4 }] }))).toContain(
      'quantity',
    );
    const created = orderCreatedEvent({
      eventId: 'evt-1',
      createdAt: '2026-03-01T12:00:00Z',
      orderId: 'ORD1',
      locationId: 'LOC1',
      state: 'COMPLETED',
    });
    expect(created).toMatchObject({
      type: 'order.created',
      event_id: 'evt-1',
      created_at: '2026-03-01T12:00:00Z',
      data: { type: 'order_created', id: 'ORD1', object: { order_created: { order_id: 'ORD1', location_id: 'LOC1', state: 'COMPLETED' } } },
    });
    check('OrderCreatedEvent', created);
    const updated = orderUpdatedEvent({ orderId: 'ORD1', state: 'COMPLETED', version: 3 });
    expect(updated).toMatchObject({ type: 'order.updated', data: { object: { order_updated: { order_id: 'ORD1', version: 3 } } } });
    expect(updated.event_id).not.toBe(orderUpdatedEvent().event_id); // fresh unless given
    check('OrderUpdatedEvent', updated);
    const fulfilled = orderFulfillmentUpdatedEvent({ orderId: 'ORD1', locationId: 'LOC1' });
    expect(fulfilled).toMatchObject({ type: 'order.fulfillment.updated', data: { id: 'ORD1' } });
    check('OrderFulfillmentUpdatedEvent', fulfilled);
    const counted = inventoryCountUpdatedEvent({ counts: [{ catalog_object_id: 'VAR1', location_id: 'LOC1', quantity: '4' }] });
    expect(counted).toMatchObject({
      type: 'inventory.count.updated',
      data: { object: { inventory_counts: [{ catalog_object_id: 'VAR1', location_id: 'LOC1', quantity: '4', state: 'IN_STOCK' }] } },
    });
    check('InventoryCountUpdatedEvent', counted);
    check('Order', exampleOrder({ id: 'X' }));
    check('InventoryAdjustment', exampleAdjustment({ id: 'Y' }));
  });

  it("signs notifications as Square's own SDK verifies them", async () => {
    const key = 'whsec-square-signature-key';
    const url = 'https://merma.example/api/v1/integrations/square/abc123/notifications';
    for (const event of [orderCreatedEvent(), orderUpdatedEvent(), orderFulfillmentUpdatedEvent(), inventoryCountUpdatedEvent()]) {
      const body = JSON.stringify(event);
      const signatureHeader = squareSignature(key, url, body);
      expect(await WebhooksHelper.verifySignature({ requestBody: body, signatureHeader, signatureKey: key, notificationUrl: url })).toBe(
        true,
      );
      expect(
        await WebhooksHelper.verifySignature({ requestBody: `${body} `, signatureHeader, signatureKey: key, notificationUrl: url }),
      ).toBe(false);
      expect(
        await WebhooksHelper.verifySignature({ requestBody: body, signatureHeader, signatureKey: key, notificationUrl: `${url}/` }),
      ).toBe(false);
      expect(
        await WebhooksHelper.verifySignature({ requestBody: body, signatureHeader, signatureKey: `${key}x`, notificationUrl: url }),
      ).toBe(false);
    }
  });
});

describe('batchRetrieveOrders', () => {
  it('asks for 250 orders in three calls of at most 100 ids and returns the orders as Square sends them', async () => {
    const ids = Array.from({ length: 250 }, (_, i) => orderId(i));
    for (const id of ids.filter((_, i) => i % 2 === 0)) square.orders.set(id, exampleOrder({ id, location_id: 'LOC1' }));
    square.orders.set('ELSEWHERE', exampleOrder({ id: 'ELSEWHERE', location_id: 'LOC2' }));

    const orders = await client().batchRetrieveOrders({ locationId: 'LOC1', orderIds: [...ids, 'ELSEWHERE', orderId(0)] });
    expect(orders.map((o) => o.id)).toEqual(ids.filter((_, i) => i % 2 === 0));
    expect(orders[0]).toEqual(exampleOrder({ id: orderId(0), location_id: 'LOC1' }));

    expect(square.requests.map((r) => [r.method, r.path, (r.body as { order_ids: string[] }).order_ids.length])).toEqual([
      ['POST', '/v2/orders/batch-retrieve', 100],
      ['POST', '/v2/orders/batch-retrieve', 100],
      ['POST', '/v2/orders/batch-retrieve', 51],
    ]);
    expect((square.requests[2]?.body as { order_ids: string[] } | undefined)?.order_ids).toEqual([...ids.slice(200), 'ELSEWHERE']);
    for (const r of square.requests) {
      expect(r.body).toMatchObject({ location_id: 'LOC1' });
      expect(r.headers).toMatchObject({
        authorization: `Bearer ${TOKEN}`,
        'square-version': SQUARE_VERSION,
        'content-type': 'application/json',
        accept: 'application/json',
      });
    }
  });

  it('leaves location_id out when none is given, and calls nothing for no ids', async () => {
    square.orders.set('A', exampleOrder({ id: 'A' }));
    expect(await client().batchRetrieveOrders({ orderIds: ['A', 'MISSING'] })).toEqual([exampleOrder({ id: 'A' })]);
    expect(square.requests).toHaveLength(1);
    expect(square.requests[0]?.body).toEqual({ order_ids: ['A', 'MISSING'] });
    expect(await client().batchRetrieveOrders({ orderIds: [] })).toEqual([]);
    expect(square.requests).toHaveLength(1);
  });
});

describe('wasteChanges', () => {
  it('follows the cursor through every page and keeps only waste', async () => {
    const at = (i: number) => new Date(Date.UTC(2026, 2, 1, 8, 0, i)).toISOString();
    for (let i = 0; i < 250; i++) {
      square.adjustments.push(
        exampleAdjustment({ id: `ADJ${i}`, catalog_object_id: 'VAR1', location_id: 'LOC1', created_at: at(i), occurred_at: at(i) }),
      );
    }
    square.adjustments.push(
      exampleAdjustment({ id: 'SOLD', to_state: 'SOLD', catalog_object_id: 'VAR1', location_id: 'LOC1', created_at: at(1) }),
    );
    square.adjustments.push(
      exampleAdjustment({ id: 'OLD', catalog_object_id: 'VAR1', location_id: 'LOC1', created_at: '2026-02-01T00:00:00.000Z' }),
    );
    square.adjustments.push(exampleAdjustment({ id: 'OTHER', catalog_object_id: 'VAR2', location_id: 'LOC1', created_at: at(2) }));

    const waste = await client().wasteChanges({
      catalogObjectIds: ['VAR1'],
      locationIds: ['LOC1'],
      updatedAfter: '2026-03-01T00:00:00Z',
    });
    const adjustments = waste.map((c) => c.adjustment as Record<string, unknown>);
    expect(adjustments.map((a) => a.id)).toEqual(Array.from({ length: 250 }, (_, i) => `ADJ${i}`));
    expect(waste.every((c) => c.type === 'ADJUSTMENT')).toBe(true);
    expect(adjustments.every((a) => a.to_state === 'WASTE')).toBe(true);
    expect(adjustments[0]).toEqual(square.adjustments[0]);

    expect(square.requests).toHaveLength(3);
    const bodies = square.requests.map((r) => r.body as Record<string, unknown>);
    expect(bodies[0]).toEqual({
      types: ['ADJUSTMENT'],
      states: ['WASTE'],
      catalog_object_ids: ['VAR1'],
      location_ids: ['LOC1'],
      updated_after: '2026-03-01T00:00:00Z',
    });
    expect(bodies[1]).toEqual({ ...bodies[0], cursor: expect.any(String) });
    expect(bodies[2]?.cursor).toEqual(expect.any(String));
    expect(bodies[2]?.cursor).not.toBe(bodies[1]?.cursor);
    expect(square.requests.every((r) => r.path === '/v2/inventory/changes/batch-retrieve')).toBe(true);
  });

  it('leaves location_ids out when none are given, and calls nothing for no catalog objects', async () => {
    square.adjustments.push(
      exampleAdjustment({ id: 'A1', catalog_object_id: 'VAR1', location_id: 'LOC9', created_at: '2026-03-02T00:00:00.000Z' }),
    );
    expect(
      (await client().wasteChanges({ catalogObjectIds: ['VAR1'], updatedAfter: '2026-03-01T00:00:00Z' })).map(
        (c) => (c.adjustment as Record<string, unknown>).id,
      ),
    ).toEqual(['A1']);
    expect(square.requests[0]?.body).not.toHaveProperty('location_ids');
    expect(await client().wasteChanges({ catalogObjectIds: [], updatedAfter: '2026-03-01T00:00:00Z' })).toEqual([]);
    expect(square.requests).toHaveLength(1);
  });

  it('fails as a whole when a later page fails (no partial list)', async () => {
    for (let i = 0; i < 150; i++) {
      // The 121st adjustment, on the second page, has a quantity that is a number: not Square's shape.
      const quantity = i === 120 ? 7 : '7';
      square.adjustments.push(
        exampleAdjustment({ id: `P${i}`, catalog_object_id: 'VAR1', created_at: '2026-03-02T00:00:00.000Z', quantity }),
      );
    }
    const error = await failure(client().wasteChanges({ catalogObjectIds: ['VAR1'], updatedAfter: '2026-03-01T00:00:00Z' }));
    expect(error).toMatchObject({ status: 500, retryable: true });
    expect(error.message).toContain('changes.20.adjustment.quantity');
    expect(square.requests).toHaveLength(2);
  });
});

describe('errors', () => {
  it('429 is retryable with Retry-After in seconds', async () => {
    square.failNext(429, { 'retry-after': '7' });
    const error = await failure(client().batchRetrieveOrders({ orderIds: ['A'] }));
    expect(error).toMatchObject({ status: 429, retryable: true, retryAfterSeconds: 7 });
    expect(error.errors).toEqual([expect.objectContaining({ category: 'RATE_LIMIT_ERROR', code: 'RATE_LIMITED' })]);
  });

  it('429 is retryable with Retry-After as an HTTP date', async () => {
    square.failNext(429, { 'retry-after': new Date(Date.now() + 30_000).toUTCString() });
    const error = await failure(client().wasteChanges({ catalogObjectIds: ['V'], updatedAfter: '2026-03-01T00:00:00Z' }));
    expect(error.retryable).toBe(true);
    expect(error.retryAfterSeconds).toBeGreaterThanOrEqual(28);
    expect(error.retryAfterSeconds).toBeLessThanOrEqual(31);
  });

  it('5xx is retryable, without Retry-After', async () => {
    for (const status of [500, 502, 503]) {
      square.failNext(status);
      const error = await failure(client().batchRetrieveOrders({ orderIds: ['A'] }));
      expect(error).toMatchObject({ status, retryable: true, retryAfterSeconds: null });
    }
  });

  it('401 is not retryable and says Square refused the token, without the token', async () => {
    const error = await failure(client({ accessToken: 'wrong-token-xyz' }).batchRetrieveOrders({ orderIds: ['A'] }));
    expect(error).toMatchObject({ status: 401, retryable: false, retryAfterSeconds: null });
    expect(error.message).toMatch(/^Square refused the access token: .*UNAUTHORIZED/);
    expect(error.errors).toEqual([expect.objectContaining({ category: 'AUTHENTICATION_ERROR', code: 'UNAUTHORIZED' })]);
    expect(square.requests[0]?.headers.authorization).toBe('Bearer wrong-token-xyz');
  });

  it('403 (a missing scope) is not retryable and names the scope', async () => {
    square.failNext(403);
    const error = await failure(client().wasteChanges({ catalogObjectIds: ['V'], updatedAfter: '2026-03-01T00:00:00Z' }));
    expect(error).toMatchObject({ status: 403, retryable: false });
    expect(error.message).toMatch(/^Square refused the access token: .*INSUFFICIENT_SCOPES.*INVENTORY_READ/);
  });

  it("400 and 404 are not retryable and carry Square's detail", async () => {
    square.failNext(400, {}, 1, [
      { category: 'INVALID_REQUEST_ERROR', code: 'INVALID_VALUE', detail: 'Invalid location id: L?', field: 'location_id' },
    ]);
    const bad = await failure(client().batchRetrieveOrders({ locationId: 'L?', orderIds: ['A'] }));
    expect(bad).toMatchObject({ status: 400, retryable: false });
    expect(bad.message).toContain('Invalid location id: L?');
    square.failNext(404);
    const missing = await failure(client().batchRetrieveOrders({ orderIds: ['A'] }));
    expect(missing).toMatchObject({ status: 404, retryable: false });
    expect(missing.message).toContain('NOT_FOUND');
  });

  it('a timeout is retryable', async () => {
    // The answer is held far longer than the test may run: only the client's own 300 ms timeout
    // ends the call (were it ignored, the test would time out instead of reading this error).
    square.stallNext(deadline(10 * 60_000));
    const error = await failure(client({ timeoutMs: 300 }).batchRetrieveOrders({ orderIds: ['A'] }));
    expect(error).toMatchObject({ status: null, retryable: true, retryAfterSeconds: null });
    expect(error.message).toMatch(/did not answer within 300 ms/);
  });

  it('a connection refused is retryable', async () => {
    const error = await failure(client({ baseUrl: 'http://127.0.0.1:9' }).batchRetrieveOrders({ orderIds: ['A'] }));
    expect(error).toMatchObject({ status: null, retryable: true });
    expect(error.message).toMatch(/^Could not reach Square/);
  });
});
