import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { CreateRecordInput, WebhookDelivery, WebhookEvent } from '@merma/schema';
import { verifyWebhook } from '@merma/sdk';
import { verifyDelivery } from '@merma/signing';
import pg from 'pg';
import { Webhook as StandardWebhooks } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { importProducts } from '../src/admin/service.js';
import { loadConfig } from '../src/config.js';
import { readMigrations } from '../src/db/migrate.js';
import { inTransaction } from '../src/db/transaction.js';
import { createCatalogCache } from '../src/modules/catalog/service.js';
import { createRecord } from '../src/modules/records/service.js';
import { dispatchEvents, releaseStaleDeliveryLocks } from '../src/modules/webhooks/dispatch.js';
import { RETRY_DELAYS_MS } from '../src/modules/webhooks/schedule.js';
import { createMember } from './dashboard-client.js';
import {
  addKey,
  api,
  authOf,
  CAUSA_CADUCIDAD,
  createTenant,
  DESTINO_DONATION,
  DESTINO_LANDFILL,
  drain,
  startTestApp,
  subscribe,
  type Tenant,
  type TestContext,
  validRecord,
} from './helpers.js';
import { readMail, startReceiver, startSmtp, waitFor } from './receiver.js';

type Receiver = Awaited<ReturnType<typeof startReceiver>>;
type Respond = Receiver['handler']['respond'];

async function deliveries(t: TestContext, tenant: Tenant, id: string) {
  const res = await api(t.app, tenant.key).get(`/api/v1/webhooks/${id}/deliveries`, { query: { limit: '100' } });
  expect(res.statusCode).toBe(200);
  return (res.json().data as unknown[]).map((d) => WebhookDelivery.parse(d));
}

const jobCount = async (t: TestContext) =>
  Number(((await t.db.$queryRawUnsafe('SELECT count(*)::int AS n FROM graphile_worker.jobs')) as { n: number }[])[0]?.n);

const undispatched = (t: TestContext, tenant: Tenant) =>
  t.db.event.count({ where: { establishment_id: tenant.establishmentId, dispatched_at: null } });

