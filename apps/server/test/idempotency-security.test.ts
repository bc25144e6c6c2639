import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addKey, api, createTenant, startTestApp, type Tenant, type TestContext } from './helpers.js';

/*
 * A stored Idempotency-Key answer belongs to the API key that made the request: another key of the
 * same establishment neither gets it (whatever its permissions) nor is refused because of it, the
 * permission is checked before any stored answer is looked at, and the stored answers are
 * encrypted at rest.
 */

let t: TestContext;
const HOOK = { url: 'https://93.184.216.34/merma/hooks', events: ['record.created'] };

beforeAll(async () => {
  // No key cache, so a permission taken from a key counts on its next request.
  t = await startTestApp({ config: { API_KEY_CACHE_TTL_MS: '0' } });
});
afterAll(() => t?.close());

const idempotent = (key: string) => ({ headers: { 'idempotency-key': key } });
const subscriptions = (tenant: Tenant) => t.db.webhookSubscription.count({ where: { establishment_id: tenant.establishmentId } });
const storedBodies = async (tenant: Tenant) =>
  (
    await t.db.$queryRaw<{ response_body: string }[]>`
      SELECT response_body FROM idempotency_keys WHERE establishment_id = ${tenant.establishmentId}::uuid`
  ).map((r) => r.response_body);
/** An error body without what differs per response. */
const refusal = (body: Record<string, unknown>) => {
  const { request_id: _id, timestamp: _at, ...rest } = body;
  return rest;
};

describe('Idempotency-Key replays across API keys', () => {
  it('refuses a key without webhooks:write that replays another key’s subscription (403, no secret, nothing created)', async () => {
    const owner = await createTenant(t.db);
    const reader = await addKey(t.db, owner.establishmentId, 'test', 'catalog:read');
    const first = await api(t.app, owner.key).post('/api/v1/webhooks', HOOK, idempotent('hook-1'));
    expect(first.statusCode).toBe(201);
    expect(first.json().data.secret).toMatch(/^whsec_/);

    const replay = await api(t.app, reader.key).post('/api/v1/webhooks', HOOK, idempotent('hook-1'));
    expect(replay.body).not.toContain('whsec_');
    expect(replay.statusCode).toBe(403);
    expect(replay.headers['idempotent-replayed']).toBeUndefined();
    // Refused exactly as the procedure refuses the same key without an Idempotency-Key.
    const plain = await api(t.app, reader.key).post('/api/v1/webhooks', HOOK);
    expect(plain.statusCode).toBe(403);
    expect(refusal(replay.json())).toEqual(refusal(plain.json()));
    expect(replay.json()).toMatchObject({ code: 'forbidden', error: 'This API key lacks the permission webhooks:write' });
    expect(await subscriptions(owner)).toBe(1);
    // The refused request did not touch the idempotency storage: only the owner's answer is stored.
    expect(await storedBodies(owner)).toHaveLength(1);
  });

  it('the permission is checked before the Idempotency-Key header is read', async () => {
    const owner = await createTenant(t.db);
    const reader = await addKey(t.db, owner.establishmentId, 'test', 'catalog:read');
    const res = await api(t.app, reader.key).post('/api/v1/webhooks', HOOK, idempotent('x'.repeat(300)));
    expect([res.statusCode, res.json().code]).toEqual([403, 'forbidden']);
  });

  it('a second key with webhooks:write and the same Idempotency-Key runs its own request: its own subscription and secret', async () => {
    const owner = await createTenant(t.db);
    const writer = await addKey(t.db, owner.establishmentId, 'test', 'webhooks:write');
    const first = await api(t.app, owner.key).post('/api/v1/webhooks', HOOK, idempotent('hook-2'));
    expect(first.statusCode).toBe(201);

    const second = await api(t.app, writer.key).post('/api/v1/webhooks', HOOK, idempotent('hook-2'));
    expect(second.statusCode).toBe(201);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    expect(second.body).not.toContain(first.json().data.secret);
    expect(second.json().data.id).not.toBe(first.json().data.id);
    expect(second.json().data.secret).toMatch(/^whsec_/);
    expect(await subscriptions(owner)).toBe(2);

    // Each key replays its own answer.
    const ownerAgain = await api(t.app, owner.key).post('/api/v1/webhooks', HOOK, idempotent('hook-2'));
    const writerAgain = await api(t.app, writer.key).post('/api/v1/webhooks', HOOK, idempotent('hook-2'));
    expect([ownerAgain.statusCode, ownerAgain.headers['idempotent-replayed'], ownerAgain.body]).toEqual([201, 'true', first.body]);
    expect([writerAgain.statusCode, writerAgain.headers['idempotent-replayed'], writerAgain.body]).toEqual([201, 'true', second.body]);
    expect(await subscriptions(owner)).toBe(2);
  });

  it('another key reusing an Idempotency-Key with another body is a new request, not a 409', async () => {
    const owner = await createTenant(t.db);
    const writer = await addKey(t.db, owner.establishmentId, 'test', 'webhooks:write');
    expect((await api(t.app, owner.key).post('/api/v1/webhooks', HOOK, idempotent('hook-3'))).statusCode).toBe(201);
    const other = await api(t.app, writer.key).post('/api/v1/webhooks', { ...HOOK, description: 'POS' }, idempotent('hook-3'));
    expect(other.statusCode).toBe(201);
    expect(other.json().data.description).toBe('POS');
    expect(await subscriptions(owner)).toBe(2);
  });
});

