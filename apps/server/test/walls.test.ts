import { localDate, PERMISSIONS } from '@merma/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeKey } from '../src/admin/service.js';
import { inForceOnTheMachineClock } from './donation-fixtures.js';
import { addKey, buildTestApp, createTenant, startTestApp, type Tenant, type TestContext, testConfig, validRecord } from './helpers.js';

/**
 * The walls between tenants, modes and permissions, for every operation of the OpenAPI document:
 * establishment A's key reaches nothing of establishment B (404 for B's ids, none of B's ids in
 * A's lists, B's objects unchanged), B's live key reaches nothing of B's test data, and a key
 * without an operation's permission gets 403 and writes nothing. Every answer carries the
 * security headers.
 */
let t: TestContext;
let a: Tenant;
let b: Tenant;
let bLive: { key: string };
const ids: Record<string, string> = {};
let ops: { method: string; path: string; permission: string | undefined }[] = [];

/** A signed agreement's document or certificate: the bodies that are not JSON (a Buffer is sent as a PDF). */
const PDF = Buffer.from('%PDF-1.7\n% a signed agreement\n%%EOF\n');

const request = (key: string, method: string, url: string, body?: unknown) =>
  t.app.inject({
    method: method as 'GET',
    url,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body !== undefined ? { 'content-type': Buffer.isBuffer(body) ? 'application/pdf' : 'application/json' } : {}),
    },
    ...(body !== undefined ? { payload: Buffer.isBuffer(body) ? body : JSON.stringify(body) } : {}),
  });

const BODIES: Record<string, unknown> = {
  'PUT /donation-agreements/{id}/document': PDF,
  'PUT /donations/tax-pack/certificates/{entity_id}/signed': PDF,
  'POST /records': validRecord(),
  'POST /records/batch': { records: [validRecord()] },
  'POST /shifts': { name: 'Noche', start_time: '22:00', end_time: '06:00' },
  'POST /sessions': { name: 'Cierre' },
  'POST /webhooks': { url: 'https://93.184.216.34/hook', events: ['record.created'] },
  'PATCH /webhooks/{id}': { description: 'changed by someone else' },
  'PATCH /establishments/{id}': { floor_area_m2: 120 },
  'POST /webhooks/{id}/rotate-secret': { grace_period_seconds: 0 },
  'POST /webhooks/{id}/recover': { since: '2000-01-01T00:00:00Z' },
  'POST /webhooks/inbound': { event: 'waste.created', payload: { ...validRecord(), source: 'walls' } },
  'POST /opening-calendar/closures': { starts_on: '2026-12-24', ends_on: '2026-12-26' },
  'POST /products': { name: 'Pan', food_category: 'bakery', ean: '8410000000023' },
  'PUT /predict/settings': { service_level: 0.6 },
  // B's donation: an answer for its line, a destination for that line (read when sent, once B's ids exist).
  get 'POST /donations/{id}/decision'() {
    return { lines: [{ line_id: ids.line, decision: 'refused', reason: 'walls' }] };
  },
  'POST /donations/{id}/lines/{line_id}/reroute': { destino_id: '261568e0-0830-4971-bb56-4a6153297696' },
  get 'POST /donations/tax-pack/certificates/{entity_id}/link'() {
    return { year: Number(taxYear) };
  },
  'POST /social-entities': {
    name: 'Banco',
    nif: 'G28029643',
    address: 'Calle 1',
    legal_form: 'banco_de_alimentos',
    ley_49_2002: { art2_entity: true, regime_opted_in: true },
    capacity: { cold_chain: false, vehicle: false },
  },
};
/** The tax year of B's collected donation, which the tax pack's operations are asked for. */
let taxYear = '';
/** Query strings an operation needs to reach its data (the tax pack's year). */
const QUERIES: Record<string, () => string> = {
  'GET /donations/tax-pack': () => `year=${taxYear}`,
  'GET /donations/tax-pack.csv': () => `year=${taxYear}`,
  'GET /donations/tax-pack.pdf': () => `year=${taxYear}`,
  'GET /donations/tax-pack/certificates/{entity_id}.pdf': () => `year=${taxYear}`,
  'PUT /donations/tax-pack/certificates/{entity_id}/signed': () => `year=${taxYear}`,
  'GET /donations/tax-pack/certificates/{entity_id}/signed': () => `year=${taxYear}`,
};
/** Paths of the organisation's own objects, shared by its establishments and both modes. */
const ORGANISATION_WIDE = /^\/(social-entities|donation-agreements)\/\{id\}/;
const bodyFor = (method: string, path: string) => BODIES[`${method} ${path}`] ?? (method === 'GET' ? undefined : {});
const fill = (path: string, method = 'GET') =>
  `/api/v1${path
    .replace('{id}', ids[path.split('/')[1] as string] ?? '')
    .replace('{delivery_id}', ids.delivery ?? '')
    .replace('{line_id}', ids.line ?? '')
    .replace('{entity_id}', ids['social-entities'] ?? '')}${QUERIES[`${method} ${path}`] ? `?${QUERIES[`${method} ${path}`]?.()}` : ''}`;

