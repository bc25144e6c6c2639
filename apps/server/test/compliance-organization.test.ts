import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorBodyProblems } from './contract.js';
import { createMember, DashboardBrowser, PASSWORD } from './dashboard-client.js';
import {
  addKey,
  api,
  createTenant,
  DESTINO_DONATION,
  DESTINO_LANDFILL,
  recordAt,
  startTestApp,
  type Tenant,
  type TestContext,
} from './helpers.js';

/**
 * A year's food waste of an organisation (modules/compliance/organization.ts): each establishment
 * against its own baseline, by stage, in all, and the ESRS E5-5 figures summed.
 *
 * The worked example, by hand (baseline 2021–2023, year 2026 to 29 November, test mode):
 *
 * | establishment            | stage (NACE)                  | baseline                          | 2026                                                     |
 * |--------------------------|-------------------------------|-----------------------------------|----------------------------------------------------------|
 * | A Comedor (56.29)        | food services, −30 %          | 2022: 100 D1; 2023: 80 R3 → 90    | 50 D1 estimated, 10 R3 weighed, 5 donated (not waste)    |
 * | B Obrador (10.71)        | processing, −10 %             | 2021: 200 R1 → 200                | 150 R1, method not said                                  |
 * | C Tienda (47.11)         | retail, −30 %                 | none (opened in 2026)             | 30 D1 written off (measured)                             |
 *
 * - by stage: food services 60 kg (measured 10, estimated 50) against 90 → −0.3333, target 90 × 0.7 = 63;
 *   processing 150 (not said 150) against 200 → −0.25, target 180; retail 30 (measured 30), no baseline, target null.
 * - in all: 240 kg (measured 40, estimated 50, not said 150); compared: A and B's 210 against 290 → −80/290 = −0.2759.
 * - ESRS: 245 kg in all, 5 not waste, 240 waste: recycling 10, other recovery 150 (diverted 160), landfill 80
 *   (disposal 80); non-recycled 230, 230/240 = 0.9583; measured share 40/240 = 0.1667.
 * - Not counted: 999 kg of A's live mode, and another organisation's 77 kg.
 */
let t: TestContext;
let a: Tenant;
let b: Tenant;
let c: Tenant;
let single: Tenant;
const COMPOSTING = '51a096c6-196d-41dd-a02a-968cbfa9803f';
const ENERGY = '76662c15-f435-457d-899c-2ff5d118da82';

beforeAll(async () => {
  t = await startTestApp({ config: { REDIS_URL: '' }, clock: () => new Date('2026-11-29T10:00:00.000Z') });
  a = await createTenant(t.db, { plan: 'enterprise_multi' });
  b = await createTenant(t.db, { organizationId: a.organizationId });
  c = await createTenant(t.db, { organizationId: a.organizationId });
  for (const [tenant, name, nace] of [
    [a, 'A Comedor', '56.29'],
    [b, 'B Obrador', '10.71'],
    [c, 'C Tienda', '47.11'],
  ] as const) {
    await t.db.$executeRawUnsafe(
      'UPDATE establishments SET name = $1, nace_code = $2 WHERE id = $3::uuid',
      name,
      nace,
      tenant.establishmentId,
    );
  }
  await recordAt(t.db, a, '2022-03-01T12:00:00.000Z', { food_category: 'prepared_meals', weight_kg: 100, destino_id: DESTINO_LANDFILL });
  await recordAt(t.db, a, '2023-03-01T12:00:00.000Z', { food_category: 'prepared_meals', weight_kg: 80, destino_id: COMPOSTING });
  await recordAt(t.db, a, '2026-03-01T12:00:00.000Z', {
    food_category: 'prepared_meals',
    weight_kg: 50,
    destino_id: DESTINO_LANDFILL,
    measurement_method: 'estimate',
  });
  await recordAt(t.db, a, '2026-04-01T12:00:00.000Z', {
    food_category: 'fruit_veg',
    weight_kg: 10,
    destino_id: COMPOSTING,
    measurement_method: 'direct_weighing',
  });
  await recordAt(t.db, a, '2026-05-01T12:00:00.000Z', { food_category: 'bakery', weight_kg: 5, destino_id: DESTINO_DONATION });
  await recordAt(
    t.db,
    a,
    '2026-05-01T12:00:00.000Z',
    { food_category: 'bakery', weight_kg: 999, destino_id: DESTINO_LANDFILL },
    { livemode: true },
  );
  await recordAt(t.db, b, '2021-06-01T12:00:00.000Z', { food_category: 'bakery', weight_kg: 200, destino_id: ENERGY });
  await recordAt(t.db, b, '2026-06-01T12:00:00.000Z', { food_category: 'bakery', weight_kg: 150, destino_id: ENERGY });
  await recordAt(t.db, c, '2026-07-01T12:00:00.000Z', {
    food_category: 'dairy',
    weight_kg: 30,
    destino_id: DESTINO_LANDFILL,
    measurement_method: 'write_off',
  });
  single = await createTenant(t.db);
  await recordAt(t.db, single, '2026-07-01T12:00:00.000Z', { food_category: 'dairy', weight_kg: 77, destino_id: DESTINO_LANDFILL });
});

afterAll(async () => {
  await t?.close();
});

