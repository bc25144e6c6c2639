import { createHash } from 'node:crypto';
import { type DonationTaxPack, MAX_SIGNED_CERTIFICATE_BYTES } from '@merma/schema';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { parse } from 'csv-parse/sync';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changedDigests, errorBodyProblems, fetchOpenApi, type OpenApiDocument, tableDigests } from './contract.js';
import { signedAgreement, socialEntity } from './donation-fixtures.js';
import { addKey, createTenant, startTestApp, type TestContext } from './helpers.js';
import { pdfText } from './pdf.js';

/**
 * The certificate a social entity signed for the donor's gifts of a year, through the API
 * (`PUT` and `GET /api/v1/donations/tax-pack/certificates/{entity_id}/signed?year=&cif=`): stored
 * as sent with its SHA-256, one per company, entity, year and mode, a new upload replacing it with
 * the replaced hash in the audit log; the tax pack (JSON, CSV, PDF) says which it has received.
 * Refused and nothing written: not a PDF, too large, a bad year, a company to name; a 404 for
 * another organisation's entity or a company that gave nothing that year. Test and live keep apart.
 *
 * Each test builds its own organisation (`scene`): two companies (CIFs) of one Enterprise Multi
 * organisation that both gave to one food bank in 2026, and a test-mode gift of the first.
 */

const NOW = new Date('2026-11-20T10:00:00.000Z');
const YEAR = 2026;
let t: TestContext;
let doc: OpenApiDocument;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
const DOC_ID = 'https://merma.invalid/openapi.json';
const SIGNED_PATH = '/donations/tax-pack/certificates/{entity_id}/signed';

beforeAll(async () => {
  t = await startTestApp({ clock: () => NOW });
  doc = await fetchOpenApi(t.app);
  ajv.addSchema({ ...doc, $id: DOC_ID });
});
afterAll(() => t?.close());

const pdf = (fill: number, size = 512) => Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(size, fill), Buffer.from('\n%%EOF\n')]);
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

const send = (key: string, method: 'GET' | 'POST' | 'PUT', url: string, body?: Buffer | object, contentType?: string) =>
  t.app.inject({
    method,
    url: `/api/v1${url}`,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': contentType ?? (Buffer.isBuffer(body) ? 'application/pdf' : 'application/json') }),
    },
    ...(body === undefined ? {} : { payload: Buffer.isBuffer(body) ? body : JSON.stringify(body) }),
  });

const ok = (res: LightMyRequestResponse, status = 200) => {
  expect(res.statusCode, res.body.slice(0, 500)).toBe(status);
  return res;
};

/** An offered donation of one line, accepted and collected now; its id. */
async function give(key: string, agreementId: string, description: string, bookValue: number) {
  const offered = ok(
    await send(key, 'POST', '/donations', {
      agreement_id: agreementId,
      lines: [{ description, food_category: 'bakery', quantity: 5, unit: 'kg', book_value: bookValue, market_value: bookValue }],
    }),
    201,
  ).json().data;
  ok(await send(key, 'POST', `/donations/${offered.id}/decision`, { lines: [{ line_id: offered.lines[0].id, decision: 'accepted' }] }));
  ok(await send(key, 'POST', `/donations/${offered.id}/collect`));
  return offered.id as string;
}

const cifOf = async (establishmentId: string) =>
  (await t.db.$queryRawUnsafe<{ cif: string }[]>('SELECT cif FROM establishments WHERE id = $1::uuid', establishmentId))[0]?.cif as string;

/**
 * An organisation whose two companies gave to one food bank in 2026, and a test gift of the first
 * (see above); on the Enterprise plan (`enterprise`) each key sees its own establishment only.
 */
