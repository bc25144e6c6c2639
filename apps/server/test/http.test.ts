import { EVENT_TYPES } from '@merma/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, countRecords, createTenant, startTestApp, type Tenant, type TestContext, validRecord } from './helpers.js';

let t: TestContext;
let tenant: Tenant;

beforeAll(async () => {
  t = await startTestApp();
  tenant = await createTenant(t.db);
});
afterAll(() => t?.close());

function expectErrorShape(body: Record<string, unknown>, status: number) {
  expect(body.status).toBe(status);
  expect(typeof body.error).toBe('string');
  expect(typeof body.code).toBe('string');
  expect(body.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
}

describe('transport', () => {
  it('answers unknown routes with 404 in the error shape', async () => {
    for (const [method, url] of [
      ['GET', '/api/v1/nope'],
      ['DELETE', '/api/v1/records'],
      ['GET', '/nope'],
    ] as const) {
      const res = await t.app.inject({ method, url, headers: { authorization: `Bearer ${tenant.key}` } });
      expect(res.statusCode).toBe(404);
      expectErrorShape(res.json(), 404);
      expect(res.json().code).toBe('not_found');
    }
  });

  it('refuses bodies over 1 MiB with 413 and stores nothing', async () => {
    const other = await createTenant(t.db);
    const huge = JSON.stringify({ records: [validRecord({ notes: 'x'.repeat(1024 * 1024) })] });
    const res = await api(t.app, other.key).post('/api/v1/records/batch', huge);
    expect(res.statusCode).toBe(413);
    expectErrorShape(res.json(), 413);
    expect(res.json().code).toBe('payload_too_large');
    expect(await countRecords(t.db, other.establishmentId)).toBe(0);
  });

  it('refuses malformed JSON, a wrong content type, an empty body and prototype pollution', async () => {
    const other = await createTenant(t.db);
    const client = api(t.app, other.key);
    const cases = [
      { payload: '{"food_category": "meat",', type: 'application/json', status: 400 },
      { payload: 'food_category=meat', type: 'application/x-www-form-urlencoded', status: 415 },
      { payload: 'hello', type: 'text/plain', status: 415 },
      { payload: '', type: 'application/json', status: 400 },
      {
        payload: `{"__proto__": {"admin": true}, "food_category": "meat", "weight_kg": 1, "destino_id": "6ccf7d29-f6d9-403d-a9b0-2f907f15477b"}`,
        type: 'application/json',
        status: 400,
      },
      { payload: `{"constructor": {"prototype": {"x": 1}}, "food_category": "meat"}`, type: 'application/json', status: 400 },
    ];
    for (const c of cases) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/records',
        headers: { authorization: `Bearer ${other.key}`, 'content-type': c.type },
        payload: c.payload,
      });
      expect(res.statusCode, c.payload).toBe(c.status);
      expectErrorShape(res.json(), c.status);
    }
    const deep = '['.repeat(5000) + ']'.repeat(5000);
    const nested = await client.post('/api/v1/records', `{"food_category":${deep}}`);
    expect(nested.statusCode).toBe(400);
    expect(await countRecords(t.db, other.establishmentId)).toBe(0);
  });

  it('sends a request id, security headers and rate-limit headers on every API response', async () => {
    const res = await api(t.app, tenant.key).get('/api/v1/causas', { headers: { 'x-request-id': 'erp-trace-42' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-request-id']).toBe('erp-trace-42');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(Number(res.headers['x-ratelimit-limit'])).toBe(10000);
    expect(Number(res.headers['x-ratelimit-remaining'])).toBeLessThan(10000);
    expect(Number(res.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000);
    const bad = await api(t.app, undefined).get('/api/v1/causas');
    expect(bad.headers['x-request-id']).toMatch(/^req_[0-9a-f]{32}$/);
    expect(bad.json().request_id).toBe(bad.headers['x-request-id']);
  });

  it('serves health and readiness probes without a key', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready' });
  });
});

describe('rate limits', () => {
  let limited: TestContext;
  beforeAll(async () => {
    limited = await startTestApp({
      config: { RATE_LIMIT_GENERAL_PER_MINUTE: '3', RATE_LIMIT_RECORDS_PER_MINUTE: '2' },
    });
  });
  afterAll(() => limited?.close());

  it('answers 429 with Retry-After and resetAt after the general limit, per key', async () => {
    const one = await createTenant(limited.db);
    const two = await createTenant(limited.db);
    const statuses: number[] = [];
    let last: Awaited<ReturnType<ReturnType<typeof api>['get']>> | undefined;
    for (let i = 0; i < 4; i++) {
      last = await api(limited.app, one.key).get('/api/v1/causas');
      statuses.push(last.statusCode);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    const body = last?.json();
    expect(body).toMatchObject({ status: 429, code: 'rate_limited' });
    expect(typeof body.error).toBe('string');
    expect(Date.parse(body.resetAt)).toBeGreaterThan(Date.now());
    expect(Date.parse(body.resetAt)).toBeLessThanOrEqual(Date.now() + 61_000);
    const retryAfter = Number(last?.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(last?.headers['x-ratelimit-remaining']).toBe('0');
    // Another key has its own budget.
    expect((await api(limited.app, two.key).get('/api/v1/causas')).statusCode).toBe(200);
  });

  it('counts POST /records in its own bucket and writes nothing when limited', async () => {
    const one = await createTenant(limited.db);
    const client = api(limited.app, one.key);
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await client.post('/api/v1/records', validRecord())).statusCode);
    expect(statuses).toEqual([201, 201, 429]);
    expect(await countRecords(limited.db, one.establishmentId)).toBe(2);
    // The general bucket is untouched by record creation.
    expect((await client.get('/api/v1/records')).statusCode).toBe(200);
  });
});

describe('Idempotency-Key', () => {
  it('replays the first response for the same key and body, and stores once', async () => {
    const other = await createTenant(t.db);
    const client = api(t.app, other.key);
    const headers = { 'idempotency-key': 'erp-line-0001' };
    const first = await client.post('/api/v1/records', validRecord({ weight_kg: 4 }), { headers });
    const again = await client.post('/api/v1/records', validRecord({ weight_kg: 4 }), { headers });
    expect(first.statusCode).toBe(201);
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    expect(await countRecords(t.db, other.establishmentId)).toBe(1);
  });

  it('answers 409 when the key is reused with another body', async () => {
    const other = await createTenant(t.db);
    const client = api(t.app, other.key);
    const headers = { 'idempotency-key': 'erp-line-0002' };
    expect((await client.post('/api/v1/records', validRecord({ weight_kg: 1 }), { headers })).statusCode).toBe(201);
    const res = await client.post('/api/v1/records', validRecord({ weight_kg: 2 }), { headers });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ status: 409, code: 'conflict' });
    expect(res.headers['x-should-retry']).toBe('false');
    expect(await countRecords(t.db, other.establishmentId)).toBe(1);
  });

  it('stores once when the same request races itself', async () => {
    const other = await createTenant(t.db);
    const client = api(t.app, other.key);
    const headers = { 'idempotency-key': 'race-1' };
    const results = await Promise.all(
      Array.from({ length: 6 }, () => client.post('/api/v1/records/batch', { records: [validRecord(), validRecord()] }, { headers })),
    );
    expect(results.map((r) => r.statusCode)).toEqual(Array(6).fill(200));
    expect(new Set(results.map((r) => r.body)).size).toBe(1);
    expect(await countRecords(t.db, other.establishmentId)).toBe(2);
  });

  it('lets a failed request be retried with the same key', async () => {
    const other = await createTenant(t.db);
    const client = api(t.app, other.key);
    const headers = { 'idempotency-key': 'retry-after-400' };
    expect((await client.post('/api/v1/shifts', { name: 'x', start_time: '25:00', end_time: '06:00' }, { headers })).statusCode).toBe(400);
    expect((await client.post('/api/v1/shifts', { name: 'x', start_time: '22:00', end_time: '06:00' }, { headers })).statusCode).toBe(201);
  });

  it('answers a retry the record its first attempt stored, even when the request would now be refused', async () => {
    const other = await createTenant(t.db);
    const client = api(t.app, other.key);
    const session = (await client.post('/api/v1/sessions', { name: 'Cierre' })).json().data;
    const headers = { 'idempotency-key': 'pos-sale-77' };
    const body = validRecord({ session_id: session.id });
    const first = await client.post('/api/v1/records', body, { headers });
    expect(first.statusCode).toBe(201);
    // The session is completed before the retry: a new record in it would be refused (400).
    expect((await client.post(`/api/v1/sessions/${session.id}/complete`, {})).statusCode).toBe(200);
    expect((await client.post('/api/v1/records', body)).statusCode).toBe(400);
    const again = await client.post('/api/v1/records', body, { headers });
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    expect(await countRecords(t.db, other.establishmentId)).toBe(1);
  });

  it('answers 409, not 400, when a used key comes back with another body that is also invalid', async () => {
    const other = await createTenant(t.db);
    const client = api(t.app, other.key);
    const headers = { 'idempotency-key': 'erp-line-0003' };
    expect((await client.post('/api/v1/records', validRecord(), { headers })).statusCode).toBe(201);
    const res = await client.post('/api/v1/records', validRecord({ weight_kg: -1 }), { headers });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'conflict' });
    expect(await countRecords(t.db, other.establishmentId)).toBe(1);
  });

  it('stores the answer of a batch that writes nothing, and replays it', async () => {
    const other = await createTenant(t.db);
    const client = api(t.app, other.key);
    const headers = { 'idempotency-key': 'all-invalid' };
    const batch = { records: [validRecord({ weight_kg: -1 }), validRecord({ destino_id: '00000000-0000-4000-8000-000000000009' })] };
    const first = await client.post('/api/v1/records/batch', batch, { headers });
    expect(first.statusCode).toBe(200);
    expect(first.json().data).toMatchObject({ inserted: 0, failed: 2 });
    const again = await client.post('/api/v1/records/batch', batch, { headers });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    const stored = await t.db.idempotencyKey.findMany({ where: { establishment_id: other.establishmentId } });
    expect(stored.map((k) => [k.key, k.status_code])).toEqual([['all-invalid', 200]]);
    expect(await countRecords(t.db, other.establishmentId)).toBe(0);
  });

  it('stores a record and its key together: the claim names the record, and keeps nothing of it', async () => {
    const other = await createTenant(t.db);
    const client = api(t.app, other.key);
    const res = await client.post('/api/v1/records', validRecord(), { headers: { 'idempotency-key': 'together' } });
    expect(res.statusCode).toBe(201);
    const [stored] = await t.db.idempotencyKey.findMany({ where: { establishment_id: other.establishmentId } });
    expect(stored).toMatchObject({ key: 'together', status_code: 201, record_id: res.json().data.id, response_body: '' });
    expect(await countRecords(t.db, other.establishmentId)).toBe(1);
  });

  it('scopes keys to the establishment and refuses malformed keys', async () => {
    const one = await createTenant(t.db);
    const two = await createTenant(t.db);
    const headers = { 'idempotency-key': 'shared-name' };
    expect((await api(t.app, one.key).post('/api/v1/records', validRecord(), { headers })).statusCode).toBe(201);
    expect((await api(t.app, two.key).post('/api/v1/records', validRecord({ weight_kg: 9 }), { headers })).statusCode).toBe(201);
    expect(await countRecords(t.db, two.establishmentId)).toBe(1);
    const bad = await api(t.app, one.key).post('/api/v1/records', validRecord(), { headers: { 'idempotency-key': 'x'.repeat(256) } });
    expect(bad.statusCode).toBe(400);
  });
});

