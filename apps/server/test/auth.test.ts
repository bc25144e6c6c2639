import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, revokeKey, setOrganizationPlan } from '../src/admin/service.js';
import { hashApiKey } from '../src/auth/keys.js';
import { addKey, createTenant, startTestApp, type Tenant, type TestContext, validRecord } from './helpers.js';

let t: TestContext;
const logLines: string[] = [];
const logStream = new Writable({
  write(chunk, _enc, done) {
    logLines.push(String(chunk));
    done();
  },
});

beforeAll(async () => {
  // Key cache off: revocation must be visible on the next request.
  t = await startTestApp({ config: { API_KEY_CACHE_TTL_MS: '0' }, logStream, logLevel: 'info' });
});
afterAll(() => t?.close());

const ENDPOINTS: [string, string, unknown?][] = [
  ['GET', '/api/v1/records'],
  ['POST', '/api/v1/records', validRecord()],
  ['POST', '/api/v1/records/batch', { records: [validRecord()] }],
  ['GET', '/api/v1/records/verify'],
  ['GET', '/api/v1/causas'],
  ['GET', '/api/v1/destinos'],
  ['GET', '/api/v1/establishments'],
  ['GET', '/api/v1/products'],
  ['GET', '/api/v1/shifts'],
  ['POST', '/api/v1/shifts', { name: 'Noche', start_time: '22:00', end_time: '06:00' }],
];

function call(key: string | undefined, method: string, url: string, body?: unknown, authorization?: string) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (authorization !== undefined) headers.authorization = authorization;
  else if (key) headers.authorization = `Bearer ${key}`;
  return t.app.inject({ method: method as 'GET' | 'POST', url, headers, ...(body !== undefined ? { payload: JSON.stringify(body) } : {}) });
}

describe('authentication', () => {
  it.each(ENDPOINTS)('%s %s answers 401 without a key, with a malformed key and with an unknown key', async (method, url, body) => {
    for (const authorization of [
      undefined,
      'Bearer',
      'Basic dXNlcjpwYXNz',
      'Bearer svc_test_short',
      `Bearer svc_test_${'A'.repeat(32)}`,
      `Bearer sk_live_${'A'.repeat(32)}`,
    ]) {
      const res = await call(undefined, method, url, body, authorization);
      expect(res.statusCode, `${authorization}`).toBe(401);
      expect(res.json()).toMatchObject({ status: 401, code: 'unauthorized' });
      expect(res.json().timestamp).toMatch(/Z$/);
    }
  });

  it('stops accepting a revoked key at once when the cache is off', async () => {
    const tenant = await createTenant(t.db);
    expect((await call(tenant.key, 'GET', '/api/v1/causas')).statusCode).toBe(200);
    await revokeKey(t.db, { id: tenant.keyId });
    const res = await call(tenant.key, 'GET', '/api/v1/causas');
    expect(res.statusCode).toBe(401);
    expect(res.json().error).toMatch(/revoked/);
  });

  it('stores keys only as SHA-256 hashes', async () => {
    const tenant = await createTenant(t.db);
    const row = await t.db.apiKey.findUniqueOrThrow({ where: { id: tenant.keyId } });
    expect(row.key_hash).toBe(hashApiKey(tenant.key));
    expect(JSON.stringify(row, (_k, v) => (typeof v === 'bigint' ? String(v) : v))).not.toContain(tenant.key.slice(9));
    expect(tenant.key).toMatch(/^svc_test_[0-9A-Za-z]{32}$/);
  });

  it('never writes the Authorization header to the log', async () => {
    const tenant = await createTenant(t.db);
    await call(tenant.key, 'GET', '/api/v1/records');
    await call(tenant.key, 'POST', '/api/v1/records', { bad: true });
    const log = logLines.join('');
    expect(log.length).toBeGreaterThan(0);
    expect(log).toContain('/api/v1/records');
    // Request lines name the key by its id; headers are not logged (and are censored where they
    // are: observability.test.ts).
    expect(log).toContain(`"key_id":"${tenant.keyId}"`);
    expect(log).not.toContain('authorization');
    expect(log).not.toContain(tenant.key);
    expect(log).not.toContain(tenant.key.slice(9));
  });
});

