import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { fastifyTRPCOpenApiPlugin } from 'trpc-to-openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { poolOf } from '../src/db/client.js';
import { sqlOfPool } from '../src/db/sql.js';
import { createAuthenticator } from '../src/http/auth.js';
import { createCatalogCache } from '../src/modules/catalog/service.js';
import { photoStorage } from '../src/modules/photos/storage.js';
import { loadSecretBox } from '../src/secrets/keys.js';
import { createCheckpointSigner } from '../src/secrets/signing.js';
import type { Context } from '../src/trpc/context.js';
import { createAppRouter } from '../src/trpc/router.js';
import { api, createTenant, startTestApp, type Tenant, type TestContext, validRecord } from './helpers.js';

/**
 * The API is served by our own binding (src/http/binding.ts) for speed. This suite mounts
 * trpc-to-openapi's own Fastify adapter on the same procedures and database and checks both give
 * the same answers, so the binding stays a faithful, faster transport of the same definitions.
 */
let t: TestContext;
let reference: FastifyInstance;
let tenant: Tenant;

beforeAll(async () => {
  t = await startTestApp();
  tenant = await createTenant(t.db);
  const secrets = loadSecretBox(t.config);
  const router = createAppRouter({
    catalog: createCatalogCache(),
    publicUrl: 'http://localhost',
    webhookTargets: { production: false, allowPrivate: false },
    secrets,
    signer: createCheckpointSigner(secrets),
    photos: { storage: photoStorage(t.config, secrets), linkTtlSeconds: t.config.photos.linkTtlSeconds, publicUrl: 'http://localhost' },
  });
  const authenticator = createAuthenticator({ db: t.db, ttlMs: 0 });
  reference = Fastify();
  await reference.register(fastifyTRPCOpenApiPlugin, {
    basePath: '/api/v1',
    router,
    createContext: async ({ req }: { req: unknown }): Promise<Context> => ({
      db: t.db,
      sql: sqlOfPool(poolOf(t.db)),
      replica: sqlOfPool(poolOf(t.db)),
      auth: await authenticator.authenticate(req as FastifyRequest),
      clock: () => new Date(),
      requestId: 'reference',
      responseCheck: 'strict',
    }),
  });
  await reference.ready();
  const client = api(t.app, tenant.key);
  await client.post('/api/v1/records/batch', {
    records: [validRecord({ weight_kg: 1 }), validRecord({ weight_kg: 2, food_category: 'fish' })],
  });
  await client.post('/api/v1/shifts', { name: 'Noche', start_time: '22:00', end_time: '06:00' });
});
afterAll(async () => {
  await reference?.close();
  await t?.close();
});

const withoutTimestamp = (body: Record<string, unknown>) => {
  const { timestamp: _ignored, ...rest } = body;
  return rest;
};

describe('our binding and trpc-to-openapi answer alike', () => {
  it.each([
    '/api/v1/causas',
    '/api/v1/destinos',
    '/api/v1/establishments',
    '/api/v1/products',
    '/api/v1/shifts',
    '/api/v1/records',
    '/api/v1/records?food_category=fish&limit=1',
    '/api/v1/records?limit=1&offset=1',
    '/api/v1/records/verify?full=true',
    '/api/v1/records/checkpoints',
  ])('GET %s', async (url) => {
    const headers = { authorization: `Bearer ${tenant.key}` };
    const ours = await t.app.inject({ method: 'GET', url, headers });
    const theirs = await reference.inject({ method: 'GET', url, headers });
    expect(ours.statusCode).toBe(200);
    expect(theirs.statusCode).toBe(200);
    expect(withoutTimestamp(ours.json())).toEqual(withoutTimestamp(theirs.json()));
  });

  it.each([
    ['GET', '/api/v1/records?limit=500', undefined],
    ['GET', '/api/v1/records?from=2026-02-30', undefined],
    ['POST', '/api/v1/records', { food_category: 'meat', weight_kg: -1 }],
    ['POST', '/api/v1/shifts', { name: 'x', start_time: '09:00', end_time: '09:00' }],
    ['POST', '/api/v1/records/batch', { records: [] }],
  ] as const)('refuses %s %s in both', async (method, url, body) => {
    const headers = { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json' };
    const payload = body === undefined ? {} : { payload: JSON.stringify(body) };
    const ours = await t.app.inject({ method, url, headers, ...payload });
    const theirs = await reference.inject({ method, url, headers, ...payload });
    expect(ours.statusCode).toBe(400);
    expect(theirs.statusCode).toBe(400);
  });

  it('creates the same kind of record through both', async () => {
    const headers = { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json' };
    const payload = JSON.stringify(validRecord({ weight_kg: 7.25, notes: 'same' }));
    const ours = (await t.app.inject({ method: 'POST', url: '/api/v1/records', headers, payload })).json();
    const theirs = (await reference.inject({ method: 'POST', url: '/api/v1/records', headers, payload })).json();
    const strip = (r: Record<string, unknown>) => ({ ...r, id: 'x', record_hash: 'x', created_at: 'x', occurred_at: 'x' });
    expect(strip(ours.data)).toEqual(strip(theirs.data));
    const verify = (await api(t.app, tenant.key).get('/api/v1/records/verify')).json().data;
    expect(verify).toMatchObject({ valid: true, checked: 4 });
  });
});
