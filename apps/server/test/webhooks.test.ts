import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isInternalAddress } from '../src/modules/webhooks/target.js';
import { loadSecretBox } from '../src/secrets/keys.js';
import { openSecret } from '../src/secrets/stored.js';
import { addKey, api, buildTestApp, createTenant, startTestApp, type Tenant, type TestContext, testConfig } from './helpers.js';

let t: TestContext;
let tenant: Tenant;
const PUBLIC_URL = 'https://93.184.216.34/merma/hooks';
const ownSecret = (bytes = 32) => `whsec_${randomBytes(bytes).toString('base64')}`;

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
    expect(created.previous_secret_expires_at).toBeNull();
    const fetched = (await client().get(`/api/v1/webhooks/${created.id}`)).json().data;
    expect(fetched.secret).toBeUndefined();
    expect(fetched.previous_secret_expires_at).toBeNull();
    expect((await client().get('/api/v1/webhooks')).json().data.map((s: { id: string }) => s.id)).toContain(created.id);
    for (const secret of [ownSecret(24), ownSecret(32), ownSecret(64)]) {
      const own = await client().post('/api/v1/webhooks', { url: PUBLIC_URL, events: ['record.created'], secret });
      expect(own.statusCode).toBe(201);
      expect(own.json().data.secret).toBe(secret);
    }
  });

  it.each([
    ['any text of 24+ characters (accepted before)', 'a-secret-of-my-own-of-24+-chars', /must start with "whsec_"/],
    ['fewer than 24 bytes', ownSecret(16), /decodes to 16 bytes/],
    ['more than 64 bytes', ownSecret(65), /decodes to 65 bytes/],
    ['unpadded base64', ownSecret(32).replace(/=+$/, ''), /padded/],
    // 33 bytes whose base64url has '-' and '_' (random bytes may have neither, and then be valid).
    ['URL-safe base64', `whsec_${Buffer.concat([Buffer.from([0xfb, 0xff]), randomBytes(31)]).toString('base64url')}`, /standard base64/],
    ['a space', ` ${ownSecret()}`, /must start with "whsec_"/],
  ])('refuses a secret with %s, naming `secret` and why, and stores nothing', async (_name, secret, why) => {
    const before = await t.db.webhookSubscription.count();
    const res = await client().post('/api/v1/webhooks', { url: PUBLIC_URL, events: ['record.created'], secret });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'validation_error', details: [{ path: 'secret', message: expect.stringMatching(why) }] });
    expect(await t.db.webhookSubscription.count()).toBe(before);
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
    const app = await buildTestApp({ config: testConfig({ NODE_ENV: 'production', TRUST_PROXY: 'loopback' }), db: t.db });
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