/** What a tenant holds in test mode (the mode of every key here but B's live one). */
async function stateOf(tenant: Tenant) {
  const where = { establishment_id: tenant.establishmentId, livemode: false };
  return {
    records: await t.db.record.count({ where }),
    shifts: await t.db.shift.count({ where }),
    sessions: await t.db.session.findMany({ where, select: { id: true, status: true }, orderBy: { id: 'asc' } }),
    webhooks: await t.db.webhookSubscription.findMany({
      where,
      select: { id: true, url: true, description: true, status: true, secret: true, previous_secret: true },
    }),
    deliveries: await t.db.webhookDelivery.findMany({
      where: { subscription: where },
      select: { id: true, status: true, attempts: true },
      orderBy: { id: 'asc' },
    }),
    plans: await t.db.preventionPlan.count({ where }),
    donations: await t.db.$queryRaw`SELECT d.status, d.updated_at, l.status AS line, l.rerouted_record_id FROM donations d
      JOIN donation_lines l ON l.donation_id = d.id WHERE d.establishment_id = ${tenant.establishmentId}::uuid AND d.livemode = false
      ORDER BY l.id`,
    events: await t.db.event.count({ where }),
    inbound: await t.db.inboundEvent.count({ where }),
    serviceLevel: await t.db
      .$queryRaw`SELECT service_level::text FROM production_settings WHERE establishment_id = ${tenant.establishmentId}::uuid AND livemode = false`,
  };
}

