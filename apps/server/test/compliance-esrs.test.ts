import { parse } from 'csv-parse/sync';
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
 * ESRS E5-5 from the register (modules/compliance/esrs.ts): a year's food waste by each
 * destination's Waste Framework Directive operation (`GET /destinos` carries it).
 *
 * Worked example, by hand (a kitchen in Madrid, test mode, clock 29 November 2026):
 *   2026: 10 kg donated + 5 kg animal feed → not waste, 15 kg;
 *         8 kg composted (R3, recycling) + 3 kg energy recovery (R1, other recovery) → diverted 11 kg;
 *         4 kg landfill + 1 kg landfilled at 00:30 on 1 January in Madrid (23:30 UTC on 31 December)
 *         → landfill (D1) 5 kg.
 *   Total 31 kg; waste 31 − 15 = 16 kg; non-recycled 16 − 8 = 8 kg, a share of 8 / 16 = 0.5.
 *   How it was measured: the 8 kg composted weighed, the 4 kg landfilled a write-off → measured
 *   12 kg; the 3 kg of energy recovery estimated; the 1 kg of New Year's night said nothing; the
 *   10 kg donated were weighed but are not waste. Measured share 12 / 16 = 0.75.
 *   2025: 100 kg landfilled at 23:30 on 31 December in Madrid → 2025's waste is 100 kg, all
 *   non-recycled, none said measured (share 0).
 *   Not counted anywhere above: 50 kg of live records, and 70 kg of another kitchen, both weighed.
 */
const ANIMAL_FEED = 'c780cb3f-4952-4d92-8452-ab822aef0640';
const COMPOSTING = '51a096c6-196d-41dd-a02a-968cbfa9803f';
const ENERGY = '76662c15-f435-457d-899c-2ff5d118da82';

let t: TestContext;
let kitchen: Tenant;

beforeAll(async () => {
  t = await startTestApp({ clock: () => new Date('2026-11-29T10:00:00.000Z') });
  kitchen = await createTenant(t.db);
  const rows: [string, number, string, string | null][] = [
    ['2026-03-10T12:00:00.000Z', 10, DESTINO_DONATION, 'direct_weighing'],
    ['2026-04-02T12:00:00.000Z', 5, ANIMAL_FEED, null],
    ['2026-05-05T12:00:00.000Z', 8, COMPOSTING, 'direct_weighing'],
    ['2026-06-06T12:00:00.000Z', 3, ENERGY, 'estimate'],
    ['2026-07-07T12:00:00.000Z', 4, DESTINO_LANDFILL, 'write_off'],
    ['2025-12-31T23:30:00.000Z', 1, DESTINO_LANDFILL, null],
    ['2025-12-31T22:30:00.000Z', 100, DESTINO_LANDFILL, null],
  ];
  for (const [at, kg, destino, method] of rows) {
    await recordAt(t.db, kitchen, at, { weight_kg: kg, destino_id: destino, measurement_method: method });
  }
  const weighed = { weight_kg: 50, destino_id: DESTINO_LANDFILL, measurement_method: 'direct_weighing' };
  await recordAt(t.db, kitchen, '2026-05-05T12:00:00.000Z', weighed, { livemode: true });
  const other = await createTenant(t.db);
  await recordAt(t.db, other, '2026-05-05T12:00:00.000Z', { ...weighed, weight_kg: 70 });
});
afterAll(() => t?.close());

const esrs = (query = '') => api(t.app, kitchen.key).get(`/api/v1/compliance/esrs-e5${query}`);

