import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importProducts } from '../src/admin/service.js';
import { createMember, DashboardBrowser, PASSWORD, randomIp } from './dashboard-client.js';
import {
  addKey,
  api,
  CAUSA_CADUCIDAD,
  createTenant,
  DESTINO_DONATION,
  DESTINO_LANDFILL,
  startTestApp,
  type TestContext,
} from './helpers.js';

/**
 * figure-walls.test.ts's rule on the two other doors: every figure the dashboard's /trpc
 * procedures compute for a signed-in member (the overview's analytics, period comparisons, spike
 * alerts and sector comparison, the records page's and sessions' totals, the chain check, the
 * Forecast page's waste and demand forecasts with their production advice, the prevention plan)
 * and what a paired kitchen station shows (today's total, its recent records, the uses that order
 * its buttons, its open sessions) stays the same, to the digit, after the same establishment's
 * test mode, a sibling establishment of the same organisation and another organisation each write
 * a heavier history of their own, today's records and a session included.
 */
const NOW = new Date('2026-11-24T10:00:00.000Z'); // a Tuesday, 11:00 in Madrid
const HISTORY = 56;
const TODAY_RECORDS = 3;
const day = (back: number) => new Date(NOW.getTime() - back * 86_400_000).toISOString().slice(0, 10);
const FROM = day(HISTORY + 2);
const TO = day(0);

type Scope = { establishment_id: string; livemode: boolean };
/** Who writes (an API key) and who reads (a signed-in member, in the dashboard's scope). */
type Writer = { key: string; croissant: string; member: DashboardBrowser; scope: Scope };

let t: TestContext;
let live: Writer & { station: string };
let noise: Record<'test mode' | 'sibling establishment' | 'other organisation', Writer>;

async function croissantOf(organizationId: string): Promise<string> {
  await importProducts(t.db, {
    org: organizationId,
    csv: 'name;food_category;ean;unit_weight_kg;unit_cost;price\nCroissant;bakery;8410000000023;0,06;0,30;1,20\n',
  });
  const product = await t.db.product.findFirstOrThrow({ where: { organization_id: organizationId, name: 'Croissant' } });
  return product.id;
}

async function signedIn(organizationId: string): Promise<DashboardBrowser> {
  const { email } = await createMember(t.db, organizationId, 'owner');
  const browser = new DashboardBrowser(t.app, randomIp());
  await browser.signIn(email, PASSWORD);
  return browser;
}

/**
 * `HISTORY` days of daily sales and waste, scaled by `scale`, sent as a POS and an ERP would
 * through the API; and this morning's records, two in an open registration session.
 */
async function history(writer: Writer, scale: number) {
  const http = api(t.app, writer.key);
  for (let back = HISTORY; back >= 1; back--) {
    const weekday = new Date(`${day(back)}T12:00:00Z`).getUTCDay();
    const quantity = Math.round((40 + 10 * weekday) * scale);
    const sold = await http.post('/api/v1/webhooks/inbound', {
      event: 'sales.recorded',
      payload: { source: 'tpv', sales: [{ product_id: writer.croissant, quantity, sold_at: day(back) }] },
    });
    expect(sold.statusCode, sold.body).toBe(200);
  }
  const session = await http.post('/api/v1/sessions', { name: 'Cierre' });
  expect(session.statusCode, session.body).toBe(201);
  const past = Array.from({ length: HISTORY }, (_, i) => ({
    food_category: i % 3 === 0 ? 'bakery' : 'prepared_meals',
    weight_kg: Math.round((1.5 + (i % 7) * 0.25) * scale * 1000) / 1000,
    destino_id: i % 2 ? DESTINO_DONATION : DESTINO_LANDFILL,
    causa_id: i % 4 === 0 ? CAUSA_CADUCIDAD : undefined,
    product_name: i % 3 === 0 ? 'Croissant' : undefined,
    occurred_at: `${day(i + 1)}T18:00:00.000Z`,
  }));
  const today = Array.from({ length: TODAY_RECORDS }, (_, i) => ({
    food_category: i === 0 ? 'fish' : 'bakery',
    weight_kg: Math.round((0.75 + i * 0.5) * scale * 1000) / 1000,
    destino_id: i === 2 ? DESTINO_LANDFILL : DESTINO_DONATION,
    causa_id: i === 1 ? CAUSA_CADUCIDAD : undefined,
    session_id: i < 2 ? session.json().data.id : undefined,
    occurred_at: `${day(0)}T0${7 + i}:00:00.000Z`,
  }));
  const batch = await http.post('/api/v1/records/batch', { records: [...past, ...today] });
  expect(batch.statusCode, batch.body).toBe(200);
  expect(batch.json().data).toMatchObject({ inserted: HISTORY + TODAY_RECORDS, failed: 0 });
}

