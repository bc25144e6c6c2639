import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/http/app.js';
import { isInternalAddress } from '../src/modules/webhooks/target.js';
import { api, createTenant, startTestApp, type Tenant, type TestContext, testConfig } from './helpers.js';

let t: TestContext;
let tenant: Tenant;
const PUBLIC_URL = 'https://93.184.216.34/merma/hooks';

beforeAll(async () => {
  t = await startTestApp();
  tenant = await createTenant(t.db);
});
afterAll(() => t?.close());

const client = (key = tenant.key) => api(t.app, key);
const patch = (key: string, url: string, body: unknown) =>
  t.app.inject({
    method: 'PATCH',
    url,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
const del = (key: string, url: string) => t.app.inject({ method: 'DELETE', url, headers: { authorization: `Bearer ${key}` } });

describe('webhook subscriptions', () => {
  it('creates a subscription and shows its generated secret once', async () => {
    const res = await client().post('/api/v1/webhooks', {
      url: PUBLIC_URL,
      events: ['record.created', 'alert.triggered'],
      description: 'ERP',
    });
    expect(res.statusCode).toBe(201);
    const created = res.json().data;
    expect(created).toMatchObject({
      url: PUBLIC_URL,
      events: ['record.created', 'alert.triggered'],
      status: 'active',
      consecutive_failures: 0,
    });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(created.secret.slice(6), 'base64')).toHaveLength(32);
    const fetched = (await client().get(`/api/v1/webhooks/${created.id}`)).json().data;
    expect(fetched.secret).toBeUndefined();
    expect((await client().get('/api/v1/webhooks')).json().data.map((s: { id: string }) => s.id)).toContain(created.id);
    const own = await client().post('/api/v1/webhooks', {
      url: PUBLIC_URL,
      events: ['record.created'],
      secret: 'a-secret-of-my-own-of-24+-chars',
    });
    expect(own.json().data.secret).toBe('a-secret-of-my-own-of-24+-chars');
  });

  it('updates, reactivates and deletes, within the establishment only', async () => {
    const created = (await client().post('/api/v1/webhooks', { url: PUBLIC_URL, events: ['record.created'] })).json().data;
    const updated = await patch(tenant.key, `/api/v1/webhooks/${created.id}`, { events: ['session.completed'], description: 'Cierres' });
    expect(updated.statusCode).toBe(200);
    expect(updated.json().data).toMatchObject({ events: ['session.completed'], description: 'Cierres', url: PUBLIC_URL });
    await t.db.webhookSubscription.update({
      where: { id: created.id },
      data: { status: 'deactivated', consecutive_failures: 5, deactivated_at: new Date() },
    });
    const reactivated = (await client().post(`/api/v1/webhooks/${created.id}/reactivate`, {})).json().data;
    expect(reactivated).toMatchObject({ status: 'active', consecutive_failures: 0, deactivated_at: null });

    const other = await createTenant(t.db);
    expect((await client(other.key).get(`/api/v1/webhooks/${created.id}`)).statusCode).toBe(404);
    expect((await patch(other.key, `/api/v1/webhooks/${created.id}`, { events: ['record.created'] })).statusCode).toBe(404);
    expect((await del(other.key, `/api/v1/webhooks/${created.id}`)).statusCode).toBe(404);

    const deleted = await del(tenant.key, `/api/v1/webhooks/${created.id}`);
    expect(deleted.json().data).toEqual({ id: created.id, deleted: true });
    expect((await client().get(`/api/v1/webhooks/${created.id}`)).statusCode).toBe(404);
  });

  it.each([
    ['a loopback address', 'http://127.0.0.1:8080/hook'],
    ['localhost', 'https://localhost/hook'],
    ['a private network', 'https://10.1.2.3/hook'],
    ['the cloud metadata address', 'http://169.254.169.254/latest/meta-data'],
    ['IPv6 loopback', 'https://[::1]/hook'],
    ['IPv4-mapped IPv6', 'https://[::ffff:192.168.1.10]/hook'],
    ['credentials in the URL', 'https://user:pass@93.184.216.34/hook'],
    ['another scheme', 'ftp://93.184.216.34/hook'],
  ])('refuses %s', async (_name, url) => {
    const before = await t.db.webhookSubscription.count();
    const res = await client().post('/api/v1/webhooks', { url, events: ['record.created'] });
    expect(res.statusCode).toBe(400);
    expect(await t.db.webhookSubscription.count()).toBe(before);
  });

  it('refuses empty or unknown events and short secrets', async () => {
    for (const body of [
      { url: PUBLIC_URL, events: [] },
      { url: PUBLIC_URL, events: ['record.deleted'] },
      { url: PUBLIC_URL, events: ['record.created'], secret: 'short' },
    ]) {
      expect((await client().post('/api/v1/webhooks', body)).statusCode).toBe(400);
    }
  });

  it('requires HTTPS in production', async () => {
    const app = await buildApp({ config: testConfig({ NODE_ENV: 'production', TRUST_PROXY: 'true' }), db: t.db });
    try {
      const res = await api(app, tenant.key).post(
        '/api/v1/webhooks',
        { url: 'http://93.184.216.34/hook', events: ['record.created'] },
        { headers: { 'x-forwarded-proto': 'https' } },
      );
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatch(/HTTPS/);
    } finally {
      await app.close();
    }
  });

  it('needs webhooks:read and webhooks:write', async () => {
    const reader = await createTenant(t.db, { permissions: 'webhooks:read' });
    expect((await client(reader.key).get('/api/v1/webhooks')).statusCode).toBe(200);
    expect((await client(reader.key).post('/api/v1/webhooks', { url: PUBLIC_URL, events: ['record.created'] })).statusCode).toBe(403);
  });
});

describe('isInternalAddress', () => {
  it.each([
    ['127.0.0.1', true],
    ['10.0.0.1', true],
    ['172.31.255.255', true],
    ['192.168.0.1', true],
    ['169.254.169.254', true],
    ['100.64.0.1', true],
    ['0.0.0.0', true],
    ['::1', true],
    ['fd00::1', true],
    ['fe80::1', true],
    ['::ffff:10.0.0.1', true],
    ['93.184.216.34', false],
    ['2606:2800:220:1:248:1893:25c8:1946', false],
  ])('%s → %s', (address, internal) => {
    expect(isInternalAddress(address)).toBe(internal);
  });
});