describe('webhook delivery', () => {
  let t: TestContext;
  let receiver: Receiver;
  const answerOk: Respond = (_r, res) => res.end('ok');
  beforeAll(async () => {
    t = await startTestApp({ config: { WEBHOOKS_ALLOW_PRIVATE: 'true' }, worker: true });
    receiver = await startReceiver(answerOk);
  });
  // Each test starts from the same receiver, whatever an earlier test (passed or failed) set it to.
  beforeEach(() => {
    receiver.handler.respond = answerOk;
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.close();
  });

  it('delivers record.created signed, with the Standard Webhooks headers, to every subscription listening', async () => {
    const tenant = await createTenant(t.db);
    const a = await subscribe(t, tenant, `${receiver.url}/a`, ['record.created']);
    const b = await subscribe(t, tenant, `${receiver.url}/b`, ['record.created', 'record.updated']);
    const other = await subscribe(t, tenant, `${receiver.url}/other`, ['session.completed']);
    // A time with milliseconds and an offset, thirty days back on the machine's clock (which this
    // app runs on; a fixed date would pass the 400 days a record may be back dated, one day).
    const at = new Date(Date.now() - 30 * 86_400_000);
    at.setUTCHours(2, 4, 5, 678);
    const local = new Date(at.getTime() + 3_600_000).toISOString().replace('Z', '+01:00');
    const created = await api(t.app, tenant.key).post(
      '/api/v1/records',
      validRecord({ weight_kg: 2.5, causa_id: undefined, waste_stage: 'storage', occurred_at: local }),
    );
    expect(created.statusCode).toBe(201);
    const record = created.json().data;
    const [destination] = await t.db.$queryRaw<{ nombre: string }[]>`SELECT nombre FROM destinations WHERE id = ${record.destino_id}::uuid`;

    const got = await waitFor(() => {
      const mine = receiver.received.filter((r) => r.body.includes(record.id));
      return mine.length >= 2 ? mine : null;
    });
    expect(got.map((r) => r.path).sort()).toEqual(['/a', '/b']);
    for (const delivery of got) {
      const secret = delivery.path === '/a' ? a.secret : b.secret;
      const event = await verifyWebhook({ payload: delivery.body, headers: delivery.headers as Record<string, string>, secret });
      expect(event.event).toBe('record.created');
      expect(WebhookEvent.parse(JSON.parse(delivery.body))).toEqual(event);
      if (event.event !== 'record.created') throw new Error('unreachable');
      // The outbox row holds the record's id; every field below is rendered from the stored record.
      expect(event.timestamp).toBe(record.created_at);
      expect(event.data).toEqual({
        id: record.id,
        establishment_id: tenant.establishmentId,
        livemode: false,
        food_category: 'meat',
        weight_kg: 2.5,
        created_at: record.created_at,
        occurred_at: at.toISOString(),
        destino_id: DESTINO_DONATION,
        causa_id: null,
        destination: destination?.nombre,
        cause: null,
        product_id: null,
        product_name: null,
        shift_id: null,
        notes: null,
        waste_stage: 'storage',
        record_hash: record.record_hash,
      });
      expect(delivery.headers['content-type']).toBe('application/json');
      expect(delivery.headers['user-agent']).toMatch(/^Merma-Webhooks\//);
      expect(delivery.headers['webhook-id']).toMatch(/^[0-9a-f-]{36}$/);
      await expect(
        verifyWebhook({
          payload: delivery.body,
          headers: delivery.headers as Record<string, string>,
          secret: 'whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
        }),
      ).rejects.toThrow();
    }
    await drain(t.db); // every delivery the record's event made has been attempted
    expect(receiver.received.some((r) => r.path === '/other')).toBe(false);
    const list = await deliveries(t, tenant, a.id);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({
      event: 'record.created',
      status: 'succeeded',
      attempt: 1,
      response_status: 200,
      error: null,
      next_attempt_at: null,
    });
    expect(list[0]?.attempts).toEqual([expect.objectContaining({ attempt: 1, response_status: 200, error: null, next_attempt_at: null })]);
    expect(await deliveries(t, tenant, other.id)).toEqual([]);
  });

  it('carries the ids an ERP files a record by (destination, cause, product, shift), its notes and mode, in record.created and record.updated', async () => {
    const tenant = await createTenant(t.db);
    await importProducts(t.db, { org: tenant.organizationId, csv: 'name;food_category;ean\nCroissant;bakery;8410000000023\n' });
    const croissant = (await t.db.product.findFirstOrThrow({ where: { organization_id: tenant.organizationId } })).id;
    const client = api(t.app, tenant.key);
    const shift = (await client.post('/api/v1/shifts', { name: 'Mañana', start_time: '06:00', end_time: '14:00' })).json().data;
    await subscribe(t, tenant, `${receiver.url}/erp`, ['record.created', 'record.updated']);
    const created = await client.post(
      '/api/v1/records',
      validRecord({
        food_category: 'bakery',
        causa_id: CAUSA_CADUCIDAD,
        product_id: croissant,
        product_name: 'cruasán',
        shift_id: shift.id,
        notes: 'albarán 1234',
      }),
    );
    expect(created.statusCode, created.body).toBe(201);
    const record = created.json().data;
    const correction = await client.post('/api/v1/webhooks/inbound', {
      event: 'waste.updated',
      payload: { source: 'erp', external_id: 'erp-fix-1', record_id: record.id, destino_id: DESTINO_LANDFILL, weight_kg: 0.5 },
    });
    expect(correction.statusCode, correction.body).toBe(200);
    const correctionId = correction.json().data.record_id;
    const [names] = await t.db.$queryRaw<{ cause: string; donation: string; landfill: string }[]>`
      SELECT (SELECT nombre FROM causes WHERE id = ${CAUSA_CADUCIDAD}::uuid) AS cause,
        (SELECT nombre FROM destinations WHERE id = ${DESTINO_DONATION}::uuid) AS donation,
        (SELECT nombre FROM destinations WHERE id = ${DESTINO_LANDFILL}::uuid) AS landfill`;

    const got = await waitFor(() => {
      const mine = receiver.received.filter((r) => r.path === '/erp');
      return mine.length >= 2 ? mine : null;
    });
    const events = got.map((r) => WebhookEvent.parse(JSON.parse(r.body)));
    const filed = {
      establishment_id: tenant.establishmentId,
      livemode: false,
      food_category: 'bakery',
      causa_id: CAUSA_CADUCIDAD,
      cause: names?.cause,
      product_id: croissant,
      product_name: 'cruasán',
      shift_id: shift.id,
      notes: 'albarán 1234',
      occurred_at: record.occurred_at,
    };
    expect(events.find((e) => e.event === 'record.created')?.data).toMatchObject({
      ...filed,
      id: record.id,
      weight_kg: 1.5,
      destino_id: DESTINO_DONATION,
      destination: names?.donation,
    });
    // The correction keeps what it does not change, and names its own destination.
    expect(events.find((e) => e.event === 'record.updated')?.data).toMatchObject({
      ...filed,
      id: correctionId,
      supersedes_id: record.id,
      weight_kg: 0.5,
      destino_id: DESTINO_LANDFILL,
      destination: names?.landfill,
    });
    // Stored thin: the outbox keeps the id and hash; the rest is rendered when it is sent.
    const stored = await t.db.event.findMany({ where: { establishment_id: tenant.establishmentId, type: { startsWith: 'record.' } } });
    expect(stored.map((e) => Object.keys((e.payload as { data: object }).data).sort())).toEqual([
      ['id', 'record_hash'],
      ['id', 'record_hash'],
    ]);
  });

  it('sends one record.created per record of a batch and of an inbound event', async () => {
    const tenant = await createTenant(t.db);
    await subscribe(t, tenant, `${receiver.url}/batch`, ['record.created']);
    const batch = await api(t.app, tenant.key).post('/api/v1/records/batch', {
      records: [validRecord({ weight_kg: 1 }), validRecord({ weight_kg: -1 }), validRecord({ weight_kg: 3 })],
    });
    expect(batch.statusCode).toBe(200);
    expect(batch.json().data.inserted).toBe(2);
    const inbound = await api(t.app, tenant.key).post('/api/v1/webhooks/inbound', {
      event: 'waste.created',
      payload: { ...validRecord({ weight_kg: 4 }), source: 'erp-test', external_id: 'x-1' },
    });
    expect(inbound.statusCode).toBe(200);
    const ids = [...batch.json().data.records.map((r: { id: string }) => r.id), inbound.json().data.record_id];
    const got = await waitFor(() => {
      const mine = receiver.received.filter((r) => r.path === '/batch');
      return mine.length >= 3 ? mine : null;
    });
    await drain(t.db); // nothing more arrives
    expect(receiver.received.filter((r) => r.path === '/batch')).toHaveLength(3);
    expect(got.map((r) => JSON.parse(r.body).data.id).sort()).toEqual(ids.sort());
    expect(got.map((r) => JSON.parse(r.body).data.weight_kg).sort()).toEqual([1, 3, 4]);
  });

  it('sends nothing for a write that rolls back, and nothing is left queued', async () => {
    const tenant = await createTenant(t.db);
    await subscribe(t, tenant, `${receiver.url}/rollback`, ['record.created']);
    const catalog = createCatalogCache();
    const input = CreateRecordInput.parse(validRecord());
    await expect(
      inTransaction(t.db, async (tx) => {
        await createRecord({ db: tx, clock: () => new Date(), catalog }, authOf(tenant), input);
        throw new Error('injected failure after the insert, before commit');
      }),
    ).rejects.toThrow('injected failure');
    const events = await t.db.event.count({ where: { establishment_id: tenant.establishmentId } });
    expect(events).toBe(0);
    // A committed record afterwards is delivered alone.
    const ok = await api(t.app, tenant.key).post('/api/v1/records', validRecord());
    expect(ok.statusCode).toBe(201);
    await waitFor(() => receiver.received.some((r) => r.path === '/rollback'));
    await drain(t.db);
    const mine = receiver.received.filter((r) => r.path === '/rollback');
    expect(mine).toHaveLength(1);
    expect(JSON.parse(mine[0]?.body ?? '{}').data.id).toBe(ok.json().data.id);
  });

  it('sends a test event, lists attempts and redelivers on request', async () => {
    const tenant = await createTenant(t.db);
    const sub = await subscribe(t, tenant, `${receiver.url}/test-event`, ['plan.generated']);
    const res = await api(t.app, tenant.key).post(`/api/v1/webhooks/${sub.id}/test`, {});
    expect(res.statusCode).toBe(200);
    const queued = WebhookDelivery.parse(res.json().data);
    expect(queued).toMatchObject({ event: 'webhook.test', status: 'pending', attempt: 0, attempts: [] });
    const first = await waitFor(() => receiver.received.find((r) => r.path === '/test-event'));
    const event = await verifyWebhook({ payload: first.body, headers: first.headers as Record<string, string>, secret: sub.secret });
    expect(event).toMatchObject({ event: 'webhook.test', data: { subscription_id: sub.id, establishment_id: tenant.establishmentId } });

    const done = await waitFor(async () => (await deliveries(t, tenant, sub.id)).find((d) => d.status === 'succeeded'));
    expect(done.id).toBe(queued.id);
    const again = await api(t.app, tenant.key).post(`/api/v1/webhooks/${sub.id}/deliveries/${queued.id}/retry`, {});
    expect(again.statusCode).toBe(200);
    expect(again.json().data).toMatchObject({ id: queued.id, status: 'pending' });
    const twice = await waitFor(async () => (await deliveries(t, tenant, sub.id)).find((d) => d.attempt === 2 && d.status === 'succeeded'));
    expect(twice.attempts.map((a) => a.response_status)).toEqual([200, 200]);
    const bodies = receiver.received.filter((r) => r.path === '/test-event');
    expect(bodies).toHaveLength(2);
    expect(bodies[1]?.body).toBe(bodies[0]?.body); // the same event, byte for byte
    expect(bodies[1]?.headers['webhook-id']).toBe(bodies[0]?.headers['webhook-id']);

    const unknown = await api(t.app, tenant.key).post(`/api/v1/webhooks/${sub.id}/deliveries/${crypto.randomUUID()}/retry`, {});
    expect(unknown.statusCode).toBe(404);
    const stranger = await createTenant(t.db);
    expect((await api(t.app, stranger.key).get(`/api/v1/webhooks/${sub.id}/deliveries`)).statusCode).toBe(404);
    expect((await api(t.app, stranger.key).post(`/api/v1/webhooks/${sub.id}/test`, {})).statusCode).toBe(404);
    const reader = await createTenant(t.db, { permissions: 'webhooks:read' });
    const readerSub = await t.db.webhookSubscription.create({
      data: {
        id: crypto.randomUUID(),
        establishment_id: reader.establishmentId,
        livemode: false,
        url: receiver.url,
        events: ['record.created'],
        secret: 'x'.repeat(30),
      },
    });
    expect((await api(t.app, reader.key).post(`/api/v1/webhooks/${readerSub.id}/test`, {})).statusCode).toBe(403);
  });

  it('keeps the start of each answer (4 KiB, cut between characters) with our signatures redacted, and lists the payload sent', async () => {
    const tenant = await createTenant(t.db);
    // An echo receiver (answers with the headers it got), one answering 5 KiB of "ñ" (2 bytes each),
    // one with an empty body, and one that never answers within the timeout.
    receiver.handler.respond = (req, res) => {
      if (req.path === '/echo') {
        res.statusCode = 400;
        res.end(JSON.stringify({ rejected: true, got: req.headers }));
      } else if (req.path === '/long') res.end(`${'x'.repeat(4095)}${'ñ'.repeat(1000)}`);
      else res.end();
    };
    const echo = await subscribe(t, tenant, `${receiver.url}/echo`, ['plan.generated']);
    const long = await subscribe(t, tenant, `${receiver.url}/long`, ['plan.generated']);
    const empty = await subscribe(t, tenant, `${receiver.url}/empty`, ['plan.generated']);
    for (const sub of [echo, long, empty]) {
      expect((await api(t.app, tenant.key).post(`/api/v1/webhooks/${sub.id}/test`, {})).statusCode).toBe(200);
    }
    const settled = (id: string) => async () => (await deliveries(t, tenant, id)).find((d) => d.status !== 'pending');

    const echoed = await waitFor(settled(echo.id));
    const sent = receiver.received.find((r) => r.path === '/echo');
    if (!sent) throw new Error('the echo receiver got nothing');
    expect(echoed).toMatchObject({ status: 'failed', response_status: 400, error: 'HTTP 400' });
    // The payload is the body as sent, byte for byte once serialised.
    expect(JSON.stringify(echoed.payload)).toBe(sent.body);
    const [attempt] = echoed.attempts;
    expect(attempt?.response_body_truncated).toBe(false);
    const answer = JSON.parse(attempt?.response_body ?? 'null');
    expect(answer.rejected).toBe(true);
    expect(answer.got['webhook-id']).toBe(sent.headers['webhook-id']);
    expect(answer.got['webhook-signature']).toBe('[redacted]');
    expect(answer.got['x-service-signature']).toBe('[redacted]');
    // Not in the database either, in any form.
    const stored = await t.db.webhookDeliveryAttempt.findMany({ where: { delivery_id: echoed.id } });
    const signatures = [sent.headers['x-service-signature'], ...String(sent.headers['webhook-signature']).split(/[ ,]/)];
    for (const signature of signatures.filter((v): v is string => typeof v === 'string' && v.length > 16)) {
      expect(stored[0]?.response_body).not.toContain(signature);
    }

    const cut = await waitFor(settled(long.id));
    expect(cut).toMatchObject({ status: 'succeeded', response_status: 200 });
    // 4096 bytes kept: 4095 "x" and the first byte of an "ñ", which is left out rather than garbled.
    expect(cut.attempts[0]?.response_body).toBe('x'.repeat(4095));
    expect(cut.attempts[0]?.response_body_truncated).toBe(true);
    expect(await t.db.webhookDeliveryAttempt.findFirst({ where: { delivery_id: cut.id } })).toMatchObject({
      response_body: 'x'.repeat(4095),
      response_body_truncated: true,
    });

    const none = await waitFor(settled(empty.id));
    expect(none.attempts[0]).toMatchObject({ response_status: 200, response_body: '', response_body_truncated: false });
  });

  it('does not follow redirects: a 3xx is a failed attempt', async () => {
    const tenant = await createTenant(t.db);
    receiver.handler.respond = (req, res) => {
      if (req.path === '/moved') {
        res.writeHead(302, { location: `${receiver.url}/target` });
        res.end();
      } else res.end('ok');
    };
    const sub = await subscribe(t, tenant, `${receiver.url}/moved`, ['record.created']);
    await api(t.app, tenant.key).post('/api/v1/records', validRecord());
    const failed = await waitFor(async () => (await deliveries(t, tenant, sub.id)).find((d) => d.attempt === 1));
    expect(failed).toMatchObject({ status: 'pending', response_status: 302, error: 'redirect (302) not followed' });
    expect(failed.next_attempt_at).not.toBeNull();
    expect(receiver.received.some((r) => r.path === '/target')).toBe(false);
  });

  it('refuses, at delivery time, an address that is internal when private targets are not allowed', async () => {
    const tenant = await createTenant(t.db);
    const sub = await subscribe(t, tenant, `http://localhost:${new URL(receiver.url).port}/internal`, ['record.created']);
    // This worker runs as production would: no private targets.
    const strict = await t.startWorker({ config: { webhooksAllowPrivate: false } });
    await t.worker?.stop();
    try {
      await api(t.app, tenant.key).post('/api/v1/records', validRecord());
      const failed = await waitFor(async () => (await deliveries(t, tenant, sub.id)).find((d) => d.attempt === 1));
      expect(failed.error).toMatch(/^refused: localhost resolves to an internal address/);
      expect(failed.response_status).toBeNull();
      expect(receiver.received.some((r) => r.path === '/internal')).toBe(false);
    } finally {
      await strict.stop();
      t.worker = await t.startWorker();
    }
  });
});

describe('durable queue', () => {
  it('dispatches a write at once in the process that answered it, and others within a poll interval', async () => {
    const t = await startTestApp({ config: { WEBHOOKS_ALLOW_PRIVATE: 'true' } });
    const receiver = await startReceiver();
    try {
      // The worker's timers are faked but keep running with real time, so most of the dispatcher's
      // minute between polls can be skipped through (every timer in it fires) instead of sampled
      // for a moment.
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'], shouldAdvanceTime: true });
      // A dispatcher that would look only once a minute: only the wake after the response is quick.
      // (Its job queue is polled once a second, not every 50 ms: fewer timers to skip through.)
      await t.startWorker({ dispatchIntervalMs: 60_000, config: { worker: { concurrency: 4, pollIntervalMs: 1_000 } } });
      const tenant = await createTenant(t.db);
      await subscribe(t, tenant, `${receiver.url}/woken`, ['record.created']);
      const created = (await api(t.app, tenant.key).post('/api/v1/records', validRecord())).json().data;
      const got = await waitFor(() => receiver.received.find((r) => r.path === '/woken'), 5_000, 'a woken dispatch');
      expect(JSON.parse(got.body).data.id).toBe(created.id);
      await drain(t.db); // the woken dispatch and the delivery it queued are done
      const woken = receiver.received.length;

      // An event written elsewhere (another replica, the admin CLI) wakes nothing here: it waits for
      // the dispatcher's poll, a minute after its last run, and is not lost meanwhile.
      const [elsewhere] = await t.db.$queryRaw<{ id: string }[]>`
        INSERT INTO events (id, establishment_id, livemode, type, payload, created_at)
        VALUES (gen_random_uuid(), ${tenant.establishmentId}::uuid, false, 'record.created',
          ${JSON.stringify({ event: 'record.created', timestamp: new Date().toISOString(), data: { id: 'elsewhere' } })}::jsonb, now())
        RETURNING id::text`;
      // 50 of the minute (the rest is slack for the time since the woken run ended, when the minute began).
      await vi.advanceTimersByTimeAsync(50_000);
      // Whatever those 50 seconds set off (polls of the job queue, the worker's timers) has ended.
      await drain(t.db, { leaveOutbox: true });
      expect(receiver.received).toHaveLength(woken);
      expect(await undispatched(t, tenant)).toBe(1);
      expect(await t.db.webhookDelivery.count({ where: { event_id: elsewhere?.id ?? '' } })).toBe(0);
      // The poll: within the rest of the minute.
      await vi.advanceTimersByTimeAsync(15_000);
      const polled = await waitFor(() => receiver.received.find((r) => r.body.includes('elsewhere')), 5_000, 'a polled dispatch');
      expect(polled.path).toBe('/woken');
      await drain(t.db);
      expect(await undispatched(t, tenant)).toBe(0);
      expect(receiver.received).toHaveLength(woken + 1);
    } finally {
      await receiver.close();
      await t.close();
      vi.useRealTimers();
    }
  });

  it('sends a subscription the events from its creation on, even when older ones are dispatched after it', async () => {
    const t = await startTestApp({ config: { WEBHOOKS_ALLOW_PRIVATE: 'true' } });
    const receiver = await startReceiver();
    try {
      const tenant = await createTenant(t.db);
      await subscribe(t, tenant, `${receiver.url}/old`, ['record.created']);
      // Workers down: this record's event waits in the outbox while a second endpoint subscribes.
      const before = (await api(t.app, tenant.key).post('/api/v1/records', validRecord())).json().data;
      await new Promise((r) => setTimeout(r, 5));
      await subscribe(t, tenant, `${receiver.url}/new`, ['record.created']);
      const after = (await api(t.app, tenant.key).post('/api/v1/records', validRecord())).json().data;
      await t.startWorker();
      await waitFor(() => receiver.received.filter((r) => r.path === '/old').length === 2, 5_000, 'both to the old endpoint');
      await waitFor(() => receiver.received.some((r) => r.path === '/new'), 5_000, 'the new endpoint');
      await drain(t.db);
      const ids = (path: string) => receiver.received.filter((r) => r.path === path).map((r) => JSON.parse(r.body).data.id);
      expect(ids('/old').sort()).toEqual([before.id, after.id].sort());
      expect(ids('/new')).toEqual([after.id]);
    } finally {
      await receiver.close();
      await t.close();
    }
  });

  it('runs again a delivery job left locked by a worker that died', async () => {
    const t = await startTestApp({ config: { WEBHOOKS_ALLOW_PRIVATE: 'true' } });
    const receiver = await startReceiver();
    const pool = new pg.Pool({ connectionString: t.database.url, max: 2 });
    try {
      const tenant = await createTenant(t.db);
      await subscribe(t, tenant, `${receiver.url}/orphan`, ['record.created']);
      const created = (await api(t.app, tenant.key).post('/api/v1/records', validRecord())).json().data;
      expect(await dispatchEvents({ pool, clock: () => new Date() })).toMatchObject({ events: 1, deliveries: 1 });
      // As a worker killed mid-delivery leaves it: locked, by a worker that no longer exists.
      await pool.query(`UPDATE graphile_worker._private_jobs SET locked_by = 'killed-worker', locked_at = now() - interval '1 hour'`);
      const orphanJobs = () =>
        pool.query(`SELECT id, task_identifier, attempts, locked_by, locked_at FROM graphile_worker.jobs ORDER BY id`).then((r) => r.rows);
      const locked = await orphanJobs(); // the delivery, and the spike detection its event queued
      expect(locked.map((j) => [j.task_identifier, j.locked_by]).sort()).toEqual([
        ['alerts.detect', 'killed-worker'],
        ['webhooks.deliver', 'killed-worker'],
      ]);
      await t.startWorker();
      // The worker has taken jobs since: another tenant's delivery, queued after the orphan (which
      // comes first in the queue's order), is delivered; then nothing but the orphan is running or due.
      const other = await createTenant(t.db);
      await subscribe(t, other, `${receiver.url}/after-orphan`, ['record.created']);
      await api(t.app, other.key).post('/api/v1/records', validRecord());
      await waitFor(() => receiver.received.some((r) => r.path === '/after-orphan'), 5_000, 'the later delivery');
      await drain(t.db, { deadWorkers: ['killed-worker'] });
      expect(receiver.received.filter((r) => r.path === '/orphan')).toHaveLength(0);
      // Not taken, not tried: still the dead worker's (the later record's jobs have run and gone).
      expect((await orphanJobs()).filter((j) => j.locked_by === 'killed-worker')).toEqual(locked);
      expect(await releaseStaleDeliveryLocks(pool, 40_000)).toEqual(['killed-worker']);
      const got = await waitFor(() => receiver.received.find((r) => r.path === '/orphan'), 5_000, 'the released delivery');
      expect(JSON.parse(got.body).data.id).toBe(created.id);
      // A job locked recently (a worker still delivering) is left alone.
      expect(await releaseStaleDeliveryLocks(pool, 40_000)).toEqual([]);
    } finally {
      await pool.end();
      await receiver.close();
      await t.close();
    }
  });

  it('retires fan-out jobs queued before dispatch replaced the enqueuing trigger: their events are dispatched once', async () => {
    const t = await startTestApp({ config: { WEBHOOKS_ALLOW_PRIVATE: 'true' } });
    const receiver = await startReceiver();
    try {
      const tenant = await createTenant(t.db);
      await subscribe(t, tenant, `${receiver.url}/legacy`, ['record.created']);
      // As the upgrade to outbox dispatch left them: events marked dispatched, their fan-out job
      // still queued (twice, as a job run again after a crash would be).
      const [event] = await t.db.$queryRaw<
        { id: string }[]
      >`INSERT INTO events (id, establishment_id, livemode, type, payload, created_at, dispatched_at)
        VALUES (gen_random_uuid(), ${tenant.establishmentId}::uuid, false, 'record.created',
          ${JSON.stringify({ event: 'record.created', timestamp: new Date().toISOString(), data: { id: 'legacy' } })}::jsonb, now(), now())
        RETURNING id::text`;
      for (let i = 0; i < 2; i++)
        await t.db
          .$queryRaw`SELECT graphile_worker.add_job('webhooks.fanout', json_build_object('event_ids', ARRAY[${event?.id}::uuid]))::text`;
      const retire = readMigrations().find((m) => m.name.endsWith('_retire_fanout_jobs'));
      expect(retire).toBeDefined();
      await t.db.$executeRawUnsafe(retire?.sql ?? '');
      expect(await jobCount(t)).toBe(0);
      expect(await undispatched(t, tenant)).toBe(1);

      await t.startWorker();
      await waitFor(() => receiver.received.some((r) => r.path === '/legacy'), 5_000, 'the legacy event');
      await waitFor(async () => (await jobCount(t)) === 0);
      expect(receiver.received.filter((r) => r.path === '/legacy')).toHaveLength(1);
      expect(await t.db.webhookDelivery.count({ where: { event_id: event?.id ?? '' } })).toBe(1);
    } finally {
      await receiver.close();
      await t.close();
    }
  });

  it('delivers after a restart what was committed while no worker ran, and two workers deliver each event once', async () => {
    const t = await startTestApp({ config: { WEBHOOKS_ALLOW_PRIVATE: 'true' } });
    const receiver = await startReceiver();
    try {
      const tenant = await createTenant(t.db);
      const subs = [
        await subscribe(t, tenant, `${receiver.url}/1`, ['record.created']),
        await subscribe(t, tenant, `${receiver.url}/2`, ['record.created']),
        await subscribe(t, tenant, `${receiver.url}/3`, ['record.created']),
      ];
      const ids: string[] = [];
      for (let i = 0; i < 10; i++)
        ids.push((await api(t.app, tenant.key).post('/api/v1/records', validRecord({ weight_kg: i + 1 }))).json().data.id);
      // No worker yet (as after a crash right after the commits): the events wait in the outbox,
      // and the writes queued no job and made no delivery (the write path only inserts the event
      // row). A delivery is only ever sent by a delivery job for a delivery row, so with neither
      // there is nothing that could still arrive: no need to wait and see.
      expect(await undispatched(t, tenant)).toBe(10);
      expect(await jobCount(t)).toBe(0);
      expect(await t.db.webhookDelivery.count({ where: { subscription_id: { in: subs.map((s) => s.id) } } })).toBe(0);
      expect(receiver.received).toHaveLength(0);

      await Promise.all([t.startWorker(), t.startWorker()]);
      await waitFor(() => receiver.received.length >= 30, 20_000, '30 deliveries');
      await drain(t.db);
      expect(receiver.received).toHaveLength(30);
      for (const [n] of subs.entries()) {
        const got = receiver.received.filter((r) => r.path === `/${n + 1}`).map((r) => JSON.parse(r.body).data.id);
        expect(got.sort()).toEqual([...ids].sort());
      }
      const rows = await t.db.webhookDelivery.findMany({ where: { subscription_id: { in: subs.map((s) => s.id) } } });
      expect(rows).toHaveLength(30);
      expect(rows.every((r) => r.status === 'succeeded' && r.attempts === 1)).toBe(true);
      await waitFor(async () => (await jobCount(t)) === 0);
      expect(await undispatched(t, tenant)).toBe(0);
    } finally {
      await receiver.close();
      await t.close();
    }
  });
});

describe('retries, deactivation and notices', () => {
  let t: TestContext;
  let receiver: Receiver;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  beforeAll(async () => {
    smtp = await startSmtp();
    t = await startTestApp({
      // The production timeout (10 s): a receiver here answers at once, and a short timeout read a
      // 500 answered at once as "no answer within 300 ms" on a loaded machine (the test's process
      // runs the worker, the app and the receiver). The timeout's own test has an app of its own.
      config: { WEBHOOKS_ALLOW_PRIVATE: 'true', SMTP_URL: smtp.url, MAIL_FROM: 'Merma <alerts@merma.test>' },
      worker: { random: () => 0.5 },
    });
    receiver = await startReceiver(answerDown);
  });
  const answerDown: Respond = (_r, res) => {
    res.statusCode = 500;
    res.end('down');
  };
  // Each test starts from the same receiver, whatever an earlier test (passed or failed) set it to.
  beforeEach(() => {
    receiver.handler.respond = answerDown;
  });
  afterEach(() => vi.useRealTimers());
  afterAll(async () => {
    await receiver?.close();
    await t?.close();
    await smtp?.close();
  });

  it('retries after 1 min, 5 min, 30 min, 2 h and 12 h, then deactivates after 5 failed deliveries and mails the owners, admins and contact address, each in their language', async () => {
    // Only Date is faked (timers stay real, so the worker keeps polling), and it stands still until
    // moved. It starts a minute ahead so that jobs stamped with the database's now() are already due.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 60_000 });
    const tenant = await createTenant(t.db);
    await t.db.organization.update({ where: { id: tenant.organizationId }, data: { admin_email: 'jefa@cocina.test' } });
    // Told: the owners and admins (each in their e-mail language; Spanish when they chose none) and
    // the organisation's contact address; not developers or viewers.
    const owner = await createMember(t.db, tenant.organizationId, 'owner');
    await t.db.user.update({ where: { id: owner.id }, data: { language: 'en' } });
    const admin = await createMember(t.db, tenant.organizationId, 'admin');
    const developer = await createMember(t.db, tenant.organizationId, 'developer');
    const sub = await subscribe(t, tenant, `${receiver.url}/down`, ['record.created']);
    for (let i = 0; i < 5; i++) expect((await api(t.app, tenant.key).post('/api/v1/records', validRecord())).statusCode).toBe(201);
    const attemptsAre = (n: number) => async () => {
      const list = await deliveries(t, tenant, sub.id);
      return list.length === 5 && list.every((d) => d.attempt === n) ? list : null;
    };
    let list = await waitFor(attemptsAre(1), 10_000, 'first attempts');
    for (const [i, delay] of RETRY_DELAYS_MS.entries()) {
      for (const d of list) {
        const last = d.attempts.at(-1);
        expect(last).toMatchObject({ attempt: i + 1, response_status: 500, error: 'HTTP 500' });
        // jitter: random() = 0.5 stretches each delay by 5 %
        expect(Date.parse(last?.next_attempt_at ?? '') - Date.parse(last?.attempted_at ?? '')).toBe(Math.round(delay * 1.05));
        expect(d.status).toBe('pending');
      }
      // Not before its time: 90 % of the delay later, nothing has been tried again (the queue,
      // read at the moved clock the worker uses too, has nothing due or running).
      vi.setSystemTime(Date.now() + delay * 0.9);
      await drain(t.db);
      expect((await deliveries(t, tenant, sub.id)).every((d) => d.attempt === i + 1)).toBe(true);
      vi.setSystemTime(Date.now() + delay * 0.2);
      list = await waitFor(attemptsAre(i + 2), 10_000, `attempt ${i + 2}`);
    }
    expect(list.every((d) => d.status === 'failed' && d.next_attempt_at === null && d.attempts.length === 6)).toBe(true);
    expect(receiver.received.filter((r) => r.path === '/down')).toHaveLength(30);
    const after = (await api(t.app, tenant.key).get(`/api/v1/webhooks/${sub.id}`)).json().data;
    expect(after).toMatchObject({ status: 'deactivated', consecutive_failures: 5, deactivation_reason: 'failures' });
    const lastAttempt = list
      .map((d) => d.attempts.at(-1)?.attempted_at)
      .sort()
      .at(-1);
    expect(after.deactivated_at).toBe(lastAttempt);
    expect(await t.db.webhookSubscription.findUniqueOrThrow({ where: { id: sub.id } })).toMatchObject({
      status: 'deactivated',
      deactivation_reason: 'failures',
    });
    // The server is shared with the other tests of this block: wait for this test's three recipients.
    const recipients = ['jefa@cocina.test', owner.email, admin.email];
    const told = await waitFor(() => (recipients.every((to) => smtp.mails.some((m) => m.to.includes(to))) ? smtp.mails : null));
    const mailTo = async (address: string) => {
      const found = told.filter((m) => m.to.includes(address));
      expect(found, address).toHaveLength(1);
      return { from: found[0]?.from, ...(await readMail(found[0]?.raw ?? '')) };
    };
    const contact = await mailTo('jefa@cocina.test');
    expect(contact.from).toBe('alerts@merma.test');
    expect(contact.subject).toBe('Merma: se ha desactivado un endpoint de webhooks');
    expect(contact.text).toContain(sub.id);
    expect(contact.text).toContain('Motivo: 5 entregas seguidas fallaron tras todos sus reintentos');
    const english = await mailTo(owner.email);
    expect(english.subject).toBe('Merma: a webhook endpoint was deactivated');
    expect(english.text).toContain(`Subscription: ${sub.id}`);
    expect(english.text).toContain('Why: 5 deliveries in a row failed after all their retries');
    expect(english.text).toContain(`deactivated at ${after.deactivated_at}`);
    expect((await mailTo(admin.email)).text).toContain('Motivo: 5 entregas seguidas');
    expect(smtp.mails.filter((m) => m.to.includes(developer.email))).toEqual([]);

    // Deactivated: new events are not sent; reactivation brings them back.
    receiver.handler.respond = (_r, res) => res.end('ok');
    expect((await api(t.app, tenant.key).post('/api/v1/records', validRecord())).statusCode).toBe(201);
    await drain(t.db);
    expect(receiver.received.filter((r) => r.path === '/down')).toHaveLength(30);
    const refused = await api(t.app, tenant.key).post(`/api/v1/webhooks/${sub.id}/test`, {});
    expect(refused.statusCode).toBe(409);
    expect(refused.headers['x-should-retry']).toBe('false');
    const reactivated = await api(t.app, tenant.key).post(`/api/v1/webhooks/${sub.id}/reactivate`, {});
    expect(reactivated.json().data).toMatchObject({ status: 'active', consecutive_failures: 0, deactivation_reason: null });
    const created = (await api(t.app, tenant.key).post('/api/v1/records', validRecord())).json().data;
    await waitFor(() => receiver.received.some((r) => r.path === '/down' && r.body.includes(created.id)));
  });

  it('deactivates at once on 410 Gone, says so, and mails the owner of an organisation without a contact address', async () => {
    const tenant = await createTenant(t.db);
    const owner = await createMember(t.db, tenant.organizationId, 'owner');
    receiver.handler.respond = (req, res) => {
      res.statusCode = req.path === '/gone' ? 410 : 500;
      res.end();
    };
    const sub = await subscribe(t, tenant, `${receiver.url}/gone`, ['record.created']);
    await api(t.app, tenant.key).post('/api/v1/records', validRecord());
    const [d] = await waitFor(async () => {
      const list = await deliveries(t, tenant, sub.id);
      return list[0]?.status === 'failed' ? list : null;
    });
    expect(d).toMatchObject({ attempt: 1, response_status: 410, next_attempt_at: null });
    const after = (await api(t.app, tenant.key).get(`/api/v1/webhooks/${sub.id}`)).json().data;
    expect(after).toMatchObject({ status: 'deactivated', deactivation_reason: 'gone', deactivated_at: d?.attempts[0]?.attempted_at });
    expect((await t.db.webhookSubscription.findUniqueOrThrow({ where: { id: sub.id } })).deactivation_reason).toBe('gone');
    const mail = await waitFor(() => smtp.mails.find((m) => m.to.includes(owner.email)));
    const { subject, text } = await readMail(mail.raw);
    expect(subject).toBe('Merma: se ha desactivado un endpoint de webhooks');
    expect(text).toContain('Motivo: el endpoint respondió 410 Gone');
  });
});

describe('a receiver slower than the timeout', () => {
  let t: TestContext;
  let receiver: Receiver;
  beforeAll(async () => {
    // The one app with a short timeout: only this test waits for it to pass.
    t = await startTestApp({ config: { WEBHOOKS_ALLOW_PRIVATE: 'true', WEBHOOK_TIMEOUT_MS: '300' }, worker: true });
    receiver = await startReceiver((_r, res) => res.end());
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.close();
  });

  it('counts a receiver slower than the timeout as a failed attempt', async () => {
    const tenant = await createTenant(t.db);
    // The receiver answers only once the attempt is recorded: only the 300 ms timeout can end it.
    const held: { end(body: string): void }[] = [];
    receiver.handler.respond = (req, res) => {
      if (req.path === '/slow') held.push(res);
      else res.end();
    };
    const sub = await subscribe(t, tenant, `${receiver.url}/slow`, ['record.created']);
    await api(t.app, tenant.key).post('/api/v1/records', validRecord());
    const d = await waitFor(async () => (await deliveries(t, tenant, sub.id)).find((x) => x.attempt === 1));
    for (const res of held.splice(0)) res.end('late');
    expect(d).toMatchObject({ status: 'pending', response_status: null, error: 'timeout: no answer within 300 ms' });
    expect(d.duration_ms).toBeGreaterThanOrEqual(290);
    // The production default is 10 s.
    expect(loadConfig({}).webhookTimeoutMs).toBe(10_000);
  });
});

describe('secret rotation and recovery', () => {
  let t: TestContext;
  let receiver: Receiver;
  beforeAll(async () => {
    t = await startTestApp({ config: { WEBHOOKS_ALLOW_PRIVATE: 'true' }, worker: { random: () => 0.5 } });
    receiver = await startReceiver((req, res) => {
      res.statusCode = req.path.startsWith('/down') ? 500 : 200;
      res.end();
    });
  });
  afterEach(() => vi.useRealTimers());
  afterAll(async () => {
    await receiver?.close();
    await t?.close();
  });

  const headersOf = (r: { headers: Record<string, unknown> }) => r.headers as Record<string, string>;
  const hmacHex = (secret: string, body: string) => createHmac('sha256', secret).update(body).digest('hex');
  const ownSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

  /** Sends a test event and returns the request the receiver got for it. */
  async function testDelivery(tenant: Tenant, subId: string) {
    const res = await api(t.app, tenant.key).post(`/api/v1/webhooks/${subId}/test`, {});
    expect(res.statusCode).toBe(200);
    const id = res.json().data.id as string;
    return waitFor(() => receiver.received.find((r) => r.headers['webhook-id'] === id), 10_000, `delivery ${id}`);
  }

  it('signs with the new and the previous secret during the grace period, then with the new one only; grace 0 drops it at once', async () => {
    // Date only is faked (the worker keeps polling on real timers); it stands still until moved.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const tenant = await createTenant(t.db);
    const sub = await subscribe(t, tenant, `${receiver.url}/rotating`, ['record.created']);
    const rotation = await api(t.app, tenant.key).post(`/api/v1/webhooks/${sub.id}/rotate-secret`, { grace_period_seconds: 3600 });
    expect(rotation.statusCode).toBe(200);
    const rotated = rotation.json().data as { secret: string; previous_secret_expires_at: string };
    expect(Date.parse(rotated.previous_secret_expires_at) - Date.now()).toBe(3_600_000);

    const during = await testDelivery(tenant, sub.id);
    const signatures = String(during.headers['webhook-signature']).split(' ');
    expect(signatures).toHaveLength(2);
    expect(signatures.every((s) => /^v1,[A-Za-z0-9+/]{43}=$/.test(s))).toBe(true);
    // A receiver holding either secret alone verifies, with the reference library and with ours.
    for (const secret of [sub.secret, rotated.secret]) {
      expect(new StandardWebhooks(secret).verify(during.body, headersOf(during))).toMatchObject({ event: 'webhook.test' });
      expect(await verifyDelivery({ payload: during.body, headers: headersOf(during), secret })).toEqual({
        ok: true,
        scheme: 'standard-webhooks',
      });
    }
    expect(() => new StandardWebhooks(ownSecret()).verify(during.body, headersOf(during))).toThrow();
    expect(during.headers['x-service-signature']).toBe(hmacHex(rotated.secret, during.body));

    // The grace period is over at the attempt: only the new secret signs.
    vi.setSystemTime(Date.now() + 3_600_000);
    const after = await testDelivery(tenant, sub.id);
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(new StandardWebhooks(rotated.secret).verify(after.body, headersOf(after))).toMatchObject({ event: 'webhook.test' });
    expect(() => new StandardWebhooks(sub.secret).verify(after.body, headersOf(after))).toThrow();
    expect((await verifyDelivery({ payload: after.body, headers: headersOf(after), secret: sub.secret })).ok).toBe(false);
    expect(after.headers['x-service-signature']).toBe(hmacHex(rotated.secret, after.body));

    // Grace 0: the replaced secret stops signing at once.
    const latest = (await api(t.app, tenant.key).post(`/api/v1/webhooks/${sub.id}/rotate-secret`, { grace_period_seconds: 0 })).json()
      .data as { secret: string; previous_secret_expires_at: null };
    expect(latest.previous_secret_expires_at).toBeNull();
    const immediate = await testDelivery(tenant, sub.id);
    expect(String(immediate.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(new StandardWebhooks(latest.secret).verify(immediate.body, headersOf(immediate))).toMatchObject({ event: 'webhook.test' });
    expect(() => new StandardWebhooks(rotated.secret).verify(immediate.body, headersOf(immediate))).toThrow();
    expect(immediate.headers['x-service-signature']).toBe(hmacHex(latest.secret, immediate.body));
  });

  // --- recovery ---------------------------------------------------------------------------

  type Seeded = { id: string; label: string };
  /** A delivery as the worker leaves it, with its event, created at `createdAt`. */
  async function seed(
    tenant: Tenant,
    subId: string,
    label: string,
    o: { status: 'failed' | 'succeeded' | 'pending'; createdAt: Date; attempts?: number; event?: string; nextAttemptAt?: Date | null },
  ): Promise<Seeded> {
    const id = randomUUID();
    const event = o.event ?? 'record.created';
    const payload = JSON.stringify({ event, timestamp: o.createdAt.toISOString(), data: { id: label } });
    const attempts = o.attempts ?? (o.status === 'pending' ? 0 : 6);
    await t.db.$executeRaw`
      WITH e AS (
        INSERT INTO events (id, establishment_id, livemode, type, payload, created_at, dispatched_at)
        VALUES (gen_random_uuid(), ${tenant.establishmentId}::uuid, false, ${event}, ${payload}::jsonb, ${o.createdAt}, ${o.createdAt})
        RETURNING id
      )
      INSERT INTO webhook_deliveries (id, subscription_id, event_id, event_type, status, attempts, next_attempt_at, manual, created_at, completed_at)
      SELECT ${id}::uuid, ${subId}::uuid, e.id, ${event}, ${o.status}, ${attempts}, ${o.nextAttemptAt ?? null}::timestamptz,
        ${event === 'webhook.test'}, ${o.createdAt}, ${o.status === 'pending' ? null : o.createdAt}::timestamptz
      FROM e`;
    return { id, label };
  }

  const rows = (ids: string[]) =>
    t.db.webhookDelivery.findMany({
      where: { id: { in: ids } },
      select: { id: true, status: true, attempts: true, next_attempt_at: true, manual: true, schedule_base: true, completed_at: true },
      orderBy: { id: 'asc' },
    });
  const jobsFor = async (ids: string[]) =>
    Number(
      (
        await t.db.$queryRaw<{ n: number }[]>`
          SELECT count(*)::int AS n FROM graphile_worker.jobs WHERE key = ANY(${ids.map((id) => `delivery:${id}`)}::text[])`
      )[0]?.n,
    );
  const recover = (tenant: Tenant | { key: string }, id: string, body: unknown) =>
    api(t.app, tenant.key).post(`/api/v1/webhooks/${id}/recover`, body);
  const labelsAt = (path: string) => receiver.received.filter((r) => r.path === path).map((r) => JSON.parse(r.body).data.id as string);

  it('resends the failed deliveries created in [since, until) only, once, as ordinary deliveries', async () => {
    const tenant = await createTenant(t.db);
    const sub = await subscribe(t, tenant, `${receiver.url}/recover`, ['record.created']);
    const other = await subscribe(t, tenant, `${receiver.url}/recover-other`, ['record.created']);
    const since = new Date(Date.now() - 3 * 86_400_000);
    const until = new Date(since.getTime() + 2 * 3_600_000);
    const at = (ms: number) => new Date(since.getTime() + ms);
    const inWindow = [
      await seed(tenant, sub.id, 'at-since', { status: 'failed', createdAt: since, attempts: 6 }),
      await seed(tenant, sub.id, 'just-before-until', { status: 'failed', createdAt: at(2 * 3_600_000 - 1), attempts: 2 }),
    ];
    const untouched = [
      await seed(tenant, sub.id, 'before-since', { status: 'failed', createdAt: at(-1) }),
      await seed(tenant, sub.id, 'at-until', { status: 'failed', createdAt: until }),
      await seed(tenant, sub.id, 'succeeded', { status: 'succeeded', createdAt: at(60_000), attempts: 1 }),
      await seed(tenant, sub.id, 'pending', { status: 'pending', createdAt: at(60_000), attempts: 1, nextAttemptAt: at(86_400_000 * 10) }),
      await seed(tenant, sub.id, 'test-event', { status: 'failed', createdAt: at(60_000), attempts: 1, event: 'webhook.test' }),
      await seed(tenant, other.id, 'other-subscription', { status: 'failed', createdAt: at(60_000) }),
    ];
    const untouchedBefore = await rows(untouched.map((d) => d.id));

    const res = await recover(tenant, sub.id, { since: since.toISOString(), until: until.toISOString() });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({ recovered: 2, since: since.toISOString(), until: until.toISOString() });

    const recovered = await waitFor(async () => {
      const list = await rows(inWindow.map((d) => d.id));
      return list.every((d) => d.status === 'succeeded') ? list : null;
    });
    // One more attempt each, numbered after the earlier ones; a fresh schedule; ordinary again.
    expect(recovered.map((d) => [d.attempts, d.schedule_base, d.manual]).sort()).toEqual([
      [3, 2, false],
      [7, 6, false],
    ]);
    expect(labelsAt('/recover').sort()).toEqual(['at-since', 'just-before-until']);
    const delivered = receiver.received.filter((r) => r.path === '/recover');
    expect(delivered.map((r) => r.headers['webhook-id']).sort()).toEqual(inWindow.map((d) => d.id).sort());
    for (const r of delivered) expect((await verifyDelivery({ payload: r.body, headers: headersOf(r), secret: sub.secret })).ok).toBe(true);
    const listed = await deliveries(t, tenant, sub.id);
    expect(listed.find((d) => d.id === inWindow[0]?.id)).toMatchObject({ status: 'succeeded', attempt: 7, response_status: 200 });

    // Twice: nothing is failed any more in the window, so nothing is sent again.
    const again = await recover(tenant, sub.id, { since: since.toISOString(), until: until.toISOString() });
    expect(again.json().data.recovered).toBe(0);
    await drain(t.db);
    expect(receiver.received.filter((r) => r.path === '/recover')).toHaveLength(2);
    expect(receiver.received.some((r) => r.path === '/recover-other')).toBe(false);
    expect(await rows(untouched.map((d) => d.id))).toEqual(untouchedBefore);
    expect(await jobsFor(untouched.map((d) => d.id))).toBe(0);
  });

  it('gives recovered deliveries the usual retry schedule, and counts them towards deactivation', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const tenant = await createTenant(t.db);
    const sub = await subscribe(t, tenant, `${receiver.url}/down-recovered`, ['record.created']);
    await t.db.webhookSubscription.update({ where: { id: sub.id }, data: { consecutive_failures: 4 } });
    const failed = await seed(tenant, sub.id, 'exhausted', { status: 'failed', createdAt: new Date(Date.now() - 86_400_000) });
    // `until` defaults to now; a `since` far back is fine.
    const res = await recover(tenant, sub.id, { since: '2000-01-01T00:00:00Z' });
    expect(res.json().data).toEqual({ recovered: 1, since: '2000-01-01T00:00:00.000Z', until: new Date().toISOString() });
    for (const [i, delay] of RETRY_DELAYS_MS.entries()) {
      const d = await waitFor(
        async () => (await deliveries(t, tenant, sub.id)).find((x) => x.attempt === 7 + i),
        10_000,
        `attempt ${7 + i}`,
      );
      expect(d.status).toBe('pending');
      const last = d.attempts.at(-1);
      expect(Date.parse(last?.next_attempt_at ?? '') - Date.parse(last?.attempted_at ?? '')).toBe(Math.round(delay * 1.05));
      vi.setSystemTime(Date.now() + delay * 1.1);
    }
    const done = await waitFor(async () => (await deliveries(t, tenant, sub.id)).find((x) => x.status === 'failed' && x.attempt === 12));
    expect(done.next_attempt_at).toBeNull();
    expect(labelsAt('/down-recovered')).toEqual(Array(6).fill('exhausted'));
    // Its final failure is the fifth in a row: the subscription is deactivated.
    expect((await api(t.app, tenant.key).get(`/api/v1/webhooks/${sub.id}`)).json().data).toMatchObject({
      status: 'deactivated',
      consecutive_failures: 5,
    });
    expect(done.id).toBe(failed.id);
  });

  it('answers 409 for a deactivated subscription, 400 for an empty window, 404/403 across the walls, and changes nothing', async () => {
    const tenant = await createTenant(t.db);
    const sub = await subscribe(t, tenant, `${receiver.url}/walled`, ['record.created']);
    const failed = await seed(tenant, sub.id, 'walled', { status: 'failed', createdAt: new Date(Date.now() - 3_600_000) });
    const before = await rows([failed.id]);
    const body = { since: new Date(Date.now() - 86_400_000).toISOString() };

    const stranger = await createTenant(t.db);
    const live = await addKey(t.db, tenant.establishmentId, 'live');
    const reader = await addKey(t.db, tenant.establishmentId, 'test', 'webhooks:read');
    expect((await recover(stranger, sub.id, body)).statusCode).toBe(404);
    expect((await recover(live, sub.id, body)).statusCode).toBe(404);
    expect((await recover(tenant, randomUUID(), body)).statusCode).toBe(404);
    const forbidden = await recover(reader, sub.id, body);
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json().code).toBe('forbidden');

    for (const [bad, field] of [
      [{}, 'since'],
      [{ since: body.since, until: body.since }, 'until'],
      [{ since: body.since, until: new Date(Date.now() - 2 * 86_400_000).toISOString() }, 'until'],
      [{ since: new Date(Date.now() + 3_600_000).toISOString() }, 'since'],
      [{ since: '2026-01-01' }, 'since'],
    ] as const) {
      const res = await recover(tenant, sub.id, bad);
      expect(res.statusCode, JSON.stringify(bad)).toBe(400);
      expect(res.json().details.map((d: { path: string }) => d.path)).toEqual([field]);
    }

    await t.db.webhookSubscription.update({ where: { id: sub.id }, data: { status: 'deactivated', deactivated_at: new Date() } });
    const conflict = await recover(tenant, sub.id, body);
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json()).toMatchObject({ code: 'conflict', error: expect.stringMatching(/reactivate/) });
    // Sending the same request again cannot help until someone reactivates it: clients must not retry.
    expect(conflict.headers['x-should-retry']).toBe('false');

    expect(await rows([failed.id])).toEqual(before);
    expect(await jobsFor([failed.id])).toBe(0);
    await drain(t.db);
    expect(receiver.received.some((r) => r.path === '/walled')).toBe(false);
  });
});
