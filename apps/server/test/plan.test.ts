import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  CAUSA_CADUCIDAD,
  createTenant,
  DESTINO_DONATION,
  DESTINO_LANDFILL,
  recordAt,
  startTestApp,
  type Tenant,
  type TestContext,
} from './helpers.js';

const NOW = new Date('2026-06-15T10:00:00.000Z');
let t: TestContext;
let tenant: Tenant;

beforeAll(async () => {
  t = await startTestApp({ clock: () => NOW });
  tenant = await createTenant(t.db);
  // 2025 is the first full calendar year (records from 1 January).
  await recordAt(t.db, tenant, '2025-01-01T12:00:00.000Z', { weight_kg: 40 });
  await recordAt(t.db, tenant, '2025-03-01T12:00:00.000Z', { weight_kg: 60 });
  // The last 12 months.
  const rows: [string, Record<string, unknown>][] = [
    ['2025-07-01T12:00:00.000Z', { weight_kg: 30, food_category: 'bakery', waste_stage: 'post_service', destino_id: DESTINO_DONATION }],
    [
      '2025-09-01T12:00:00.000Z',
      { weight_kg: 50, food_category: 'fruit_veg', waste_stage: 'storage', destino_id: DESTINO_LANDFILL, causa_id: CAUSA_CADUCIDAD },
    ],
    ['2026-01-10T12:00:00.000Z', { weight_kg: 15, food_category: 'bakery', waste_stage: 'post_service', destino_id: DESTINO_LANDFILL }],
    ['2026-06-14T12:00:00.000Z', { weight_kg: 5, food_category: 'dairy', destino_id: DESTINO_DONATION }],
  ];
  for (const [at, fields] of rows) await recordAt(t.db, tenant, at, fields);
});
afterAll(() => t?.close());

describe('prevention plan', () => {
  it('answers 404 before a plan exists', async () => {
    const other = await createTenant(t.db);
    expect((await api(t.app, other.key).get('/api/v1/prevention-plan')).statusCode).toBe(404);
  });

  it('generates a plan from the last 12 months and emits plan.generated', async () => {
    // An action without a body, as the SDK and `curl -X POST` send it.
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/prevention-plan', headers: { authorization: `Bearer ${tenant.key}` } });
    expect(res.statusCode).toBe(201);
    const plan = res.json().data;
    expect(plan.period).toEqual({ from: '2025-06-16', to: '2026-06-15' });
    expect(plan).toMatchObject({ total_kg: 100, total_records: 4, below_feed_kg: 65 });
    expect(plan.by_stage).toEqual([
      { key: 'storage', label: 'Almacenamiento', kg: 50, share: 0.5 },
      { key: 'post_service', label: 'Post-servicio', kg: 45, share: 0.45 },
      { key: 'none', label: 'Sin etapa registrada', kg: 5, share: 0.05 },
    ]);
    expect(plan.by_cause.find((c: { key: string }) => c.key === CAUSA_CADUCIDAD)).toMatchObject({ label: 'Caducidad', kg: 50 });
    expect(plan.destinations.map((d: { key: string }) => d.key)).toEqual([
      'human_consumption',
      'donation',
      'animal_feed',
      'industrial_byproducts',
      'composting',
      'energy_recovery',
      'landfill',
    ]);
    expect(plan.destinations.find((d: { key: string }) => d.key === 'landfill')).toMatchObject({ kg: 65, share: 0.65 });
    expect(plan.hotspots.slice(0, 2)).toMatchObject([
      { food_category: 'fruit_veg', waste_stage: 'storage', kg: 50 },
      { food_category: 'bakery', waste_stage: 'post_service', kg: 45 },
    ]);
    expect(plan.hotspots[0].measures.join(' ')).toMatch(/first-expired-first-out/);
    expect(plan.hotspots[1].measures.join(' ')).toMatch(/containers to take leftovers home/);
    expect(plan.target).toMatchObject({ baseline_year: 2025, baseline_kg: 180, target_2030_kg: 90, reduction: 0.5 }); // 40 + 60 + 30 + 50
    const events = await t.db.event.findMany({ where: { establishment_id: tenant.establishmentId, type: 'plan.generated' } });
    expect(events).toHaveLength(1);
    expect(await t.db.preventionPlan.count({ where: { establishment_id: tenant.establishmentId } })).toBe(1);
  });

  it('returns the latest plan, also as a printable Markdown document', async () => {
    const json = (await api(t.app, tenant.key).get('/api/v1/prevention-plan')).json().data;
    expect(json.total_kg).toBe(100);
    expect(json.markdown).toBeUndefined();
    const md = (await api(t.app, tenant.key).get('/api/v1/prevention-plan?format=markdown')).json().data.markdown as string;
    expect(md).toMatch(/^# Plan de prevención de pérdidas y desperdicio alimentario — Cocina/);
    expect(md).toContain('Ley 1/2025');
    expect(md).toContain('| 7 | Eliminación en vertedero | 65 kg | 65 % |');
    expect(md).toContain('objetivo 2030: 90 kg');
    expect((await api(t.app, tenant.key).get('/api/v1/prevention-plan?format=pdf')).statusCode).toBe(400);
  });

  it('generates under an Idempotency-Key (inside the request transaction) and replays it', async () => {
    const headers = { authorization: `Bearer ${tenant.key}`, 'idempotency-key': 'plan-2026-06' };
    const first = await t.app.inject({ method: 'POST', url: '/api/v1/prevention-plan', headers });
    const again = await t.app.inject({ method: 'POST', url: '/api/v1/prevention-plan', headers });
    expect(first.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().data.id).toBe(first.json().data.id);
  });

  it('has no baseline until a full calendar year of records exists', async () => {
    const fresh = await createTenant(t.db);
    await recordAt(t.db, fresh, '2026-02-01T12:00:00.000Z', { weight_kg: 3 });
    const plan = (await api(t.app, fresh.key).post('/api/v1/prevention-plan', {})).json().data;
    expect(plan.target).toMatchObject({ baseline_year: null, baseline_kg: null, target_2030_kg: null });
    expect(plan.target.note).toMatch(/not complete yet/);
  });
});
