import { Agent, request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeKey } from '../src/admin/service.js';
import { api, buildTestApp, createTenant, startTestApp, statusOnceNot200, type TestContext, testConfig } from './helpers.js';

let t: TestContext;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

describe('production mode', () => {
  it('refuses plain HTTP with 403, accepts HTTPS from a trusted proxy, and sends HSTS', async () => {
    const app = await buildTestApp({ config: testConfig({ NODE_ENV: 'production', TRUST_PROXY: 'loopback' }), db: t.db });
    try {
      const tenant = await createTenant(t.db);
      const plain = await api(app, tenant.key).get('/api/v1/causas');
      expect(plain.statusCode).toBe(403);
      expect(plain.json()).toMatchObject({ status: 403, code: 'forbidden', error: 'HTTPS is required' });
      expect(plain.headers['strict-transport-security']).toMatch(/max-age=\d+/);
      const tls = await api(app, tenant.key).get('/api/v1/causas', { headers: { 'x-forwarded-proto': 'https' } });
      expect(tls.statusCode).toBe(200);
      expect(tls.headers['strict-transport-security']).toMatch(/max-age=\d+/);
      // Load-balancer probes stay on plain HTTP.
      expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('judges each request on one kept-alive connection by its own X-Forwarded-Proto', async () => {
    // The protocol is remembered per connection (app.ts, protocolOf): a request saying another
    // protocol than the one before it on the same connection must still be judged by its own.
    const app = await buildTestApp({ config: testConfig({ NODE_ENV: 'production', TRUST_PROXY: 'loopback' }), db: t.db });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const tenant = await createTenant(t.db);
      let connections = 0;
      app.server.on('connection', () => connections++);
      await app.listen({ host: '127.0.0.1', port: 0 });
      const { port } = app.server.address() as { port: number };
      const status = (proto?: string) =>
        new Promise<number>((resolve, reject) => {
          const headers: Record<string, string> = { authorization: `Bearer ${tenant.key}`, 'x-establishment': tenant.establishmentId };
          if (proto) headers['x-forwarded-proto'] = proto;
          httpRequest({ host: '127.0.0.1', port, path: '/api/v1/causas', agent, headers }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          })
            .on('error', reject)
            .end();
        });
      expect(await status('https')).toBe(200);
      expect(await status('http')).toBe(403);
      expect(await status()).toBe(403);
      expect(await status('https')).toBe(200);
      expect(connections).toBe(1);
    } finally {
      agent.destroy();
      await app.close();
    }
  });

  it('does not trust X-Forwarded-Proto unless told to', async () => {
    const app = await buildTestApp({ config: testConfig({ NODE_ENV: 'production' }), db: t.db });
    try {
      const tenant = await createTenant(t.db);
      const spoofed = await api(app, tenant.key).get('/api/v1/causas', { headers: { 'x-forwarded-proto': 'https' } });
      expect(spoofed.statusCode).toBe(403);
    } finally {
      await app.close();
    }
  });
});

describe('API key cache', () => {
  it('stops a revoked key within the cache time', async () => {
    const app = await buildTestApp({ config: testConfig({ API_KEY_CACHE_TTL_MS: '300' }), db: t.db });
    try {
      const tenant = await createTenant(t.db);
      expect((await api(app, tenant.key).get('/api/v1/causas')).statusCode).toBe(200);
      await revokeKey(t.db, { id: tenant.keyId });
      expect(await statusOnceNot200(app, tenant.key, '/api/v1/causas')).toBe(401);
    } finally {
      await app.close();
    }
  });
});

describe('rate limits across replicas', () => {
  it('keeps limiting in memory when Redis is unreachable', async () => {
    const app = await buildTestApp({
      config: testConfig({ REDIS_URL: 'redis://127.0.0.1:1', RATE_LIMIT_GENERAL_PER_MINUTE: '2' }),
      db: t.db,
    });
    try {
      const tenant = await createTenant(t.db);
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await api(app, tenant.key).get('/api/v1/causas')).statusCode);
      expect(statuses).toEqual([200, 200, 429]);
    } finally {
      await app.close();
    }
  });

  // Needs a Redis server: CI runs this suite with REDIS_URL set (see .ci/run).
  it.skipIf(!process.env.REDIS_URL)('shares one budget between two replicas through Redis', async () => {
    const config = testConfig({ RATE_LIMIT_GENERAL_PER_MINUTE: '3' });
    const one = await buildTestApp({ config, db: t.db });
    const two = await buildTestApp({ config, db: t.db });
    try {
      const tenant = await createTenant(t.db);
      const statuses = [];
      for (const app of [one, two, one, two]) statuses.push((await api(app, tenant.key).get('/api/v1/causas')).statusCode);
      expect(statuses).toEqual([200, 200, 200, 429]);
    } finally {
      await one.close();
      await two.close();
    }
  });
});
