import { verifyWebhook } from '@merma/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cancelOrganization, setOrganizationPlan } from '../src/admin/service.js';
import {
  api,
  countRecords,
  createTenant,
  DESTINO_LANDFILL,
  drain,
  recordAt,
  startTestApp,
  subscribe,
  type TestContext,
  validRecord,
} from './helpers.js';
import { startReceiver, waitFor } from './receiver.js';

let t: TestContext;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
// "Now" for the app and its worker: a Wednesday at 12:00 in Madrid (CET), so the local day, which
// the spike detector judges, is the same day in UTC whatever the time the suite runs. It lies in
// the past, so jobs stamped with it are due at once.
const NOW = new Date('2026-11-18T11:00:00.000Z');

beforeAll(async () => {
  t = await startTestApp({ config: { WEBHOOKS_ALLOW_PRIVATE: 'true', ALERT_MIN_KG: '5' }, clock: () => NOW, worker: true });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

const receivedAt = (path: string) => receiver.received.filter((r) => r.path === path);

describe('inbound waste.updated', () => {
  it('appends a correction that supersedes the original, emits record.updated and keeps the chain valid', async () => {
    const tenant = await createTenant(t.db);
    const sub = await subscribe(t, tenant, `${receiver.url}/updated`, ['record.updated']);
    const original = (await api(t.app, tenant.key).post('/api/v1/records', validRecord({ weight_kg: 10, notes: 'pesado a ojo' }))).json()
      .data;
    const send = (payload: Record<string, unknown>) =>
      api(t.app, tenant.key).post('/api/v1/webhooks/inbound', { event: 'waste.updated', payload });

    const res = await send({ source: 'erp', external_id: 'fix-1', record_id: original.id, weight_kg: 1.25, destino_id: DESTINO_LANDFILL });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ status: 'processed', record_id: expect.any(String) });
    const correctionId = res.json().data.record_id;
    expect(correctionId).not.toBe(original.id);

    // Lists and totals count the correction only; both stay in the chain, which verifies.
    const list = (await api(t.app, tenant.key).get('/api/v1/records')).json().data;
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({
      id: correctionId,
      supersedes_id: original.id,
      weight_kg: 1.25,
      destino_id: DESTINO_LANDFILL,
      notes: 'pesado a ojo',
      food_category: 'meat',
    });
    expect(await countRecords(t.db, tenant.establishmentId)).toBe(2);
    const analytics = (await api(t.app, tenant.key).get('/api/v1/analytics')).json().data;
    expect(analytics.total_kg).toBe(1.25);
    expect(analytics.total_records).toBe(1);
    const verify = (await api(t.app, tenant.key).get('/api/v1/records/verify')).json().data;
    expect(verify).toMatchObject({ valid: true, checked: 2 });
    // The original row is untouched apart from the link to its correction.
    const stored = await t.db.record.findUniqueOrThrow({ where: { id: original.id } });
    expect(Number(stored.weight_kg)).toBe(10);
    expect(stored.record_hash).toBe(original.record_hash);
    expect(stored.superseded_by).toBe(correctionId);

    const delivery = await waitFor(() => receivedAt('/updated')[0]);
    const event = await verifyWebhook({
      payload: delivery.body,
      headers: delivery.headers as Record<string, string>,
      secret: sub.secret,
      now: NOW,
    });
    const correction = list[0];
    const [landfill] = await t.db.$queryRaw<{ nombre: string }[]>`SELECT nombre FROM destinations WHERE id = ${DESTINO_LANDFILL}::uuid`;
    expect(event).toEqual({
      event: 'record.updated',
      timestamp: correction.created_at,
      data: {
        id: correctionId,
        establishment_id: tenant.establishmentId,
        food_category: correction.food_category,
        weight_kg: 1.25,
        created_at: correction.created_at,
        occurred_at: correction.occurred_at,
        livemode: false,
        destino_id: DESTINO_LANDFILL,
        causa_id: null,
        cause: null,
        destination: landfill?.nombre,
        product_id: null,
        product_name: null,
        shift_id: null,
        notes: 'pesado a ojo',
        waste_stage: null,
        record_hash: correction.record_hash,
        supersedes_id: original.id,
      },
    });

    // A resend is a duplicate; correcting the original again is refused, naming its correction.
    expect((await send({ source: 'erp', external_id: 'fix-1', record_id: original.id, weight_kg: 1.25 })).json().data).toMatchObject({
      status: 'duplicate',
      record_id: correctionId,
    });
    const again = await send({ source: 'erp', external_id: 'fix-2', record_id: original.id, weight_kg: 2 });
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toContain(correctionId);
    // The correction itself can be corrected.
    const second = await send({ source: 'erp', external_id: 'fix-3', record_id: correctionId, weight_kg: 2 });
    expect(second.statusCode).toBe(200);
    expect((await api(t.app, tenant.key).get('/api/v1/analytics')).json().data.total_kg).toBe(2);
    expect((await api(t.app, tenant.key).get('/api/v1/records/verify')).json().data).toMatchObject({ valid: true, checked: 3 });
  });

  it.each([
    ['no change named', { source: 'erp', record_id: '00000000-0000-4000-8000-000000000001' }, 400],
    ['a bad weight', { source: 'erp', record_id: '00000000-0000-4000-8000-000000000001', weight_kg: -3 }, 400],
    ['a missing record_id', { source: 'erp', weight_kg: 3 }, 400],
    ['a record of no one', { source: 'erp', record_id: '00000000-0000-4000-8000-000000000001', weight_kg: 3 }, 404],
  ])('refuses %s, writing nothing', async (_name, payload, status) => {
    const tenant = await createTenant(t.db);
    await api(t.app, tenant.key).post('/api/v1/records', validRecord());
    const res = await api(t.app, tenant.key).post('/api/v1/webhooks/inbound', { event: 'waste.updated', payload });
    expect(res.statusCode).toBe(status);
    expect(await countRecords(t.db, tenant.establishmentId)).toBe(1);
    expect(await t.db.inboundEvent.count({ where: { establishment_id: tenant.establishmentId } })).toBe(0);
  });

  it('corrects the shift and the registration session of a record, as the dashboard does', async () => {
    const tenant = await createTenant(t.db);
    const shift = (await api(t.app, tenant.key).post('/api/v1/shifts', { name: 'Noche', start_time: '22:00', end_time: '06:00' })).json()
      .data;
    const session = (await api(t.app, tenant.key).post('/api/v1/sessions', { name: 'Cierre' })).json().data;
    const original = (await api(t.app, tenant.key).post('/api/v1/records', validRecord())).json().data;
    const res = await api(t.app, tenant.key).post('/api/v1/webhooks/inbound', {
      event: 'waste.updated',
      payload: { source: 'erp', record_id: original.id, shift_id: shift.id, session_id: session.id },
    });
    expect(res.statusCode).toBe(200);
    const stored = await t.db.record.findUniqueOrThrow({ where: { id: res.json().data.record_id } });
    expect(stored).toMatchObject({ supersedes_id: original.id, shift_id: shift.id, session_id: session.id });
  });

  it("does not correct another establishment's record", async () => {
    const owner = await createTenant(t.db);
    const other = await createTenant(t.db);
    const record = (await api(t.app, owner.key).post('/api/v1/records', validRecord())).json().data;
    const res = await api(t.app, other.key).post('/api/v1/webhooks/inbound', {
      event: 'waste.updated',
      payload: { source: 'erp', record_id: record.id, weight_kg: 99 },
    });
    expect(res.statusCode).toBe(404);
    expect(await countRecords(t.db, owner.establishmentId)).toBe(1);
  });
});

