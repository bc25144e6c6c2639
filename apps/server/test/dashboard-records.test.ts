import { deadline } from '@merma/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMember, DashboardBrowser, failure, PASSWORD } from './dashboard-client.js';
import {
  api,
  CAUSA_CADUCIDAD,
  CAUSA_RETIRED,
  createTenant,
  DESTINO_DONATION,
  DESTINO_LANDFILL,
  startTestApp,
  type Tenant,
  type TestContext,
  validRecord,
} from './helpers.js';

/**
 * The records page's procedures: the totals of a filter (count and kg of the whole filtered set,
 * from SQL, equal to the rows the table lists), and adding and correcting a record by hand through
 * the services of the API — the same validation and errors, the chain kept intact, the events the
 * API emits, an audit entry, the dashboard's mode, and viewers refused by the server.
 */
let t: TestContext;
let tenant: Tenant;
let owner: DashboardBrowser;
let developer: DashboardBrowser;
let viewer: DashboardBrowser;
let ownerEmail: string;
let now = new Date('2026-11-04T11:00:00Z');
const DAYS = 20;
let scope: { establishment_id: string; livemode: boolean };
let shiftId: string;

beforeAll(async () => {
  t = await startTestApp({ config: { TRUST_PROXY: 'true', REDIS_URL: '' }, clock: () => now });
  tenant = await createTenant(t.db);
  scope = { establishment_id: tenant.establishmentId, livemode: false };
  const client = api(t.app, tenant.key);
  const shift = await client.post('/api/v1/shifts', { name: 'Mañana', start_time: '07:00', end_time: '12:00' });
  shiftId = shift.json().data.id;
  for (let day = 0; day < DAYS; day++) {
    now = new Date(Date.UTC(2026, 10, 4 + day, day % 2 ? 9 : 14, 0, 0));
    const records = Array.from({ length: 3 }, (_, i) =>
      validRecord({
        food_category: i === 0 ? 'bakery' : 'fish',
        weight_kg: 0.125 + ((day * 3 + i) % 7) * 1.333,
        destino_id: i === 2 ? DESTINO_LANDFILL : DESTINO_DONATION,
        causa_id: i === 1 ? CAUSA_CADUCIDAD : null,
      }),
    );
    const res = await client.post('/api/v1/records/batch', { records });
    expect(res.statusCode, res.body).toBe(200);
  }
  now = new Date('2026-11-23T17:00:00Z'); // "today" is the last day with records
  const o = await createMember(t.db, tenant.organizationId, 'owner');
  const d = await createMember(t.db, tenant.organizationId, 'developer');
  const v = await createMember(t.db, tenant.organizationId, 'viewer');
  ownerEmail = o.email;
  owner = new DashboardBrowser(t.app);
  developer = new DashboardBrowser(t.app);
  viewer = new DashboardBrowser(t.app);
  await owner.signIn(o.email, PASSWORD);
  await developer.signIn(d.email, PASSWORD);
  await viewer.signIn(v.email, PASSWORD);
}, deadline(120_000));

afterAll(async () => {
  await t?.close();
});

type Row = { id: string; weight_kg: number; superseded_by: string | null; supersedes_id?: string | null };

