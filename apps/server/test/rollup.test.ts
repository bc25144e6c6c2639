import { deadline } from '@merma/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
 * The day totals (records/rollup.ts) against the records themselves: after single records, batches,
 * records dated in the past (`occurred_at`, across midnight in Madrid) and corrections, every
 * bucket equals the aggregation of the records that count; the analytics of whole days (read from
 * the totals) equal those of the same range given as date-times (read from the records); and the
 * sector benchmark equals its definition computed from the records.
 */
let t: TestContext;
const NOW = new Date('2026-06-15T10:30:00.000Z');
const tenants: Tenant[] = [];

beforeAll(async () => {
  t = await startTestApp({ clock: () => NOW });
  for (let i = 0; i < 6; i++) tenants.push(await createTenant(t.db));
  for (const [i, tenant] of tenants.entries()) {
    const client = api(t.app, tenant.key);
    const single = await client.post('/api/v1/records', validRecord({ weight_kg: 1.25 + i, causa_id: CAUSA_CADUCIDAD }));
    expect(single.statusCode).toBe(201);
    // A batch over several days, one of them just before and one just after midnight in Madrid.
    const batch = await client.post('/api/v1/records/batch', {
      records: [
        validRecord({ weight_kg: 2.5, occurred_at: '2026-06-13T21:59:59.999Z' }), // 23:59 on the 13th in Madrid
        validRecord({ weight_kg: 0.75, occurred_at: '2026-06-13T22:00:00.000Z' }), // 00:00 on the 14th
        validRecord({ weight_kg: 3.125, food_category: 'fish', destino_id: DESTINO_LANDFILL, waste_stage: 'service' }),
        validRecord({ weight_kg: 0.001, occurred_at: '2026-03-20T08:00:00+01:00', destino_id: DESTINO_DONATION }),
        validRecord({ weight_kg: 10 * (i + 1), occurred_at: '2026-06-01T12:00:00+02:00' }),
      ],
    });
    expect(batch.json().data.inserted).toBe(5);
    // A correction: the 2.5 kg becomes 2 kg of fish; another correction of the correction.
    const original = batch.json().data.records[0].id;
    const fixed = await client.post('/api/v1/webhooks/inbound', {
      event: 'waste.updated',
      payload: { source: 'erp', external_id: `fix-${i}`, record_id: original, weight_kg: 2, food_category: 'fish' },
    });
    expect(fixed.statusCode, fixed.body).toBe(200);
    const again = await client.post('/api/v1/webhooks/inbound', {
      event: 'waste.updated',
      payload: { source: 'erp', external_id: `fix2-${i}`, record_id: fixed.json().data.record_id, causa_id: CAUSA_CADUCIDAD },
    });
    expect(again.statusCode, again.body).toBe(200);
  }
}, deadline(60_000));

afterAll(() => t?.close());