beforeAll(async () => {
  t = await startTestApp();
  a = await createTenant(t.db);
  b = await createTenant(t.db);
  bLive = await addKey(t.db, b.establishmentId, 'live');
  const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
  // The operations behind an API key: the integrations' own URLs take none (`security: []`), and
  // their walls are tested in integrations.test.ts.
  ops = Object.entries(doc.paths as Record<string, Record<string, { 'x-permission'?: string; security?: unknown[] }>>).flatMap(
    ([path, item]) =>
      Object.entries(item)
        .filter(([, op]) => !(Array.isArray(op.security) && op.security.length === 0))
        .map(([method, op]) => ({ method: method.toUpperCase(), path, permission: op['x-permission'] })),
  );
  // B's objects, in test mode.
  const post = async (path: string) => (await request(b.key, 'POST', `/api/v1${path}`, BODIES[`POST ${path}`])).json().data;
  ids.records = (await post('/records')).id;
  ids.shifts = (await post('/shifts')).id;
  // B's photo (a real 1×1 PNG, sent raw).
  ids.photos = (
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/photos',
      headers: { authorization: `Bearer ${b.key}`, 'content-type': 'image/png' },
      payload: Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64'),
    })
  ).json().data.id;
  // B's service level in test mode, which another's PUT (0.6) must leave as it is.
  expect((await request(b.key, 'PUT', '/api/v1/predict/settings', { service_level: 0.7 })).statusCode).toBe(200);
  ids.sessions = (await post('/sessions')).id;
  ids.webhooks = (await post('/webhooks')).id;
  ids['opening-calendar'] = (await post('/opening-calendar/closures')).id;
  // B's establishment: its activity and floor area are the same in both modes, like the catalogue.
  ids.establishments = b.establishmentId;
  // The catalogue is the organisation's, changed with a live key.
  ids.products = (await request(bLive.key, 'POST', '/api/v1/products', BODIES['POST /products'])).json().data.id;
  // So are its social entities and donation agreements.
  ids['social-entities'] = (await request(bLive.key, 'POST', '/api/v1/social-entities', BODIES['POST /social-entities'])).json().data.id;
  ids['donation-agreements'] = (
    await request(bLive.key, 'POST', '/api/v1/donation-agreements', {
      entity_id: ids['social-entities'],
      establishment_ids: [b.establishmentId],
      ...inForceOnTheMachineClock(),
      renewal: 'none',
      accepted_food_categories: ['bakery'],
      conditions: { chilled: false, frozen: false, cooked: false, near_best_before: true },
      collection: { schedule: 'Lunes', weekdays: ['monday'], transport: 'entity' },
      storage_conditions: 'Seco',
      safety_responsibility_clause: 'Cada parte la suya',
      refusal_procedure: 'Por escrito',
    })
  ).json().data.id;
  // Its signed document, which B's live key reads back and replaces.
  const put = await request(bLive.key, 'PUT', `/api/v1/donation-agreements/${ids['donation-agreements']}/document`, PDF);
  expect(put.statusCode, put.body).toBe(200);
  // B's donation under that agreement, in test mode.
  const donation = await request(b.key, 'POST', '/api/v1/donations', {
    agreement_id: ids['donation-agreements'],
    lines: [{ description: 'Pan', food_category: 'bakery', quantity: 1, unit: 'kg' }],
  });
  expect(donation.statusCode, donation.body).toBe(201);
  ids.donations = donation.json().data.id;
  ids.line = donation.json().data.lines[0].id;
  // Another, collected, so that B's test-mode tax pack has a donation in it.
  const collected = (
    await request(b.key, 'POST', '/api/v1/donations', {
      agreement_id: ids['donation-agreements'],
      lines: [{ description: 'Pan recogido', food_category: 'bakery', quantity: 2, unit: 'kg', book_value: 3 }],
    })
  ).json().data;
  ids['collected-donation'] = collected.id;
  const accepted = await request(b.key, 'POST', `/api/v1/donations/${collected.id}/decision`, {
    lines: [{ line_id: collected.lines[0].id, decision: 'accepted' }],
  });
  expect(accepted.statusCode, accepted.body).toBe(200);
  const done = await request(b.key, 'POST', `/api/v1/donations/${collected.id}/collect`);
  expect(done.statusCode, done.body).toBe(200);
  taxYear = localDate(new Date(done.json().data.collected_at), 'Europe/Madrid').slice(0, 4);
  const own = await request(b.key, 'GET', `/api/v1/donations/tax-pack?year=${taxYear}`);
  expect(own.body.includes(collected.id), own.body).toBe(true);
  await request(b.key, 'POST', '/api/v1/prevention-plan', {});
  ids.delivery = (await request(b.key, 'POST', `/api/v1/webhooks/${ids.webhooks}/test`, {})).json().data.id;
  // A failed delivery of B's record, so that a recovery reaching across the wall would show.
  await t.db.$executeRaw`INSERT INTO webhook_deliveries (id, subscription_id, event_id, event_type, status, attempts, created_at)
    SELECT gen_random_uuid(), ${ids.webhooks}::uuid, e.id, e.type, 'failed', 6, e.created_at
    FROM events e WHERE e.establishment_id = ${b.establishmentId}::uuid AND e.type = 'record.created'
      AND e.payload->'data'->>'id' = ${ids.records}`;
});
afterAll(() => t?.close());