describe('subscription events from merma-admin', () => {
  it('sends subscription.changed on a plan change and subscription.canceled on cancel, then refuses the keys', async () => {
    const tenant = await createTenant(t.db);
    const sub = await subscribe(t, tenant, `${receiver.url}/plan`, ['subscription.changed', 'subscription.canceled']);
    await setOrganizationPlan(t.db, { id: tenant.organizationId, plan: 'enterprise_multi' });
    const changed = await waitFor(() => receivedAt('/plan')[0]);
    expect(
      await verifyWebhook({ payload: changed.body, headers: changed.headers as Record<string, string>, secret: sub.secret, now: NOW }),
    ).toMatchObject({
      event: 'subscription.changed',
      data: { organization_id: tenant.organizationId, plan: 'enterprise_multi', previous_plan: 'enterprise', status: 'active' },
    });
    await cancelOrganization(t.db, { id: tenant.organizationId });
    const canceled = await waitFor(() => receivedAt('/plan')[1]);
    expect(JSON.parse(canceled.body)).toMatchObject({ event: 'subscription.canceled', data: { status: 'canceled' } });
    await new Promise((r) => setTimeout(r, t.config.apiKeyCacheTtlMs + 50));
    const refused = await api(t.app, tenant.key).get('/api/v1/records');
    expect(refused.statusCode).toBe(403);
    expect(refused.json().code).toBe('plan_required');
    await expect(cancelOrganization(t.db, { id: tenant.organizationId })).rejects.toThrow(/already canceled/);
    // Back on a plan: the keys work again.
    await setOrganizationPlan(t.db, { id: tenant.organizationId, plan: 'enterprise' });
    await new Promise((r) => setTimeout(r, t.config.apiKeyCacheTtlMs + 50));
    expect((await api(t.app, tenant.key).get('/api/v1/records')).statusCode).toBe(200);
  });
});

