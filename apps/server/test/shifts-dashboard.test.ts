import { deadline } from '@merma/testing';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMember, DashboardBrowser, failure, PASSWORD } from './dashboard-client.js';
import { api, createTenant, startTestApp, type Tenant, type TestContext, validRecord } from './helpers.js';

/**
 * Editing, archiving and deleting shifts from the dashboard, and a registration session's records:
 * a shift that records or sessions name is never deleted (a record's shift_id is part of its hash),
 * so deleting it is a 409 that leaves every row as it was, and archiving it retires it — out of the
 * API's list and of the automatic assignment, while records and exports keep its name.
 */
let t: TestContext;
let tenant: Tenant;
let owner: DashboardBrowser;
let viewer: DashboardBrowser;
let now = new Date('2026-11-23T11:00:00Z'); // 12:00 in Madrid
let scope: { establishment_id: string; livemode: boolean };

beforeAll(async () => {
  t = await startTestApp({ config: { TRUST_PROXY: 'true', REDIS_URL: '' }, clock: () => now });
  tenant = await createTenant(t.db);
  scope = { establishment_id: tenant.establishmentId, livemode: false };
  const o = await createMember(t.db, tenant.organizationId, 'owner');
  const v = await createMember(t.db, tenant.organizationId, 'viewer');
  owner = new DashboardBrowser(t.app);
  viewer = new DashboardBrowser(t.app);
  await owner.signIn(o.email, PASSWORD);
  await viewer.signIn(v.email, PASSWORD);
}, deadline(60_000));

afterAll(async () => {
  await t?.close();
});

const createShift = (name: string, start_time: string, end_time: string) =>
  owner.mutate('shifts.create', { ...scope, shift: { name, start_time, end_time } });

const auditOf = (action: string) =>
  t.db.auditEvent.findMany({ where: { organization_id: tenant.organizationId, action }, orderBy: { created_at: 'asc' } });

