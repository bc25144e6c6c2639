import { randomUUID } from 'node:crypto';
import { deadline } from '@merma/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_CONSECUTIVE_FAILURES } from '../src/modules/accounts/lockout.js';
import { ENQUEUE_DELIVERY_SQL } from '../src/modules/webhooks/queue.js';
import { RETRY_DELAYS_MS } from '../src/modules/webhooks/schedule.js';
import { createMember, DashboardBrowser, PASSWORD, randomIp } from './dashboard-client.js';
import { api, createTenant, startTestApp, subscribe, type Tenant, type TestContext, validRecord } from './helpers.js';
import { startReceiver, waitFor } from './receiver.js';

/**
 * Counts of consecutive failures start again at a success: a webhook endpoint's failed deliveries
 * in a row (5 deactivate it), and an account's wrong passwords in a row (10 lock it). A success
 * that only stops the count from growing, or takes one off it, lets failures spread over a long
 * time add up to a deactivation or a lockout nobody earned.
 */
let t: TestContext;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let tenant: Tenant;

beforeAll(async () => {
  // Deliveries labelled `fail-…` are answered 500, every other one 200.
  receiver = await startReceiver((req, res) => {
    res.statusCode = req.body.includes('"fail-') ? 500 : 200;
    res.end();
  });
  t = await startTestApp({ config: { WEBHOOKS_ALLOW_PRIVATE: 'true', TRUST_PROXY: 'true' }, worker: true });
  tenant = await createTenant(t.db);
}, deadline(60_000));

afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

describe('a delivered webhook resets its endpoint’s count of failed deliveries', () => {
  const state = async (id: string) => {
    const res = await api(t.app, tenant.key).get(`/api/v1/webhooks/${id}`);
    expect(res.statusCode).toBe(200);
    const row = await t.db.webhookSubscription.findUniqueOrThrow({ where: { id } });
    expect(res.json().data).toMatchObject({ status: row.status, consecutive_failures: row.consecutive_failures });
    return { status: row.status, consecutive_failures: row.consecutive_failures };
  };
  const finished = (id: string) =>
    waitFor(
      async () => {
        const d = await t.db.webhookDelivery.findUniqueOrThrow({ where: { id } });
        return d.status === 'pending' ? null : d;
      },
      10_000,
      `delivery ${id}`,
    );

  /** A delivery on its last retry (as the worker leaves it after five failed attempts), queued now: it fails for good. */
  async function failForGood(subscriptionId: string, label: string) {
    const id = randomUUID();
    const payload = JSON.stringify({ event: 'record.created', timestamp: new Date().toISOString(), data: { id: label } });
    await t.db.$executeRaw`
      WITH e AS (
        INSERT INTO events (id, establishment_id, livemode, type, payload, created_at, dispatched_at)
        VALUES (gen_random_uuid(), ${tenant.establishmentId}::uuid, false, 'record.created', ${payload}::jsonb, now(), now())
        RETURNING id
      )
      INSERT INTO webhook_deliveries (id, subscription_id, event_id, event_type, status, attempts, manual, created_at)
      SELECT ${id}::uuid, ${subscriptionId}::uuid, e.id, 'record.created', 'pending', ${RETRY_DELAYS_MS.length}, false, now() FROM e`;
    await t.db.$executeRawUnsafe(`SELECT ${ENQUEUE_DELIVERY_SQL}`, id, new Date());
    const d = await finished(id);
    expect(d).toMatchObject({ status: 'failed', attempts: RETRY_DELAYS_MS.length + 1 });
  }

  /** A record written through the API, its record.created delivered at the first attempt. */
  async function deliver(subscriptionId: string) {
    const created = await api(t.app, tenant.key).post('/api/v1/records', validRecord());
    expect(created.statusCode).toBe(201);
    const delivery = await waitFor(() =>
      t.db.webhookDelivery.findFirst({ where: { subscription_id: subscriptionId, status: { not: 'pending' }, attempts: 1 } }),
    );
    expect(delivery).toMatchObject({ status: 'succeeded', attempts: 1 });
  }

  it('fail, fail, success, fail leaves one failure, not three; four more failures then deactivate it', async () => {
    const sub = await subscribe(t, tenant, `${receiver.url}/resets`, ['record.created']);
    await failForGood(sub.id, 'fail-1');
    expect(await state(sub.id)).toEqual({ status: 'active', consecutive_failures: 1 });
    await failForGood(sub.id, 'fail-2');
    expect(await state(sub.id)).toEqual({ status: 'active', consecutive_failures: 2 });
    await deliver(sub.id);
    expect(await state(sub.id)).toEqual({ status: 'active', consecutive_failures: 0 });
    await failForGood(sub.id, 'fail-3');
    expect(await state(sub.id)).toEqual({ status: 'active', consecutive_failures: 1 });

    // The count goes on from there: the fifth failure in a row since the success deactivates it.
    for (let i = 4; i <= 6; i++) await failForGood(sub.id, `fail-${i}`);
    expect(await state(sub.id)).toEqual({ status: 'active', consecutive_failures: 4 });
    await failForGood(sub.id, 'fail-7');
    expect(await state(sub.id)).toMatchObject({ status: 'deactivated', consecutive_failures: 5 });
  });
});

describe('a right password resets the account’s count of wrong ones', () => {
  const signIn = (email: string, password: string, ip: string) =>
    new DashboardBrowser(t.app, ip).raw('mutation', 'accounts.signIn', { email, password });
  const code = (res: Awaited<ReturnType<typeof signIn>>) => [res.statusCode, res.json().error?.data?.app_code ?? 'ok'];

  it(`wrong ×${MAX_CONSECUTIVE_FAILURES - 1}, right, wrong ×${MAX_CONSECUTIVE_FAILURES - 1}: every wrong one is evaluated (401), none locks; the count then locks at the limit again`, async () => {
    const member = await createMember(t.db, tenant.organizationId, 'viewer');
    const ip = randomIp();
    const wrong = async (n: number, label: string) => {
      const answers = [];
      for (let i = 0; i < n; i++) answers.push(code(await signIn(member.email, `${label} ${i}`, ip)));
      return answers;
    };
    expect(await wrong(MAX_CONSECUTIVE_FAILURES - 1, 'wrong')).toEqual(Array(MAX_CONSECUTIVE_FAILURES - 1).fill([401, 'unauthorized']));
    expect(code(await signIn(member.email, PASSWORD, ip))).toEqual([200, 'ok']);
    expect(await wrong(MAX_CONSECUTIVE_FAILURES - 1, 'wrong again')).toEqual(
      Array(MAX_CONSECUTIVE_FAILURES - 1).fill([401, 'unauthorized']),
    );

    // Counted from the right password: the limit's last wrong one is still evaluated, the next refused.
    expect(await wrong(1, 'last')).toEqual([[401, 'unauthorized']]);
    expect(await wrong(1, 'over')).toEqual([[429, 'rate_limited']]);
    expect(code(await signIn(member.email, PASSWORD, ip))).toEqual([429, 'rate_limited']);
    expect(await t.db.userSession.count({ where: { user_id: member.id } })).toBe(1);
  });
});