const EXPECTED_BY_STAGE = [
  {
    stage: 'processing_manufacturing',
    establishments: 1,
    waste_kg: 150,
    measured_kg: 0,
    estimated_kg: 0,
    not_stated_kg: 150,
    baseline_kg: 200,
    compared_waste_kg: 150,
    change_share: -0.25,
    target: { reduction: 0.1, target_kg: 180 },
  },
  {
    stage: 'retail_distribution',
    establishments: 1,
    waste_kg: 30,
    measured_kg: 30,
    estimated_kg: 0,
    not_stated_kg: 0,
    baseline_kg: null,
    compared_waste_kg: null,
    change_share: null,
    target: { reduction: 0.3, target_kg: null },
  },
  {
    stage: 'food_services',
    establishments: 1,
    waste_kg: 60,
    measured_kg: 10,
    estimated_kg: 50,
    not_stated_kg: 0,
    baseline_kg: 90,
    compared_waste_kg: 60,
    change_share: -0.3333,
    target: { reduction: 0.3, target_kg: 63 },
  },
];

describe('GET /api/v1/compliance/organization', () => {
  it('sums the worked example by establishment, stage and in all, with ESRS E5-5, for an Enterprise Multi key', async () => {
    const res = await api(t.app, a.key).get('/api/v1/compliance/organization?year=2026');
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data;
    expect(data).toMatchObject({
      organization_id: a.organizationId,
      livemode: false,
      scope: 'organization',
      year: 2026,
      baseline: '2021-2023',
    });
    expect(
      data.establishments.map((e: { name: string; stage: string; waste_kg: number; change_share: number | null }) => [
        e.name,
        e.stage,
        e.waste_kg,
        e.change_share,
      ]),
    ).toEqual([
      ['A Comedor', 'food_services', 60, -0.3333],
      ['B Obrador', 'processing_manufacturing', 150, -0.25],
      ['C Tienda', 'retail_distribution', 30, null],
    ]);
    expect(data.establishments[0]).toMatchObject({
      establishment_id: a.establishmentId,
      complete: false,
      baseline_kg: 90,
      compared_waste_kg: 60,
    });
    expect(data.by_stage).toEqual(EXPECTED_BY_STAGE);
    expect(data.total).toEqual({
      waste_kg: 240,
      measured_kg: 40,
      estimated_kg: 50,
      not_stated_kg: 150,
      baseline_kg: 290,
      compared_waste_kg: 210,
      change_share: -0.2759,
    });
    expect(data.esrs).toEqual({
      livemode: false,
      year: 2026,
      total_kg: 245,
      not_waste_kg: 5,
      waste_kg: 240,
      diverted_from_disposal: { preparation_for_reuse_kg: 0, recycling_kg: 10, other_recovery_kg: 150, total_kg: 160 },
      directed_to_disposal: { incineration_kg: 0, landfill_kg: 80, other_disposal_kg: 0, total_kg: 80 },
      non_recycled_kg: 230,
      non_recycled_share: 0.9583,
      measurement: { measured_kg: 40, estimated_kg: 50, not_stated_kg: 150 },
      measured_share: 0.1667,
    });
  });

  it('reads another baseline on request, and gives a key of another plan its own establishment only', async () => {
    // First full year with records: A's is 2023 (its first record is of March 2022): 80 kg; B's 2022, without
    // records; C's 2027, not before 2026. So A alone is compared: 60 against 80 → −0.25.
    const first = await api(t.app, b.key).get('/api/v1/compliance/organization?year=2026&baseline=first_year');
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().data.total).toMatchObject({ waste_kg: 240, baseline_kg: 80, compared_waste_kg: 60, change_share: -0.25 });
    // An Enterprise key sees its establishment: the other organisation's 77 kg, nothing of this one's.
    const other = (await api(t.app, single.key).get('/api/v1/compliance/organization?year=2026')).json().data;
    expect(other.scope).toBe('establishment');
    expect(other.establishments.map((e: { establishment_id: string }) => e.establishment_id)).toEqual([single.establishmentId]);
    expect(other.total.waste_kg).toBe(77);
  });

  it('refuses a year not begun, an unknown baseline and an unknown parameter, and a key without analytics:read', async () => {
    for (const query of ['?year=2027', '?baseline=2019', '?year=abc', '?lang=es']) {
      const res = await api(t.app, a.key).get(`/api/v1/compliance/organization${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(errorBodyProblems(res), query).toEqual([]);
    }
    const limited = await addKey(t.db, a.establishmentId, 'test', 'records:read');
    expect((await api(t.app, limited.key).get('/api/v1/compliance/organization')).statusCode).toBe(403);
  });

  it('is the same in the dashboard for any member, a viewer included, and live mode is apart', async () => {
    const v = await createMember(t.db, a.organizationId, 'viewer');
    const viewer = new DashboardBrowser(t.app);
    await viewer.signIn(v.email, PASSWORD);
    const test = await viewer.query('compliance.organization', { livemode: false, year: 2026, baseline: '2021-2023' });
    expect(test.by_stage).toEqual(EXPECTED_BY_STAGE);
    const live = await viewer.query('compliance.organization', { livemode: true, year: 2026, baseline: '2021-2023' });
    expect(live.total.waste_kg).toBe(999);
    expect(live.establishments.map((e: { waste_kg: number }) => e.waste_kg)).toEqual([999, 0, 0]);
  });
});