describe('ESRS E5-5 from the register', () => {
  it('groups the year by each destination’s operation, as worked by hand', async () => {
    const res = await esrs('?year=2026');
    expect(res.statusCode, res.body).toBe(200);
    const e = res.json().data;
    expect(e).toMatchObject({
      establishment_id: kitchen.establishmentId,
      livemode: false,
      year: 2026,
      period: { from: '2026-01-01', to: '2026-11-29' },
      total_kg: 31,
      not_waste_kg: 15,
      waste_kg: 16,
      diverted_from_disposal: { preparation_for_reuse_kg: 0, recycling_kg: 8, other_recovery_kg: 3, total_kg: 11 },
      directed_to_disposal: { incineration_kg: 0, landfill_kg: 5, other_disposal_kg: 0, total_kg: 5 },
      non_recycled_kg: 8,
      non_recycled_share: 0.5,
      measurement: { measured_kg: 12, estimated_kg: 3, not_stated_kg: 1 },
      measured_share: 0.75,
    });
    expect(e.by_destination.map((d: { code: string; wfd_operation: string; kg: number }) => [d.code, d.wfd_operation, d.kg])).toEqual([
      ['human_consumption', 'not_waste', 0],
      ['donation', 'not_waste', 10],
      ['animal_feed', 'not_waste', 5],
      ['industrial_byproducts', 'not_waste', 0],
      ['composting', 'R3', 8],
      ['energy_recovery', 'R1', 3],
      ['landfill', 'D1', 5],
    ]);
    // The current year by default.
    expect((await esrs()).json().data).toEqual(e);
  });

  it('puts a record in the year of its local day, both sides of midnight on New Year’s Eve', async () => {
    const e = (await esrs('?year=2025')).json().data;
    expect(e).toMatchObject({
      period: { from: '2025-01-01', to: '2025-12-31' },
      total_kg: 100,
      waste_kg: 100,
      non_recycled_share: 1,
      measurement: { measured_kg: 0, estimated_kg: 0, not_stated_kg: 100 },
      measured_share: 0,
    });
  });

  it('answers a year with nothing as zeros, with no share', async () => {
    const e = (await esrs('?year=2027')).json().data;
    expect(e).toMatchObject({ total_kg: 0, waste_kg: 0, non_recycled_share: null, measured_share: null });
  });

  it('refuses a bad year with a 400 in the contract’s shape', async () => {
    for (const q of ['?year=1999', '?year=abc', '?year=2026.5', '?month=1']) {
      const res = await esrs(q);
      expect(res.statusCode, q).toBe(400);
      expect(errorBodyProblems(res), q).toEqual([]);
    }
  });

  it('is a spreadsheet’s CSV with the same figures, in Spanish and English, also from the dashboard', async () => {
    const es = await api(t.app, kitchen.key).get('/api/v1/compliance/esrs-e5.csv?year=2026');
    expect(es.statusCode, es.body).toBe(200);
    expect(es.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(es.headers['content-disposition']).toBe('attachment; filename="esrs-e5-2026-prueba.csv"');
    expect(es.rawPayload.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    const rows = parse(es.rawPayload, { bom: true, delimiter: ';', columns: true, record_delimiter: '\r\n' }) as Record<string, string>[];
    const row = (line: string) => rows.find((r) => r.Concepto === line);
    // The worked example above, in the Spanish form: decimal comma, shares in %.
    expect(row('Residuos generados')).toEqual({ Concepto: 'Residuos generados', 'ESRS E5, párrafo': '37 (a)', kg: '16', '%': '' });
    expect(row('Reciclado: compostaje y digestión (R3)')?.kg).toBe('8');
    expect(row('Vertedero (D1)')?.kg).toBe('5');
    expect(row('No reciclados')).toMatchObject({ kg: '8', '%': '50' });
    expect(row('Medido (pesado, contado o del TPV/ERP)')).toMatchObject({ kg: '12', '%': '75' });

    const en = await api(t.app, kitchen.key).get('/api/v1/compliance/esrs-e5.csv?year=2026&lang=en');
    const english = parse(en.rawPayload, { columns: true }) as Record<string, string>[];
    expect(english.find((r) => r.Line === 'Waste generated')).toEqual({
      Line: 'Waste generated',
      'ESRS E5 paragraph': '37 (a)',
      kg: '16',
      '%': '',
    });
    expect(en.headers['content-disposition']).toBe('attachment; filename="esrs-e5-2026-test.csv"');

    for (const query of ['?year=abc', '?lang=fr', '?format=xlsx']) {
      const bad = await api(t.app, kitchen.key).get(`/api/v1/compliance/esrs-e5.csv${query}`);
      expect(bad.statusCode, query).toBe(400);
      expect(errorBodyProblems(bad), query).toEqual([]);
    }
    const reader = await addKey(t.db, kitchen.establishmentId, 'test', 'records:read');
    expect((await api(t.app, reader.key).get('/api/v1/compliance/esrs-e5.csv')).statusCode).toBe(403);

    const member = await createMember(t.db, kitchen.organizationId, 'viewer');
    const viewer = new DashboardBrowser(t.app);
    await viewer.signIn(member.email, PASSWORD);
    const page = await t.app.inject({
      method: 'GET',
      url: `/export/esrs-e5.csv?establishment_id=${kitchen.establishmentId}&mode=test&year=2026`,
      headers: { cookie: `merma_session=${viewer.cookies.get('merma_session')}`, 'sec-fetch-site': 'same-origin' },
    });
    expect(page.statusCode, page.body).toBe(200);
    expect(page.rawPayload.equals(es.rawPayload)).toBe(true);
  });

  it('names each destination’s operation in GET /destinos', async () => {
    const res = await api(t.app, kitchen.key).get('/api/v1/destinos');
    expect(Object.fromEntries(res.json().data.map((d: { code: string; wfd_operation: string }) => [d.code, d.wfd_operation]))).toEqual({
      human_consumption: 'not_waste',
      donation: 'not_waste',
      animal_feed: 'not_waste',
      industrial_byproducts: 'not_waste',
      composting: 'R3',
      energy_recovery: 'R1',
      landfill: 'D1',
    });
  });
});
