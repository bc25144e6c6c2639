import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorBodyProblems } from './contract.js';
import { createMember, DashboardBrowser, failure, PASSWORD } from './dashboard-client.js';
import { addKey, api, createTenant, recordAt, startTestApp, type Tenant, type TestContext } from './helpers.js';

/**
 * Following the prevention plan up (modules/plan/follow-up.ts): each measure's owner, due date and
 * status, the staff training sessions, and the follow-up each plan version keeps.
 *
 * The kitchen (Madrid, test mode): 5 kg of bakery lost in storage, so its plan's one hotspot
 * proposes storage.fefo_rotation, storage.temperature_log, storage.weekly_stock_review and
 * bakery.bake_to_forecast, in that order. The clock starts at 10:00 UTC on 29 November 2026.
 */
let t: TestContext;
let kitchen: Tenant;
let owner: DashboardBrowser;
let viewer: DashboardBrowser;
let now = new Date('2026-11-29T10:00:00.000Z');
let scope: { establishment_id: string; livemode: boolean };
const PROPOSED = ['storage.fefo_rotation', 'storage.temperature_log', 'storage.weekly_stock_review', 'bakery.bake_to_forecast'];

beforeAll(async () => {
  t = await startTestApp({ config: { REDIS_URL: '' }, clock: () => now });
  kitchen = await createTenant(t.db);
  scope = { establishment_id: kitchen.establishmentId, livemode: false };
  await recordAt(t.db, kitchen, '2026-11-10T12:00:00.000Z', { food_category: 'bakery', weight_kg: 5, waste_stage: 'storage' });
  expect((await api(t.app, kitchen.key).post('/api/v1/prevention-plan', {})).statusCode).toBe(201);
  const o = await createMember(t.db, kitchen.organizationId, 'owner');
  const v = await createMember(t.db, kitchen.organizationId, 'viewer');
  owner = new DashboardBrowser(t.app);
  viewer = new DashboardBrowser(t.app);
  await owner.signIn(o.email, PASSWORD);
  await viewer.signIn(v.email, PASSWORD);
});

afterAll(async () => {
  await t?.close();
});