/** Every row the table lists for a filter (walking its pages) and the first page's totals. */
async function listAll(filter: Record<string, unknown>) {
  const rows: Row[] = [];
  let cursor: string | undefined;
  let totals: { total: number; total_kg: number } | undefined;
  do {
    const page = await viewer.query('records.list', { ...scope, ...filter, limit: 7, ...(cursor ? { cursor } : {}) });
    if (!cursor) totals = { total: page.total, total_kg: page.total_kg };
    else expect(page.total_kg).toBeNull();
    rows.push(...page.data);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return { rows, totals: totals as { total: number; total_kg: number } };
}

const grams = (kg: number) => Math.round(kg * 1000);
const sumKg = (rows: Row[]) => rows.reduce((s, r) => s + grams(r.weight_kg), 0) / 1000;

/** The kg of the records a filter means, summed by the database over the records themselves. */
async function storedKg(where: string, values: unknown[]) {
  const [row] = await t.db.$queryRawUnsafe<{ kg: string | null; n: bigint }[]>(
    `SELECT sum(weight_kg)::text AS kg, count(*) AS n FROM records WHERE establishment_id = $1::uuid AND livemode = false AND ${where}`,
    tenant.establishmentId,
    ...values,
  );
  return { kg: Number(row?.kg ?? 0), n: Number(row?.n ?? 0) };
}

describe('totals of the filtered records', () => {
  const filters: [string, () => Record<string, unknown>][] = [
    ['the default range (30 days up to today)', () => ({})],
    ['whole days', () => ({ from: '2026-11-09', to: '2026-11-17' })],
    ['a category', () => ({ from: '2026-11-04', to: '2026-11-23', food_category: 'bakery' })],
    [
      'a destination and a cause',
      () => ({ from: '2026-11-04', to: '2026-11-23', destino_id: DESTINO_DONATION, causa_id: CAUSA_CADUCIDAD }),
    ],
    ['a shift (read from the records)', () => ({ from: '2026-11-04', to: '2026-11-23', shift_id: shiftId })],
    ['a range with times of day (read from the records)', () => ({ from: '2026-11-06T12:00:00Z', to: '2026-11-18T10:00:00+01:00' })],
    ['nothing', () => ({ from: '2026-01-01', to: '2026-01-31' })],
  ];

  it.each(filters)('%s: the count and kg equal the listed rows', async (_name, filter) => {
    const { rows, totals } = await listAll(filter());
    expect(totals.total).toBe(rows.length);
    expect(totals.total_kg).toBe(sumKg(rows));
  });

  it('equal the records the filters mean, summed by the database', async () => {
    expect((await listAll({ from: '2026-11-04', to: '2026-11-23' })).totals).toEqual({
      total: DAYS * 3,
      total_kg: (await storedKg('superseded_by IS NULL', [])).kg,
    });
    const bakery = await storedKg(`superseded_by IS NULL AND food_category = 'bakery'`, []);
    expect((await listAll({ from: '2026-11-04', to: '2026-11-23', food_category: 'bakery' })).totals).toEqual({
      total: bakery.n,
      total_kg: bakery.kg,
    });
    expect(bakery.n).toBe(DAYS);
    const morning = await storedKg('superseded_by IS NULL AND shift_id = $2::uuid', [shiftId]);
    expect(morning.n).toBe((DAYS / 2) * 3); // every other day at 09:00 UTC (10:00 in Madrid)
    expect((await listAll({ from: '2026-11-04', to: '2026-11-23', shift_id: shiftId })).totals).toEqual({
      total: morning.n,
      total_kg: morning.kg,
    });
    const none = await viewer.query('records.list', { ...scope, from: '2026-01-01', to: '2026-01-31' });
    expect(none).toMatchObject({ data: [], total: 0, total_kg: 0 });
  });
});

describe('adding a record from the dashboard', () => {
  it('stores it through the API service in the dashboard mode, with its record.created event and an audit entry', async () => {
    // In another kitchen of the organisation: a record added to the first one would change the totals the other tests check.
    const kitchen = await createTenant(t.db, { organizationId: tenant.organizationId });
    const before = await t.db.record.count({ where: { establishment_id: kitchen.establishmentId } });
    const created = await owner.mutate('records.create', {
      establishment_id: kitchen.establishmentId,
      livemode: false,
      food_category: 'dairy',
      weight_kg: 2.3456,
      destino_id: DESTINO_LANDFILL,
      causa_id: CAUSA_CADUCIDAD,
      waste_stage: 'storage',
      product_name: 'Yogur natural',
      notes: 'Cámara 2',
      occurred_at: '2026-11-23T09:30:00+01:00',
    });
    expect(created).toMatchObject({
      food_category: 'dairy',
      weight_kg: 2.346,
      livemode: false,
      source: 'dashboard',
      product_name: 'Yogur natural',
      occurred_at: '2026-11-23T08:30:00.000Z',
      supersedes_id: null,
    });
    expect(await t.db.record.count({ where: { establishment_id: kitchen.establishmentId } })).toBe(before + 1);
    // The API sees it as one of its own.
    const listed = (await api(t.app, kitchen.key).get('/api/v1/records', { query: { from: '2026-11-23', to: '2026-11-23' } })).json().data;
    expect(listed.map((r: { id: string }) => r.id)).toContain(created.id);
    const events = await t.db.event.findMany({ where: { establishment_id: kitchen.establishmentId, type: 'record.created' } });
    const event = events.find((e) => (e.payload as { data: { id: string } }).data.id === created.id);
    expect(event).toMatchObject({
      livemode: false,
      payload: { event: 'record.created', data: { id: created.id, record_hash: created.record_hash } },
    });
    // (The live-mode test below adds another record.created entry to this organisation.)
    const audit = await t.db.auditEvent.findFirst({
      where: { organization_id: tenant.organizationId, action: 'record.created', target: created.id },
    });
    expect(audit).toMatchObject({
      target: created.id,
      establishment_id: kitchen.establishmentId,
      details: { record_id: created.id, livemode: false, food_category: 'dairy', weight_kg: 2.346 },
    });
    expect(audit?.actor_email).toBe(ownerEmail);
  });

  it('in live mode when the dashboard shows live data', async () => {
    const created = await developer.mutate('records.create', { ...scope, livemode: true, ...validRecord({ weight_kg: 4 }) });
    expect(created).toMatchObject({ livemode: true, source: 'dashboard' });
    const event = await t.db.event.findFirst({
      where: { establishment_id: tenant.establishmentId, livemode: true, type: 'record.created' },
    });
    expect(event?.payload).toMatchObject({ data: { id: created.id } });
    expect((await viewer.query('records.list', { ...scope, livemode: true })).data.map((r: Row) => r.id)).toEqual([created.id]);
    expect((await viewer.query('records.list', scope)).data.map((r: Row) => r.id)).not.toContain(created.id);
  });

  it('refuses what the API refuses, with the same details, and writes nothing', async () => {
    const count = () => t.db.record.count({ where: { establishment_id: tenant.establishmentId } });
    const audits = () => t.db.auditEvent.count({ where: { organization_id: tenant.organizationId } });
    const [records, entries] = [await count(), await audits()];
    const cases: [Record<string, unknown>, string][] = [
      [validRecord({ weight_kg: 0 }), 'weight_kg'],
      [validRecord({ weight_kg: 1_000_001 }), 'weight_kg'],
      [validRecord({ food_category: 'rocks' }), 'food_category'],
      [validRecord({ destino_id: '00000000-0000-4000-8000-000000000000' }), 'destino_id'],
      [validRecord({ causa_id: CAUSA_RETIRED }), 'causa_id'],
      [validRecord({ occurred_at: '2026-11-23T18:30:00Z' }), 'occurred_at'], // 90 minutes ahead
      [validRecord({ occurred_at: '2020-01-01T00:00:00Z' }), 'occurred_at'],
      [validRecord({ destination_id: DESTINO_DONATION }), ''],
    ];
    for (const [record, path] of cases) {
      const mine = await failure(owner.mutate('records.create', { ...scope, ...record }));
      expect(mine, JSON.stringify(record)).toMatchObject({ status: 400, code: 'validation_error' });
      const rest = await api(t.app, tenant.key).post('/api/v1/records', record);
      expect(rest.statusCode).toBe(400);
      const details = mine.body.error.data.details as { path: string; message: string }[];
      expect(details.map((d) => d.path)).toContain(path);
      // The same details as the API's (the dashboard's scope fields aside).
      expect(details).toEqual(rest.json().details);
    }
    expect(await count()).toBe(records);
    expect(await audits()).toBe(entries);
  });

  it('refuses a viewer on the server, and writes nothing', async () => {
    const before = await t.db.record.count({ where: { establishment_id: tenant.establishmentId } });
    expect(await failure(viewer.mutate('records.create', { ...scope, ...validRecord() }))).toMatchObject({
      status: 403,
      code: 'forbidden',
    });
    expect(await t.db.record.count({ where: { establishment_id: tenant.establishmentId } })).toBe(before);
    const other = await createTenant(t.db);
    expect(
      await failure(owner.mutate('records.create', { establishment_id: other.establishmentId, livemode: false, ...validRecord() })),
    ).toMatchObject({ status: 404 });
    expect(await t.db.record.count({ where: { establishment_id: other.establishmentId } })).toBe(0);
  });
});

describe('correcting a record from the dashboard', () => {
  it('appends a correction that supersedes it: the chain verifies, lists and totals count the correction only', async () => {
    const [original] = (await viewer.query('records.list', { ...scope, from: '2026-11-20', to: '2026-11-20', food_category: 'bakery' }))
      .data as Row[];
    if (!original) throw new Error('no record to correct');
    const before = await viewer.query('records.list', { ...scope, from: '2026-11-20', to: '2026-11-20' });
    const correction = await owner.mutate('records.correct', {
      ...scope,
      record_id: original.id,
      weight_kg: 9.5,
      notes: 'Pesado de nuevo',
    });
    expect(correction).toMatchObject({
      supersedes_id: original.id,
      weight_kg: 9.5,
      notes: 'Pesado de nuevo',
      food_category: 'bakery',
      source: 'dashboard',
      occurred_at: (original as unknown as { occurred_at: string }).occurred_at,
    });
    const stored = await t.db.record.findUniqueOrThrow({ where: { id: original.id } });
    expect(stored.superseded_by).toBe(correction.id);

    const after = await viewer.query('records.list', { ...scope, from: '2026-11-20', to: '2026-11-20' });
    expect(after.total).toBe(before.total);
    expect(grams(after.total_kg)).toBe(grams(before.total_kg) - grams(original.weight_kg) + grams(9.5));
    expect(after.data.map((r: Row) => r.id)).toContain(correction.id);
    expect(after.data.map((r: Row) => r.id)).not.toContain(original.id);
    // Asked for, the replaced record is listed too, marked with its correction; the totals are of what is listed.
    const all = await listAll({ from: '2026-11-20', to: '2026-11-20', include_superseded: true });
    expect(all.rows.find((r) => r.id === original.id)).toMatchObject({ superseded_by: correction.id });
    expect(all.rows.find((r) => r.id === correction.id)).toMatchObject({ superseded_by: null, supersedes_id: original.id });
    expect(all.totals).toEqual({ total: before.total + 1, total_kg: sumKg(all.rows) });

    const verify = await api(t.app, tenant.key).get('/api/v1/records/verify', { query: { full: 'true' } });
    expect(verify.statusCode).toBe(200);
    expect(verify.json().data).toMatchObject({ valid: true, first_invalid: null });

    const event = await t.db.event.findFirst({ where: { establishment_id: tenant.establishmentId, type: 'record.updated' } });
    expect(event?.payload).toMatchObject({ event: 'record.updated', data: { id: correction.id } });
    const audit = await t.db.auditEvent.findFirst({ where: { organization_id: tenant.organizationId, action: 'record.corrected' } });
    expect(audit).toMatchObject({
      target: original.id,
      details: { record_id: correction.id, supersedes_id: original.id, livemode: false, changed: ['notes', 'weight_kg'] },
    });

    // A record already corrected: 409 naming its correction, nothing written.
    const count = await t.db.record.count({ where: { establishment_id: tenant.establishmentId } });
    const again = await failure(owner.mutate('records.correct', { ...scope, record_id: original.id, weight_kg: 1 }));
    expect(again).toMatchObject({ status: 409, code: 'conflict' });
    expect(again.message).toContain(correction.id);
    expect(await t.db.record.count({ where: { establishment_id: tenant.establishmentId } })).toBe(count);
  });

  it('refuses an invalid correction with details, a viewer, and a record of another mode, writing nothing', async () => {
    const [target] = (await viewer.query('records.list', { ...scope, from: '2026-11-21', to: '2026-11-21' })).data as Row[];
    if (!target) throw new Error('no record to correct');
    const count = () => t.db.record.count({ where: { establishment_id: tenant.establishmentId } });
    const records = await count();
    const negative = await failure(owner.mutate('records.correct', { ...scope, record_id: target.id, weight_kg: -1 }));
    expect(negative).toMatchObject({ status: 400, code: 'validation_error' });
    expect(negative.body.error.data.details).toEqual([expect.objectContaining({ path: 'weight_kg' })]);
    const nothing = await failure(owner.mutate('records.correct', { ...scope, record_id: target.id }));
    expect(nothing).toMatchObject({ status: 400, code: 'validation_error' });
    const unknown = await failure(
      owner.mutate('records.correct', { ...scope, record_id: target.id, destino_id: '00000000-0000-4000-8000-000000000000' }),
    );
    expect(unknown).toMatchObject({ status: 400, code: 'validation_error' });
    expect(unknown.body.error.data.details).toEqual([expect.objectContaining({ path: 'destino_id' })]);
    const future = await failure(owner.mutate('records.correct', { ...scope, record_id: target.id, occurred_at: '2026-11-24T17:00:00Z' }));
    expect(future.body.error.data.details).toEqual([expect.objectContaining({ path: 'occurred_at' })]);
    expect(await failure(viewer.mutate('records.correct', { ...scope, record_id: target.id, weight_kg: 3 }))).toMatchObject({
      status: 403,
      code: 'forbidden',
    });
    expect(await failure(owner.mutate('records.correct', { ...scope, livemode: true, record_id: target.id, weight_kg: 3 }))).toMatchObject({
      status: 404,
      code: 'not_found',
    });
    expect(await count()).toBe(records);
    expect(await t.db.record.findUniqueOrThrow({ where: { id: target.id } })).toMatchObject({ superseded_by: null });
    const verify = await api(t.app, tenant.key).get('/api/v1/records/verify', { query: { full: 'true' } });
    expect(verify.json().data).toMatchObject({ valid: true });
  });
});
