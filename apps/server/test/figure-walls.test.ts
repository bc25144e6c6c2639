import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importProducts } from '../src/admin/service.js';
import { addKey, api, createTenant, DESTINO_DONATION, DESTINO_LANDFILL, startTestApp, type TestContext } from './helpers.js';

/**
 * The walls of every computed figure: what a live key reads from the analytics, the benchmark's
 * own average, the waste and demand forecasts and their advice, the prevention plan, the chain's
 * verification and the register's totals stays the same, to the digit, after the same
 * establishment's test mode, a sibling establishment of the same organisation and another
 * organisation each write a heavier history of their own (records, sales, closed weekdays and a
 * closure). The walls tests of each operation check the ids a key may name; this one checks what
 * is counted. A figure that reads one row without its establishment or mode changes here.
 */
const NOW = new Date('2026-11-24T10:00:00.000Z'); // a Tuesday
const HISTORY = 56;
const day = (back: number) => new Date(NOW.getTime() - back * 86_400_000).toISOString().slice(0, 10);
const FROM = day(HISTORY + 2);
const TO = day(0);

let t: TestContext;
type Writer = { key: string; croissant: string };
let live: Writer & { establishmentId: string; organizationId: string };
let noise: Record<'test mode' | 'sibling establishment' | 'other organisation', Writer>;

async function croissantOf(organizationId: string): Promise<string> {
  await importProducts(t.db, {
    org: organizationId,
    csv: 'name;food_category;ean;unit_weight_kg;unit_cost;price\nCroissant;bakery;8410000000023;0,06;0,30;1,20\n',
  });
  const product = await t.db.product.findFirstOrThrow({ where: { organization_id: organizationId, name: 'Croissant' } });
  return product.id;
}

/** `weeks` of daily sales and waste, scaled by `scale`, sent as a POS and an ERP would through the API. */
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
  const records = Array.from({ length: HISTORY }, (_, i) => ({
    food_category: i % 3 === 0 ? 'bakery' : 'prepared_meals',
    weight_kg: Math.round((1.5 + (i % 7) * 0.25) * scale * 1000) / 1000,
    destino_id: i % 2 ? DESTINO_DONATION : DESTINO_LANDFILL,
    product_name: i % 3 === 0 ? 'Croissant' : undefined,
    occurred_at: `${day(i + 1)}T18:00:00.000Z`,
  }));
  const batch = await http.post('/api/v1/records/batch', { records });
  expect(batch.statusCode, batch.body).toBe(200);
  expect(batch.json().data).toMatchObject({ inserted: HISTORY, failed: 0 });
}

/** Closed on Mondays and Wednesdays, and for a week's holiday: what the forecast leaves out. */
async function closures(writer: Writer) {
  const auth = { authorization: `Bearer ${writer.key}`, 'content-type': 'application/json' };
  const weekdays = await t.app.inject({
    method: 'PUT',
    url: '/api/v1/opening-calendar/weekdays',
    headers: auth,
    payload: { closed_weekdays: ['monday', 'wednesday'] },
  });
  expect(weekdays.statusCode, weekdays.body).toBe(200);
  const closure = await api(t.app, writer.key).post('/api/v1/opening-calendar/closures', {
    starts_on: day(20),
    ends_on: day(14),
    reason: 'Vacaciones',
  });
  expect(closure.statusCode, closure.body).toBe(201);
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
          ([k]) =>
            !/^(id|plan_id|generated_at|timestamp|created_at|checked_at|verified_at|version|sha256|previous|documents|documents_seq|documents_head_hash|signature)$/.test(
              k,
            ),
        )
        .map(([k, v]) => [k, figuresOnly(v)]),
    );
  }
  return value;
}