describe("the plan's measures, followed up", () => {
  it('lists the newest plan’s measures as planned until someone says otherwise, and keeps what an owner sets', async () => {
    const audited = () => t.db.auditEvent.count({ where: { organization_id: kitchen.organizationId, action: 'plan.measure_updated' } });
    const auditBefore = await audited();
    const listed = await api(t.app, kitchen.key).get('/api/v1/prevention-plan/measures?lang=en');
    expect(listed.statusCode, listed.body).toBe(200);
    const before = listed.json().data;
    expect(before.map((m: { measure_id: string }) => m.measure_id)).toEqual(PROPOSED);
    // (Tests run shuffled: the one measure no test follows up.)
    expect(before[3]).toEqual({
      measure_id: 'bakery.bake_to_forecast',
      text: expect.stringMatching(/^Bake /),
      owner: null,
      due_on: null,
      status: 'planned',
      note: null,
      updated_at: null,
      in_latest_plan: true,
    });

    const set = await owner.mutate('plan.updateMeasure', {
      ...scope,
      measure_id: 'storage.temperature_log',
      lang: 'es',
      owner: '  Jefa de cocina ',
      due_on: '2026-12-31',
      status: 'in_progress',
    });
    expect(set).toMatchObject({ owner: 'Jefa de cocina', due_on: '2026-12-31', status: 'in_progress', note: null, in_latest_plan: true });
    expect(set.text).toMatch(/^Registrar a diario la temperatura/);
    // A field left out is kept; null clears it.
    const again = await owner.mutate('plan.updateMeasure', {
      ...scope,
      measure_id: 'storage.temperature_log',
      lang: 'es',
      due_on: null,
      note: 'Termómetros nuevos',
    });
    expect(again).toMatchObject({ owner: 'Jefa de cocina', due_on: null, status: 'in_progress', note: 'Termómetros nuevos' });
    const after = (await api(t.app, kitchen.key).get('/api/v1/prevention-plan/measures')).json().data;
    expect(after[1]).toMatchObject({
      measure_id: 'storage.temperature_log',
      owner: 'Jefa de cocina',
      status: 'in_progress',
      updated_at: now.toISOString(),
    });

    expect(await audited()).toBe(auditBefore + 2);
  });

  it('refuses an unknown measure, a bad status or date, a viewer, and another mode’s or tenant’s measure stays apart', async () => {
    const rows = () => t.db.$queryRawUnsafe<{ n: number }[]>('SELECT count(*)::int AS n FROM plan_measures');
    const count = (await rows())[0]?.n;
    for (const bad of [
      { measure_id: 'storage.no_such_measure', status: 'done' },
      { measure_id: 'DROP TABLE', status: 'done' },
      { measure_id: 'storage.fefo_rotation', status: 'finished' },
      { measure_id: 'storage.fefo_rotation', due_on: '2026-02-30' },
      { measure_id: 'storage.fefo_rotation', owner: 'x'.repeat(121) },
      { measure_id: 'storage.fefo_rotation', owner: '   ' },
    ]) {
      expect(await failure(owner.mutate('plan.updateMeasure', { ...scope, lang: 'es', ...bad })), JSON.stringify(bad)).toMatchObject({
        status: 400,
      });
    }
    expect(
      await failure(viewer.mutate('plan.updateMeasure', { ...scope, lang: 'es', measure_id: 'storage.fefo_rotation', status: 'done' })),
    ).toMatchObject({
      status: 403,
    });
    expect((await rows())[0]?.n).toBe(count);

    // Live mode has no plan and no follow-up of its own yet.
    const live = await addKey(t.db, kitchen.establishmentId, 'live');
    expect((await api(t.app, live.key).get('/api/v1/prevention-plan/measures')).json().data).toEqual([]);
    const other = await createTenant(t.db);
    expect((await api(t.app, other.key).get('/api/v1/prevention-plan/measures')).json().data).toEqual([]);
    for (const query of ['?lang=fr', '?year=2026']) {
      const res = await api(t.app, kitchen.key).get(`/api/v1/prevention-plan/measures${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(errorBodyProblems(res), query).toEqual([]);
    }
  });
});

describe('staff training sessions', () => {
  it('records a session held today at the latest in Madrid, both sides of midnight, and lists a year’s', async () => {
    const audited = () =>
      t.db.auditEvent.count({
        where: { organization_id: kitchen.organizationId, action: { in: ['training_session.created', 'training_session.deleted'] } },
      });
    const auditBefore = await audited();
    const add = (held_on: string) =>
      owner.mutate('plan.addTrainingSession', { ...scope, held_on, topic: 'Rotación FEFO y etiquetado', attendees: 6, trainer: 'Ana' });
    // 10:00 UTC on 29 November: the 30th is tomorrow in Madrid.
    expect(await failure(add('2026-11-30'))).toMatchObject({ status: 400 });
    const today = await add('2026-11-29');
    expect(today).toMatchObject({
      held_on: '2026-11-29',
      topic: 'Rotación FEFO y etiquetado',
      attendees: 6,
      trainer: 'Ana',
      attendee_names: null,
    });
    // 23:30 UTC on 29 November is 00:30 on the 30th in Madrid: now the 30th is today.
    now = new Date('2026-11-29T23:30:00.000Z');
    try {
      expect(await add('2026-11-30')).toMatchObject({ held_on: '2026-11-30' });
      expect(await failure(add('2026-12-01'))).toMatchObject({ status: 400 });
    } finally {
      now = new Date('2026-11-29T10:00:00.000Z');
    }
    await add('2025-06-01');
    const listed = await api(t.app, kitchen.key).get('/api/v1/training-sessions');
    expect(listed.statusCode, listed.body).toBe(200);
    expect(listed.json().data.map((s: { held_on: string }) => s.held_on)).toEqual(expect.arrayContaining(['2026-11-29', '2026-11-30']));
    expect(
      listed
        .json()
        .data.map((s: { held_on: string }) => s.held_on)
        .every((d: string) => d.startsWith('2026-')),
    ).toBe(true);
    expect((await api(t.app, kitchen.key).get('/api/v1/training-sessions?year=2025')).json().data).toHaveLength(1);
    expect((await owner.query('plan.trainingSessions', { ...scope, year: 2026 })).map((s: { id: string }) => s.id)).toContain(today.id);

    for (const bad of [{ topic: '' }, { attendees: 0 }, { attendees: 1.5 }, { held_on: '2026-13-01' }, { trainer: 'x'.repeat(121) }]) {
      expect(
        await failure(owner.mutate('plan.addTrainingSession', { ...scope, held_on: '2026-11-01', topic: 'Mermas', attendees: 3, ...bad })),
        JSON.stringify(bad),
      ).toMatchObject({ status: 400 });
    }
    expect(
      await failure(viewer.mutate('plan.addTrainingSession', { ...scope, held_on: '2026-11-01', topic: 'Mermas', attendees: 3 })),
    ).toMatchObject({ status: 403 });

    // Deleted by mistake: gone; the live mode's key cannot see nor delete a test session.
    const removed = await owner.mutate('plan.deleteTrainingSession', { ...scope, id: (await add('2026-11-02')).id });
    expect((await api(t.app, kitchen.key).get('/api/v1/training-sessions')).json().data.map((s: { id: string }) => s.id)).not.toContain(
      removed.id,
    );
    expect(await failure(owner.mutate('plan.deleteTrainingSession', { ...scope, livemode: true, id: today.id }))).toMatchObject({
      status: 404,
    });
    const live = await addKey(t.db, kitchen.establishmentId, 'live');
    expect((await api(t.app, live.key).get('/api/v1/training-sessions')).json().data).toEqual([]);
    expect(await audited()).toBe(auditBefore + 5);
  });
});

describe('each plan version keeps its follow-up', () => {
  it('with its review date, the measures as they stood and the period’s training, in the answer and the document', async () => {
    await owner.mutate('plan.updateMeasure', { ...scope, measure_id: 'storage.fefo_rotation', lang: 'es', owner: 'Luis', status: 'done' });
    await owner.mutate('plan.addTrainingSession', { ...scope, held_on: '2026-10-15', topic: 'Pesar antes de tirar', attendees: 9 });
    const generated = await api(t.app, kitchen.key).post('/api/v1/prevention-plan', {});
    expect(generated.statusCode, generated.body).toBe(201);
    const followUp = generated.json().data.follow_up;
    expect(followUp.review_by).toBe('2027-11-29');
    expect(followUp.measures.map((m: { measure_id: string }) => m.measure_id)).toEqual(PROPOSED);
    expect(followUp.measures[0]).toMatchObject({ measure_id: 'storage.fefo_rotation', owner: 'Luis', due_on: null, status: 'done' });
    expect(followUp.measures[3]).toMatchObject({ measure_id: 'bakery.bake_to_forecast', owner: null, status: 'planned' });
    expect(followUp.training.map((s: { held_on: string }) => s.held_on)).toContain('2026-10-15');
    expect(followUp.training.map((s: { held_on: string }) => s.held_on)).not.toContain('2025-06-01');

    // Changed afterwards: the version keeps what stood that day; the list shows now.
    await owner.mutate('plan.updateMeasure', { ...scope, measure_id: 'storage.fefo_rotation', lang: 'es', status: 'dropped' });
    const document = (await api(t.app, kitchen.key).get(`/api/v1/prevention-plan?format=markdown`)).json().data;
    expect(document.follow_up.measures[0].status).toBe('done');
    expect(document.markdown).toContain('## Seguimiento del plan');
    expect(document.markdown).toContain('Revisión del plan, a más tardar: **29 de noviembre de 2027**.');
    expect(document.markdown).toMatch(/\| Rotar el género por fecha de caducidad[^|]*\| Luis \| — \| hecha \|/);
    expect(document.markdown).toContain('| 15 de octubre de 2026 | Pesar antes de tirar | — | 9 |');
    expect((await api(t.app, kitchen.key).get('/api/v1/prevention-plan/measures')).json().data[0].status).toBe('dropped');
  });
});
