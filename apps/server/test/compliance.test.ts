import { deadline } from '@merma/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Facts, obligationsOf } from '../src/modules/compliance/obligations.js';
import { errorBodyProblems } from './contract.js';
import { type DashboardBrowser as Browser, createMember, DashboardBrowser, failure, PASSWORD } from './dashboard-client.js';
import { api, createTenant, startTestApp, type Tenant, type TestContext } from './helpers.js';

/**
 * "Am I obliged?" (modules/compliance): Ley 1/2025's prevention plan (art. 6.4.a) and donation
 * agreements (art. 6.4.b) for one establishment, from its company's size (microenterprise,
 * art. 3.f and 6.6), its activity (NACE class → 2019/1597 stage) and its floor area (1,300 m²,
 * art. 6.4.c, per site and summed under the CIF); the hierarchy (art. 5) always.
 *
 * Worked examples, by hand:
 * - A canteen company (56.29): 45 staff, turnover €3.2 M → not a microenterprise (45 ≥ 10). Its
 *   canteen has 400 m²; a second canteen under the same CIF has 1,100 m²: 400 + 1,100 = 1,500 m²
 *   > 1,300 → both are obliged (over_area), though each site alone is small.
 * - A bakery workshop (10.71) of 8 staff, turnover €2.5 M but balance sheet €1.8 M → a
 *   microenterprise (8 < 10, and the balance sheet ≤ €2 M is enough) → not obliged, at any size.
 * - The same with a balance sheet of €2.5 M → not a microenterprise; 2,000 m² → obliged.
 * - A vegetable farm (01.13) of 20 staff → obliged whatever its area (primary production has no
 *   area exception).
 */

const NOW = new Date('2026-11-29T10:00:00.000Z');
let now = NOW;
let t: TestContext;

beforeAll(async () => {
  t = await startTestApp({ config: { TRUST_PROXY: 'true', REDIS_URL: '' }, clock: () => now });
}, deadline(60_000));
afterAll(() => t?.close());

const size = (headcount: number | null, annual_turnover_eur: number | null, balance_sheet_eur: number | null) => ({
  headcount,
  annual_turnover_eur,
  balance_sheet_eur,
});

async function setSize(tenant: Tenant, s: ReturnType<typeof size>) {
  await t.db.$executeRawUnsafe(
    'UPDATE organizations SET headcount = $2, annual_turnover_eur = $3, balance_sheet_eur = $4 WHERE id = $1::uuid',
    tenant.organizationId,
    s.headcount,
    s.annual_turnover_eur,
    s.balance_sheet_eur,
  );
}