describe('secret rotation', () => {
  const T0 = new Date('2026-11-23T10:00:00.000Z');
  let now = T0;
  let app: Awaited<ReturnType<typeof buildTestApp>>;
  beforeAll(async () => {
    app = await buildTestApp({ config: testConfig(), db: t.db, clock: () => now });
  });
  afterAll(() => app?.close());

  const rotate = (id: string, body: unknown, key = tenant.key) => api(app, key).post(`/api/v1/webhooks/${id}/rotate-secret`, body);
  const raw = (id: string) =>
    t.db.webhookSubscription.findUniqueOrThrow({
      where: { id },
      select: { secret: true, previous_secret: true, previous_secret_expires_at: true },
    });
  const secrets = loadSecretBox(testConfig());
  /** The stored secrets, each checked to be stored encrypted, then opened (bound to its own column). */
  const stored = async (id: string) => {
    const row = await raw(id);
    expect(row.secret).toMatch(/^enc:v1:test:/);
    if (row.previous_secret !== null) expect(row.previous_secret).toMatch(/^enc:v1:test:/);
    return {
      ...row,
      secret: openSecret(secrets, id, 'secret', row.secret),
      previous_secret: row.previous_secret === null ? null : openSecret(secrets, id, 'previous_secret', row.previous_secret),
    };
  };
  const subscribe = async () => {
    now = T0;
    const res = await api(app, tenant.key).post('/api/v1/webhooks', { url: PUBLIC_URL, events: ['record.created'] });
    return res.json().data as { id: string; secret: string };
  };

  it('returns a new secret once; the old one keeps signing for the grace period (1 day by default)', async () => {
    const sub = await subscribe();
    const res = await rotate(sub.id, {});
    expect(res.statusCode).toBe(200);
    const rotated = res.json().data;
    expect(rotated).toMatchObject({
      id: sub.id,
      url: PUBLIC_URL,
      status: 'active',
      previous_secret_expires_at: '2026-11-24T10:00:00.000Z',
    });
    expect(rotated.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(rotated.secret).not.toBe(sub.secret);
    expect(await stored(sub.id)).toEqual({
      secret: rotated.secret,
      previous_secret: sub.secret,
      previous_secret_expires_at: new Date('2026-11-24T10:00:00.000Z'),
    });
    // Shown once: reads carry the expiry, never a secret.
    const fetched = (await api(app, tenant.key).get(`/api/v1/webhooks/${sub.id}`)).json().data;
    expect(fetched).toMatchObject({ previous_secret_expires_at: '2026-11-24T10:00:00.000Z' });
    expect(JSON.stringify(fetched)).not.toContain('whsec_');
    const listed = (await api(app, tenant.key).get('/api/v1/webhooks')).json().data.find((s: { id: string }) => s.id === sub.id);
    expect(listed.previous_secret_expires_at).toBe('2026-11-24T10:00:00.000Z');
    // Once the grace period is over no previous secret is active.
    now = new Date('2026-11-24T10:00:00.000Z');
    expect((await api(app, tenant.key).get(`/api/v1/webhooks/${sub.id}`)).json().data.previous_secret_expires_at).toBeNull();
  });

  it('takes the customer’s own secret and a grace period; 0 drops the old secret at once', async () => {
    const sub = await subscribe();
    const mine = ownSecret();
    const res = await rotate(sub.id, { secret: mine, grace_period_seconds: 3600 });
    expect(res.json().data).toMatchObject({ secret: mine, previous_secret_expires_at: '2026-11-23T11:00:00.000Z' });
    const next = ownSecret(48);
    const now0 = await rotate(sub.id, { secret: next, grace_period_seconds: 0 });
    expect(now0.statusCode).toBe(200);
    expect(now0.json().data).toMatchObject({ secret: next, previous_secret_expires_at: null });
    expect(await stored(sub.id)).toEqual({ secret: next, previous_secret: null, previous_secret_expires_at: null });
  });

  it('keeps one previous secret: rotating twice within the grace period drops the oldest', async () => {
    const sub = await subscribe();
    const second = (await rotate(sub.id, { grace_period_seconds: 600 })).json().data.secret;
    now = new Date(T0.getTime() + 60_000);
    const third = (await rotate(sub.id, { grace_period_seconds: 600 })).json().data;
    expect(third.previous_secret_expires_at).toBe('2026-11-23T10:11:00.000Z');
    const row = await stored(sub.id);
    expect(row).toEqual({
      secret: third.secret,
      previous_secret: second,
      previous_secret_expires_at: new Date('2026-11-23T10:11:00.000Z'),
    });
    expect([row.secret, row.previous_secret]).not.toContain(sub.secret);
  });

  it('refuses a bad secret or grace period (400 naming the field) and changes nothing', async () => {
    const sub = await subscribe();
    const before = await raw(sub.id);
    for (const [body, field] of [
      [{ secret: 'a-secret-of-my-own-of-24+-chars' }, 'secret'],
      [{ secret: ownSecret(8) }, 'secret'],
      [{ grace_period_seconds: 604_801 }, 'grace_period_seconds'],
      [{ grace_period_seconds: -1 }, 'grace_period_seconds'],
      [{ grace_period_seconds: 1.5 }, 'grace_period_seconds'],
      [{ previous_secret: 'x' }, ''],
    ] as const) {
      const res = await rotate(sub.id, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().code).toBe('validation_error');
      if (field) expect(res.json().details.map((d: { path: string }) => d.path)).toEqual([field]);
    }
    expect(await raw(sub.id)).toEqual(before); // not even re-encrypted
  });

  it('is walled: 404 for another establishment or mode, 403 without webhooks:write; nothing changes', async () => {
    const sub = await subscribe();
    const before = await raw(sub.id);
    const stranger = await createTenant(t.db);
    const live = await addKey(t.db, tenant.establishmentId, 'live');
    const reader = await addKey(t.db, tenant.establishmentId, 'test', 'webhooks:read');
    expect((await rotate(sub.id, {}, stranger.key)).statusCode).toBe(404);
    expect((await rotate(sub.id, {}, live.key)).statusCode).toBe(404);
    expect((await rotate(crypto.randomUUID(), {})).statusCode).toBe(404);
    const forbidden = await rotate(sub.id, {}, reader.key);
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json().code).toBe('forbidden');
    expect(await raw(sub.id)).toEqual(before);
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