describe('shifts from the dashboard', () => {
  it('edits a shift: new name and hours, audited with before and after; new records fall in the new hours', async () => {
    const shift = await createShift('Mañana', '07:00', '15:00');
    expect(shift).toMatchObject({ name: 'Mañana', archived: false });
    const updated = await owner.mutate('shifts.update', {
      ...scope,
      id: shift.id,
      shift: { name: 'Comidas', start_time: '13:00', end_time: '17:00' },
    });
    expect(updated).toEqual({ id: shift.id, name: 'Comidas', start_time: '13:00', end_time: '17:00', archived: false });
    expect(await t.db.shift.findUniqueOrThrow({ where: { id: shift.id } })).toMatchObject({
      name: 'Comidas',
      start_time: '13:00',
      end_time: '17:00',
    });
    const [entry] = await auditOf('shift.updated');
    expect(entry).toMatchObject({
      target: 'Comidas',
      details: {
        shift_id: shift.id,
        before: { name: 'Mañana', start_time: '07:00', end_time: '15:00' },
        after: { name: 'Comidas', start_time: '13:00', end_time: '17:00' },
        livemode: false,
      },
    });
    // 12:00 in Madrid is no longer in the shift (13:00–17:00): a record made now gets none.
    const res = await api(t.app, tenant.key).post('/api/v1/records', validRecord());
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data.shift_id).toBeNull();
    // The same rules as creating one.
    const bad = await failure(
      owner.mutate('shifts.update', { ...scope, id: shift.id, shift: { name: 'x', start_time: '10:00', end_time: '10:00' } }),
    );
    expect(bad).toMatchObject({ status: 400, code: 'validation_error' });
    await owner.mutate('shifts.delete', { ...scope, id: shift.id });
  });

  it('deletes a shift nothing names: the row is gone and the deletion audited', async () => {
    const shift = await createShift('Sin uso', '01:00', '02:00');
    const deleted = await owner.mutate('shifts.delete', { ...scope, id: shift.id });
    expect(deleted).toMatchObject({ id: shift.id, name: 'Sin uso' });
    expect(await t.db.shift.findUnique({ where: { id: shift.id } })).toBeNull();
    expect((await auditOf('shift.deleted')).map((e) => e.target)).toContain('Sin uso');
    expect(await failure(owner.mutate('shifts.delete', { ...scope, id: shift.id }))).toMatchObject({ status: 404, code: 'not_found' });
  });

  it('refuses to delete a shift that records name (409), keeps it and the chain; archiving retires it instead', async () => {
    const shift = await createShift('Noche', '22:00', '06:00');
    now = new Date('2026-11-23T23:30:00Z'); // 00:30 in Madrid: in the night shift
    const made = await api(t.app, tenant.key).post('/api/v1/records', validRecord({ notes: 'noche' }));
    expect(made.json().data.shift_id).toBe(shift.id);
    const auditBefore = await t.db.auditEvent.count({ where: { organization_id: tenant.organizationId } });

    const refused = await failure(owner.mutate('shifts.delete', { ...scope, id: shift.id }));
    expect(refused).toMatchObject({ status: 409, code: 'conflict' });
    expect(refused.message).toMatch(/named by records; archive it instead/);
    expect(refused.body.error.data.details).toEqual([{ path: 'id', message: 'shift in use by records' }]);
    expect(await t.db.shift.findUniqueOrThrow({ where: { id: shift.id } })).toMatchObject({ archived_at: null });
    expect((await t.db.record.findUniqueOrThrow({ where: { id: made.json().data.id } })).shift_id).toBe(shift.id);
    // A refused change writes no audit entry.
    expect(await t.db.auditEvent.count({ where: { organization_id: tenant.organizationId } })).toBe(auditBefore);

    const archived = await owner.mutate('shifts.archive', { ...scope, id: shift.id, archived: true });
    expect(archived).toMatchObject({ id: shift.id, archived: true });
    expect((await t.db.shift.findUniqueOrThrow({ where: { id: shift.id } })).archived_at).toEqual(now);
    expect((await auditOf('shift.archived')).at(-1)).toMatchObject({ target: 'Noche', details: { shift_id: shift.id } });
    // Out of the API's list, still in the dashboard's (marked), and no longer assigned to new records.
    const listed = (await api(t.app, tenant.key).get('/api/v1/shifts')).json().data as { id: string }[];
    expect(listed.map((s) => s.id)).not.toContain(shift.id);
    const all = await viewer.query('shifts.list', scope);
    expect(all.find((s: { id: string }) => s.id === shift.id)).toEqual({
      id: shift.id,
      name: 'Noche',
      start_time: '22:00',
      end_time: '06:00',
      archived: true,
    });
    const later = await api(t.app, tenant.key).post('/api/v1/records', validRecord());
    expect(later.json().data.shift_id).toBeNull();
    // An explicit shift_id of an archived shift is still taken: a late record of a past shift.
    const late = await api(t.app, tenant.key).post('/api/v1/records', validRecord({ shift_id: shift.id }));
    expect(late.statusCode, late.body).toBe(201);
    // The records keep verifying: nothing of theirs was rewritten.
    expect((await api(t.app, tenant.key).get('/api/v1/records/verify', { query: { full: 'true' } })).json().data).toMatchObject({
      valid: true,
    });

    // The export still names the archived shift.
    const csv = await t.app.inject({
      method: 'GET',
      url: '/export/records.csv',
      query: {
        establishment_id: tenant.establishmentId,
        mode: 'test',
        dialect: 'plain',
        shift_id: shift.id,
        from: '2026-11-01',
        to: '2026-11-30',
      },
      headers: { cookie: `merma_session=${owner.cookies.get('merma_session')}`, 'sec-fetch-site': 'same-origin' },
    });
    expect(csv.statusCode, csv.body).toBe(200);
    const rows = parse(csv.body, { columns: true }) as Record<string, string>[];
    expect(rows.map((r) => r.shift_name)).toEqual(['Noche', 'Noche']);

    const restored = await owner.mutate('shifts.archive', { ...scope, id: shift.id, archived: false });
    expect(restored).toMatchObject({ archived: false });
    expect((await t.db.shift.findUniqueOrThrow({ where: { id: shift.id } })).archived_at).toBeNull();
    expect((await auditOf('shift.restored')).at(-1)).toMatchObject({ target: 'Noche' });
    expect(((await api(t.app, tenant.key).get('/api/v1/shifts')).json().data as { id: string }[]).map((s) => s.id)).toContain(shift.id);
    now = new Date('2026-11-23T11:00:00Z');
  });

  it('refuses to delete a shift that a session names', async () => {
    const shift = await createShift('Cierre', '20:00', '23:00');
    const session = await api(t.app, tenant.key).post('/api/v1/sessions', { name: 'Recuento', shift_id: shift.id });
    expect(session.statusCode).toBe(201);
    const refused = await failure(owner.mutate('shifts.delete', { ...scope, id: shift.id }));
    expect(refused).toMatchObject({ status: 409, code: 'conflict' });
    expect(refused.body.error.data.details).toEqual([{ path: 'id', message: 'shift in use by sessions' }]);
    expect(await t.db.shift.findUnique({ where: { id: shift.id } })).not.toBeNull();
  });

  it('viewers cannot change shifts; another establishment or mode has no such shift', async () => {
    const shift = await createShift('Tarde', '15:00', '20:00');
    const edit = { ...scope, id: shift.id, shift: { name: 'x', start_time: '15:00', end_time: '21:00' } };
    expect(await failure(viewer.mutate('shifts.update', edit))).toMatchObject({ status: 403 });
    expect(await failure(viewer.mutate('shifts.archive', { ...scope, id: shift.id, archived: true }))).toMatchObject({ status: 403 });
    expect(await failure(viewer.mutate('shifts.delete', { ...scope, id: shift.id }))).toMatchObject({ status: 403 });
    expect(await failure(owner.mutate('shifts.delete', { ...scope, livemode: true, id: shift.id }))).toMatchObject({ status: 404 });
    const other = await createTenant(t.db);
    expect(
      await failure(owner.mutate('shifts.delete', { establishment_id: other.establishmentId, livemode: false, id: shift.id })),
    ).toMatchObject({
      status: 404,
    });
    expect(await t.db.shift.findUniqueOrThrow({ where: { id: shift.id } })).toMatchObject({
      name: 'Tarde',
      end_time: '20:00',
      archived_at: null,
    });
  });
});

