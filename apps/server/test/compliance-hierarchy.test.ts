import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorBodyProblems } from './contract.js';
import {
  addKey,
  api,
  countRecords,
  createTenant,
  DESTINO_DONATION,
  DESTINO_LANDFILL,
  recordAt,
  startTestApp,
  type Tenant,
  type TestContext,
  validRecord,
} from './helpers.js';

/**
 * The order of priorities kept in writing (Ley 1/2025 art. 5.2; modules/compliance/hierarchy.ts):
 * `hierarchy_reason` and `hierarchy_note` on records, and `GET /compliance/hierarchy`.
 *
 * Worked example, by hand (a kitchen in Madrid, test mode, clock 29 November 2026):
 *   bakery 2026: donated 4 kg (10 March) → its best step is donation (orden 2);
 *     below it: composted 2 kg (1 May, no reason), landfilled 1 kg (1 June, "no_taker"),
 *     animal feed 3 kg (1 July, "too_little"), landfilled 0.5 kg at 00:30 on 1 January in Madrid
 *     (23:30 UTC on 31 December 2025; no reason), and 9 kg landfilled then corrected to compost
 *     with "other" and a note (the original no longer counts; the correction does).
 *   meat 2026: composted 5 kg (1 April) → best composting; landfilled 2 kg (2 April, no reason).
 *   fish 2026: landfilled 1 kg only → its best is landfill itself: nothing below.
 *   Below best: 2 + 1 + 3 + 0.5 + 9 + 2 = 17.5 kg in 6 records; justified 1 + 3 + 9 = 13 kg in 3
 *   (other 9, too_little 3, no_taker 1); unjustified 3, newest first: bakery 1 May, meat 2 April,
 *   bakery 1 January.
 *   bakery 2025: landfilled 7 kg (1 June) and donated 1 kg at 23:30 on 31 December in Madrid →
 *   2025's best is donation and the 7 kg are below it, unjustified.
 *   Not counted anywhere above: 20 kg of live records landfilled, and another kitchen's 30 kg.
 */
const ANIMAL_FEED = 'c780cb3f-4952-4d92-8452-ab822aef0640';
const COMPOSTING = '51a096c6-196d-41dd-a02a-968cbfa9803f';

let t: TestContext;
let kitchen: Tenant;
const ids: Record<string, string> = {};

beforeAll(async () => {
  t = await startTestApp({ clock: () => new Date('2026-11-29T10:00:00.000Z') });
  kitchen = await createTenant(t.db);
  const at = (when: string, name: string, fields: Record<string, unknown>) =>
    recordAt(t.db, kitchen, when, fields).then((r) => {
      ids[name] = r.id;
    });
  await at('2026-03-10T12:00:00.000Z', 'bread donated', { food_category: 'bakery', weight_kg: 4, destino_id: DESTINO_DONATION });
  await at('2026-05-01T12:00:00.000Z', 'bread composted', { food_category: 'bakery', weight_kg: 2, destino_id: COMPOSTING });
  await at('2026-06-01T12:00:00.000Z', 'bread landfilled', {
    food_category: 'bakery',
    weight_kg: 1,
    destino_id: DESTINO_LANDFILL,
    hierarchy_reason: 'no_taker',
  });
  await at('2026-07-01T12:00:00.000Z', 'bread fed', {
    food_category: 'bakery',
    weight_kg: 3,
    destino_id: ANIMAL_FEED,
    hierarchy_reason: 'too_little',
  });
  await at('2025-12-31T23:30:00.000Z', 'bread on New Year', { food_category: 'bakery', weight_kg: 0.5, destino_id: DESTINO_LANDFILL });
  await at('2026-08-01T12:00:00.000Z', 'bread corrected', { food_category: 'bakery', weight_kg: 9, destino_id: DESTINO_LANDFILL });
  await at('2026-04-01T12:00:00.000Z', 'meat composted', { food_category: 'meat', weight_kg: 5, destino_id: COMPOSTING });
  await at('2026-04-02T12:00:00.000Z', 'meat landfilled', { food_category: 'meat', weight_kg: 2, destino_id: DESTINO_LANDFILL });
  await at('2026-04-03T12:00:00.000Z', 'fish landfilled', { food_category: 'fish', weight_kg: 1, destino_id: DESTINO_LANDFILL });
  await at('2025-06-01T12:00:00.000Z', 'bread 2025', { food_category: 'bakery', weight_kg: 7, destino_id: DESTINO_LANDFILL });
  await at('2025-12-31T22:30:00.000Z', 'bread donated 2025', { food_category: 'bakery', weight_kg: 1, destino_id: DESTINO_DONATION });
  // The 9 kg are corrected: composted, with a reason in the kitchen's words.
  const corrected = await api(t.app, kitchen.key).post('/api/v1/webhooks/inbound', {
    event: 'waste.updated',
    payload: {
      source: 'erp',
      external_id: 'h-1',
      record_id: ids['bread corrected'],
      destino_id: COMPOSTING,
      hierarchy_reason: 'other',
      hierarchy_note: 'Pan con moho: no apto para el banco de alimentos',
    },
  });
  expect(corrected.statusCode, corrected.body).toBeLessThan(300);
  // Another mode and another kitchen, below anything.
  await recordAt(
    t.db,
    kitchen,
    '2026-05-01T12:00:00.000Z',
    { food_category: 'bakery', weight_kg: 20, destino_id: DESTINO_LANDFILL },
    { livemode: true },
  );
  const other = await createTenant(t.db);
  await recordAt(t.db, other, '2026-05-01T12:00:00.000Z', { food_category: 'bakery', weight_kg: 30, destino_id: DESTINO_LANDFILL });
  await recordAt(t.db, other, '2026-05-01T12:00:00.000Z', { food_category: 'meat', weight_kg: 1, destino_id: DESTINO_DONATION });
});
afterAll(() => t?.close());