async function scene(plan: 'enterprise_multi' | 'enterprise' = 'enterprise_multi') {
  const x = await createTenant(t.db, { plan });
  const y = await createTenant(t.db, { organizationId: x.organizationId });
  const live = (await addKey(t.db, x.establishmentId, 'live')).key;
  const yLive = (await addKey(t.db, y.establishmentId, 'live')).key;
  const entity = await socialEntity(t, live);
  const agreement = await signedAgreement(t, live, entity, [x.establishmentId, y.establishmentId]);
  await give(live, agreement, 'Pan de X', 100);
  await give(yLive, agreement, 'Pan de Y', 40);
  await give(x.key, agreement, 'Pan de prueba', 999);
  return {
    organizationId: x.organizationId,
    live,
    test: x.key,
    yLive,
    entity,
    agreement,
    establishments: { x: x.establishmentId, y: y.establishmentId },
    cif: { x: await cifOf(x.establishmentId), y: await cifOf(y.establishmentId) },
  };
}
type Scene = Awaited<ReturnType<typeof scene>>;

const signedUrl = (entity: string, query: string) => `/donations/tax-pack/certificates/${entity}/signed?${query}`;
const upload = (key: string, entity: string, query: string, body: Buffer | object, contentType?: string) =>
  send(key, 'PUT', signedUrl(entity, query), body, contentType);
const download = (key: string, entity: string, query: string) => send(key, 'GET', signedUrl(entity, query));

const pack = async (key: string, query = `year=${YEAR}`) =>
  ok(await send(key, 'GET', `/donations/tax-pack?${query}`)).json().data as DonationTaxPack;
const entityIn = (p: DonationTaxPack, cif: string, id: string) =>
  p.taxpayers.find((x) => x.cif === cif)?.entities.find((e) => e.entity_id === id);

const uploads = (s: Scene) =>
  t.db.auditEvent.findMany({
    where: { organization_id: s.organizationId, action: 'donation_certificate.uploaded' },
    orderBy: { created_at: 'asc' },
  });
const storedRows = (s: Scene) =>
  t.db.$queryRawUnsafe<{ livemode: boolean; year: number; cif: string; sha256: string; size_bytes: number }[]>(
    'SELECT livemode, year, cif, sha256, size_bytes FROM donation_certificates WHERE organization_id = $1::uuid ORDER BY livemode, cif',
    s.organizationId,
  );

/** Holds an answer to the OpenAPI document: a documented status and content type, and a JSON body that validates. */
function documented(method: 'get' | 'put', res: LightMyRequestResponse) {
  const status = String(res.statusCode);
  const response = (doc.paths[SIGNED_PATH]?.[method] as { responses: Record<string, { content?: Record<string, unknown> }> } | undefined)
    ?.responses?.[status];
  expect(response, `${method} ${SIGNED_PATH} → ${status} is not documented`).toBeDefined();
  const type = String(res.headers['content-type']).split(';')[0] as string;
  expect(Object.keys(response?.content ?? {}), `${method} → ${status}`).toContain(type);
  if (type !== 'application/json') return;
  if (res.statusCode >= 400) expect(errorBodyProblems(res)).toEqual([]);
  const pointer = `${DOC_ID}#/paths/${encodeURIComponent(SIGNED_PATH.replaceAll('/', '~1'))}/${method}/responses/${status}/content/application~1json/schema`;
  const validate = ajv.getSchema(pointer) ?? ajv.compile({ $ref: pointer });
  expect(validate(res.json()), JSON.stringify(validate.errors)).toBe(true);
}