describe('OpenAPI document and docs page', () => {
  it('describes every route with an operationId, summary, bearer auth and success schema', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers[0].url).toBe('/api/v1');
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    const ops = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item as Record<string, Record<string, unknown>>).map(([method, op]) => ({ path, method, op })),
    );
    expect(ops.map((o) => `${o.method.toUpperCase()} ${o.path}`).sort()).toEqual(
      [
        'GET /analytics',
        'GET /benchmarking',
        'GET /causas',
        'GET /compliance/esrs-e5',
        'GET /compliance/hierarchy',
        'GET /compliance/reduction',
        'GET /compliance/dossier.zip',
        'GET /compliance/esrs-e5.csv',
        'GET /prevention-plan/measures',
        'GET /training-sessions',
        'GET /compliance/obligations',
        'GET /compliance/waste-streams',
        'GET /compliance/organization',
        'PUT /compliance/waste-streams/{destination_id}',
        'GET /destinos',
        'GET /establishments',
        'PATCH /establishments/{id}',
        'GET /predict',
        'GET /prevention-plan',
        'GET /products',
        'GET /records',
        'GET /records/checkpoints',
        'GET /records/verify',
        'GET /records/verifications/{id}',
        'POST /records/verifications',
        'GET /sessions',
        'GET /sessions/{id}',
        'GET /shifts',
        'POST /prevention-plan',
        'POST /records',
        'POST /records/batch',
        'POST /sessions',
        'POST /sessions/{id}/complete',
        'POST /shifts',
        'POST /webhooks/inbound',
        'POST /webhooks',
        'GET /webhooks',
        'GET /webhooks/{id}',
        'PATCH /webhooks/{id}',
        'DELETE /webhooks/{id}',
        'POST /webhooks/{id}/reactivate',
        'GET /webhooks/{id}/deliveries',
        'POST /webhooks/{id}/deliveries/{delivery_id}/retry',
        'POST /webhooks/{id}/test',
        'POST /webhooks/{id}/rotate-secret',
        'POST /webhooks/{id}/recover',
        'POST /integrations/square/{id}',
        'POST /integrations/odoo/{token}',
        'GET /opening-calendar',
        'PUT /opening-calendar/weekdays',
        'POST /opening-calendar/closures',
        'DELETE /opening-calendar/closures/{id}',
        'POST /photos',
        'GET /photos/{id}',
        'POST /products',
        'PATCH /products/{id}',
        'POST /products/import',
        'GET /predict/settings',
        'PUT /predict/settings',
        'GET /social-entities',
        'POST /social-entities',
        'GET /social-entities/{id}',
        'PATCH /social-entities/{id}',
        'POST /social-entities/{id}/archive',
        'POST /social-entities/{id}/restore',
        'GET /donation-agreements',
        'POST /donation-agreements',
        'GET /donation-agreements/{id}',
        'PATCH /donation-agreements/{id}',
        'PUT /donation-agreements/{id}/document',
        'GET /donation-agreements/{id}/document',
        'GET /donations',
        'POST /donations',
        'GET /donations/{id}',
        'POST /donations/{id}/decision',
        'POST /donations/{id}/collect',
        'POST /donations/{id}/receive',
        'POST /donations/{id}/lines/{line_id}/reroute',
        'GET /donations/tax-pack',
        'GET /donations/tax-pack.csv',
        'GET /donations/tax-pack.pdf',
        'GET /donations/tax-pack/certificates/{entity_id}.pdf',
        'PUT /donations/tax-pack/certificates/{entity_id}/signed',
        'GET /donations/tax-pack/certificates/{entity_id}/signed',
        'POST /donations/{id}/link',
        'POST /donations/tax-pack/certificates/{entity_id}/link',
      ].sort(),
    );
    const creates = new Set([
      'post /records',
      'post /shifts',
      'post /sessions',
      'post /prevention-plan',
      'post /webhooks',
      'post /opening-calendar/closures',
      'post /products',
      'post /social-entities',
      'post /donation-agreements',
      'post /donations',
      'post /photos',
      'post /donations/{id}/link',
      'post /donations/tax-pack/certificates/{entity_id}/link',
    ]);
    const ids = new Set<string>();
    for (const { method, path, op } of ops) {
      expect(op.operationId, path).toBeTruthy();
      expect(op.summary, path).toBeTruthy();
      ids.add(op.operationId as string);
      // The integrations' own URLs are authenticated the vendors' way (Square's signature, Odoo's URL token).
      expect(op.security).toEqual(path.startsWith('/integrations/') ? [] : [{ bearerAuth: [] }]);
      const responses = op.responses as Record<string, { content?: Record<string, { schema: unknown }> }>;
      const queued = new Set(['post /records/verifications']);
      const success = creates.has(`${method} ${path}`) ? '201' : queued.has(`${method} ${path}`) ? '202' : '200';
      // A signed agreement, the tax pack's files and a signed certificate are downloaded as what they
      // are; every other answer is JSON.
      const files: Record<string, string> = {
        'get /donation-agreements/{id}/document': 'application/pdf',
        'get /donations/tax-pack.csv': 'text/csv',
        'get /compliance/dossier.zip': 'application/zip',
        'get /compliance/esrs-e5.csv': 'text/csv',
        'get /donations/tax-pack.pdf': 'application/pdf',
        'get /donations/tax-pack/certificates/{entity_id}.pdf': 'application/pdf',
        'get /donations/tax-pack/certificates/{entity_id}/signed': 'application/pdf',
      };
      const type = files[`${method} ${path}`] ?? 'application/json';
      expect(responses[success]?.content?.[type]?.schema, `${method} ${path}`).toBeTruthy();
      expect(responses['401']).toBeTruthy();
      expect(responses['429']).toBeTruthy();
    }
    expect(ids.size).toBe(ops.length);
  });

  it('documents every event a subscription receives as an OpenAPI webhook, its body typed and its signature headers named', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    expect(Object.keys(doc.webhooks).sort()).toEqual([...EVENT_TYPES, 'webhook.test'].sort());
    const offered = doc.webhooks['donation.offered'].post;
    expect(offered.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/DonationOfferedEvent' });
    expect(offered.parameters.map((p: { name: string }) => p.name)).toEqual([
      'webhook-id',
      'webhook-timestamp',
      'webhook-signature',
      'X-Service-Signature',
    ]);
    const body = doc.components.schemas.DonationOfferedEvent;
    expect(body.properties.event).toMatchObject({ const: 'donation.offered' });
    expect(body.properties.data.required).toEqual(expect.arrayContaining(['donation_id', 'entity_id', 'status', 'lines', 'net_kg']));
  });

  it("documents the inbound event's payload by event, each standard shape as a request takes it", async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    const body = doc.paths['/webhooks/inbound'].post.requestBody.content['application/json'].schema;
    const refs = body.properties.payload.anyOf.map((s: { $ref?: string; type?: string }) => s.$ref ?? s.type);
    expect(refs).toEqual([
      '#/components/schemas/WasteCreatedPayload',
      '#/components/schemas/WasteUpdatedPayload',
      '#/components/schemas/InventoryLossPayload',
      '#/components/schemas/SalesRecordedBatch',
      '#/components/schemas/SaleRecordedPayload',
      'object',
    ]);
    const schemas = doc.components.schemas;
    expect(schemas.SalesRecordedBatch.properties.sales.items).toEqual({ $ref: '#/components/schemas/SaleLine' });
    // Inputs: a field with a default (unit, sold_out) is optional; a line is strict.
    expect(schemas.SaleLine.required).toEqual(['quantity', 'sold_at']);
    expect(schemas.SaleLine.additionalProperties).toBe(false);
    expect(Object.keys(schemas.SaleLine.properties)).toEqual(expect.arrayContaining(['sold_out', 'sold_out_at', 'product_ref']));
    expect(schemas.SaleRecordedPayload.required).toEqual(['source', 'quantity', 'sold_at']);
    // A waste payload drops the fields it does not know (systems add their own): not refused.
    expect(schemas.WasteCreatedPayload.required).toEqual(expect.arrayContaining(['source', 'food_category', 'weight_kg', 'destino_id']));
    expect(schemas.WasteCreatedPayload.additionalProperties).toBeUndefined();
    expect(schemas.WasteUpdatedPayload.required).toEqual(['source', 'record_id']);
  });

  it('serves the interactive reference at /docs', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.body).toContain('/api/v1/openapi.json');
  });
});
