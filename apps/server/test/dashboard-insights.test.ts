import { deadline } from '@merma/testing';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMember, DashboardBrowser, failure, PASSWORD } from './dashboard-client.js';
import {
  api,
  CAUSA_CADUCIDAD,
  createTenant,
  DESTINO_DONATION,
  DESTINO_LANDFILL,
  startTestApp,
  type Tenant,
  type TestContext,
  validRecord,
} from './helpers.js';

/**
 * The waste pages' procedures (overview, records, forecast, shifts and sessions) and the CSV
 * export, on records sent through the API over five weeks (the app's clock moved a day at a time):
 * the dashboard's figures equal the API's for the same range, the table pages by keyset through
 * every record once, the export's rows equal the API's list in both CSV forms, and tenants stay apart.
 */
let t: TestContext;
let tenant: Tenant;
let owner: DashboardBrowser;
let viewer: DashboardBrowser;
let now = new Date('2026-10-20T11:00:00Z');
const DAYS = 35;
let scope: { establishment_id: string; livemode: boolean };
let shiftId: string;

beforeAll(async () => {
  t = await startTestApp({ config: { TRUST_PROXY: 'true', REDIS_URL: '' }, clock: () => now });
  tenant = await createTenant(t.db);
  scope = { establishment_id: tenant.establishmentId, livemode: false };
  const client = api(t.app, tenant.key);
  const shift = await client.post('/api/v1/shifts', { name: 'Mañana', start_time: '07:00', end_time: '15:00' });
  shiftId = shift.json().data.id;
  for (let day = 0; day < DAYS; day++) {
    now = new Date(Date.UTC(2026, 9, 20 + day, 11, 0, 0));
    const records = Array.from({ length: 3 }, (_, i) =>
      validRecord({
        food_category: i === 0 ? 'bakery' : 'fish',
        weight_kg: 1 + ((day * 3 + i) % 7) * 0.25,
        destino_id: i === 2 ? DESTINO_LANDFILL : DESTINO_DONATION,
        causa_id: i === 1 ? CAUSA_CADUCIDAD : null,
        notes: i === 2 ? '=SUM(A1:A9)' : null,
      }),
    );
    const res = await client.post('/api/v1/records/batch', { records });
    expect(res.statusCode, res.body).toBe(200);
  }
  const o = await createMember(t.db, tenant.organizationId, 'owner');
  const v = await createMember(t.db, tenant.organizationId, 'viewer');
  owner = new DashboardBrowser(t.app);
  viewer = new DashboardBrowser(t.app);
  await owner.signIn(o.email, PASSWORD);
  await viewer.signIn(v.email, PASSWORD);
}, deadline(120_000));

afterAll(async () => {
  await t?.close();
});

describe('overview', () => {
  it('the analytics equal GET /api/v1/analytics for the same range; periods compare like with like', async () => {
    const query = { from: '2026-10-25', to: '2026-11-23', group_by: 'week' as const };
    const rest = await api(t.app, tenant.key).get('/api/v1/analytics', { query });
    expect(rest.statusCode).toBe(200);
    const mine = await viewer.query('analytics.get', { ...scope, ...query });
    expect(mine).toEqual(rest.json().data);
    expect(mine.total_records).toBe(30 * 3);

    // "Today" is 2026-11-23, a Monday: the week so far is today, against last Monday.
    const periods = await viewer.query('analytics.periods', scope);
    const byName = Object.fromEntries(periods.map((p: { period: string }) => [p.period, p]));
    const dayKg = async (from: string, to: string) =>
      (await viewer.query('analytics.get', { ...scope, from, to, group_by: 'day' })).total_kg as number;
    expect(byName.today).toMatchObject({ from: '2026-11-23', to: '2026-11-23', previous_from: '2026-11-22', previous_to: '2026-11-22' });
    expect(byName.today.kg).toBe(await dayKg('2026-11-23', '2026-11-23'));
    expect(byName.today.previous_kg).toBe(await dayKg('2026-11-22', '2026-11-22'));
    expect(byName.week).toMatchObject({ from: '2026-11-23', previous_from: '2026-11-16', previous_to: '2026-11-16' });
    expect(byName.month).toMatchObject({ from: '2026-11-01', to: '2026-11-23', previous_from: '2026-10-01', previous_to: '2026-10-23' });
    expect(byName.month.kg).toBe(await dayKg('2026-11-01', '2026-11-23'));
    expect(byName.month.previous_kg).toBe(await dayKg('2026-10-01', '2026-10-23'));
  });

  it('benchmarking follows the plan: withheld on pro, the API figures on enterprise', async () => {
    const bench = await viewer.query('analytics.benchmark', scope);
    const rest = await api(t.app, tenant.key).get('/api/v1/benchmarking');
    expect(bench).toEqual({ available: true, result: rest.json().data });
    await t.db.organization.update({ where: { id: tenant.organizationId }, data: { plan: 'pro' } });
    try {
      expect(await viewer.query('analytics.benchmark', scope)).toEqual({ available: false, reason: 'plan' });
    } finally {
      await t.db.organization.update({ where: { id: tenant.organizationId }, data: { plan: 'enterprise' } });
    }
  });

  it('the forecast is the API prediction', async () => {
    const forecast = await viewer.query('predict.waste', { ...scope, horizon: 14 });
    const rest = await api(t.app, tenant.key).get('/api/v1/predict', { query: { horizon: '14' } });
    expect(forecast).toEqual(rest.json().data);
    expect(forecast.points).toHaveLength(14);
  });
});

