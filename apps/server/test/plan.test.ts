import { FOOD_CATEGORIES, PreventionPlanHistoryQuery, WASTE_STAGES } from '@merma/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { poolOf } from '../src/db/client.js';
import { sqlOfPool } from '../src/db/sql.js';
import { CAUSE_NAMES_EN, DESTINATION_NAMES_EN, FOOD_CATEGORY_LABELS } from '../src/modules/catalog/labels.js';
import { MEASURES_BY_CATEGORY, MEASURES_BY_STAGE } from '../src/modules/plan/measures.js';
import { generatePlan, getPlan, latestPlan, listPlans } from '../src/modules/plan/service.js';
import {
  addKey,
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

const MEASURES = [...Object.values(MEASURES_BY_STAGE), ...Object.values(MEASURES_BY_CATEGORY)].flat();
const CODES = [...FOOD_CATEGORIES, ...WASTE_STAGES];

/** The Spanish document holds no code and no English sentence. */
function expectSpanishOnly(md: string) {
  for (const code of CODES) expect(md, code).not.toMatch(new RegExp(`\\b${code}\\b`));
  for (const m of MEASURES) expect(md).not.toContain(m.en);
  expect(md).not.toMatch(/\b(the|and|of|by|to|in|Reduce|kg in|records?|Total recorded|No (shift|cause|stage))\b/);
}

/** The English document holds no code and no Spanish heading, label or sentence. */
function expectEnglishOnly(md: string) {
  for (const code of CODES.filter((c) => c.includes('_'))) expect(md, code).not.toContain(code);
  // Codes that are English words too must not stand for a label (a table cell, a hotspot's title).
  for (const code of CODES) expect(md, code).not.toMatch(new RegExp(`(\\| |\\d\\. )${code}\\b`));
  for (const m of MEASURES) expect(md).not.toContain(m.es);
  expect(md).not.toMatch(
    /Plan de prevención|Dónde se producen|Por categoría|Por causa|Por turno|Destino|Puntos críticos|Objetivo|Total registrado|Periodo|Generado|Sin (turno|causa|etapa)|Año base|Reducir|\b(del|las|los|por|registros|Recepción|Almacenamiento|Eliminación)\b/,
  );
}

/** Six records: 2025 is the first full calendar year (records from 1 January), four in the last 12 months. */
async function recordTheYear(who: Tenant) {
  await recordAt(t.db, who, '2025-01-01T12:00:00.000Z', { weight_kg: 40 });
  await recordAt(t.db, who, '2025-03-01T12:00:00.000Z', { weight_kg: 60 });
  const rows: [string, Record<string, unknown>][] = [
    ['2025-07-01T12:00:00.000Z', { weight_kg: 30, food_category: 'bakery', waste_stage: 'post_service', destino_id: DESTINO_DONATION }],
    [
      '2025-09-01T12:00:00.000Z',
      { weight_kg: 50, food_category: 'fruit_veg', waste_stage: 'storage', destino_id: DESTINO_LANDFILL, causa_id: CAUSA_CADUCIDAD },
    ],
    ['2026-01-10T12:00:00.000Z', { weight_kg: 15, food_category: 'bakery', waste_stage: 'post_service', destino_id: DESTINO_LANDFILL }],
    ['2026-06-14T12:00:00.000Z', { weight_kg: 5, food_category: 'prepared_meals', destino_id: DESTINO_DONATION }],
  ];
  for (const [at, fields] of rows) await recordAt(t.db, who, at, fields);
}

beforeAll(async () => {
  t = await startTestApp({ clock: () => NOW });
  // The tenant whose plan the reading tests read: its plan is made here, so every test finds it in
  // whatever order they run (the generating test below uses a tenant of its own).
  tenant = await createTenant(t.db);
  await recordTheYear(tenant);
  expect((await api(t.app, tenant.key).post('/api/v1/prevention-plan', {})).statusCode).toBe(201);
});
afterAll(() => t?.close());

describe('prevention plan', () => {
  it('answers 404 before a plan exists', async () => {
    const other = await createTenant(t.db);
    expect((await api(t.app, other.key).get('/api/v1/prevention-plan')).statusCode).toBe(404);
  });

  it('generates a plan from the last 12 months, in Spanish by default, and emits plan.generated', async () => {
    const own = await createTenant(t.db);
    await recordTheYear(own);
    // An action without a body, as the SDK and `curl -X POST` send it.
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/prevention-plan', headers: { authorization: `Bearer ${own.key}` } });
    expect(res.statusCode).toBe(201);
    const plan = res.json().data;
    expect(plan.lang).toBe('es');
    expect(plan.period).toEqual({ from: '2025-06-16', to: '2026-06-15' });
    expect(plan).toMatchObject({ total_kg: 100, total_records: 4, below_feed_kg: 65 });
    expect(plan.by_stage).toEqual([
      { key: 'storage', label: 'Almacenamiento', kg: 50, share: 0.5 },
      { key: 'post_service', label: 'Post-servicio', kg: 45, share: 0.45 },
      { key: 'none', label: 'Sin etapa registrada', kg: 5, share: 0.05 },
    ]);
    expect(plan.by_category).toEqual([
      { key: 'fruit_veg', label: 'Frutas y verduras', kg: 50, share: 0.5 },
      { key: 'bakery', label: 'Panadería y bollería', kg: 45, share: 0.45 },
      { key: 'prepared_meals', label: 'Platos preparados', kg: 5, share: 0.05 },
    ]);
    expect(plan.by_cause.find((c: { key: string }) => c.key === CAUSA_CADUCIDAD)).toMatchObject({ label: 'Caducidad', kg: 50 });
    expect(plan.by_cause.find((c: { key: string }) => c.key === 'none')).toMatchObject({ label: 'Sin causa registrada', kg: 50 });
    expect(plan.by_shift).toEqual([{ key: 'none', label: 'Sin turno', kg: 100, share: 1 }]);
    expect(plan.destinations.map((d: { key: string }) => d.key)).toEqual([
      'human_consumption',
      'donation',
      'animal_feed',
      'industrial_byproducts',
      'composting',
      'energy_recovery',
      'landfill',
    ]);
    expect(plan.destinations.find((d: { key: string }) => d.key === 'landfill')).toMatchObject({
      label: 'Eliminación en vertedero',
      kg: 65,
      share: 0.65,
    });
    expect(plan.hotspots.slice(0, 2)).toMatchObject([
      {
        food_category: 'fruit_veg',
        food_category_label: 'Frutas y verduras',
        waste_stage: 'storage',
        waste_stage_label: 'Almacenamiento',
        kg: 50,
      },
      { food_category: 'bakery', waste_stage: 'post_service', waste_stage_label: 'Post-servicio', kg: 45 },
    ]);
    expect(plan.hotspots[0].measures.join(' ')).toMatch(/lo primero que caduca, lo primero que sale/);
    expect(plan.hotspots[1].measures.join(' ')).toMatch(/envases reutilizables o reciclables/);
    expect(plan.target).toMatchObject({ baseline_year: 2025, baseline_kg: 180, target_2030_kg: 90, reduction: 0.5 }); // 40 + 60 + 30 + 50
    expect(plan.target.note).toBe(
      'Reducir el desperdicio alimentario un 50 % para 2030 respecto a 2025, el primer año natural completo con registros.',
    );
    const events = await t.db.event.findMany({ where: { establishment_id: own.establishmentId, type: 'plan.generated' } });
    expect(events).toHaveLength(1);
    expect(await t.db.preventionPlan.count({ where: { establishment_id: own.establishmentId } })).toBe(1);

    // Stored without words: codes, ids and figures, read in any language later.
    const stored = await t.db.preventionPlan.findUniqueOrThrow({ where: { id: plan.id } });
    const content = stored.content as Record<string, unknown>;
    expect(content.version).toBe(2);
    const text = JSON.stringify(content);
    expect(text).not.toMatch(/"label"|"measures"|"note"|Almacenamiento|Caducidad|vertedero|Sin turno/);
    expect((content.hotspots as { measure_ids: string[] }[])[0]?.measure_ids).toEqual([
      'storage.fefo_rotation',
      'storage.temperature_log',
      'storage.weekly_stock_review',
      'fruit_veg.imperfect_produce',
    ]);
  });

  it('answers in English with ?lang=en on POST (or lang in the body) and on GET', async () => {
    const en = await t.app.inject({
      method: 'POST',
      url: '/api/v1/prevention-plan?lang=en',
      headers: { authorization: `Bearer ${tenant.key}` },
    });
    expect(en.statusCode).toBe(201);
    const plan = en.json().data;
    expect(plan.lang).toBe('en');
    expect(plan.by_stage.map((s: { label: string }) => s.label)).toEqual(['Storage', 'Post-service', 'No stage recorded']);
    expect(plan.by_category.map((s: { label: string }) => s.label)).toEqual(['Fruit and vegetables', 'Bakery', 'Prepared meals']);
    expect(plan.by_cause.map((s: { label: string }) => s.label).sort()).toEqual(['No cause recorded', 'Past its date']);
    expect(plan.by_shift[0].label).toBe('No shift');
    expect(plan.destinations.map((d: { label: string }) => d.label)).toEqual(
      plan.destinations.map((d: { key: string }) => DESTINATION_NAMES_EN[d.key]),
    );
    expect(plan.hotspots[0]).toMatchObject({ food_category_label: 'Fruit and vegetables', waste_stage_label: 'Storage' });
    expect(plan.hotspots[0].measures[0]).toBe('Rotate stock first-expired-first-out and label every container with its opening date.');
    expect(plan.target.note).toBe('Reduce food waste by 50% by 2030 against 2025, the first full calendar year of records.');

    const inBody = await api(t.app, tenant.key).post('/api/v1/prevention-plan', { lang: 'en' });
    expect(inBody.statusCode).toBe(201);
    expect(inBody.json().data.by_stage[0].label).toBe('Storage');
    const same = await api(t.app, tenant.key).post('/api/v1/prevention-plan?lang=en', { lang: 'en' });
    expect(same.statusCode).toBe(201);

    const got = (await api(t.app, tenant.key).get('/api/v1/prevention-plan?lang=en')).json().data;
    // Every plan here has the same figures (and, under the fixed clock, the same generated_at).
    expect(got).toMatchObject({ lang: 'en', by_stage: plan.by_stage, hotspots: plan.hotspots });
    const es = (await api(t.app, tenant.key).get('/api/v1/prevention-plan?lang=es')).json().data;
    expect(es).toMatchObject({ id: got.id, lang: 'es' });
    expect(es.by_stage[0].label).toBe('Almacenamiento');
  });

  it('refuses an unknown language, and a language given differently in the query and the body', async () => {
    const client = api(t.app, tenant.key);
    const before = await t.db.preventionPlan.count({ where: { establishment_id: tenant.establishmentId } });
    expect((await client.post('/api/v1/prevention-plan?lang=fr', {})).statusCode).toBe(400);
    expect((await client.post('/api/v1/prevention-plan', { lang: 'fr' })).statusCode).toBe(400);
    const clash = await client.post('/api/v1/prevention-plan?lang=en', { lang: 'es' });
    expect(clash.statusCode).toBe(400);
    expect(clash.json().details).toEqual([{ path: 'lang', message: expect.any(String) }]);
    expect((await client.post('/api/v1/prevention-plan?year=2026', {})).statusCode).toBe(400);
    expect((await client.get('/api/v1/prevention-plan?lang=fr')).statusCode).toBe(400);
    expect(await t.db.preventionPlan.count({ where: { establishment_id: tenant.establishmentId } })).toBe(before);
  });

  it('writes the Markdown document in Spanish by default: headings, names, measures, numbers and dates', async () => {
    for (const url of ['/api/v1/prevention-plan?format=markdown', '/api/v1/prevention-plan?format=markdown&lang=es']) {
      const json = (await api(t.app, tenant.key).get(url)).json().data;
      const md = json.markdown as string;
      // A test key's plan is test data: the document says so before anything else.
      expect(md).toMatch(
        /^> \*\*TEST DATA \/ DATOS DE PRUEBA\*\* — Hecho con datos de prueba \(modo test\): no es el plan del establecimiento\.\n\n# Plan de prevención de pérdidas y desperdicio alimentario — Cocina \d+\n\n\*\*CIF:\*\* B\d{8}\n\n/,
      );
      expect(md).toContain('Ley 1/2025');
      expect(md).toContain('Periodo analizado: del 16 de junio de 2025 al 15 de junio de 2026.');
      expect(md).toContain('Generado el 15 de junio de 2026 a las 12:00.'); // Europe/Madrid
      expect(md).toContain('**Total registrado:** 100 kg en 4 registros.');
      expect(md).toContain('| Etapa | kg | % |');
      expect(md).toContain('| Frutas y verduras | 50 kg | 50 % |');
      expect(md).toContain('| Platos preparados | 5 kg | 5 % |');
      expect(md).toContain('| Sin turno | 100 kg | 100 % |');
      expect(md).toContain('| 7 | Eliminación en vertedero | 65 kg | 65 % |');
      expect(md).toContain('### 1. Frutas y verduras — Almacenamiento: 50 kg (50 %)');
      expect(md).toContain('- Registrar a diario la temperatura de cámaras y neveras y actuar ante cualquier desviación.');
      expect(md).toContain('Año base 2025: 180 kg; objetivo para 2030: 90 kg.');
      expectSpanishOnly(md);
    }
    const json = (await api(t.app, tenant.key).get('/api/v1/prevention-plan')).json().data;
    expect(json.total_kg).toBe(100);
    expect(json.markdown).toBeUndefined();
    expect((await api(t.app, tenant.key).get('/api/v1/prevention-plan?format=pdf')).statusCode).toBe(400);
  });

  it('writes the Markdown document in English with lang=en', async () => {
    const md = (await api(t.app, tenant.key).get('/api/v1/prevention-plan?format=markdown&lang=en')).json().data.markdown as string;
    expect(md).toMatch(
      /^> \*\*TEST DATA \/ DATOS DE PRUEBA\*\* — Made from test data \(test mode\): not the establishment’s plan\.\n\n# Food loss and waste prevention plan — Cocina \d+\n\n\*\*CIF \(tax id\):\*\* B\d{8}\n\n/,
    );
    expect(md).toContain('Period analysed: 16 June 2025 to 15 June 2026.');
    expect(md).toContain('Generated on 15 June 2026 at 12:00.');
    expect(md).toContain('**Total recorded:** 100 kg in 4 records.');
    expect(md).toContain('| Stage | kg | % |');
    expect(md).toContain('| Fruit and vegetables | 50 kg | 50% |');
    expect(md).toContain('| Prepared meals | 5 kg | 5% |');
    expect(md).toContain('| Past its date | 50 kg | 50% |');
    expect(md).toContain('| No shift | 100 kg | 100% |');
    expect(md).toContain('| 7 | Disposal in landfill | 65 kg | 65% |');
    expect(md).toContain('### 2. Bakery — Post-service: 45 kg (45%)');
    expect(md).toContain('Baseline year 2025: 180 kg; 2030 target: 90 kg.');
    expectEnglishOnly(md);
  });

  it("names the establishment's CIF, and marks test data only: a live key's document carries no marker", async () => {
    const live = await createTenant(t.db, { mode: 'live' });
    const establishment = await t.db.establishment.findUniqueOrThrow({ where: { id: live.establishmentId } });
    await t.db.establishment.update({ where: { id: live.establishmentId }, data: { cif: 'B87654321' } });
    await recordAt(t.db, live, '2026-05-01T12:00:00.000Z', { weight_kg: 3 }, { livemode: true });
    expect((await api(t.app, live.key).post('/api/v1/prevention-plan', {})).statusCode).toBe(201);
    for (const [lang, cif] of [
      ['es', '**CIF:** B87654321'],
      ['en', '**CIF (tax id):** B87654321'],
    ] as const) {
      const res = await api(t.app, live.key).get(`/api/v1/prevention-plan?format=markdown&lang=${lang}`);
      expect(res.statusCode).toBe(200);
      const md = res.json().data.markdown as string;
      expect(md.startsWith(`# `)).toBe(true);
      expect(md).toContain(`${establishment.name}\n\n${cif}\n\n`);
      expect(md).not.toContain('TEST DATA');
      expect(md).not.toContain('DATOS DE PRUEBA');
    }
    // The same establishment's test-mode plan is marked, in both languages whatever the document's.
    const testKey = await addKey(t.db, live.establishmentId, 'test');
    await recordAt(t.db, { ...live, key: testKey.key }, '2026-05-01T12:00:00.000Z', { weight_kg: 2 });
    expect((await api(t.app, testKey.key).post('/api/v1/prevention-plan', {})).statusCode).toBe(201);
    const md = (await api(t.app, testKey.key).get('/api/v1/prevention-plan?format=markdown')).json().data.markdown as string;
    expect(md.split('\n')[0]).toBe(
      '> **TEST DATA / DATOS DE PRUEBA** — Hecho con datos de prueba (modo test): no es el plan del establecimiento.',
    );
    expect(md).toContain('**CIF:** B87654321');
  });

  it('formats numbers as each language does', async () => {
    const fresh = await createTenant(t.db);
    await recordAt(t.db, fresh, '2026-05-01T12:00:00.000Z', { weight_kg: 1234.5, food_category: 'fish' });
    await recordAt(t.db, fresh, '2026-05-02T12:00:00.000Z', { weight_kg: 0.25, food_category: 'dairy', waste_stage: 'receiving' });
    await api(t.app, fresh.key).post('/api/v1/prevention-plan', {});
    const es = (await api(t.app, fresh.key).get('/api/v1/prevention-plan?format=markdown')).json().data.markdown as string;
    const en = (await api(t.app, fresh.key).get('/api/v1/prevention-plan?format=markdown&lang=en')).json().data.markdown as string;
    expect(es).toContain('| Pescado | 1234,5 kg | 100 % |');
    expect(es).toContain('| Lácteos | 0,3 kg | 0 % |');
    expect(en).toContain('| Fish | 1,234.5 kg | 100% |');
    expect(en).toContain('| Dairy | 0.3 kg | 0% |');
    expectSpanishOnly(es);
    expectEnglishOnly(en);
  });

  it('reads plans stored before labels were kept apart (Spanish labels, English measures) in either language', async () => {
    const fresh = await createTenant(t.db);
    const id = '0b9a4c1e-8f1f-4a51-9d6a-2a1e3c7b5d01';
    const legacy = {
      id,
      establishment_id: fresh.establishmentId,
      generated_at: '2026-03-01T09:30:00.000Z',
      period: { from: '2025-03-02', to: '2026-03-01' },
      total_kg: 20,
      total_records: 2,
      by_stage: [{ key: 'preparation', label: 'Preparación', kg: 20, share: 1 }],
      by_category: [{ key: 'prepared_meals', label: 'prepared_meals', kg: 20, share: 1 }],
      by_cause: [{ key: CAUSA_CADUCIDAD, label: 'Caducidad', kg: 20, share: 1 }],
      by_shift: [
        { key: '5d1b8c0e-3c4a-4b8e-9b1f-6f2d7e8a9c10', label: 'Cenas', kg: 12, share: 0.6 },
        { key: 'none', label: 'Sin turno', kg: 8, share: 0.4 },
      ],
      destinations: [
        { key: 'donation', label: 'Donación para consumo humano', orden: 2, es_recuperacion: true, kg: 20, share: 1 },
        { key: 'landfill', label: 'Eliminación en vertedero', orden: 7, es_recuperacion: false, kg: 0, share: 0 },
      ],
      below_feed_kg: 0,
      hotspots: [
        {
          food_category: 'prepared_meals',
          waste_stage: 'preparation',
          kg: 20,
          share: 1,
          measures: ['Standardise recipes and portions with written cards and scales at each station.'],
        },
      ],
      target: {
        baseline_year: null,
        baseline_kg: null,
        target_2030_kg: null,
        reduction: 0.5,
        note: 'The reduction target (50 % by 2030) is set against the first full calendar year of records, which is not complete yet.',
      },
    };
    await t.db.preventionPlan.create({
      data: {
        id,
        establishment_id: fresh.establishmentId,
        livemode: false,
        generated_at: new Date(legacy.generated_at),
        content: legacy,
        version: 1,
      },
    });

    const es = (await api(t.app, fresh.key).get('/api/v1/prevention-plan?format=markdown')).json().data;
    expect(es).toMatchObject({ id, lang: 'es', total_kg: 20, period: legacy.period });
    // Stored before versions were hashed: no digest, no predecessor, and no version section in the document.
    expect(es).toMatchObject({ version: 1, sha256: null, previous: null });
    expect(es.markdown).not.toContain('SHA-256');
    expect(es.by_category).toEqual([{ key: 'prepared_meals', label: 'Platos preparados', kg: 20, share: 1 }]);
    expect(es.by_shift.map((s: { label: string }) => s.label)).toEqual(['Cenas', 'Sin turno']);
    expect(es.hotspots[0].measures).toEqual(
      MEASURES_BY_STAGE.preparation.map((m) => m.es).concat(MEASURES_BY_CATEGORY.prepared_meals[0]?.es ?? []),
    );
    expect(es.target.note).toMatch(/^El objetivo de reducción \(un 50 % para 2030\)/);
    expectSpanishOnly(es.markdown);

    const en = (await api(t.app, fresh.key).get('/api/v1/prevention-plan?format=markdown&lang=en')).json().data;
    expect(en.by_stage[0].label).toBe('Preparation');
    expect(en.by_cause[0].label).toBe('Past its date');
    expect(en.by_shift.map((s: { label: string }) => s.label)).toEqual(['Cenas', 'No shift']);
    expect(en.destinations.map((d: { label: string }) => d.label)).toEqual(['Donation for human consumption', 'Disposal in landfill']);
    expect(en.hotspots[0].measures[0]).toBe(legacy.hotspots[0]?.measures[0]);
    expect(en.target.note).toMatch(/not complete yet/);
    expectEnglishOnly(en.markdown);
  });

  it('generates under an Idempotency-Key (inside the request transaction) and replays it', async () => {
    const headers = { authorization: `Bearer ${tenant.key}`, 'idempotency-key': 'plan-2026-06' };
    const first = await t.app.inject({ method: 'POST', url: '/api/v1/prevention-plan', headers });
    const again = await t.app.inject({ method: 'POST', url: '/api/v1/prevention-plan', headers });
    expect(first.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().data.id).toBe(first.json().data.id);
    // Another language is another request: the key cannot replay the Spanish answer for it.
    const otherLanguage = await t.app.inject({ method: 'POST', url: '/api/v1/prevention-plan?lang=en', headers });
    expect(otherLanguage.statusCode).toBe(409);
    const enHeaders = { ...headers, 'idempotency-key': 'plan-2026-06-en' };
    const byQuery = await t.app.inject({ method: 'POST', url: '/api/v1/prevention-plan?lang=en', headers: enHeaders });
    const byBody = await api(t.app, tenant.key).post('/api/v1/prevention-plan', { lang: 'en' }, { headers: enHeaders });
    expect(byQuery.statusCode).toBe(201);
    expect(byBody.headers['idempotent-replayed']).toBe('true');
    expect(byBody.json().data).toMatchObject({ id: byQuery.json().data.id, lang: 'en' });
  });

  it('has no baseline until a full calendar year of records exists', async () => {
    const fresh = await createTenant(t.db);
    await recordAt(t.db, fresh, '2026-02-01T12:00:00.000Z', { weight_kg: 3 });
    const plan = (await api(t.app, fresh.key).post('/api/v1/prevention-plan', {})).json().data;
    expect(plan.target).toMatchObject({ baseline_year: null, baseline_kg: null, target_2030_kg: null });
    expect(plan.target.note).toMatch(/aún no ha terminado/);
    const en = (await api(t.app, fresh.key).post('/api/v1/prevention-plan?lang=en', {})).json().data;
    expect(en.target.note).toMatch(/not complete yet/);
  });

  it('names every category, stage, cause and destination in both languages', async () => {
    for (const category of FOOD_CATEGORIES) {
      expect(FOOD_CATEGORY_LABELS[category].es).not.toBe(FOOD_CATEGORY_LABELS[category].en);
    }
    for (const m of MEASURES) {
      expect(m.es.length, m.id).toBeGreaterThan(20);
      expect(m.en.length, m.id).toBeGreaterThan(20);
      expect(m.es).not.toBe(m.en);
    }
    expect(new Set(MEASURES.map((m) => m.id)).size).toBe(MEASURES.length);
    const causes = await t.db.cause.findMany();
    expect(causes.filter((c) => !CAUSE_NAMES_EN[c.id]).map((c) => c.nombre)).toEqual([]);
    const destinations = await t.db.destination.findMany();
    expect(destinations.filter((d) => !DESTINATION_NAMES_EN[d.code]).map((d) => d.nombre)).toEqual([]);
  });
});

describe('plan history (service)', () => {
  it('lists the plans newest first, page by page, and reads any of them in either language', async () => {
    const fresh = await createTenant(t.db);
    const scope = { establishmentId: fresh.establishmentId, livemode: false, timezone: 'Europe/Madrid' };
    await recordAt(t.db, fresh, '2026-01-15T12:00:00.000Z', { weight_kg: 2, food_category: 'meat' });
    const sql = sqlOfPool(poolOf(t.db));
    const at = ['2026-04-01T08:00:00.000Z', '2026-05-01T08:00:00.000Z', '2026-06-01T08:00:00.000Z'];
    const ids: string[] = [];
    for (const when of at) ids.push((await generatePlan({ db: t.db, sql, clock: () => new Date(when) }, scope)).id);
    // Another mode's plan is not this scope's.
    const live = await generatePlan({ db: t.db, sql, clock: () => new Date(at[2] as string) }, { ...scope, livemode: true }, 'en');

    const first = await listPlans(sql, scope, { limit: 2 });
    expect(first.data.map((p) => p.id)).toEqual([ids[2], ids[1]]);
    expect(first.data[0]).toEqual({
      id: ids[2],
      generated_at: '2026-06-01T08:00:00.000Z',
      period: { from: '2025-06-02', to: '2026-06-01' },
      total_kg: 2,
      total_records: 1,
      version: 3,
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await listPlans(sql, scope, PreventionPlanHistoryQuery.parse({ limit: 2, cursor: first.next_cursor ?? undefined }));
    expect(second).toEqual({
      data: [expect.objectContaining({ id: ids[0], generated_at: '2026-04-01T08:00:00.000Z' })],
      next_cursor: null,
    });
    expect(PreventionPlanHistoryQuery.safeParse({ limit: 2, cursor: 'not-a-cursor' }).error?.issues[0]?.path).toEqual(['cursor']);

    const old = await getPlan(sql, scope, ids[0] as string, 'en', 'markdown');
    expect(old).toMatchObject({ id: ids[0], lang: 'en', by_category: [{ key: 'meat', label: 'Meat' }] });
    expect(old.markdown).toContain('Generated on 1 April 2026 at 10:00.');
    expect((await getPlan(sql, scope, ids[0] as string, 'es', 'json')).by_category[0]?.label).toBe('Carne');
    expect((await latestPlan(sql, scope, 'es', 'json')).id).toBe(ids[2]);
    await expect(getPlan(sql, scope, live.id, 'es', 'json')).rejects.toMatchObject({ code: 'not_found' });
    await expect(getPlan(sql, scope, 'nope', 'es', 'json')).rejects.toMatchObject({ code: 'not_found' });
    const otherTenant = await createTenant(t.db);
    await expect(
      getPlan(sql, { ...scope, establishmentId: otherTenant.establishmentId }, ids[0] as string, 'es', 'json'),
    ).rejects.toMatchObject({ code: 'not_found' });
  });
});
