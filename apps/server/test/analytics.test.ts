import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectSpikes } from '../src/modules/alerts/detect.js';
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

// ---------------------------------------------------------------------------------------------
// Local days: the autumn 25-hour day and an establishment an hour behind Madrid

describe('local days in the establishment time zone', () => {
  const day = (from: string, to: string, tenantKey: string, groupBy = 'day') =>
    api(t.app, tenantKey)
      .get(`/api/v1/analytics?from=${from}&to=${to}&group_by=${groupBy}`)
      .then((r) => {
        expect(r.statusCode).toBe(200);
        return r.json().data;
      });
  const listed = async (tenantKey: string, from: string, to: string) => {
    const res = await api(t.app, tenantKey).get('/api/v1/records', { query: { from, to, limit: '200' } });
    expect(res.statusCode).toBe(200);
    return (res.json().data as { created_at: string; weight_kg: number }[]).map((r) => [r.created_at, r.weight_kg]);
  };

  // Europe/Madrid, Sunday 25 October 2026: at 03:00 CEST the clocks go back to 02:00 CET, so the
  // local day lasts 25 hours (22:00 UTC on the 24th to 23:00 UTC on the 25th) and 02:30 happens twice.
  const AUTUMN: [string, number][] = [
    ['2026-10-24T21:30:00.000Z', 1], // 23:30 CEST, Saturday 24
    ['2026-10-24T22:00:00.000Z', 2], // 00:00 CEST, Sunday 25
    ['2026-10-25T00:30:00.000Z', 4], // 02:30 CEST, the first time
    ['2026-10-25T01:30:00.000Z', 8], // 02:30 CET, the second time
    ['2026-10-25T22:30:00.000Z', 16], // 23:30 CET, still Sunday 25 (its 25th hour)
    ['2026-10-25T23:00:00.000Z', 32], // 00:00 CET, Monday 26
  ];

  it('counts the 25-hour autumn day whole: both 02:30s and 23:30 in the day, by day, by ISO week and in the record list', async () => {
    const madrid = await createTenant(t.db);
    for (const [at, kg] of AUTUMN) await recordAt(t.db, madrid, at, { weight_kg: kg });

    const daily = await day('2026-10-24', '2026-10-26', madrid.key);
    expect(daily.trend).toEqual([
      { period: '2026-10-24', total_kg: 1 },
      { period: '2026-10-25', total_kg: 30 },
      { period: '2026-10-26', total_kg: 32 },
    ]);
    expect(daily).toMatchObject({ total_kg: 63, total_records: 6 });
    expect(await day('2026-10-25', '2026-10-25', madrid.key)).toMatchObject({ total_kg: 30, total_records: 4 });
    // Sunday the 25th closes ISO week 43, its 25th hour included.
    expect((await day('2026-10-19', '2026-11-01', madrid.key, 'week')).trend).toEqual([
      { period: '2026-W43', total_kg: 31 },
      { period: '2026-W44', total_kg: 32 },
    ]);
    expect((await day('2026-10-01', '2026-10-31', madrid.key, 'month')).trend).toEqual([{ period: '2026-10', total_kg: 63 }]);
    expect(await listed(madrid.key, '2026-10-25', '2026-10-25')).toEqual([
      ['2026-10-25T22:30:00.000Z', 16],
      ['2026-10-25T01:30:00.000Z', 8],
      ['2026-10-25T00:30:00.000Z', 4],
      ['2026-10-24T22:00:00.000Z', 2],
    ]);
  });

  it('judges spikes on the whole 25-hour day', async () => {
    const madrid = await createTenant(t.db);
    // The four previous Sundays: 2 kg of meat each at noon.
    for (const at of ['2026-09-27T10:00:00.000Z', '2026-10-04T10:00:00.000Z', '2026-10-11T10:00:00.000Z', '2026-10-18T10:00:00.000Z']) {
      await recordAt(t.db, madrid, at, { weight_kg: 2 });
    }
    // Sunday 25: 5 kg at 00:30 CEST (still the 24th in UTC), at both 02:30s and at 23:30 CET;
    // Monday's first minutes (still the 25th in UTC) do not count.
    for (const at of ['2026-10-24T22:30:00.000Z', '2026-10-25T00:30:00.000Z', '2026-10-25T01:30:00.000Z', '2026-10-25T22:30:00.000Z']) {
      await recordAt(t.db, madrid, at, { weight_kg: 5 });
    }
    await recordAt(t.db, madrid, '2026-10-25T23:15:00.000Z', { weight_kg: 100 });
    const pool = new pg.Pool({ connectionString: t.database.url, max: 1 });
    try {
      const found = await detectSpikes(
        { pool, clock: () => new Date('2026-10-25T22:45:00.000Z'), minKg: 5 },
        { establishment_id: madrid.establishmentId, livemode: false },
      );
      expect(found).toBe(1);
    } finally {
      await pool.end();
    }
    const alerts = await t.db.alert.findMany({ where: { establishment_id: madrid.establishmentId } });
    expect(alerts.map((a) => [a.day.toISOString().slice(0, 10), a.food_category, Number(a.total_kg), Number(a.baseline_kg)])).toEqual([
      ['2026-10-25', 'meat', 20, 2],
    ]);
  });

  it('puts a record at 23:30 Canary time on that Canary day, where Madrid is already on the next', async () => {
    const canary = await createTenant(t.db, { timezone: 'Atlantic/Canary' });
    const madrid = await createTenant(t.db);
    const CANARY: [string, number][] = [
      ['2026-03-28T23:30:00.000Z', 1], // 23:30 WET, 28 March (00:30 on the 29th in Madrid)
      ['2026-07-15T22:30:00.000Z', 2], // 23:30 WEST, 15 July (00:30 on the 16th in Madrid)
      ['2026-07-15T23:00:00.000Z', 4], // 00:00 WEST, 16 July
      ['2026-10-25T00:30:00.000Z', 8], // 01:30 WEST, 25 October, the first time
      ['2026-10-25T01:30:00.000Z', 16], // 01:30 WET, the second time
      ['2026-10-25T23:30:00.000Z', 32], // 23:30 WET, 25 October (00:30 on the 26th in Madrid)
    ];
    for (const [at, kg] of CANARY) {
      await recordAt(t.db, canary, at, { weight_kg: kg }, { timezone: 'Atlantic/Canary' });
      await recordAt(t.db, madrid, at, { weight_kg: kg });
    }

    expect((await day('2026-03-28', '2026-03-29', canary.key)).trend).toEqual([
      { period: '2026-03-28', total_kg: 1 },
      { period: '2026-03-29', total_kg: 0 },
    ]);
    expect((await day('2026-03-28', '2026-03-29', madrid.key)).trend).toEqual([
      { period: '2026-03-28', total_kg: 0 },
      { period: '2026-03-29', total_kg: 1 },
    ]);
    expect((await day('2026-07-15', '2026-07-16', canary.key)).trend).toEqual([
      { period: '2026-07-15', total_kg: 2 },
      { period: '2026-07-16', total_kg: 4 },
    ]);
    expect((await day('2026-07-15', '2026-07-16', madrid.key)).trend).toEqual([
      { period: '2026-07-15', total_kg: 0 },
      { period: '2026-07-16', total_kg: 6 },
    ]);
    // Canary's autumn day is 25 hours too (00:00 to 24:00 UTC): both 01:30s and 23:30 count.
    expect((await day('2026-10-25', '2026-10-26', canary.key)).trend).toEqual([
      { period: '2026-10-25', total_kg: 56 },
      { period: '2026-10-26', total_kg: 0 },
    ]);
    expect(await listed(canary.key, '2026-07-15', '2026-07-15')).toEqual([['2026-07-15T22:30:00.000Z', 2]]);
    expect(await listed(madrid.key, '2026-07-15', '2026-07-15')).toEqual([]);
    expect(await listed(canary.key, '2026-10-25', '2026-10-25')).toEqual([
      ['2026-10-25T23:30:00.000Z', 32],
      ['2026-10-25T01:30:00.000Z', 16],
      ['2026-10-25T00:30:00.000Z', 8],
    ]);
  });
});
