import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEstablishment, createKey, createOrganization } from '../src/admin/service.js';
import { api, recordAt, startTestApp, type Tenant, type TestContext } from './helpers.js';

const NOW = new Date('2026-06-30T12:00:00.000Z');
let t: TestContext;

async function establishment(sector: string, kgInWindow: number[], options: { livemode?: boolean } = {}): Promise<Tenant> {
  const org = await createOrganization(t.db, { name: `Org ${sector}`, plan: 'enterprise' });
  const est = await createEstablishment(t.db, { org: org.id, name: `E ${sector}`, cif: 'B12345678', sector, timezone: 'Europe/Madrid' });
  const key = await createKey(t.db, { establishment: est.id, mode: options.livemode ? 'live' : 'test' });
  const tenant = { organizationId: org.id, establishmentId: est.id, key: key.key, keyId: key.id };
  // From the window's first day on (89 days before today), so that the days covered are the window's 90.
  for (const [i, kg] of kgInWindow.entries()) {
    await recordAt(
      t.db,
      tenant,
      new Date(NOW.getTime() - (89 - i) * 86_400_000).toISOString(),
      { weight_kg: kg },
      { livemode: options.livemode ?? false },
    );
  }
  return tenant;
}

beforeAll(async () => {
  t = await startTestApp({ clock: () => NOW });
});
afterAll(() => t?.close());