describe('storing the signed certificate', () => {
  it("stores the PDF as sent, answers its SHA-256, serves it back, and the pack shows it for that company's entity only", async () => {
    const s = await scene();
    const body = pdf(1);
    const res = ok(await upload(s.live, s.entity, `year=${YEAR}&cif=${s.cif.x.toLowerCase()}`, body));
    documented('put', res);
    expect(res.json().data).toEqual({
      entity_id: s.entity,
      year: YEAR,
      cif: s.cif.x,
      sha256: sha256(body),
      size_bytes: body.length,
      uploaded_at: NOW.toISOString(),
    });
    expect(await storedRows(s)).toEqual([{ livemode: true, year: YEAR, cif: s.cif.x, sha256: sha256(body), size_bytes: body.length }]);

    const got = ok(await download(s.live, s.entity, `year=${YEAR}&cif=${s.cif.x}`));
    documented('get', got);
    expect(got.rawPayload.equals(body)).toBe(true);
    expect(got.headers['content-type']).toBe('application/pdf');
    expect(got.headers.etag).toBe(`"${sha256(body)}"`);
    expect(got.headers['repr-digest']).toBe(`sha-256=:${Buffer.from(sha256(body), 'hex').toString('base64')}:`);
    expect(got.headers['content-disposition']).toBe(
      `attachment; filename="certificado-donativos-firmado-${YEAR}-${s.cif.x}-${s.entity}.pdf"`,
    );
    expect(got.headers['cache-control']).toBe('no-store');

    // The pack: X's entity has it, Y's (the same entity, another company) has not.
    const p = await pack(s.live);
    expect(entityIn(p, s.cif.x, s.entity)?.signed_certificate).toEqual({ sha256: sha256(body), uploaded_at: NOW.toISOString() });
    expect(entityIn(p, s.cif.y, s.entity)?.signed_certificate).toBeNull();
    // And its CSV and PDF say which was received.
    const csv = parse(ok(await send(s.live, 'GET', `/donations/tax-pack.csv?year=${YEAR}`)).body, {
      bom: true,
      delimiter: ';',
      columns: true,
      record_delimiter: '\r\n',
    }) as Record<string, string>[];
    const entityRow = (cif: string) => csv.find((r) => r.Nivel === 'Entidad' && r.CIF === cif);
    expect(entityRow(s.cif.x)?.['Certificado firmado recibido']).toBe('Sí, 20/11/2026');
    expect(entityRow(s.cif.y)?.['Certificado firmado recibido']).toBe('No');
    const summary = pdfText(ok(await send(s.live, 'GET', `/donations/tax-pack.pdf?year=${YEAR}`)).rawPayload).replace(/\s+/g, ' ');
    expect(summary).toContain('Certificado firmado');
    expect(summary).toContain('Recibido 20/11/2026');
    expect(summary).toContain('Pendiente');

    // The upload is audited, by the key, with nothing replaced.
    expect(await uploads(s)).toEqual([
      expect.objectContaining({
        actor_email: null,
        target: 'Banco de Alimentos del Barrio',
        establishment_id: s.establishments.x,
        details: {
          entity_id: s.entity,
          year: YEAR,
          cif: s.cif.x,
          livemode: true,
          sha256: sha256(body),
          size_bytes: body.length,
          replaced_sha256: null,
          api_key_id: expect.any(String),
          ip: expect.any(String),
        },
      }),
    ]);
  });

  it('replaces the stored certificate with a new upload, and the audit log keeps the hash it replaced', async () => {
    const s = await scene();
    const first = pdf(1);
    const second = pdf(2, 2048);
    const query = `year=${YEAR}&cif=${s.cif.y}`;
    ok(await upload(s.live, s.entity, query, first));
    const replaced = ok(await upload(s.yLive, s.entity, query, second)).json().data;
    expect(replaced).toMatchObject({ sha256: sha256(second), size_bytes: second.length, cif: s.cif.y });
    expect(ok(await download(s.live, s.entity, query)).rawPayload.equals(second)).toBe(true);
    expect(await storedRows(s)).toEqual([expect.objectContaining({ cif: s.cif.y, sha256: sha256(second) })]);
    const entries = (await uploads(s)).map((e) => e.details);
    expect(entries).toHaveLength(2);
    expect(entries).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ sha256: sha256(first), replaced_sha256: null }),
        expect.objectContaining({ sha256: sha256(second), replaced_sha256: sha256(first) }),
      ]),
    );
    expect(entityIn(await pack(s.live), s.cif.y, s.entity)?.signed_certificate?.sha256).toBe(sha256(second));
  });

  it('names the company itself when the key sees one: a single-establishment key needs no cif, and another company is a 404', async () => {
    const s = await scene('enterprise');
    // Y's own key (Enterprise: one establishment) sees its company only.
    const body = pdf(3);
    const res = ok(await upload(s.yLive, s.entity, `year=${YEAR}`, body));
    expect(res.json().data.cif).toBe(s.cif.y);
    expect(ok(await download(s.yLive, s.entity, `year=${YEAR}`)).rawPayload.equals(body)).toBe(true);
    // Its pack (its establishment's share) shows the company's certificate.
    expect(entityIn(await pack(s.yLive), s.cif.y, s.entity)?.signed_certificate?.sha256).toBe(sha256(body));
    const other = await upload(s.yLive, s.entity, `year=${YEAR}&cif=${s.cif.x}`, pdf(4));
    expect(other.statusCode, other.body).toBe(404);
    documented('put', other);
    expect(await storedRows(s)).toHaveLength(1);
  });
});