describe('Idempotency-Key answers at rest', () => {
  it('stores no webhook secret in clear (create and rotate-secret), and still replays it', async () => {
    const owner = await createTenant(t.db);
    const created = await api(t.app, owner.key).post('/api/v1/webhooks', HOOK, idempotent('hook-4'));
    expect(created.statusCode).toBe(201);
    const id = created.json().data.id as string;
    const rotated = await api(t.app, owner.key).post(`/api/v1/webhooks/${id}/rotate-secret`, {}, idempotent('rotate-4'));
    expect(rotated.statusCode).toBe(200);
    expect(rotated.json().data.secret).toMatch(/^whsec_/);

    const stored = await storedBodies(owner);
    expect(stored).toHaveLength(2);
    for (const body of stored) {
      expect(body).not.toContain('whsec_');
      expect(body).not.toContain(id);
      expect(body).toMatch(/^enc:v1:test:/);
    }

    const rotatedAgain = await api(t.app, owner.key).post(`/api/v1/webhooks/${id}/rotate-secret`, {}, idempotent('rotate-4'));
    expect([rotatedAgain.statusCode, rotatedAgain.headers['idempotent-replayed'], rotatedAgain.body]).toEqual([200, 'true', rotated.body]);
  });

  it('a stored answer moved to another row does not open there', async () => {
    const owner = await createTenant(t.db);
    const a = await api(t.app, owner.key).post('/api/v1/webhooks', HOOK, idempotent('hook-5a'));
    const b = await api(t.app, owner.key).post('/api/v1/webhooks', { ...HOOK, description: 'B' }, idempotent('hook-5b'));
    expect([a.statusCode, b.statusCode]).toEqual([201, 201]);
    await t.db.$executeRaw`
      UPDATE idempotency_keys SET response_body = (SELECT response_body FROM idempotency_keys WHERE establishment_id = ${owner.establishmentId}::uuid AND key = 'hook-5a')
      WHERE establishment_id = ${owner.establishmentId}::uuid AND key = 'hook-5b'`;
    const replay = await api(t.app, owner.key).post('/api/v1/webhooks', { ...HOOK, description: 'B' }, idempotent('hook-5b'));
    expect(replay.statusCode).toBe(500);
    expect(replay.body).not.toContain('whsec_');
  });
});

describe('Idempotency-Key replays by the same key', () => {
  it('replays the subscription with its secret: same status and body, marked replayed, one subscription', async () => {
    const owner = await createTenant(t.db);
    const first = await api(t.app, owner.key).post('/api/v1/webhooks', HOOK, idempotent('hook-6'));
    const again = await api(t.app, owner.key).post('/api/v1/webhooks', HOOK, idempotent('hook-6'));
    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    expect(again.json().data.secret).toMatch(/^whsec_/);
    expect(await subscriptions(owner)).toBe(1);
  });

  it('answers 409 when the same key reuses the Idempotency-Key with another body', async () => {
    const owner = await createTenant(t.db);
    expect((await api(t.app, owner.key).post('/api/v1/webhooks', HOOK, idempotent('hook-7'))).statusCode).toBe(201);
    const res = await api(t.app, owner.key).post('/api/v1/webhooks', { ...HOOK, description: 'other' }, idempotent('hook-7'));
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ status: 409, code: 'conflict' });
    expect(res.headers['x-should-retry']).toBe('false');
    expect(res.body).not.toContain('whsec_');
    expect(await subscriptions(owner)).toBe(1);
  });

  it('refuses the replay when the key has since lost the permission', async () => {
    const owner = await createTenant(t.db);
    const key = await addKey(t.db, owner.establishmentId, 'test', 'webhooks:write');
    expect((await api(t.app, key.key).post('/api/v1/webhooks', HOOK, idempotent('hook-8'))).statusCode).toBe(201);
    await t.db.apiKey.update({ where: { id: key.keyId }, data: { permissions: ['webhooks:read'] } });
    const replay = await api(t.app, key.key).post('/api/v1/webhooks', HOOK, idempotent('hook-8'));
    expect(replay.body).not.toContain('whsec_');
    expect([replay.statusCode, replay.json().code]).toEqual([403, 'forbidden']);
  });
});