describe('GET /api/v1/benchmarking', () => {
  it('withholds sector figures with fewer than 5 establishments in the sample', async () => {
    const me = await establishment('colectividades', [90]);
    for (const kg of [180, 270, 360]) await establishment('colectividades', [kg]);
    const d = (await api(t.app, me.key).get('/api/v1/benchmarking')).json().data;
    expect(d).toMatchObject({
      your_avg_kg_per_day: 1,
      sector_avg_kg_per_day: null,
      percentile: null,
      sector: 'colectividades',
      sample_size: 4,
    });
    expect(d.note).toMatch(/Fewer than 5/);
  });

  // Each test has a sector of its own: a sector's sample is computed once and kept (five minutes of the
  // fixed clock never pass), so a test reading another's sector would see whatever it held first.
  it('compares kg per day over 90 days with the sector, and places you in it; another sector on request', async () => {
    // kg per day over 90 days: 1, 2, 3, 4, 5 (me: 2)
    const me = await establishment('retail', [180]);
    for (const kg of [90, 270, 360, 450]) await establishment('retail', [kg]);
    // Outside the window, and in live mode: must not count.
    const old = await establishment('retail', []);
    await recordAt(t.db, old, new Date(NOW.getTime() - 120 * 86_400_000).toISOString(), { weight_kg: 9000 });
    await establishment('retail', [9000], { livemode: true });
    const res = await api(t.app, me.key).get('/api/v1/benchmarking');
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({
      your_avg_kg_per_day: 2,
      sector_avg_kg_per_day: 3,
      percentile: 30, // one of five below, yourself counting half
      sector: 'retail',
      sample_size: 5,
      window_days: 90,
      days_covered: 90,
      note: null,
    });
    // Another sector as a parameter (this retail sample, read by an industrial establishment); unknown ones refused.
    const other = await establishment('industrial', [90]);
    const d = (await api(t.app, other.key).get('/api/v1/benchmarking?sector=retail')).json().data;
    expect(d).toMatchObject({ sector: 'retail', sample_size: 5, your_avg_kg_per_day: 1, percentile: 10 }); // ties with one: half of 1 in 5
    expect((await api(t.app, other.key).get('/api/v1/benchmarking?sector=space')).statusCode).toBe(400);
  });

  it('divides by the days covered since the first record in the window, not by 90', async () => {
    // Recording for 56 days (55 days ago to today): 1232 kg is 22 kg a day, not 13.7.
    const org = await createOrganization(t.db, { name: 'Org newcomer', plan: 'enterprise' });
    const est = await createEstablishment(t.db, {
      org: org.id,
      name: 'Newcomer',
      cif: 'B12345678',
      sector: 'horeca',
      timezone: 'Europe/Madrid',
    });
    const key = await createKey(t.db, { establishment: est.id, mode: 'test' });
    const me = { organizationId: org.id, establishmentId: est.id, key: key.key, keyId: key.id };
    await recordAt(t.db, me, new Date(NOW.getTime() - 55 * 86_400_000).toISOString(), { weight_kg: 616 });
    await recordAt(t.db, me, new Date(NOW.getTime() - 2 * 86_400_000).toISOString(), { weight_kg: 616 });
    // Four others of the sector, each over the whole window (1, 2, 3, 4 kg a day), and one that
    // started 9 days ago (10 days covered: 460 kg is 46 a day).
    for (const kg of [90, 180, 270, 360]) await establishment('horeca', [kg]);
    const late = await establishment('horeca', []);
    await recordAt(t.db, late, new Date(NOW.getTime() - 9 * 86_400_000).toISOString(), { weight_kg: 460 });
    const res = await api(t.app, me.key).get('/api/v1/benchmarking');
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({
      your_avg_kg_per_day: 22,
      sector_avg_kg_per_day: 13, // (1 + 2 + 3 + 4 + 46 + 22) / 6
      percentile: 75, // four of six below, yourself counting half
      sector: 'horeca',
      sample_size: 6,
      window_days: 90,
      days_covered: 56,
      note: null,
    });
    // Without records in the window: 0 days covered, 0 kg a day.
    const none = await establishment('horeca', []);
    expect((await api(t.app, none.key).get('/api/v1/benchmarking')).json().data).toMatchObject({ your_avg_kg_per_day: 0, days_covered: 0 });
  });

  it('counts the days from the first day that still holds a record: a correction that moves a record later moves it too', async () => {
    const me = await establishment('industrial', []);
    const first = await recordAt(t.db, me, new Date(NOW.getTime() - 55 * 86_400_000).toISOString(), { weight_kg: 616 });
    expect((await api(t.app, me.key).get('/api/v1/benchmarking')).json().data).toMatchObject({ days_covered: 56, your_avg_kg_per_day: 11 });
    // The weighing was in fact 9 days ago: the bucket of 55 days ago is emptied (0 records), and is no day of records.
    const moved = await api(t.app, me.key).post('/api/v1/webhooks/inbound', {
      event: 'waste.updated',
      payload: {
        source: 'erp',
        external_id: 'moved-1',
        record_id: first.id,
        occurred_at: new Date(NOW.getTime() - 9 * 86_400_000).toISOString(),
      },
    });
    expect(moved.statusCode, moved.body).toBe(200);
    expect((await api(t.app, me.key).get('/api/v1/benchmarking')).json().data).toMatchObject({
      days_covered: 10,
      your_avg_kg_per_day: 61.6,
    });
  });

  it('moves your own figure at once, while the rest of the sector comes from its sample (kept five minutes)', async () => {
    // kg per day: 1, 2, 3, 4, 5 (me: 1), distribucion
    const me = await establishment('distribucion', [90]);
    const others = [];
    for (const kg of [180, 270, 360, 450]) others.push(await establishment('distribucion', [kg]));
    const first = (await api(t.app, me.key).get('/api/v1/benchmarking')).json().data;
    expect(first).toMatchObject({ your_avg_kg_per_day: 1, sector_avg_kg_per_day: 3, percentile: 10, sample_size: 5 });
    // I record 450 kg more (5 kg a day in all): my figure and my place follow at once.
    await recordAt(t.db, me, new Date(NOW.getTime() - 3 * 86_400_000).toISOString(), { weight_kg: 360 });
    const mine = (await api(t.app, me.key).get('/api/v1/benchmarking')).json().data;
    expect(mine).toMatchObject({ your_avg_kg_per_day: 5, sector_avg_kg_per_day: 3.8, percentile: 80, sample_size: 5 }); // tied with the 5
    // Another establishment's new records reach the others' view when the sample is recomputed,
    // but its own view shows them now.
    const other = others[0] as Tenant;
    await recordAt(t.db, other, new Date(NOW.getTime() - 3 * 86_400_000).toISOString(), { weight_kg: 900 });
    expect((await api(t.app, other.key).get('/api/v1/benchmarking')).json().data).toMatchObject({ your_avg_kg_per_day: 12 });
    expect((await api(t.app, me.key).get('/api/v1/benchmarking')).json().data).toMatchObject({
      your_avg_kg_per_day: 5,
      sector_avg_kg_per_day: 3.8,
      percentile: 80,
    });
  });

  it('needs the benchmarking permission', async () => {
    const me = await establishment('horeca', []);
    const limited = await createKey(t.db, { establishment: me.establishmentId, mode: 'test', permissions: 'records:read' });
    expect((await api(t.app, limited.key).get('/api/v1/benchmarking')).statusCode).toBe(403);
  });
});