describe('refusals: nothing stored, nothing audited', () => {
  it('400 for a body that is not a PDF or is empty, a bad year, a bad entity id, an unknown parameter, or a company to name; 413 over 10 MiB; 415 for JSON', async () => {
    const s = await scene();
    const before = await tableDigests(t.db);
    const q = `year=${YEAR}&cif=${s.cif.x}`;
    const cases: [string, () => Promise<LightMyRequestResponse>, number, string | null][] = [
      ['not a PDF', () => upload(s.live, s.entity, q, Buffer.from('<html>no</html>')), 400, 'body'],
      ['empty', () => upload(s.live, s.entity, q, Buffer.alloc(0)), 400, 'body'],
      ['no year', () => upload(s.live, s.entity, `cif=${s.cif.x}`, pdf(1)), 400, 'year'],
      ['a year before 2000', () => upload(s.live, s.entity, `year=1999&cif=${s.cif.x}`, pdf(1)), 400, 'year'],
      ['a year that is not a number', () => upload(s.live, s.entity, `year=veinte&cif=${s.cif.x}`, pdf(1)), 400, 'year'],
      ['an unknown parameter', () => upload(s.live, s.entity, `${q}&taxable_base=1`, pdf(1)), 400, null],
      ['an entity id that is not a UUID', () => upload(s.live, 'banco', q, pdf(1)), 400, 'entity_id'],
      // Both companies gave to the entity in 2026: the organisation's key must say which.
      ['two companies, no cif', () => upload(s.live, s.entity, `year=${YEAR}`, pdf(1)), 400, 'cif'],
      [
        'over 10 MiB',
        () => upload(s.live, s.entity, q, Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(MAX_SIGNED_CERTIFICATE_BYTES, 1)])),
        413,
        null,
      ],
      ['JSON', () => upload(s.live, s.entity, q, { pdf: 'x' }), 415, null],
    ];
    for (const [name, request, status, path] of cases) {
      const res = await request();
      expect(res.statusCode, `${name}: ${res.body.slice(0, 300)}`).toBe(status);
      documented('put', res);
      if (path)
        expect(
          res.json().details?.map((d: { path: string }) => d.path),
          name,
        ).toContain(path);
    }
    expect(changedDigests(before, await tableDigests(t.db))).toEqual([]);
    // Exactly 10 MiB is taken.
    const fits = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(MAX_SIGNED_CERTIFICATE_BYTES - 9, 1)]);
    expect(ok(await upload(s.live, s.entity, q, fits)).json().data.size_bytes).toBe(MAX_SIGNED_CERTIFICATE_BYTES);
  });

  it("404 for another organisation's entity whatever the body, a company that gave nothing that year, and a certificate not stored yet", async () => {
    const s = await scene();
    const other = await scene();
    const before = await tableDigests(t.db);
    for (const body of [pdf(1), Buffer.from('not a pdf')]) {
      const res = await upload(other.live, s.entity, `year=${YEAR}`, body);
      expect(res.statusCode, res.body).toBe(404);
      documented('put', res);
    }
    expect((await download(other.live, s.entity, `year=${YEAR}`)).statusCode).toBe(404);
    // Nothing handed over to the entity in 2025.
    const earlier = await upload(s.live, s.entity, `year=2025&cif=${s.cif.x}`, pdf(1));
    expect(earlier.statusCode, earlier.body).toBe(404);
    // A company of the organisation that is not a CIF of it.
    expect((await upload(s.live, s.entity, `year=${YEAR}&cif=B00000000`, pdf(1))).statusCode).toBe(404);
    expect(changedDigests(before, await tableDigests(t.db))).toEqual([]);
    // Entity and year right, nothing stored yet.
    const none = await download(s.live, s.entity, `year=${YEAR}&cif=${s.cif.x}`);
    expect(none.statusCode).toBe(404);
    documented('get', none);
    expect(none.json().error).toContain('No signed certificate');
  });

  it('403 without donations:write to upload, and without donations:read to download', async () => {
    const s = await scene();
    const readOnly = (await addKey(t.db, s.establishments.x, 'live', 'donations:read')).key;
    const recordsOnly = (await addKey(t.db, s.establishments.x, 'live', 'records:read')).key;
    const before = await tableDigests(t.db);
    const q = `year=${YEAR}&cif=${s.cif.x}`;
    const refused = await upload(readOnly, s.entity, q, pdf(1));
    expect(refused.statusCode).toBe(403);
    documented('put', refused);
    expect(changedDigests(before, await tableDigests(t.db))).toEqual([]);
    ok(await upload(s.live, s.entity, q, pdf(1)));
    expect((await download(readOnly, s.entity, q)).statusCode).toBe(200);
    const unreadable = await download(recordsOnly, s.entity, q);
    expect(unreadable.statusCode).toBe(403);
    documented('get', unreadable);
  });
});

