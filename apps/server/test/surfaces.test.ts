import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMember, DashboardBrowser, PASSWORD, randomIp } from './dashboard-client.js';
import { api, createTenant, drain, startTestApp, subscribe, type Tenant, type TestContext, validRecord } from './helpers.js';
import { startReceiver, waitFor } from './receiver.js';

/**
 * Every surface a caller writes through (http/surfaces/: the API, the dashboard, the kitchen
 * station, the vendors' URLs) wakes this process's webhook dispatcher when it answers a write, so
 * that the write's webhook leaves at once rather than at the dispatcher's next poll. The
 * dispatcher here polls once a minute: a delivery within the wait below can only come from a wake.
 */

let t: TestContext;
let tenant: Tenant;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let owner: DashboardBrowser;
const scope = () => ({ establishment_id: tenant.establishmentId, livemode: false });

beforeAll(async () => {
  t = await startTestApp({ config: { WEBHOOKS_ALLOW_PRIVATE: 'true', TRUST_PROXY: 'loopback' } });
  receiver = await startReceiver();
  await t.startWorker({ dispatchIntervalMs: 60 * 60_000, config: { worker: { concurrency: 4, pollIntervalMs: 1_000 } } });
  tenant = await createTenant(t.db);
  await subscribe(t, tenant, `${receiver.url}/hook`, ['record.created', 'record.updated']);
  const o = await createMember(t.db, tenant.organizationId, 'owner');
  owner = new DashboardBrowser(t.app);
  await owner.signIn(o.email, PASSWORD);
  // Whatever setting up queued (the subscription's own events) is delivered or dispatched.
  await drain(t.db);
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

/** The delivery of a webhook about this record: only a woken dispatcher sends it within the wait. */
const deliveredAbout = (recordId: string, type: string) =>
  waitFor(
    () => receiver.received.find((r) => r.body.includes(recordId) && (JSON.parse(r.body) as { event?: string }).event === type),
    5_000,
    `the ${type} webhook of ${recordId}`,
  );

async function pairStation(): Promise<string> {
  const started = (await owner.mutate('stations.startPairing', { ...scope(), name: 'Cubo' })) as { code: string };
  const res = await t.app.inject({
    method: 'POST',
    url: '/station/pair',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': randomIp() },
    payload: JSON.stringify({ code: started.code }),
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data.token as string;
}

describe('a write wakes the dispatcher, on every surface', () => {
  it('the API', async () => {
    const res = await api(t.app, tenant.key).post('/api/v1/records', validRecord());
    expect(res.statusCode, res.body).toBe(201);
    await deliveredAbout(res.json().data.id, 'record.created');
  });

  it('the kitchen station: a record and its undo', async () => {
    const token = await pairStation();
    const station = (url: string, body: object) =>
      t.app.inject({
        method: 'POST',
        url,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
        payload: JSON.stringify(body),
      });
    const created = await station('/station/records', validRecord());
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().data.id as string;
    await deliveredAbout(id, 'record.created');
    const undone = await station(`/station/records/${id}/undo`, {});
    expect(undone.statusCode, undone.body).toBe(200);
    await deliveredAbout(id, 'record.updated');
  });

  it('the dashboard', async () => {
    const created = (await owner.mutate('records.create', { ...scope(), ...validRecord() })) as { id: string };
    await deliveredAbout(created.id, 'record.created');
  });
});
