import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createTenant, recordAt, startTestApp, type Tenant, type TestContext, validRecord } from './helpers.js';

let t: TestContext;
let tenant: Tenant;
let now = new Date('2026-11-23T10:00:00.000Z');

beforeAll(async () => {
  t = await startTestApp({ clock: () => now });
  tenant = await createTenant(t.db);
});
afterAll(() => t?.close());

describe('sessions', () => {
  it('opens, collects records, completes once with fixed totals and an event', async () => {
    const client = api(t.app, tenant.key);
    const created = await client.post('/api/v1/sessions', { name: 'Cierre cena' });
    expect(created.statusCode).toBe(201);
    const session = created.json().data;
    expect(session).toMatchObject({ name: 'Cierre cena', status: 'open', record_count: 0, total_kg: 0, completed_at: null });

    for (const kg of [1.25, 2.5])
      expect((await client.post('/api/v1/records', validRecord({ weight_kg: kg, session_id: session.id }))).statusCode).toBe(201);
    expect((await client.get(`/api/v1/sessions/${session.id}`)).json().data).toMatchObject({ record_count: 2, total_kg: 3.75 });

    const done = await client.post(`/api/v1/sessions/${session.id}/complete`, {});
    expect(done.statusCode).toBe(200);
    expect(done.json().data).toMatchObject({ status: 'completed', record_count: 2, total_kg: 3.75, completed_at: now.toISOString() });
    const again = await client.post(`/api/v1/sessions/${session.id}/complete`, {});
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('conflict');

    const late = await client.post('/api/v1/records', validRecord({ session_id: session.id }));
    expect(late.statusCode).toBe(400);
    expect(late.json().details[0]).toMatchObject({ path: 'session_id' });

    const events = await t.db.event.findMany({ where: { establishment_id: tenant.establishmentId, type: 'session.completed' } });
    expect(events).toHaveLength(1);
    expect(events[0]?.payload).toMatchObject({ event: 'session.completed', data: { id: session.id, record_count: 2, total_kg: 3.75 } });
  });

  it('lists with status and date filters, paginated', async () => {
    const owner = await createTenant(t.db);
    const client = api(t.app, owner.key);
    for (const [i, day] of ['2026-11-01', '2026-11-10', '2026-11-20'].entries()) {
      now = new Date(`${day}T10:00:00.000Z`);
      const s = (await client.post('/api/v1/sessions', { name: `S${i}` })).json().data;
      if (i === 0) await client.post(`/api/v1/sessions/${s.id}/complete`, {});
    }
    now = new Date('2026-11-23T10:00:00.000Z');
    const all = (await client.get('/api/v1/sessions')).json();
    expect(all.data.map((s: { name: string }) => s.name)).toEqual(['S2', 'S1', 'S0']);
    expect(all.meta.pagination).toEqual({ limit: 50, offset: 0, total: 3, has_more: false });
    expect((await client.get('/api/v1/sessions?status=open')).json().data.map((s: { name: string }) => s.name)).toEqual(['S2', 'S1']);
    expect((await client.get('/api/v1/sessions?from=2026-11-05&to=2026-11-15')).json().data.map((s: { name: string }) => s.name)).toEqual([
      'S1',
    ]);
    const page = (await client.get('/api/v1/sessions?limit=1&offset=1')).json();
    expect(page.data.map((s: { name: string }) => s.name)).toEqual(['S1']);
    expect(page.meta.pagination.has_more).toBe(true);
  });

  it('answers 404 for an unknown or foreign session and 400 for a bad id or shift', async () => {
    const other = await createTenant(t.db);
    const foreign = (await api(t.app, other.key).post('/api/v1/sessions', { name: 'Ajena' })).json().data;
    expect((await api(t.app, tenant.key).get(`/api/v1/sessions/${foreign.id}`)).statusCode).toBe(404);
    expect((await api(t.app, tenant.key).post(`/api/v1/sessions/${foreign.id}/complete`, {})).statusCode).toBe(404);
    expect((await api(t.app, tenant.key).get('/api/v1/sessions/not-a-uuid')).statusCode).toBe(400);
    const bad = await api(t.app, tenant.key).post('/api/v1/sessions', { name: 'X', shift_id: '00000000-0000-4000-8000-000000000000' });
    expect(bad.statusCode).toBe(400);
    expect((await api(t.app, tenant.key).post('/api/v1/sessions', { name: '  ' })).statusCode).toBe(400);
  });
});

describe('shift auto-assignment', () => {
  it('gives a record without shift_id the shift active at its local time, overnight included', async () => {
    const owner = await createTenant(t.db);
    const client = api(t.app, owner.key);
    const morning = (await client.post('/api/v1/shifts', { name: 'Mañana', start_time: '07:00', end_time: '15:00' })).json().data;
    const night = (await client.post('/api/v1/shifts', { name: 'Noche', start_time: '22:00', end_time: '06:00' })).json().data;
    // Madrid is UTC+1 in November.
    const cases: [string, string | null][] = [
      ['2026-11-23T06:00:00.000Z', morning.id], // 07:00 local
      ['2026-11-23T13:59:00.000Z', morning.id], // 14:59
      ['2026-11-23T14:00:00.000Z', null], // 15:00: morning has ended
      ['2026-11-23T21:30:00.000Z', night.id], // 22:30
      ['2026-11-24T02:00:00.000Z', night.id], // 03:00 the next day
      ['2026-11-24T05:00:00.000Z', null], // 06:00: night has ended
    ];
    for (const [at, expected] of cases) {
      const r = await recordAt(t.db, owner, at);
      expect(r.shift_id, at).toBe(expected);
    }
    // Given explicitly, it is kept; batches are assigned too.
    const explicit = await recordAt(t.db, owner, '2026-11-23T21:30:00.000Z', { shift_id: morning.id });
    expect(explicit.shift_id).toBe(morning.id);
    now = new Date('2026-11-23T21:45:00.000Z');
    const batch = await client.post('/api/v1/records/batch', { records: [validRecord(), validRecord({ shift_id: morning.id })] });
    now = new Date('2026-11-23T10:00:00.000Z');
    const ids = batch.json().data.records.map((r: { id: string }) => r.id);
    const stored = await t.db.record.findMany({ where: { id: { in: ids } }, orderBy: { chain_seq: 'asc' } });
    expect(stored.map((r) => r.shift_id)).toEqual([night.id, morning.id]);
    expect((await client.get('/api/v1/records/verify')).json().data.valid).toBe(true);
  });
});
