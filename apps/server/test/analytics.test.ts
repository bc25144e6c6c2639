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

let t: TestContext;
let tenant: Tenant;
const NOW = new Date('2026-03-31T10:00:00.000Z'); // Madrid: 12:00 CEST, after the 29 March DST change

beforeAll(async () => {
  t = await startTestApp({ clock: () => NOW });
  tenant = await createTenant(t.db);
  // Hand-placed records (times UTC; Madrid is UTC+1 until 29 Mar 2026 01:00 UTC, then UTC+2).
  const fixtures: [string, Record<string, unknown>][] = [
    ['2025-12-28T10:00:00.000Z', { weight_kg: 1, food_category: 'meat' }], // Sun, ISO 2025-W52
    ['2025-12-29T10:00:00.000Z', { weight_kg: 2, food_category: 'meat' }], // Mon, ISO 2026-W01 (still Dec 2025)
    ['2026-01-01T10:00:00.000Z', { weight_kg: 4, food_category: 'fish', destino_id: DESTINO_LANDFILL }], // Thu, 2026-W01
    ['2026-03-28T22:30:00.000Z', { weight_kg: 8, food_category: 'dairy', causa_id: CAUSA_CADUCIDAD, waste_stage: 'storage' }], // 23:30 Madrid, 28 Mar
    ['2026-03-29T00:30:00.000Z', { weight_kg: 16, food_category: 'dairy' }], // 01:30 Madrid (CET), 29 Mar
    ['2026-03-29T01:30:00.000Z', { weight_kg: 32, food_category: 'bakery', destino_id: DESTINO_LANDFILL }], // 03:30 Madrid (CEST), 29 Mar
  ];
  for (const [at, fields] of fixtures) await recordAt(t.db, tenant, at, { destino_id: DESTINO_DONATION, ...fields });
});
afterAll(() => t?.close());

const get = (qs: string) => api(t.app, tenant.key).get(`/api/v1/analytics?${qs}`);

describe('GET /api/v1/analytics', () => {
  it('totals and breaks down by category, destination, cause and stage, with the recovery rate', async () => {
    const res = await get('from=2025-12-01&to=2026-03-31&group_by=month');
    expect(res.statusCode).toBe(200);
    const d = res.json().data;
    expect(d.total_kg).toBe(63);
    expect(d.total_records).toBe(6);
    expect(d.by_category).toEqual({ meat: 3, fish: 4, dairy: 24, bakery: 32 });
    expect(d.by_destino).toEqual({ [DESTINO_DONATION]: 27, [DESTINO_LANDFILL]: 36 });
    expect(d.by_cause).toEqual({ [CAUSA_CADUCIDAD]: 8, none: 55 });
    expect(d.by_stage).toEqual({ storage: 8, none: 55 });
    expect(d.recovery_rate).toBeCloseTo(27 / 63, 4);
    expect(d.trend).toEqual([
      { period: '2025-12', total_kg: 3 },
      { period: '2026-01', total_kg: 4 },
      { period: '2026-02', total_kg: 0 },
      { period: '2026-03', total_kg: 56 },
    ]);
  });

  it('groups ISO weeks across the year boundary', async () => {
    const d = (await get('from=2025-12-22&to=2026-01-11&group_by=week')).json().data;
    expect(d.trend).toEqual([
      { period: '2025-W52', total_kg: 1 },
      { period: '2026-W01', total_kg: 6 },
      { period: '2026-W02', total_kg: 0 },
    ]);
  });

  it('puts a record at 23:30 Madrid time in that local day, across the DST change', async () => {
    const d = (await get('from=2026-03-27&to=2026-03-30&group_by=day')).json().data;
    expect(d.trend).toEqual([
      { period: '2026-03-27', total_kg: 0 },
      { period: '2026-03-28', total_kg: 8 },
      { period: '2026-03-29', total_kg: 48 },
      { period: '2026-03-30', total_kg: 0 },
    ]);
  });

  it('filters by category, cause and destination', async () => {
    const range = 'from=2025-12-01&to=2026-03-31&group_by=month';
    expect((await get(`${range}&food_category=dairy`)).json().data.total_kg).toBe(24);
    expect((await get(`${range}&causa_id=${CAUSA_CADUCIDAD}`)).json().data.total_kg).toBe(8);
    expect((await get(`${range}&destino_id=${DESTINO_LANDFILL}`)).json().data).toMatchObject({ total_kg: 36, recovery_rate: 0 });
  });

  it('answers an empty range with zeros and a null recovery rate', async () => {
    const d = (await get('from=2024-01-01&to=2024-01-03')).json().data;
    expect(d).toMatchObject({ total_kg: 0, total_records: 0, by_category: {}, recovery_rate: null, group_by: 'day' });
    expect(d.trend.map((p: { total_kg: number }) => p.total_kg)).toEqual([0, 0, 0]);
  });

  it('defaults to the last 30 days by day', async () => {
    const d = (await get('')).json().data;
    expect(d).toMatchObject({ from: '2026-03-01', to: '2026-03-31', group_by: 'day', total_kg: 56 });
    expect(d.trend).toHaveLength(31);
  });

  it.each([
    'from=2026-03-10&to=2026-03-01',
    'from=2020-01-01&to=2026-03-31',
    'from=2026-02-30',
    'group_by=year',
    'causa_id=nope',
    'food_category=candy',
  ])('refuses %s with 400', async (qs) => {
    const res = await get(qs);
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('validation_error');
  });

  it('keeps another establishment and the live mode out', async () => {
    const other = await createTenant(t.db);
    await recordAt(t.db, other, '2026-03-30T10:00:00.000Z', { weight_kg: 100 });
    await recordAt(t.db, tenant, '2026-03-30T10:00:00.000Z', { weight_kg: 200 }, { livemode: true });
    const d = (await get('from=2026-03-30&to=2026-03-30')).json().data;
    expect(d.total_kg).toBe(0);
  });
});

describe('analytics rate limit', () => {
  let limited: TestContext;
  beforeAll(async () => {
    limited = await startTestApp({ config: { RATE_LIMIT_ANALYTICS_PER_HOUR: '2' } });
  });
  afterAll(() => limited?.close());

  it('allows 2 calls per hour in this configuration, then 429', async () => {
    const owner = await createTenant(limited.db);
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await api(limited.app, owner.key).get('/api/v1/analytics')).statusCode);
    expect(statuses).toEqual([200, 200, 429]);
    // Other endpoints keep their own budget.
    expect((await api(limited.app, owner.key).get('/api/v1/causas')).statusCode).toBe(200);
  });
});