describe('records', () => {
  const range = { from: '2026-10-20', to: '2026-11-23' };

  it('pages by keyset through every record once, newest first, equal to the API list', async () => {
    const rest = await api(t.app, tenant.key).get('/api/v1/records', { query: { ...range, limit: '200' } });
    const expected = rest.json().data;
    expect(expected).toHaveLength(DAYS * 3);
    const seen: unknown[] = [];
    let cursor: string | undefined;
    let first = true;
    do {
      const page = await viewer.query('records.list', { ...scope, ...range, limit: 40, ...(cursor ? { cursor } : {}) });
      expect(page.total).toBe(first ? DAYS * 3 : null);
      first = false;
      seen.push(...page.data);
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    // The table's rows are the API's records, with the correction that replaced each (none here).
    expect(seen).toEqual(expected.map((r: object) => ({ ...r, superseded_by: null })));
  });

  it('filters by category, destination, cause and shift', async () => {
    const page = await viewer.query('records.list', { ...scope, ...range, food_category: 'bakery', limit: 100 });
    expect(page.total).toBe(DAYS);
    expect(page.data.every((r: { food_category: string }) => r.food_category === 'bakery')).toBe(true);
    expect((await viewer.query('records.list', { ...scope, ...range, destino_id: DESTINO_LANDFILL })).total).toBe(DAYS);
    expect((await viewer.query('records.list', { ...scope, ...range, causa_id: CAUSA_CADUCIDAD })).total).toBe(DAYS);
    // Records at 11:00 UTC (12:00 or 13:00 in Madrid) fall in the 07:00–15:00 shift.
    expect((await viewer.query('records.list', { ...scope, ...range, shift_id: shiftId })).total).toBe(DAYS * 3);
    const bad = await failure(viewer.query('records.list', { ...scope, cursor: 'not-a-cursor' }));
    expect(bad).toMatchObject({ status: 400, code: 'validation_error' });
  });

  it("a record's detail carries its chain position; the chain verifies", async () => {
    const [{ superseded_by: _by, ...latest }] = (await viewer.query('records.list', { ...scope, limit: 1 })).data;
    const detail = await viewer.query('records.get', { ...scope, id: latest.id });
    const stored = await t.db.record.findUniqueOrThrow({ where: { id: latest.id } });
    expect(detail).toMatchObject({ record: latest, chain_seq: Number(stored.chain_seq), chain_length: DAYS * 3, superseded_by: null });
    expect(detail.prev_hash).toBe(stored.prev_hash);
    // The page's check signs a checkpoint; the API's full verification finds the same chain and that checkpoint.
    const verified = await viewer.query('records.verify', scope);
    expect(verified).toMatchObject({ valid: true, checked: DAYS * 3, rehashed: DAYS * 3, checkpoint: { seq: DAYS * 3 } });
    const rest = (await api(t.app, tenant.key).get('/api/v1/records/verify', { query: { full: 'true' } })).json().data;
    expect(rest).toEqual({ ...verified, mode: 'full' });
  });

  it('the CSV export streams the filtered records: rows equal the API list, in the Spanish and the plain form', async () => {
    const rest = await api(t.app, tenant.key).get('/api/v1/records', { query: { ...range, food_category: 'fish', limit: '200' } });
    const expected = rest.json().data as { id: string; weight_kg: number; notes: string | null; record_hash: string; created_at: string }[];
    const get = (dialect: string) =>
      t.app.inject({
        method: 'GET',
        url: '/export/records.csv',
        query: { establishment_id: tenant.establishmentId, mode: 'test', dialect, ...range, food_category: 'fish' },
        headers: { cookie: `merma_session=${owner.cookies.get('merma_session')}`, 'sec-fetch-site': 'same-origin' },
      });
    const es = await get('es');
    expect(es.statusCode, es.body).toBe(200);
    expect(es.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(es.headers['content-disposition']).toMatch(/^attachment; filename="merma-test-records-2026-11-23-es\.csv"$/);
    expect(es.rawPayload.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    const esRows = parse(es.body, { bom: true, delimiter: ';', columns: true }) as Record<string, string>[];
    // The Spanish form's headers are Spanish (records-export.test.ts checks every one).
    expect(esRows.map((r) => r.ID)).toEqual(expected.map((r) => r.id));
    expect(esRows.map((r) => r['Peso (kg)'])).toEqual(expected.map((r) => String(r.weight_kg).replace('.', ',')));
    expect(esRows.map((r) => r['Hash del registro'])).toEqual(expected.map((r) => r.record_hash));
    expect(esRows.map((r) => r['Registrado (UTC)'])).toEqual(expected.map((r) => r.created_at));
    expect(esRows[0]?.['Fecha y hora local']).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    // A note that looks like a formula is kept as text.
    expect(esRows.find((r) => r.Notas)?.Notas).toBe("'=SUM(A1:A9)");

    const plain = await get('plain');
    expect(plain.rawPayload[0]).toBe('i'.charCodeAt(0));
    const plainRows = parse(plain.body, { columns: true }) as Record<string, string>[];
    expect(plainRows.map((r) => [r.id, Number(r.weight_kg)])).toEqual(expected.map((r) => [r.id, r.weight_kg]));
  });

  it('the export needs a session, refuses bad filters and other tenants', async () => {
    const anonymous = await t.app.inject({
      method: 'GET',
      url: `/export/records.csv?establishment_id=${tenant.establishmentId}&mode=test`,
      headers: { 'sec-fetch-site': 'same-origin' },
    });
    expect(anonymous.statusCode).toBe(401);
    const cookie = `merma_session=${owner.cookies.get('merma_session')}`;
    const bad = await t.app.inject({
      method: 'GET',
      url: `/export/records.csv?establishment_id=${tenant.establishmentId}&mode=test&dialect=xlsx`,
      headers: { cookie, 'sec-fetch-site': 'same-origin' },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ status: 400, code: 'validation_error', details: [expect.objectContaining({ path: 'dialect' })] });
    const other = await createTenant(t.db);
    const foreign = await t.app.inject({
      method: 'GET',
      url: `/export/records.csv?establishment_id=${other.establishmentId}&mode=test`,
      headers: { cookie, 'sec-fetch-site': 'same-origin' },
    });
    expect(foreign.statusCode).toBe(404);
    const crossSite = await t.app.inject({
      method: 'GET',
      url: `/export/records.csv?establishment_id=${tenant.establishmentId}&mode=test`,
      headers: { cookie, 'sec-fetch-site': 'cross-site' },
    });
    expect(crossSite.statusCode).toBe(403);
    expect(await failure(owner.query('records.list', { establishment_id: other.establishmentId, livemode: false }))).toMatchObject({
      status: 404,
    });
  });
});

describe('shifts and sessions', () => {
  it('a builder adds a shift (overnight allowed, audited); a viewer reads and cannot', async () => {
    const night = await owner.mutate('shifts.create', { ...scope, shift: { name: 'Noche', start_time: '22:00', end_time: '06:00' } });
    expect(night).toMatchObject({ name: 'Noche', start_time: '22:00', end_time: '06:00' });
    const shifts = await viewer.query('shifts.list', scope);
    expect(shifts.map((s: { name: string }) => s.name)).toEqual(['Mañana', 'Noche']);
    expect(
      await failure(viewer.mutate('shifts.create', { ...scope, shift: { name: 'X', start_time: '01:00', end_time: '02:00' } })),
    ).toMatchObject({
      status: 403,
      code: 'forbidden',
    });
    const same = await failure(owner.mutate('shifts.create', { ...scope, shift: { name: 'X', start_time: '01:00', end_time: '01:00' } }));
    expect(same).toMatchObject({ status: 400, code: 'validation_error' });
    expect(await t.db.shift.count({ where: { establishment_id: tenant.establishmentId } })).toBe(2);
    const audit = await t.db.auditEvent.findFirst({ where: { organization_id: tenant.organizationId, action: 'shift.created' } });
    expect(audit).toMatchObject({ target: 'Noche' });
  });

  it('sessions with their totals', async () => {
    // Another establishment of the organisation: records added here would change the figures the
    // other tests compare (the five weeks of records above, and only those).
    const kitchen = await createTenant(t.db, { organizationId: tenant.organizationId });
    const client = api(t.app, kitchen.key);
    const opened = (await client.post('/api/v1/sessions', { name: 'Cierre' })).json().data;
    await client.post('/api/v1/records', validRecord({ session_id: opened.id, weight_kg: 2.5 }));
    await client.post('/api/v1/records', validRecord({ session_id: opened.id, weight_kg: 1.25 }));
    const sessions = await viewer.query('sessions.list', {
      establishment_id: kitchen.establishmentId,
      livemode: false,
      limit: 10,
      offset: 0,
    });
    expect(sessions.total).toBe(1);
    expect(sessions.data[0]).toMatchObject({ id: opened.id, name: 'Cierre', status: 'open', record_count: 2, total_kg: 3.75 });
  });
});