describe('permissions and plans', () => {
  it.each(ENDPOINTS)('%s %s answers 403 to a key without the permission', async (method, url, body) => {
    const tenant = await createTenant(t.db, { permissions: 'webhooks:read' });
    const res = await call(tenant.key, method, url, body);
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ status: 403, code: 'forbidden' });
  });

  it('grants exactly the listed permissions', async () => {
    const tenant = await createTenant(t.db, { permissions: 'records:read,catalog:read' });
    expect((await call(tenant.key, 'GET', '/api/v1/records')).statusCode).toBe(200);
    expect((await call(tenant.key, 'GET', '/api/v1/destinos')).statusCode).toBe(200);
    expect((await call(tenant.key, 'POST', '/api/v1/records', validRecord())).statusCode).toBe(403);
    expect(await t.db.record.count({ where: { establishment_id: tenant.establishmentId } })).toBe(0);
  });

  it.each(['basic', 'pro'])('refuses every call on the %s plan with 403 plan_required', async (plan) => {
    const tenant = await createTenant(t.db, { plan });
    for (const [method, url, body] of ENDPOINTS) {
      const res = await call(tenant.key, method, url, body);
      expect(res.statusCode).toBe(403);
      expect(res.json().code).toBe('plan_required');
    }
    expect(await t.db.record.count({ where: { establishment_id: tenant.establishmentId } })).toBe(0);
  });

  it('applies a plan change on the next request when the cache is off', async () => {
    const tenant = await createTenant(t.db, { plan: 'enterprise' });
    expect((await call(tenant.key, 'GET', '/api/v1/causas')).statusCode).toBe(200);
    await setOrganizationPlan(t.db, { id: tenant.organizationId, plan: 'pro' });
    expect((await call(tenant.key, 'GET', '/api/v1/causas')).statusCode).toBe(403);
  });
});

describe('tenancy', () => {
  let a: Tenant;
  let b: Tenant;
  let aLive: { key: string };
  beforeAll(async () => {
    a = await createTenant(t.db);
    b = await createTenant(t.db);
    aLive = await addKey(t.db, a.establishmentId, 'live');
    for (const [key, weight] of [
      [a.key, 1],
      [b.key, 2],
      [aLive.key, 3],
    ] as const) {
      expect((await call(key, 'POST', '/api/v1/records', validRecord({ weight_kg: weight }))).statusCode).toBe(201);
      expect((await call(key, 'POST', '/api/v1/shifts', { name: `S${weight}`, start_time: '08:00', end_time: '16:00' })).statusCode).toBe(
        201,
      );
    }
  });

  it('shows each key only its establishment and mode', async () => {
    const weights = async (key: string) =>
      (await call(key, 'GET', '/api/v1/records')).json().data.map((r: { weight_kg: number }) => r.weight_kg);
    expect(await weights(a.key)).toEqual([1]);
    expect(await weights(b.key)).toEqual([2]);
    expect(await weights(aLive.key)).toEqual([3]);
    const shifts = async (key: string) => (await call(key, 'GET', '/api/v1/shifts')).json().data.map((s: { name: string }) => s.name);
    expect(await shifts(a.key)).toEqual(['S1']);
    expect(await shifts(b.key)).toEqual(['S2']);
    expect(await shifts(aLive.key)).toEqual(['S3']);
  });

  it('keeps one hash chain per establishment and mode', async () => {
    for (const key of [a.key, b.key, aLive.key]) {
      expect((await call(key, 'GET', '/api/v1/records/verify')).json().data).toMatchObject({ valid: true, checked: 1 });
    }
    const live = await t.db.record.findFirstOrThrow({ where: { establishment_id: a.establishmentId, livemode: true } });
    expect(live.livemode).toBe(true);
    expect(Number(live.chain_seq)).toBe(1);
  });

  it('refuses a shift of another establishment or mode in a record', async () => {
    const bShift = (await call(b.key, 'GET', '/api/v1/shifts')).json().data[0];
    const liveShift = (await call(aLive.key, 'GET', '/api/v1/shifts')).json().data[0];
    for (const shiftId of [bShift.id, liveShift.id]) {
      const res = await call(a.key, 'POST', '/api/v1/records', validRecord({ shift_id: shiftId }));
      expect(res.statusCode).toBe(400);
    }
  });

  it('lists one establishment on Enterprise and all of the organisation on Enterprise Multi', async () => {
    const multi = await createTenant(t.db, { plan: 'enterprise_multi' });
    const sibling = await createTenant(t.db, { organizationId: multi.organizationId });
    const list = (await call(multi.key, 'GET', '/api/v1/establishments'))
      .json()
      .data.map((e: { id: string }) => e.id)
      .sort();
    expect(list).toEqual([multi.establishmentId, sibling.establishmentId].sort());
    const single = (await call(a.key, 'GET', '/api/v1/establishments')).json().data;
    expect(single).toHaveLength(1);
    expect(single[0]).toMatchObject({ id: a.establishmentId, sector: 'horeca', timezone: 'Europe/Madrid' });
    expect(single[0].cif).toMatch(/^B\d{8}$/);
  });

  it('creates live keys with the live prefix', async () => {
    const key = await createKey(t.db, { establishment: a.establishmentId, mode: 'live' });
    expect(key.key.startsWith('svc_live_')).toBe(true);
  });
});
