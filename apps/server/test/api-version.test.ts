import { API_VERSIONS, CURRENT_API_VERSION } from '@merma/schema';
import { deadline } from '@merma/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, startTestApp, type Tenant, type TestContext, validRecord } from './helpers.js';

/**
 * `Merma-Version`: a caller may pin the contract version; every /api/v1 answer names the version
 * it was answered with; an unknown version is refused with 400 in the contract's error shape,
 * before anything is stored.
 */
let t: TestContext;
let tenant: Tenant;

beforeAll(async () => {
  t = await startTestApp();
  tenant = await createTenant(t.db);
}, deadline(60_000));

afterAll(async () => {
  await t?.close();
});

const auth = () => ({ authorization: `Bearer ${tenant.key}` });

describe('Merma-Version', () => {
  it('without the header, the answer names the current version', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/destinos', headers: auth() });
    expect(res.statusCode).toBe(200);
    expect(res.headers['merma-version']).toBe(CURRENT_API_VERSION);
  });

  it.each(API_VERSIONS)('a known version (%s) is answered and echoed', async (version) => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/destinos', headers: { ...auth(), 'merma-version': version } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['merma-version']).toBe(version);
  });

  it('errors name it too (a 401 without a key)', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/destinos', headers: { 'merma-version': CURRENT_API_VERSION } });
    expect(res.statusCode).toBe(401);
    expect(res.headers['merma-version']).toBe(CURRENT_API_VERSION);
  });

  it.each(['2020-01-01', '2026-11-28x', 'latest', ''])(
    'an unknown version (%j) is a 400 in the error shape, and nothing is stored',
    async (version) => {
      const before = await t.db.record.count({ where: { establishment_id: tenant.establishmentId } });
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/records',
        headers: { ...auth(), 'content-type': 'application/json', 'merma-version': version },
        payload: JSON.stringify(validRecord()),
      });
      expect(res.statusCode).toBe(400);
      const body = res.json();
      expect(body).toMatchObject({
        status: 400,
        code: 'validation_error',
        details: [{ path: 'Merma-Version', message: `expected one of ${API_VERSIONS.join(', ')}` }],
      });
      expect(body.error).toContain('Unknown API version');
      expect(res.headers['merma-version']).toBe(CURRENT_API_VERSION);
      expect(res.headers['x-request-id']).toMatch(/^req_/);
      expect(await t.db.record.count({ where: { establishment_id: tenant.establishmentId } })).toBe(before);
    },
  );
});
