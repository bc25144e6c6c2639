import { deadline } from '@merma/testing';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DASHBOARD_LIMITS } from '../src/http/rate-limit.js';
import { createMember, DashboardBrowser, PASSWORD } from './dashboard-client.js';
import { api, createTenant, startTestApp, type Tenant, type TestContext, validRecord } from './helpers.js';

/**
 * Per-user limits on the dashboard's heavy procedures (analytics, forecasts, chain verification,
 * the CSV export, plan generation): a script looping over one of them is answered 429 with
 * Retry-After long before it loads the database, while another user of the same organisation, and
 * the same user's light calls, go on unaffected.
 */
let t: TestContext;
let tenant: Tenant;
let scope: { establishment_id: string; livemode: boolean };

beforeAll(async () => {
  t = await startTestApp({ config: { TRUST_PROXY: 'true' } });
  tenant = await createTenant(t.db);
  scope = { establishment_id: tenant.establishmentId, livemode: false };
  const client = api(t.app, tenant.key);
  for (let i = 0; i < 3; i++) expect((await client.post('/api/v1/records', validRecord())).statusCode).toBe(201);
}, deadline(60_000));

afterAll(async () => {
  await t?.close();
});

async function member(role: 'owner' | 'viewer' = 'viewer') {
  const { email } = await createMember(t.db, tenant.organizationId, role);
  const browser = new DashboardBrowser(t.app);
  await browser.signIn(email, PASSWORD);
  return browser;
}

/** Sends `count` calls one after another, as fast as they are answered. */
async function burst(count: number, call: () => Promise<LightMyRequestResponse>) {
  const answers: LightMyRequestResponse[] = [];
  for (let i = 0; i < count; i++) answers.push(await call());
  return answers;
}

function expectLimited(answers: LightMyRequestResponse[], allowed: number) {
  expect(answers.map((a) => a.statusCode).filter((s) => s !== 200 && s !== 429)).toEqual([]);
  expect(answers.filter((a) => a.statusCode === 200)).toHaveLength(allowed);
  const refused = answers.filter((a) => a.statusCode === 429);
  expect(refused).toHaveLength(answers.length - allowed);
  // Refusals come after the allowed calls, never in between.
  expect(answers.slice(0, allowed).every((a) => a.statusCode === 200)).toBe(true);
  return refused;
}

describe('heavy dashboard procedures are limited per user', () => {
  it(`80 quick analytics calls: ${DASHBOARD_LIMITS.heavy.points} answered, the rest 429 with Retry-After; another user and light calls unaffected`, async () => {
    const script = await member();
    const answers = await burst(80, () => script.raw('query', 'analytics.get', { ...scope, group_by: 'day' }));
    const refused = expectLimited(answers, DASHBOARD_LIMITS.heavy.points);
    for (const res of refused) {
      const retryAfter = Number(res.headers['retry-after']);
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(DASHBOARD_LIMITS.heavy.seconds);
      expect(res.json().error).toMatchObject({
        message: expect.stringMatching(/^Too many requests/),
        data: { code: 'TOO_MANY_REQUESTS', httpStatus: 429, app_code: 'rate_limited', path: 'analytics.get' },
      });
    }

    const colleague = await member();
    expect((await colleague.raw('query', 'analytics.get', { ...scope, group_by: 'day' })).statusCode).toBe(200);
    // The same user's light reads, and other heavy procedures (each counted apart), still answer.
    expect((await script.raw('query', 'accounts.me')).statusCode).toBe(200);
    expect((await script.raw('query', 'records.list', scope)).statusCode).toBe(200);
    expect((await script.raw('query', 'analytics.periods', scope)).statusCode).toBe(200);
  });

  it('the CSV export too: 429 in the error envelope with Retry-After, another user unaffected', async () => {
    const download = (browser: DashboardBrowser) =>
      t.app.inject({
        method: 'GET',
        url: '/export/records.csv',
        query: { establishment_id: tenant.establishmentId, mode: 'test' },
        headers: {
          cookie: `merma_session=${browser.cookies.get('merma_session')}`,
          'sec-fetch-site': 'same-origin',
          'x-forwarded-for': browser.ip,
        },
      });
    const script = await member();
    const refused = expectLimited(await burst(80, () => download(script)), DASHBOARD_LIMITS.heavy.points);
    for (const res of refused) {
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(res.json()).toMatchObject({ status: 429, code: 'rate_limited', resetAt: expect.any(String) });
    }
    const colleague = await member();
    const theirs = await download(colleague);
    expect(theirs.statusCode).toBe(200);
    expect(theirs.headers['content-type']).toBe('text/csv; charset=utf-8');
  });

  it(`plan generation: ${DASHBOARD_LIMITS.generate.points} an hour per user; the refused ones write nothing`, async () => {
    const author = await member('owner');
    const before = await t.db.preventionPlan.count();
    const answers = await burst(DASHBOARD_LIMITS.generate.points + 3, () =>
      author.raw('mutation', 'plan.generate', { ...scope, lang: 'en' }),
    );
    expectLimited(answers, DASHBOARD_LIMITS.generate.points);
    expect(await t.db.preventionPlan.count()).toBe(before + DASHBOARD_LIMITS.generate.points);
    expect((await (await member('owner')).raw('mutation', 'plan.generate', { ...scope, lang: 'es' })).statusCode).toBe(200);
  });

  it('every heavy procedure declares its limit in its meta', async () => {
    const { createDashboardRouter } = await import('../src/trpc/dashboard.js');
    // Only the procedures' definitions are read: no dependency is used.
    const router = createDashboardRouter({
      webhookTargets: { production: false, allowPrivate: true },
      publicUrl: 'http://x',
    } as unknown as Parameters<typeof createDashboardRouter>[0]);
    const procedures = router._def.procedures as unknown as Record<string, { _def: { meta?: { rateLimit?: string } } }>;
    const limited = Object.fromEntries(
      Object.entries(procedures)
        .filter(([, p]) => p._def.meta?.rateLimit)
        .map(([path, p]) => [path, p._def.meta?.rateLimit]),
    );
    expect(limited).toEqual({
      'analytics.get': 'heavy',
      'analytics.periods': 'heavy',
      'analytics.benchmark': 'heavy',
      'analytics.alerts': 'heavy',
      'predict.waste': 'heavy',
      'predict.demand': 'heavy',
      'records.verify': 'heavy',
      'donations.taxPack': 'heavy',
      'plan.generate': 'generate',
    });
  });
});