describe('spike alerts', () => {
  it('alerts once per category and day when a day exceeds the same-weekday baseline by 3 σ, under both names', async () => {
    const tenant = await createTenant(t.db);
    const spike = await subscribe(t, tenant, `${receiver.url}/spike`, ['alert.spike_detected']);
    await subscribe(t, tenant, `${receiver.url}/triggered`, ['alert.triggered']);
    // An hour before "now" on the same weekday of the four previous weeks: 11:00 in Madrid.
    const weeksAgo = (n: number) => new Date(NOW.getTime() - n * 7 * 86_400_000 - 3_600_000).toISOString();
    // Same weekday, four previous weeks: 2, 3, 2, 3 kg of meat (mean 2.5, σ ≈ 0.58, threshold ≈ 4.23).
    for (const [n, kg] of [
      [1, 2],
      [2, 3],
      [3, 2],
      [4, 3],
    ] as const) {
      await recordAt(t.db, tenant, weeksAgo(n), { weight_kg: kg });
    }
    // Today: 4 kg of meat (below the 5 kg floor), then 8 kg more (12 kg: a spike); fish stays normal.
    expect((await api(t.app, tenant.key).post('/api/v1/records', validRecord({ weight_kg: 4 }))).statusCode).toBe(201);
    // The detector ran on it (dispatch queued it; a drained queue has run it) and found no spike.
    await drain(t.db);
    expect(receivedAt('/spike')).toHaveLength(0);
    expect(await t.db.alert.count({ where: { establishment_id: tenant.establishmentId } })).toBe(0);
    await api(t.app, tenant.key).post('/api/v1/records', validRecord({ weight_kg: 8 }));
    await api(t.app, tenant.key).post('/api/v1/records', validRecord({ food_category: 'fish', weight_kg: 0.5 }));
    const alert = await waitFor(() => receivedAt('/spike')[0], 15_000, 'the spike alert');
    const event = await verifyWebhook({
      payload: alert.body,
      headers: alert.headers as Record<string, string>,
      secret: spike.secret,
      now: NOW,
    });
    expect(event.event).toBe('alert.spike_detected');
    if (event.event !== 'alert.spike_detected') throw new Error('unreachable');
    expect(event.data).toMatchObject({ establishment_id: tenant.establishmentId, food_category: 'meat', total_kg: 12, baseline_kg: 2.5 });
    expect(event.data.threshold_kg).toBeCloseTo(2.5 + 3 * Math.sqrt(1 / 3), 2);
    expect(event.data.z_score).toBeGreaterThan(3);
    const triggered = await waitFor(() => receivedAt('/triggered')[0]);
    expect(JSON.parse(triggered.body)).toMatchObject({ event: 'alert.triggered', data: { food_category: 'meat', total_kg: 12 } });
    // More meat the same day: no second alert.
    expect((await api(t.app, tenant.key).post('/api/v1/records', validRecord({ weight_kg: 20 }))).statusCode).toBe(201);
    await drain(t.db);
    expect(receivedAt('/spike')).toHaveLength(1);
    expect(receivedAt('/triggered')).toHaveLength(1);
    expect(await t.db.alert.count({ where: { establishment_id: tenant.establishmentId } })).toBe(1);
  });

  it('does not alert an establishment without history', async () => {
    const tenant = await createTenant(t.db);
    await subscribe(t, tenant, `${receiver.url}/newcomer`, ['alert.spike_detected']);
    expect((await api(t.app, tenant.key).post('/api/v1/records', validRecord({ weight_kg: 50 }))).statusCode).toBe(201);
    await drain(t.db);
    expect(receivedAt('/newcomer')).toHaveLength(0);
    expect(await t.db.alert.count({ where: { establishment_id: tenant.establishmentId } })).toBe(0);
  });
});