describe('tenant, mode and permission walls', () => {
  it('covers every operation and knows each one’s permission', () => {
    expect(ops.length).toBeGreaterThanOrEqual(31);
    expect(ops.filter((o) => !o.permission)).toEqual([]);
    expect(Object.values(ids).every(Boolean)).toBe(true);
  });

  it("keeps establishment A out of everything of establishment B, and B's live key out of B's test data", async () => {
    const before = await stateOf(b);
    const bIds = Object.values(ids);
    for (const { method, path } of ops) {
      for (const [who, key] of [
        ['A', a.key],
        ['B live', bLive.key],
      ] as const) {
        const url = fill(path, method);
        const res = await request(key, method, url, bodyFor(method, path));
        const label = `${who}: ${method} ${path}`;
        expect(res.statusCode, label).toBeLessThan(500);
        // The product catalogue is the organisation's, for both modes: B's live key changes B's
        // products (an empty change here); A's test key may change no catalogue at all (403).
        if (path === '/products/{id}') expect(res.statusCode, label).toBe(who === 'A' ? 403 : 200);
        // An establishment's activity and area: B's live key sets B's; A's key finds no such establishment.
        else if (path === '/establishments/{id}') expect(res.statusCode, label).toBe(who === 'A' ? 404 : 200);
        // Social entities and donation agreements too: B's live key reaches B's; A's key, none (404).
        else if (ORGANISATION_WIDE.test(path) && who === 'B live') expect(res.statusCode, label).toBeLessThan(300);
        else if (path.includes('{id}')) expect(res.statusCode, label).toBe(404);
        // An entity's tax certificate, pre-filled or signed: A's key has no such entity, B's live key
        // no gift to it in its mode.
        else if (path.includes('{entity_id}')) expect(res.statusCode, label).toBe(404);
        // The tax pack and its files: answered, with nothing of B's test data in them.
        else if (path.startsWith('/donations/tax-pack')) expect(res.statusCode, label).toBe(200);
        // B's ids never appear, except one the caller sent itself (a 404 names what was asked for).
        // (B's products, entities and agreements are B's organisation's, in both modes: B's live key sees them.)
        const shared = [ids.products, ids['social-entities'], ids['donation-agreements'], ids.establishments];
        const hidden = bIds.filter((i) => !url.includes(i) && !(who === 'B live' && shared.includes(i)));
        for (const id of hidden) expect(res.body.includes(id), `${label} shows ${id}`).toBe(false);
        expect(res.headers['x-content-type-options'], label).toBe('nosniff');
        expect(res.headers['referrer-policy'], label).toBe('no-referrer');
        expect(res.headers['cache-control'], label).toBe('no-store');
        expect(res.headers['x-request-id'], label).toBeTruthy();
      }
    }
    // Nothing of B moved (A and B-live wrote only to their own establishment or mode).
    const after = await stateOf(b);
    expect(after.sessions).toEqual(before.sessions);
    expect(after.webhooks).toEqual(before.webhooks);
    expect(after.deliveries).toEqual(before.deliveries);
    expect(after.deliveries.map((d) => d.status).sort()).toEqual(['failed', 'pending']);
    expect(after.plans).toBe(before.plans);
    expect(after.donations).toEqual(before.donations);
    expect(after.records).toBe(before.records);
    expect(after.shifts).toBe(before.shifts);
    expect(after.serviceLevel).toEqual(before.serviceLevel);
  });

  it('answers 403 to a key without the operation’s permission, and writes nothing', async () => {
    const permissions = [...new Set(ops.map((o) => o.permission as string))];
    for (const permission of permissions) {
      const others = PERMISSIONS.filter((p) => p !== permission).join(',');
      const limited = await createTenant(t.db, { permissions: others });
      const before = await stateOf(limited);
      for (const { method, path } of ops.filter((o) => o.permission === permission)) {
        const res = await request(limited.key, method, fill(path, method), bodyFor(method, path));
        expect(res.statusCode, `${method} ${path} without ${permission}`).toBe(403);
        expect(res.json()).toMatchObject({ status: 403, code: 'forbidden' });
      }
      expect(await stateOf(limited), `writes without ${permission}`).toEqual(before);
    }
  });

  it('stops a revoked key on every replica within the key cache time', async () => {
    const config = testConfig({ API_KEY_CACHE_TTL_MS: '500' });
    const replicas = [await buildTestApp({ config, db: t.db }), await buildTestApp({ config, db: t.db })];
    const tenant = await createTenant(t.db);
    const get = (app: (typeof replicas)[number]) =>
      app.inject({ method: 'GET', url: '/api/v1/causas', headers: { authorization: `Bearer ${tenant.key}` } });
    for (const app of replicas) expect((await get(app)).statusCode).toBe(200); // cached on both
    await revokeKey(t.db, { id: tenant.keyId });
    await new Promise((r) => setTimeout(r, 600));
    for (const app of replicas) expect((await get(app)).statusCode).toBe(401);
    await Promise.all(replicas.map((app) => app.close()));
  });
});