/** Closed on Mondays and Wednesdays, and for a week's holiday: what the forecasts leave out. */
async function closures(writer: Writer) {
  await writer.member.mutate('opening.setClosedWeekdays', { ...writer.scope, calendar: { closed_weekdays: ['monday', 'wednesday'] } });
  await writer.member.mutate('opening.createClosure', {
    ...writer.scope,
    closure: { starts_on: day(20), ends_on: day(14), reason: 'Vacaciones' },
  });
}

/**
 * Drops what names a moment or an object rather than a figure (ids, the answer's timestamps), and
 * a plan version's place in its history (its number, digest and predecessor) and the documents
 * chain's head (and so the checkpoint's signature): each pass generates a plan, one more version
 * in the subject's own documents chain. plan-versions.test.ts and register-documents.test.ts keep
 * those within the establishment and mode; the record chain's figures are still compared here.
 */
function figuresOnly(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(figuresOnly);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(
          ([k]) => !/^(id|plan_id|generated_at|timestamp|created_at|checked_at|verified_at|last_used_at|version|sha256|previous)$/.test(k),
        )
        .map(([k, v]) => [k, figuresOnly(v)]),
    );
  }
  return value;
}

/** Every figure the dashboard computes for a member in a scope, by what it is. */
async function dashboardFigures(member: DashboardBrowser, scope: Scope): Promise<Record<string, unknown>> {
  const read = async (path: string, input: Record<string, unknown> = {}) => figuresOnly(await member.query(path, { ...scope, ...input }));
  const out: Record<string, unknown> = {};
  for (const group_by of ['day', 'week', 'month'])
    out[`analytics.get by ${group_by}`] = await read('analytics.get', { from: FROM, to: TO, group_by });
  out['analytics.get, bakery to donation'] = await read('analytics.get', {
    from: FROM,
    to: TO,
    food_category: 'bakery',
    destino_id: DESTINO_DONATION,
  });
  out['analytics.periods'] = await read('analytics.periods');
  out['analytics.alerts'] = await read('analytics.alerts');
  const benchmark = (await member.query('analytics.benchmark', scope)) as { available: boolean; result?: { your_avg_kg_per_day: number } };
  // The sector's average and the percentile are everyone's by design; the member's own average is its own.
  expect(benchmark.available).toBe(true);
  out['analytics.benchmark, own average'] = benchmark.result?.your_avg_kg_per_day;
  out['predict.waste'] = await read('predict.waste', { horizon: 14 });
  out['predict.waste, bakery'] = await read('predict.waste', { horizon: 7, food_category: 'bakery' });
  out['predict.demand'] = await read('predict.demand', { horizon: 14 });
  // The dashboard's check resumes from its last run (from_seq, rehashed): what it found is the figure.
  const { valid, checked, head_hash, first_invalid } = await member.query('records.verify', scope);
  out['records.verify'] = { valid, checked, head_hash, first_invalid };
  const page = (await member.query('records.list', { ...scope, from: FROM, to: TO, limit: 1 })) as { total: number; total_kg: number };
  out['records.list totals'] = { total: page.total, total_kg: page.total_kg };
  out['records.list, today'] = figuresOnly(await member.query('records.list', { ...scope, from: TO, to: TO, limit: TODAY_RECORDS }));
  out['sessions.list'] = await read('sessions.list', {});
  out['plan.generate'] = figuresOnly(await member.mutate('plan.generate', { ...scope, lang: 'es' }));
  out['plan.get, latest'] = await read('plan.get', { lang: 'en' });
  return out;
}