describe("a registration session's records", () => {
  it('lists every record of the session, whatever its day, with the records procedure; the export takes the same filter', async () => {
    const client = api(t.app, tenant.key);
    const session = (await client.post('/api/v1/sessions', { name: 'Inventario' })).json().data;
    // One record backdated well before the table's default 30 days, two of today, one outside the session.
    const records = [
      validRecord({ session_id: session.id, occurred_at: '2026-08-01T10:00:00Z', weight_kg: 2 }),
      validRecord({ session_id: session.id, weight_kg: 3 }),
      validRecord({ session_id: session.id, weight_kg: 4.5 }),
      validRecord({ weight_kg: 9 }),
    ];
    expect((await client.post('/api/v1/records/batch', { records })).statusCode).toBe(200);
    const ids = (await t.db.record.findMany({ where: { session_id: session.id }, orderBy: [{ occurred_at: 'desc' }, { id: 'desc' }] })).map(
      (r) => r.id,
    );
    expect(ids).toHaveLength(3);

    const detail = await viewer.query('sessions.get', { ...scope, id: session.id });
    expect(detail).toMatchObject({ id: session.id, name: 'Inventario', status: 'open', record_count: 3, total_kg: 9.5 });
    const page = await viewer.query('records.list', { ...scope, session_id: session.id, limit: 2 });
    expect(page.total).toBe(3);
    expect(page.data.map((r: { id: string }) => r.id)).toEqual(ids.slice(0, 2));
    const next = await viewer.query('records.list', { ...scope, session_id: session.id, limit: 2, cursor: page.next_cursor });
    expect(next.data.map((r: { id: string }) => r.id)).toEqual(ids.slice(2));
    expect(next.next_cursor).toBeNull();
    // A range still narrows a session's records.
    expect((await viewer.query('records.list', { ...scope, session_id: session.id, from: '2026-11-01', to: '2026-11-30' })).total).toBe(2);

    const csv = await t.app.inject({
      method: 'GET',
      url: '/export/records.csv',
      query: { establishment_id: tenant.establishmentId, mode: 'test', dialect: 'plain', session_id: session.id },
      headers: { cookie: `merma_session=${owner.cookies.get('merma_session')}`, 'sec-fetch-site': 'same-origin' },
    });
    expect(csv.statusCode).toBe(200);
    expect((parse(csv.body, { columns: true }) as Record<string, string>[]).map((r) => r.id)).toEqual(ids);

    expect(await failure(viewer.query('sessions.get', { ...scope, livemode: true, id: session.id }))).toMatchObject({ status: 404 });
    const other = await createTenant(t.db);
    expect(
      await failure(viewer.query('sessions.get', { establishment_id: other.establishmentId, livemode: false, id: session.id })),
    ).toMatchObject({
      status: 404,
    });
  });
});