describe('record_day_totals', () => {
  it('equals the aggregation of the records that count, bucket by bucket', async () => {
    const fromTotals = await t.db.$queryRaw<unknown[]>`
      SELECT establishment_id::text, livemode, day::text, food_category, destino_id::text, causa_id::text, waste_stage,
        kg::text, records
      FROM record_day_totals WHERE records > 0
      ORDER BY 1, 2, 3, 4, 5, 6, 7`;
    const fromRecords = await t.db.$queryRaw<unknown[]>`
      SELECT r.establishment_id::text, r.livemode, (r.occurred_at AT TIME ZONE e.timezone)::date::text AS day, r.food_category,
        r.destino_id::text, r.causa_id::text, r.waste_stage, sum(r.weight_kg)::text AS kg, count(*)::int AS records
      FROM records r JOIN establishments e ON e.id = r.establishment_id
      WHERE r.superseded_by IS NULL
      GROUP BY 1, 2, 3, 4, 5, 6, 7
      ORDER BY 1, 2, 3, 4, 5, 6, 7`;
    expect(fromTotals.length).toBeGreaterThan(20);
    expect(fromTotals).toEqual(fromRecords);
    // A superseded record left its bucket: no bucket is negative, emptied ones hold 0.
    const [negative] = await t.db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM record_day_totals WHERE kg < 0 OR records < 0`;
    expect(negative?.n).toBe(0);
  });

  it('analytics of whole days (from the totals) equal the same range as date-times (from the records)', async () => {
    const client = api(t.app, tenants[2]?.key);
    for (const group_by of ['day', 'week', 'month']) {
      const days = (await client.get('/api/v1/analytics', { query: { from: '2026-03-01', to: '2026-06-15', group_by } })).json().data;
      const times = (
        await client.get('/api/v1/analytics', {
          query: { from: '2026-03-01T00:00:00+01:00', to: '2026-06-16T00:00:00+02:00', group_by },
        })
      ).json().data;
      const { from: _f, to: _t, ...byDays } = days;
      const { from: _f2, to: _t2, ...byTimes } = times;
      expect(byDays).toEqual(byTimes);
      expect(byDays.total_records).toBe(6); // the corrected record counts once, as its last correction
    }
    // With filters too.
    const filtered = { food_category: 'fish', causa_id: CAUSA_CADUCIDAD };
    const a = (await client.get('/api/v1/analytics', { query: { from: '2026-06-01', to: '2026-06-15', ...filtered } })).json().data;
    const b = (
      await client.get('/api/v1/analytics', { query: { from: '2026-06-01T00:00:00+02:00', to: '2026-06-16T00:00:00+02:00', ...filtered } })
    ).json().data;
    expect({ ...a, from: null, to: null }).toEqual({ ...b, from: null, to: null });
    expect(a.by_category).toEqual({ fish: 2 });
  });

  it('list totals of whole days (from the totals) equal the records counted, with and without filters', async () => {
    const tenant = tenants[3] as Tenant;
    const client = api(t.app, tenant.key);
    const cases: { from: string; to: string; food_category?: string }[] = [
      { from: '2026-03-01', to: '2026-06-15' },
      { from: '2026-06-14', to: '2026-06-14' }, // the record at 00:00 in Madrid, not the one at 23:59 the day before
      { from: '2026-03-01', to: '2026-06-15', food_category: 'fish' },
      { from: '2026-03-01', to: '2026-06-15', food_category: 'meat' },
    ];
    for (const query of cases) {
      const listedRes = await client.get('/api/v1/records', { query: { ...query, limit: '1' } });
      expect(listedRes.statusCode, listedRes.body).toBe(200);
      const listed = listedRes.json();
      const [counted] = await t.db.$queryRaw<{ n: number }[]>`
        SELECT count(*)::int AS n FROM records
        WHERE establishment_id = ${tenant.establishmentId}::uuid AND livemode = false AND superseded_by IS NULL
          AND (occurred_at AT TIME ZONE 'Europe/Madrid')::date BETWEEN ${query.from}::date AND ${query.to}::date
          AND (${query.food_category ?? null}::text IS NULL OR food_category = ${query.food_category ?? null})`;
      expect(listed.meta.pagination.total, JSON.stringify(query)).toBe(counted?.n);
      // The same range as date-times counts the records themselves, and agrees.
      const asTimes = (
        await client.get('/api/v1/records', {
          query: {
            ...query,
            from: `${query.from}T00:00:00+0${query.from < '2026-03-29' ? 1 : 2}:00`,
            to: `${query.to}T23:59:59.999+02:00`,
            limit: '1',
          },
        })
      ).json();
      expect(asTimes.meta.pagination.total, JSON.stringify(query)).toBe(counted?.n);
    }
    expect((await client.get('/api/v1/records', { query: { from: '2026-06-14', to: '2026-06-14' } })).json().meta.pagination.total).toBe(1);
  });

  it('the sector benchmark equals its definition over the records', async () => {
    const me = tenants[0] as Tenant;
    const res = await api(t.app, me.key).get('/api/v1/benchmarking');
    expect(res.statusCode).toBe(200);
    const got = res.json().data;
    // Each establishment's kg in the last 90 local days (today included), over the days from its
    // first record's day in them to today.
    const perDay = await t.db.$queryRaw<{ establishment_id: string; per_day: number; days: number }[]>`
      SELECT r.establishment_id::text,
        sum(r.weight_kg)::float8 / (DATE '2026-06-15' - min((r.occurred_at AT TIME ZONE 'Europe/Madrid')::date) + 1) AS per_day,
        DATE '2026-06-15' - min((r.occurred_at AT TIME ZONE 'Europe/Madrid')::date) + 1 AS days
      FROM records r JOIN establishments e ON e.id = r.establishment_id
      WHERE r.livemode = false AND r.superseded_by IS NULL AND e.sector = 'horeca'
        AND (r.occurred_at AT TIME ZONE 'Europe/Madrid')::date > DATE '2026-06-15' - 90
        AND (r.occurred_at AT TIME ZONE 'Europe/Madrid')::date <= DATE '2026-06-15'
      GROUP BY 1`;
    const own = perDay.find((p) => p.establishment_id === me.establishmentId);
    const mine = own?.per_day ?? 0;
    const below = perDay.filter((p) => p.per_day < mine).length;
    const equal = perDay.filter((p) => p.per_day === mine).length;
    const round = (v: number) => Math.round(v * 1000) / 1000;
    expect(got).toMatchObject({
      your_avg_kg_per_day: round(mine),
      days_covered: own?.days ?? 0,
      sample_size: perDay.length,
      sector_avg_kg_per_day: round(perDay.reduce((s, p) => s + p.per_day, 0) / perDay.length),
      percentile: Math.round(((below + equal / 2) / perDay.length) * 1000) / 10,
    });
    expect(perDay.length).toBeGreaterThanOrEqual(6);
  });
});