/** What a paired station shows: today's total and records, its buttons' uses, its sessions. */
async function stationFigures(token: string): Promise<Record<string, unknown>> {
  const get = async (url: string) => {
    const res = await t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
    expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
    return figuresOnly(res.json().data) as Record<string, unknown>;
  };
  const { station: _identity, ...setup } = await get('/station/setup');
  return { '/station/setup': setup, '/station/records': await get('/station/records') };
}

beforeAll(async () => {
  t = await startTestApp({ config: { TRUST_PROXY: 'loopback' }, clock: () => NOW });
  const owner = await createTenant(t.db, { mode: 'live' });
  const sibling = await createTenant(t.db, { mode: 'live', organizationId: owner.organizationId });
  const stranger = await createTenant(t.db, { mode: 'live' });
  const member = await signedIn(owner.organizationId);
  const croissant = await croissantOf(owner.organizationId);
  const scope = { establishment_id: owner.establishmentId, livemode: true };
  const started = await member.mutate('stations.startPairing', { ...scope, name: 'Cocina' });
  const paired = await t.app.inject({
    method: 'POST',
    url: '/station/pair',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': randomIp() },
    payload: JSON.stringify({ code: started.code }),
  });
  expect(paired.statusCode, paired.body).toBe(200);
  live = { key: owner.key, croissant, member, scope, station: paired.json().data.token };
  noise = {
    'test mode': { key: (await addKey(t.db, owner.establishmentId, 'test')).key, croissant, member, scope: { ...scope, livemode: false } },
    'sibling establishment': { key: sibling.key, croissant, member, scope: { establishment_id: sibling.establishmentId, livemode: true } },
    'other organisation': {
      key: stranger.key,
      croissant: await croissantOf(stranger.organizationId),
      member: await signedIn(stranger.organizationId),
      scope: { establishment_id: stranger.establishmentId, livemode: true },
    },
  };
  await history(live, 1);
});
afterAll(() => t?.close());

describe('computed figures of the dashboard and the kitchen station stay within their establishment and mode', () => {
  it('a member and a paired station read the same figures after test mode, a sibling and another organisation wrote theirs', async () => {
    const before = { ...(await dashboardFigures(live.member, live.scope)), ...(await stationFigures(live.station)) };
    // The live history is real: every figure has something in it.
    expect((before['analytics.get by day'] as { total_records: number }).total_records).toBe(HISTORY + TODAY_RECORDS);
    expect((before['records.list totals'] as { total: number }).total).toBe(HISTORY + TODAY_RECORDS);
    expect((before['/station/records'] as { today: unknown }).today).toEqual({ day: TO, records: TODAY_RECORDS, kg: 3.75 });
    expect((before['sessions.list'] as { data: { record_count: number }[] }).data.map((s) => s.record_count)).toEqual([2]);
    expect((before['predict.demand'] as { products: unknown[] }).products).not.toEqual([]);

    for (const [who, writer] of Object.entries(noise)) {
      await history(writer, 3);
      await closures(writer);
      // The noise is there to be counted: its own scope reads it.
      const theirs = (await writer.member.query('analytics.get', { ...writer.scope, from: FROM, to: TO })) as { total_kg: number };
      expect(theirs.total_kg, who).toBeGreaterThan((before['analytics.get by day'] as { total_kg: number }).total_kg * 2);
    }

    const after = { ...(await dashboardFigures(live.member, live.scope)), ...(await stationFigures(live.station)) };
    for (const name of Object.keys(before)) expect.soft(after[name], name).toEqual(before[name]);
  });
});