describe('test and live mode', () => {
  it("keeps a test key's certificate to its test donations: the live pack and key never see it, nor the test key the live one", async () => {
    const s = await scene();
    const rehearsal = pdf(5);
    const real = pdf(6);
    // The test key's company gave to the entity in test mode: its certificate is a rehearsal.
    const stored = ok(await upload(s.test, s.entity, `year=${YEAR}`, rehearsal)).json().data;
    expect(stored).toMatchObject({ cif: s.cif.x, sha256: sha256(rehearsal) });
    expect((await download(s.live, s.entity, `year=${YEAR}&cif=${s.cif.x}`)).statusCode).toBe(404);
    expect(entityIn(await pack(s.live), s.cif.x, s.entity)?.signed_certificate).toBeNull();
    expect(entityIn(await pack(s.test), s.cif.x, s.entity)?.signed_certificate?.sha256).toBe(sha256(rehearsal));
    const file = ok(await download(s.test, s.entity, `year=${YEAR}`));
    expect(file.headers['content-disposition']).toBe(
      `attachment; filename="certificado-donativos-firmado-${YEAR}-${s.cif.x}-${s.entity}-prueba.pdf"`,
    );

    // The live one beside it, each mode reading its own.
    ok(await upload(s.live, s.entity, `year=${YEAR}&cif=${s.cif.x}`, real));
    expect(ok(await download(s.test, s.entity, `year=${YEAR}`)).rawPayload.equals(rehearsal)).toBe(true);
    expect(ok(await download(s.live, s.entity, `year=${YEAR}&cif=${s.cif.x}`)).rawPayload.equals(real)).toBe(true);
    expect((await storedRows(s)).map((r) => [r.livemode, r.sha256])).toEqual([
      [false, sha256(rehearsal)],
      [true, sha256(real)],
    ]);
    // Y gave nothing in test mode: a test key naming Y is a 404.
    expect((await upload(s.test, s.entity, `year=${YEAR}&cif=${s.cif.y}`, pdf(7))).statusCode).toBe(404);
    // One entry each, whatever their order (the clock is fixed).
    expect((await uploads(s)).map((e) => String((e.details as { livemode: boolean }).livemode)).sort()).toEqual(['false', 'true']);
  });
});

describe('the OpenAPI document', () => {
  it('documents both methods with their bodies and permissions', () => {
    const item = doc.paths[SIGNED_PATH] as Record<
      string,
      { 'x-permission': string; requestBody?: { content: object }; responses: Record<string, { content?: object }> }
    >;
    expect(Object.keys(item).sort()).toEqual(['get', 'put']);
    expect(item.put?.['x-permission']).toBe('donations:write');
    expect(item.get?.['x-permission']).toBe('donations:read');
    expect(item.put?.requestBody?.content).toHaveProperty('application/pdf');
    expect(item.get?.responses['200']?.content).toHaveProperty('application/pdf');
    const entity = (doc.components.schemas as Record<string, { properties: Record<string, unknown> }>).DonationTaxEntity;
    expect(entity?.properties).toHaveProperty('signed_certificate');
  });
});
