import { deadline } from '@merma/testing';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLAIN_HEADERS, SPANISH_HEADERS } from './csv.js';
import { createMember, DashboardBrowser, PASSWORD } from './dashboard-client.js';
import { api, createTenant, startTestApp, type Tenant, type TestContext, validRecord } from './helpers.js';

/**
 * The two forms of the records CSV, read back with csv-parse: `es`, for a spreadsheet set to
 * Spanish, has Spanish headers and the Spanish names of the food category and the stage; `plain`,
 * for programs, has the API's field names and codes. Same columns, same order, same rows.
 */
let t: TestContext;
let tenant: Tenant;
let owner: DashboardBrowser;
const now = new Date('2026-11-23T11:00:00Z');

beforeAll(async () => {
  t = await startTestApp({ config: { TRUST_PROXY: 'true', REDIS_URL: '' }, clock: () => now });
  tenant = await createTenant(t.db);
  const records = [
    validRecord({ food_category: 'fish', waste_stage: 'preparation', weight_kg: 1.25, occurred_at: '2026-11-23T10:00:00Z' }),
    validRecord({ food_category: 'fruit_veg', waste_stage: 'post_service', weight_kg: 2, occurred_at: '2026-11-23T09:00:00Z' }),
    validRecord({ food_category: 'prepared_meals', weight_kg: 0.5, occurred_at: '2026-11-23T08:00:00Z' }),
  ];
  const res = await api(t.app, tenant.key).post('/api/v1/records/batch', { records });
  expect(res.statusCode, res.body).toBe(200);
  const o = await createMember(t.db, tenant.organizationId, 'viewer');
  owner = new DashboardBrowser(t.app);
  await owner.signIn(o.email, PASSWORD);
}, deadline(60_000));

afterAll(async () => {
  await t?.close();
});

const download = (dialect: 'es' | 'plain') =>
  t.app.inject({
    method: 'GET',
    url: '/export/records.csv',
    query: { establishment_id: tenant.establishmentId, mode: 'test', dialect, from: '2026-11-23', to: '2026-11-23' },
    headers: { cookie: `merma_session=${owner.cookies.get('merma_session')}`, 'sec-fetch-site': 'same-origin' },
  });

describe('records CSV: the Spanish and the plain form', () => {
  it('es: Spanish headers, Spanish names of category and stage, decimal comma', async () => {
    const res = await download('es');
    expect(res.statusCode).toBe(200);
    const [headers, ...rows] = parse(res.body, { bom: true, delimiter: ';' }) as string[][];
    expect(headers).toEqual(SPANISH_HEADERS);
    const byHeader = rows.map((r) => Object.fromEntries(SPANISH_HEADERS.map((h, i) => [h, r[i]])));
    expect(byHeader.map((r) => [r['Categoría'], r.Etapa, r['Peso (kg)']])).toEqual([
      ['Pescado', 'Preparación', '1,25'],
      ['Frutas y verduras', 'Post-servicio', '2'],
      ['Platos preparados', '', '0,5'],
    ]);
    expect(byHeader[0]?.Destino).toBe('Donación para consumo humano');
    expect(byHeader[0]?.['Fecha y hora local']).toBe('2026-11-23 11:00:00');
  });

  it('plain: the API field names and codes, decimal point', async () => {
    const res = await download('plain');
    expect(res.statusCode).toBe(200);
    const [headers, ...rows] = parse(res.body) as string[][];
    expect(headers).toEqual(PLAIN_HEADERS);
    const api_ = (await api(t.app, tenant.key).get('/api/v1/records', { query: { from: '2026-11-23', to: '2026-11-23' } })).json().data as {
      id: string;
      food_category: string;
      waste_stage: string | null;
    }[];
    expect(rows.map((r) => [r[0], r[4], r[10], r[5]])).toEqual([
      [api_[0]?.id, 'fish', 'preparation', '1.25'],
      [api_[1]?.id, 'fruit_veg', 'post_service', '2'],
      [api_[2]?.id, 'prepared_meals', '', '0.5'],
    ]);
    expect(api_.map((r) => r.food_category)).toEqual(['fish', 'fruit_veg', 'prepared_meals']);
  });
});