const patch = (tenant: Tenant, body: Record<string, unknown>, id = tenant.establishmentId) =>
  t.app.inject({
    method: 'PATCH',
    url: `/api/v1/establishments/${id}`,
    headers: { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
const obligations = async (tenant: Tenant, lang = 'en') => {
  const res = await api(t.app, tenant.key).get(`/api/v1/compliance/obligations?lang=${lang}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
};
const applies = (answer: { obligations: { key: string; applies: string; reason: string }[] }) =>
  Object.fromEntries(answer.obligations.map((o) => [o.key, `${o.applies}:${o.reason}`]));

/** A second establishment of the tenant's organisation under the same CIF, with a key of its own. */
async function sibling(tenant: Tenant): Promise<Tenant> {
  const other = await createTenant(t.db, { organizationId: tenant.organizationId });
  const [row] = await t.db.$queryRawUnsafe<{ cif: string }[]>('SELECT cif FROM establishments WHERE id = $1::uuid', tenant.establishmentId);
  const cif = row?.cif as string;
  // Written as a tax form would, with spaces and a dash: the same CIF.
  await t.db.$executeRawUnsafe(
    'UPDATE establishments SET cif = $2 WHERE id = $1::uuid',
    other.establishmentId,
    `${cif.slice(0, 1)} ${cif.slice(1, 5)}-${cif.slice(5)}`,
  );
  return other;
}

describe('am I obliged? (the worked examples, through the API)', () => {
  it('a canteen company of 45 staff: each canteen small, the CIF over 1,300 m² together → obliged', async () => {
    const canteen = await createTenant(t.db);
    await setSize(canteen, size(45, 3_200_000, null));
    expect((await patch(canteen, { nace_code: '5629', floor_area_m2: 400 })).json().data).toMatchObject({
      nace_code: '56.29',
      stage: 'food_services',
      floor_area_m2: 400,
    });
    // Alone: 400 m² → the art. 6.4.c exception.
    expect(applies(await obligations(canteen))).toEqual({
      prevention_plan: 'no:small_premises',
      donation_agreements: 'no:small_premises',
      hierarchy: 'yes:every_agent',
    });
    const second = await sibling(canteen);
    // A sibling without an area: the CIF's total is unknown, so is the answer.
    const unknown = await obligations(canteen);
    expect(applies(unknown).prevention_plan).toBe('unknown:area_missing');
    expect(unknown.missing).toEqual(['cif_floor_area_m2']);
    expect(unknown.cif).toMatchObject({ establishments: 2, floor_area_m2: null });
    expect((await patch(second, { nace_code: '56.29', floor_area_m2: 1100 })).statusCode).toBe(200);
    const answer = await obligations(canteen);
    expect(answer.cif).toMatchObject({ establishments: 2, floor_area_m2: 1500 });
    expect(answer.organization).toEqual({ headcount: 45, annual_turnover_eur: 3_200_000, balance_sheet_eur: null, microenterprise: false });
    expect(answer.establishment).toEqual({
      nace_code: '56.29',
      nace_label: 'Other food service activities (canteens and contract catering)',
      stage: 'food_services',
      floor_area_m2: 400,
    });
    expect(applies(answer)).toEqual({
      prevention_plan: 'yes:over_area',
      donation_agreements: 'yes:over_area',
      hierarchy: 'yes:every_agent',
    });
    expect(answer.obligations[0].articles).toEqual([
      'Ley 1/2025, art. 6.4.a',
      'Ley 1/2025, art. 6.4.c',
      'Ley 1/2025, art. 20.2.b.1º',
      'Ley 1/2025, art. 21',
    ]);
    expect(answer.missing).toEqual([]);
    // In Spanish, every word.
    const es = await obligations(canteen, 'es');
    expect(es.obligations[0].text).toBe(
      'Plan de prevención de las pérdidas y el desperdicio alimentario. Obligado: el establecimiento, o la suma de los del mismo CIF, supera los 1.300 m², y la empresa no es una microempresa. No tenerlo estando obligado es una infracción grave (multa de 2.001 a 60.000 euros).',
    );
    expect(es.establishment.nace_label).toBe('Otros servicios de comidas (comedores colectivos y catering)');
  });

  it('a bakery workshop of 8 staff: a microenterprise by its balance sheet → not obliged at any size; not one with both over €2 M', async () => {
    const bakery = await createTenant(t.db);
    await setSize(bakery, size(8, 2_500_000, 1_800_000));
    await patch(bakery, { nace_code: '10.71', floor_area_m2: 2000 });
    const answer = await obligations(bakery);
    expect(answer.organization.microenterprise).toBe(true);
    expect(answer.establishment.stage).toBe('processing_manufacturing');
    expect(applies(answer).prevention_plan).toBe('no:microenterprise');
    expect(answer.obligations[0].articles).toEqual(['Ley 1/2025, art. 6.4.a', 'Ley 1/2025, art. 3.f', 'Ley 1/2025, art. 6.6']);
    await setSize(bakery, size(8, 2_500_000, 2_500_000));
    expect(applies(await obligations(bakery)).prevention_plan).toBe('yes:over_area');
  });

  it('a farm of 20 staff: primary production has no area exception', async () => {
    const farm = await createTenant(t.db);
    await setSize(farm, size(20, 5_000_000, 4_000_000));
    await patch(farm, { nace_code: '01.13', floor_area_m2: 50 });
    const answer = await obligations(farm);
    expect(answer.establishment.stage).toBe('primary_production');
    expect(applies(answer).prevention_plan).toBe('yes:primary_production');
  });

  it('says what is missing, and answers unknown until it is given', async () => {
    const fresh = await createTenant(t.db);
    const answer = await obligations(fresh);
    expect(answer.missing).toEqual(['headcount', 'annual_turnover_eur', 'balance_sheet_eur', 'nace_code', 'floor_area_m2']);
    expect(answer.organization.microenterprise).toBeNull();
    expect(answer.establishment).toEqual({ nace_code: null, nace_label: null, stage: null, floor_area_m2: null });
    expect(applies(answer)).toEqual({
      prevention_plan: 'unknown:size_missing',
      donation_agreements: 'unknown:size_missing',
      hierarchy: 'yes:every_agent',
    });
  });
});

describe('the edges, both sides', () => {
  const base: Facts = {
    establishmentId: '00000000-0000-4000-8000-000000000001',
    asOf: '2026-11-29',
    size: size(45, 3_000_000, 3_000_000),
    naceCode: '56.10',
    floorArea: 1300,
    cif: { cif: 'B12345678', establishments: 1, floor_area_m2: 1300 },
  };
  const plan = (facts: Partial<Facts>) => obligationsOf({ ...base, ...facts }, 'en').obligations[0];

  it('1,300 m² is excepted, 1,300.01 m² is not; per site and per CIF', () => {
    expect(plan({})).toMatchObject({ applies: 'no', reason: 'small_premises' });
    expect(plan({ floorArea: 1300.01, cif: { ...base.cif, floor_area_m2: 1300.01 } })).toMatchObject({
      applies: 'yes',
      reason: 'over_area',
    });
    expect(plan({ floorArea: 600, cif: { ...base.cif, establishments: 2, floor_area_m2: 1300 } })).toMatchObject({ applies: 'no' });
    expect(plan({ floorArea: 600, cif: { ...base.cif, establishments: 2, floor_area_m2: 1300.5 } })).toMatchObject({ applies: 'yes' });
  });

  it('9 staff is a microenterprise (with €2 M), 10 is not; €2,000,000 is, €2,000,000.01 is not', () => {
    const big = { floorArea: 5000, cif: { ...base.cif, floor_area_m2: 5000 } };
    expect(plan({ ...big, size: size(9, 2_000_000, null) })).toMatchObject({ applies: 'no', reason: 'microenterprise' });
    expect(plan({ ...big, size: size(10, 2_000_000, 1) })).toMatchObject({ applies: 'yes', reason: 'over_area' });
    expect(plan({ ...big, size: size(9, 2_000_000.01, 2_000_000.01) })).toMatchObject({ applies: 'yes' });
    // One amount over and the other unknown: not settled.
    expect(plan({ ...big, size: size(9, 2_000_000.01, null) })).toMatchObject({ applies: 'unknown', reason: 'size_missing' });
  });

  it('art. 6 applies from 3 April 2026: not the day before', () => {
    const big = { floorArea: 5000, cif: { ...base.cif, floor_area_m2: 5000 } };
    expect(plan({ ...big, asOf: '2026-04-02' })).toMatchObject({ applies: 'no', reason: 'not_yet_applicable' });
    expect(plan({ ...big, asOf: '2026-04-03' })).toMatchObject({ applies: 'yes', reason: 'over_area' });
  });

  it('the day is the establishment’s: 2 April 23:30 in Madrid is still before', async () => {
    const tenant = await createTenant(t.db);
    await setSize(tenant, size(45, 3_000_000, null));
    await patch(tenant, { nace_code: '47.11', floor_area_m2: 2500 });
    try {
      now = new Date('2026-04-02T21:30:00.000Z'); // 23:30 in Madrid
      expect((await obligations(tenant)).as_of).toBe('2026-04-02');
      expect(applies(await obligations(tenant)).prevention_plan).toBe('no:not_yet_applicable');
      now = new Date('2026-04-02T22:30:00.000Z'); // 00:30 on 3 April in Madrid
      expect(applies(await obligations(tenant)).prevention_plan).toBe('yes:over_area');
    } finally {
      now = NOW;
    }
  });
});

describe('bad input: a clear 400 and nothing written', () => {
  const facts = (id: string) =>
    t.db.$queryRawUnsafe<{ nace_code: string | null; floor_area_m2: string | null }[]>(
      'SELECT nace_code, floor_area_m2::text FROM establishments WHERE id = $1::uuid',
      id,
    );

  it.each([
    ['an unknown NACE code', { nace_code: '99.99' }, 'nace_code'],
    ['a code outside the food chain', { nace_code: '62.01' }, 'nace_code'],
    ['a negative area', { floor_area_m2: -1 }, 'floor_area_m2'],
    ['an area as text', { floor_area_m2: '400' }, 'floor_area_m2'],
    ['an unknown field', { nace_code: '56.10', sector: 'retail' }, ''],
    ['nothing to change', {}, ''],
  ])('%s', async (_name, body, path) => {
    const tenant = await createTenant(t.db);
    await patch(tenant, { nace_code: '56.10', floor_area_m2: 120 });
    const res = await patch(tenant, body);
    expect(res.statusCode, res.body).toBe(400);
    expect(errorBodyProblems(res)).toEqual([]);
    if (path) expect(res.json().details.map((d: { path: string }) => d.path)).toContain(path);
    expect(await facts(tenant.establishmentId)).toEqual([{ nace_code: '56.10', floor_area_m2: '120.00' }]);
  });

  it("another establishment's id is a 404 and changes nothing; a key without catalog:write is refused", async () => {
    const tenant = await createTenant(t.db);
    const other = await createTenant(t.db);
    const res = await patch(tenant, { floor_area_m2: 10 }, other.establishmentId);
    expect(res.statusCode).toBe(404);
    expect(await facts(other.establishmentId)).toEqual([{ nace_code: null, floor_area_m2: null }]);
    const reader = await createTenant(t.db, { permissions: 'catalog:read' });
    expect((await patch(reader, { floor_area_m2: 10 })).statusCode).toBe(403);
    expect(await facts(reader.establishmentId)).toEqual([{ nace_code: null, floor_area_m2: null }]);
  });

  it('null clears, a field left out is kept', async () => {
    const tenant = await createTenant(t.db);
    await patch(tenant, { nace_code: '56.10', floor_area_m2: 120 });
    expect((await patch(tenant, { floor_area_m2: null })).json().data).toMatchObject({ nace_code: '56.10', floor_area_m2: null });
    expect(await facts(tenant.establishmentId)).toEqual([{ nace_code: '56.10', floor_area_m2: null }]);
  });
});

describe('from the dashboard', () => {
  let tenant: Tenant;
  let owner: Browser;
  let viewer: Browser;
  beforeAll(async () => {
    tenant = await createTenant(t.db);
    const o = await createMember(t.db, tenant.organizationId, 'owner');
    const v = await createMember(t.db, tenant.organizationId, 'viewer');
    owner = new DashboardBrowser(t.app);
    viewer = new DashboardBrowser(t.app);
    await owner.signIn(o.email, PASSWORD);
    await viewer.signIn(v.email, PASSWORD);
  }, deadline(60_000));

  it('owners set the company size and the establishment facts, audited; viewers read the answer but cannot', async () => {
    const sizeIn = { headcount: 12, annual_turnover_eur: 1_500_000, balance_sheet_eur: 900_000 };
    expect(await owner.mutate('compliance.updateOrganization', sizeIn)).toEqual(sizeIn);
    expect(
      await owner.mutate('compliance.updateEstablishment', {
        establishment_id: tenant.establishmentId,
        nace_code: '4724',
        floor_area_m2: 90,
      }),
    ).toMatchObject({ nace_code: '47.24', stage: 'retail_distribution', floor_area_m2: 90 });
    const answer = await viewer.query('compliance.obligations', { establishment_id: tenant.establishmentId, lang: 'es' });
    expect(answer).toMatchObject({ organization: { ...sizeIn, microenterprise: false }, missing: [] });
    expect(answer.obligations.map((o: { applies: string }) => o.applies)).toEqual(['no', 'no', 'yes']);

    expect(await failure(viewer.mutate('compliance.updateOrganization', { ...sizeIn, headcount: 1 }))).toMatchObject({ status: 403 });
    expect(
      await failure(
        viewer.mutate('compliance.updateEstablishment', { establishment_id: tenant.establishmentId, nace_code: null, floor_area_m2: null }),
      ),
    ).toMatchObject({ status: 403 });
    const bad = await failure(owner.mutate('compliance.updateOrganization', { ...sizeIn, headcount: -3 }));
    expect(bad).toMatchObject({ status: 400 });
    const [org] = await t.db.$queryRawUnsafe<{ headcount: number }[]>(
      'SELECT headcount FROM organizations WHERE id = $1::uuid',
      tenant.organizationId,
    );
    expect(org?.headcount).toBe(12);

    const entries = await t.db.auditEvent.findMany({
      where: { organization_id: tenant.organizationId, action: { in: ['organization.size_updated', 'establishment.updated'] } },
      orderBy: { created_at: 'asc' },
    });
    // One clock: both entries share a time, so they are compared sorted by action.
    expect(entries.map((e) => [e.action, e.details]).sort((a, b) => String(a[0]).localeCompare(String(b[0])))).toEqual([
      ['establishment.updated', { before: { nace_code: null, floor_area_m2: null }, after: { nace_code: '47.24', floor_area_m2: 90 } }],
      ['organization.size_updated', { before: { headcount: null, annual_turnover_eur: null, balance_sheet_eur: null }, after: sizeIn }],
    ]);
  });
});