const report = (query = '') => api(t.app, kitchen.key).get(`/api/v1/compliance/hierarchy${query}`);

describe('the order of priorities in writing', () => {
  it('finds the records below their category’s best step, and which are justified, as worked by hand', async () => {
    const res = await report('?year=2026');
    expect(res.statusCode, res.body).toBe(200);
    const h = res.json().data;
    expect(h).toEqual({
      establishment_id: kitchen.establishmentId,
      livemode: false,
      year: 2026,
      period: { from: '2026-01-01', to: '2026-11-29' },
      best_by_category: [
        { food_category: 'bakery', destino_id: DESTINO_DONATION, code: 'donation' },
        { food_category: 'fish', destino_id: DESTINO_LANDFILL, code: 'landfill' },
        { food_category: 'meat', destino_id: COMPOSTING, code: 'composting' },
      ],
      below_best: { records: 6, kg: 17.5 },
      justified: { records: 3, kg: 13 },
      by_reason: [
        { reason: 'other', records: 1, kg: 9 },
        { reason: 'too_little', records: 1, kg: 3 },
        { reason: 'no_taker', records: 1, kg: 1 },
      ],
      unjustified_count: 3,
      unjustified: [
        {
          id: ids['bread composted'],
          occurred_at: '2026-05-01T12:00:00.000Z',
          food_category: 'bakery',
          weight_kg: 2,
          destino_id: COMPOSTING,
          best_destino_id: DESTINO_DONATION,
        },
        {
          id: ids['meat landfilled'],
          occurred_at: '2026-04-02T12:00:00.000Z',
          food_category: 'meat',
          weight_kg: 2,
          destino_id: DESTINO_LANDFILL,
          best_destino_id: COMPOSTING,
        },
        {
          id: ids['bread on New Year'],
          occurred_at: '2025-12-31T23:30:00.000Z',
          food_category: 'bakery',
          weight_kg: 0.5,
          destino_id: DESTINO_LANDFILL,
          best_destino_id: DESTINO_DONATION,
        },
      ],
    });
    // The current year by default.
    expect((await report()).json().data).toEqual(h);
  });

  it('is grouped by reason in the prevention plan generated now, in its language, and in its document', async () => {
    const generated = await api(t.app, kitchen.key).post('/api/v1/prevention-plan?lang=en', {});
    expect(generated.statusCode, generated.body).toBe(201);
    // The same worked example, counts only; each reason with its words.
    expect(generated.json().data.hierarchy).toEqual({
      year: 2026,
      below_best: { records: 6, kg: 17.5 },
      justified: { records: 3, kg: 13 },
      by_reason: [
        { reason: 'other', label: 'Another reason', records: 1, kg: 9 },
        { reason: 'too_little', label: 'Too little to be collected', records: 1, kg: 3 },
        { reason: 'no_taker', label: 'No entity or collector takes it', records: 1, kg: 1 },
      ],
      unjustified_count: 3,
    });
    // Stored as codes: the same version read in Spanish, as a document.
    const es = (await api(t.app, kitchen.key).get('/api/v1/prevention-plan?format=markdown')).json().data;
    expect(es.id).toBe(generated.json().data.id);
    expect(es.hierarchy.by_reason.map((r: { label: string }) => r.label)).toEqual([
      'Otro motivo',
      'Cantidad demasiado pequeña para recogerla',
      'Ninguna entidad o gestor lo recoge',
    ]);
    expect(es.markdown).toContain('## Jerarquía de prioridades: justificaciones (art. 5.2), 2026');
    expect(es.markdown).toContain('| Otro motivo | 1 | 9 kg |');
    expect(es.markdown).toContain('Sin justificar todavía: **3**');
  });

  it('counts a record in the year of its local day, both sides of New Year’s midnight', async () => {
    const h = (await report('?year=2025')).json().data;
    expect(h).toMatchObject({
      best_by_category: [{ food_category: 'bakery', destino_id: DESTINO_DONATION }],
      below_best: { records: 1, kg: 7 },
      justified: { records: 0, kg: 0 },
      unjustified_count: 1,
      unjustified: [{ id: ids['bread 2025'] }],
    });
  });

  it('justifying a record by correcting it takes it off the list (a kitchen of its own: tests run shuffled)', async () => {
    const own = await createTenant(t.db);
    await recordAt(t.db, own, '2026-05-01T12:00:00.000Z', { food_category: 'meat', weight_kg: 1, destino_id: DESTINO_DONATION });
    const low = await recordAt(t.db, own, '2026-05-02T12:00:00.000Z', {
      food_category: 'meat',
      weight_kg: 2,
      destino_id: DESTINO_LANDFILL,
    });
    const client = api(t.app, own.key);
    const read = async () => (await client.get('/api/v1/compliance/hierarchy?year=2026')).json().data;
    expect(await read()).toMatchObject({ below_best: { records: 1, kg: 2 }, justified: { records: 0, kg: 0 }, unjustified_count: 1 });
    const res = await client.post('/api/v1/webhooks/inbound', {
      event: 'waste.updated',
      payload: { source: 'erp', external_id: 'h-2', record_id: low.id, hierarchy_reason: 'unfit_for_people' },
    });
    expect(res.statusCode, res.body).toBeLessThan(300);
    expect(await read()).toMatchObject({
      below_best: { records: 1, kg: 2 },
      justified: { records: 1, kg: 2 },
      by_reason: [{ reason: 'unfit_for_people', records: 1, kg: 2 }],
      unjustified_count: 0,
      unjustified: [],
    });
    const stored = await t.db.record.findFirstOrThrow({ where: { supersedes_id: low.id } });
    expect(stored).toMatchObject({ hierarchy_reason: 'unfit_for_people', hierarchy_note: null });
  });

  it('refuses a reason "other" without its note, an unknown reason and a bad year with a 400, and writes nothing', async () => {
    const client = api(t.app, kitchen.key);
    const before = await countRecords(t.db, kitchen.establishmentId);
    for (const [fields, path] of [
      [{ hierarchy_reason: 'other' }, 'hierarchy_note'],
      [{ hierarchy_reason: 'other', hierarchy_note: '' }, 'hierarchy_note'],
      [{ hierarchy_reason: 'because' }, 'hierarchy_reason'],
      [{ hierarchy_reason: 'no_taker', hierarchy_note: 'x'.repeat(501) }, 'hierarchy_note'],
    ] as const) {
      const res = await client.post('/api/v1/records', validRecord(fields));
      expect(res.statusCode, JSON.stringify(fields)).toBe(400);
      expect(res.json().details, JSON.stringify(fields)).toContainEqual(expect.objectContaining({ path }));
    }
    expect(await countRecords(t.db, kitchen.establishmentId)).toBe(before);
    for (const q of ['?year=1999', '?year=abc', '?from=2026-01-01']) {
      const res = await report(q);
      expect(res.statusCode, q).toBe(400);
      expect(errorBodyProblems(res), q).toEqual([]);
    }
  });

  it('reads each mode and kitchen apart: the live key sees its own 20 kg and nothing of test mode', async () => {
    const live = await addKey(t.db, kitchen.establishmentId, 'live');
    const h = (await api(t.app, live.key).get('/api/v1/compliance/hierarchy?year=2026')).json().data;
    expect(h).toMatchObject({
      livemode: true,
      best_by_category: [{ food_category: 'bakery', destino_id: DESTINO_LANDFILL }],
      below_best: { records: 0, kg: 0 },
      unjustified_count: 0,
    });
  });
});