/** Every figure a key reads, by what it is. */
async function figures(key: string): Promise<Record<string, unknown>> {
  const http = api(t.app, key);
  const read = async (url: string) => {
    const res = await http.get(url);
    expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
    return figuresOnly(res.json().data);
  };
  const out: Record<string, unknown> = {};
  for (const group of ['day', 'week', 'month'])
    out[`analytics by ${group}`] = await read(`/api/v1/analytics?from=${FROM}&to=${TO}&group_by=${group}`);
  out['analytics, bakery to donation'] = await read(
    `/api/v1/analytics?from=${FROM}&to=${TO}&food_category=bakery&destino_id=${DESTINO_DONATION}`,
  );
  const benchmark = (await read('/api/v1/benchmarking')) as { your_avg_kg_per_day: number };
  // The sector's average and the percentile are everyone's by design; the key's own average is its own.
  out['benchmark, own average'] = benchmark.your_avg_kg_per_day;
  out['waste forecast'] = await read('/api/v1/predict?horizon=14');
  out['waste forecast, bakery'] = await read('/api/v1/predict?horizon=7&food_category=bakery');
  out['demand forecast and advice'] = await read('/api/v1/predict?type=demand&horizon=14');
  out['chain verification'] = await read('/api/v1/records/verify?full=true');
  out['ESRS E5-5'] = await read(`/api/v1/compliance/esrs-e5?year=${FROM.slice(0, 4)}`);
  out['hierarchy justifications'] = await read(`/api/v1/compliance/hierarchy?year=${FROM.slice(0, 4)}`);
  for (const baseline of ['2021-2023', '2020', 'first_year'])
    out[`reduction against ${baseline}`] = await read(`/api/v1/compliance/reduction?year=${FROM.slice(0, 4)}&baseline=${baseline}`);
  // An Enterprise key's organisation figures are its establishment's (an Enterprise Multi key's sum its siblings by design).
  out['organisation figures'] = await read(`/api/v1/compliance/organization?year=${FROM.slice(0, 4)}`);
  const list = await http.get(`/api/v1/records?from=${FROM}&to=${TO}&limit=1`);
  out['register total'] = list.json().meta.pagination.total;
  const plan = await http.post('/api/v1/prevention-plan', {});
  expect(plan.statusCode, plan.body).toBe(201);
  out['prevention plan'] = figuresOnly(plan.json().data);
  // The measures of the plan just generated, as followed up, and the year's training.
  out['plan measures'] = await read('/api/v1/prevention-plan/measures');
  out['training sessions'] = await read(`/api/v1/training-sessions?year=${FROM.slice(0, 4)}`);
  return out;
}

beforeAll(async () => {
  t = await startTestApp({ clock: () => NOW });
  const owner = await createTenant(t.db, { mode: 'live' });
  live = { ...owner, croissant: await croissantOf(owner.organizationId) };
  const sibling = await createTenant(t.db, { mode: 'live', organizationId: owner.organizationId });
  const stranger = await createTenant(t.db, { mode: 'live' });
  noise = {
    'test mode': { key: (await addKey(t.db, owner.establishmentId, 'test')).key, croissant: live.croissant },
    'sibling establishment': { key: sibling.key, croissant: live.croissant },
    'other organisation': { key: stranger.key, croissant: await croissantOf(stranger.organizationId) },
  };
  await history(live, 1);
});
afterAll(() => t?.close());

describe('computed figures stay within their establishment and mode', () => {
  it('a live key reads the same figures after test mode, a sibling and another organisation wrote theirs', async () => {
    const before = await figures(live.key);
    // The live history is real: every figure has something in it.
    expect((before['analytics by day'] as { total_records: number }).total_records).toBe(HISTORY);
    expect(before['register total']).toBe(HISTORY);

    for (const [who, writer] of Object.entries(noise)) {
      await history(writer, 3);
      await closures(writer);
      // The noise is there to be counted: its own key reads it.
      const theirs = await figures(writer.key);
      expect((theirs['analytics by day'] as { total_kg: number }).total_kg, who).toBeGreaterThan(
        (before['analytics by day'] as { total_kg: number }).total_kg * 2,
      );
    }

    const after = await figures(live.key);
    for (const name of Object.keys(before)) expect(after[name], name).toEqual(before[name]);
  });
});
