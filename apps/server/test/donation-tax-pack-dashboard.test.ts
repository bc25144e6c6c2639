import { createHash } from 'node:crypto';
import { type DonationTaxPack, MAX_SIGNED_CERTIFICATE_BYTES } from '@merma/schema';
import type { Role } from '@merma/schema/dashboard';
import { deadline } from '@merma/testing';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changedDigests, tableDigests } from './contract.js';
import { createMember, DashboardBrowser, failure, PASSWORD } from './dashboard-client.js';
import { signedAgreement, socialEntity } from './donation-fixtures.js';
import { addKey, createTenant, startTestApp, type Tenant, type TestContext } from './helpers.js';
import { pdfText } from './pdf.js';

/**
 * The tax pack on the dashboard (`donations.taxPack` at /trpc, and its files and the signed
 * certificates at /files/donations/tax-pack…): every member reads the organisation's pack of the
 * mode shown, whatever the plan, and downloads its CSV, its PDF, an entity's pre-filled certificate
 * and the certificate the entity signed; owners and admins upload the signed one (developers,
 * viewers, no session or no CSRF header are refused before the body is read), each upload audited
 * with the member and the hash it replaced. Another organisation's entity is a 404; test and live
 * certificates stay apart.
 *
 * Organisation A (Enterprise, not Multi: the dashboard still reads every establishment) has two
 * companies, X and Y, that each gave one food bank something in 2026, and a test gift of X's.
 */
const NOW = new Date('2026-11-20T10:00:00.000Z');
const YEAR = 2026;
let now = NOW;
let t: TestContext;
let x: Tenant;
let yEstablishment: string;
let bank: string;
let bBank: string;
const cif = { x: '', y: '' };
const browsers = {} as Record<Role | 'otherOwner', DashboardBrowser>;

const send = (key: string, method: 'POST' | 'PUT', url: string, body?: unknown) =>
  t.app.inject({
    method,
    url: `/api/v1${url}`,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });

async function give(key: string, agreementId: string, description: string, bookValue: number) {
  const offered = await send(key, 'POST', '/donations', {
    agreement_id: agreementId,
    lines: [{ description, food_category: 'bakery', quantity: 5, unit: 'kg', book_value: bookValue, market_value: bookValue }],
  });
  expect(offered.statusCode, offered.body).toBe(201);
  const donation = offered.json().data;
  const decided = await send(key, 'POST', `/donations/${donation.id}/decision`, {
    lines: [{ line_id: donation.lines[0].id, decision: 'accepted' }],
  });
  expect(decided.statusCode, decided.body).toBe(200);
  expect((await send(key, 'POST', `/donations/${donation.id}/collect`)).statusCode).toBe(200);
}

const cifOf = async (establishmentId: string) =>
  (await t.db.$queryRawUnsafe<{ cif: string }[]>('SELECT cif FROM establishments WHERE id = $1::uuid', establishmentId))[0]?.cif as string;

beforeAll(async () => {
  t = await startTestApp({ config: { TRUST_PROXY: 'true', REDIS_URL: '' }, clock: () => now });
  x = await createTenant(t.db);
  yEstablishment = (await createTenant(t.db, { organizationId: x.organizationId })).establishmentId;
  const xLive = (await addKey(t.db, x.establishmentId, 'live')).key;
  const yLive = (await addKey(t.db, yEstablishment, 'live')).key;
  cif.x = await cifOf(x.establishmentId);
  cif.y = await cifOf(yEstablishment);
  bank = await socialEntity(t, xLive);
  const agreement = await signedAgreement(t, xLive, bank, [x.establishmentId, yEstablishment]);
  await give(xLive, agreement, 'Pan de X', 100);
  await give(yLive, agreement, 'Pan de Y', 40);
  await give(x.key, agreement, 'Pan de prueba', 999);

  const b = await createTenant(t.db);
  const bLive = (await addKey(t.db, b.establishmentId, 'live')).key;
  bBank = await socialEntity(t, bLive);
  await give(bLive, await signedAgreement(t, bLive, bBank, [b.establishmentId]), 'Pan de B', 10);

  // Signed in at the real time, so that the session cookies outlive the test (the client drops an
  // expired cookie by the real clock); the server's clock is NOW again for everything else.
  const signedIn = async (organizationId: string, role: Role) => {
    const member = await createMember(t.db, organizationId, role);
    const browser = new DashboardBrowser(t.app);
    now = new Date();
    try {
      await browser.signIn(member.email, PASSWORD);
    } finally {
      now = NOW;
    }
    return browser;
  };
  for (const role of ['owner', 'admin', 'developer', 'viewer'] as const) browsers[role] = await signedIn(x.organizationId, role);
  browsers.otherOwner = await signedIn(b.organizationId, 'owner');
}, deadline(90_000));

afterAll(async () => {
  await t?.close();
});

const pdf = (fill: number, size = 1024) => Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(size, fill), Buffer.from('\n%%EOF\n')]);
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** A file route as the page calls it: the session's cookies, and for a PUT the CSRF header and a PDF body. */
function files(
  browser: DashboardBrowser,
  method: 'GET' | 'PUT',
  url: string,
  { body, contentType = 'application/pdf', csrf = true }: { body?: Buffer | string; contentType?: string; csrf?: boolean } = {},
) {
  const headers: Record<string, string> = { 'sec-fetch-site': 'same-origin', 'x-forwarded-for': browser.ip };
  if (browser.cookies.size) headers.cookie = [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const token = browser.cookies.get('merma_csrf');
  if (method === 'PUT') {
    headers['content-type'] = contentType;
    if (csrf && token) headers['x-csrf-token'] = token;
  }
  return t.app.inject({ method, url: `/files/donations/tax-pack${url}`, headers, ...(body === undefined ? {} : { payload: body }) });
}
const signed = (entity: string, query: string) => `/certificates/${entity}/signed?${query}`;

const taxPack = (browser: DashboardBrowser, livemode: boolean, year = YEAR) =>
  browser.query<DonationTaxPack>('donations.taxPack', { year, livemode });
const entityIn = (p: DonationTaxPack, company: string, id: string) =>
  p.taxpayers.find((tp) => tp.cif === company)?.entities.find((e) => e.entity_id === id);
/** The live uploads' audit entries for one company's certificates. */
const auditEntries = async (company: string) =>
  (await t.db.auditEvent.findMany({ where: { organization_id: x.organizationId, action: 'donation_certificate.uploaded' } })).filter(
    (e) => (e.details as { cif: string; livemode: boolean }).cif === company && (e.details as { livemode: boolean }).livemode,
  );

describe('the tax pack from the dashboard', () => {
  it.each(['owner', 'admin', 'developer', 'viewer'] as const)(
    "%s: reads the organisation's pack of the mode shown, every company, whatever the plan",
    async (role) => {
      const live = await taxPack(browsers[role], true);
      expect(live).toMatchObject({ year: YEAR, livemode: true, scope: 'organisation' });
      expect(live.taxpayers.map((tp) => tp.cif).sort()).toEqual([cif.x, cif.y].sort());
      expect(entityIn(live, cif.x, bank)).toMatchObject({ rate_pct: 40, totals: { base: 100, deduction: 40 } });
      expect(entityIn(live, cif.y, bank)).toMatchObject({ totals: { base: 40, deduction: 16 } });
      expect(JSON.stringify(live)).not.toContain('Pan de prueba');
      const test = await taxPack(browsers[role], false);
      expect(test.livemode).toBe(false);
      expect(test.taxpayers.map((tp) => [tp.cif, tp.entities[0]?.totals?.base])).toEqual([[cif.x, 999]]);
    },
  );

  it('refuses a call without a session (401), a year out of range (400), and shows another organisation nothing', async () => {
    const anonymous = new DashboardBrowser(t.app);
    expect((await failure(taxPack(anonymous, true))).status).toBe(401);
    expect(await failure(taxPack(browsers.owner, true, 1999))).toMatchObject({ status: 400, code: 'validation_error' });
    const other = await taxPack(browsers.otherOwner, true);
    expect(other.taxpayers.flatMap((tp) => tp.entities.map((e) => e.entity_id))).toEqual([bBank]);
  });

  it('serves the CSV, the PDF and an entity’s pre-filled certificate to every member', async () => {
    const csv = await files(browsers.viewer, 'GET', `.csv?year=${YEAR}&mode=live`);
    expect(csv.statusCode, csv.body).toBe(200);
    expect(csv.headers['content-disposition']).toBe(`attachment; filename="pack-fiscal-donaciones-${YEAR}.csv"`);
    const rows = parse(csv.body, { bom: true, delimiter: ';', columns: true, record_delimiter: '\r\n' }) as Record<string, string>[];
    expect(
      rows
        .filter((r) => r.Nivel === 'Entidad')
        .map((r) => r.CIF)
        .sort(),
    ).toEqual([cif.x, cif.y].sort());
    const summary = await files(browsers.viewer, 'GET', `.pdf?year=${YEAR}&mode=test`);
    expect(summary.statusCode).toBe(200);
    expect(summary.headers['content-disposition']).toBe(`attachment; filename="pack-fiscal-donaciones-${YEAR}-prueba.pdf"`);
    expect(pdfText(summary.rawPayload)).toContain('PRUEBA');
    const certificate = await files(browsers.developer, 'GET', `/certificates/${bank}.pdf?year=${YEAR}&mode=live&cif=${cif.y}`);
    expect(certificate.statusCode, certificate.body).toBe(200);
    const text = pdfText(certificate.rawPayload).replace(/\s+/g, ' ');
    expect(text).toContain(cif.y);
    expect(text).toContain('Pan de Y');
    expect(text).not.toContain('Pan de X');
    // Bad query: 400; another organisation's entity: 404.
    expect((await files(browsers.viewer, 'GET', `.csv?year=2026`)).statusCode).toBe(400);
    expect((await files(browsers.viewer, 'GET', `/certificates/${bank}.pdf?year=${YEAR}&mode=live`)).statusCode).toBe(400);
    expect((await files(browsers.otherOwner, 'GET', `/certificates/${bank}.pdf?year=${YEAR}&mode=live&cif=${cif.x}`)).statusCode).toBe(404);
  });
});

describe('the signed certificate from the dashboard', () => {
  it('an admin uploads it, every member downloads it, the pack shows it; an owner replaces it; each upload audited with the hash replaced', async () => {
    const first = pdf(1);
    const second = pdf(2, 4096);
    const query = `year=${YEAR}&mode=live&cif=${cif.x.toLowerCase()}`;
    const stored = await files(browsers.admin, 'PUT', signed(bank, query), { body: first });
    expect(stored.statusCode, stored.body).toBe(200);
    expect(stored.json()).toEqual({
      entity_id: bank,
      year: YEAR,
      cif: cif.x,
      sha256: sha256(first),
      size_bytes: first.length,
      uploaded_at: NOW.toISOString(),
    });
    expect(entityIn(await taxPack(browsers.viewer, true), cif.x, bank)?.signed_certificate).toEqual({
      sha256: sha256(first),
      uploaded_at: NOW.toISOString(),
    });
    const got = await files(browsers.viewer, 'GET', signed(bank, query));
    expect(got.statusCode).toBe(200);
    expect(got.rawPayload.equals(first)).toBe(true);
    expect(got.headers.etag).toBe(`"${sha256(first)}"`);
    expect(got.headers['cache-control']).toBe('no-store');

    expect((await files(browsers.owner, 'PUT', signed(bank, query), { body: second })).statusCode).toBe(200);
    expect((await files(browsers.developer, 'GET', signed(bank, query))).rawPayload.equals(second)).toBe(true);
    const entries = await auditEntries(cif.x);
    expect(entries).toHaveLength(2);
    expect(entries).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          actor_email: expect.stringMatching(/^admin-/),
          target: 'Banco de Alimentos del Barrio',
          establishment_id: null,
          details: {
            entity_id: bank,
            year: YEAR,
            cif: cif.x,
            livemode: true,
            sha256: sha256(first),
            size_bytes: first.length,
            replaced_sha256: null,
          },
        }),
        expect.objectContaining({
          actor_email: expect.stringMatching(/^owner-/),
          details: expect.objectContaining({ sha256: sha256(second), replaced_sha256: sha256(first) }),
        }),
      ]),
    );
    // Y's certificate is still to come.
    expect(entityIn(await taxPack(browsers.viewer, true), cif.y, bank)?.signed_certificate).toBeNull();
    expect((await files(browsers.viewer, 'GET', signed(bank, `year=${YEAR}&mode=live&cif=${cif.y}`))).statusCode).toBe(404);
  });

  it('refuses an upload from a developer or viewer (403), without a session (401) or the CSRF header (403), before reading it; nothing written', async () => {
    const query = `year=${YEAR}&mode=live&cif=${cif.y}`;
    const before = await tableDigests(t.db);
    const anonymous = new DashboardBrowser(t.app);
    const cases = [
      [await files(browsers.developer, 'PUT', signed(bank, query), { body: pdf(3) }), 403, 'forbidden'],
      [await files(browsers.viewer, 'PUT', signed(bank, query), { body: pdf(3) }), 403, 'forbidden'],
      [await files(anonymous, 'PUT', signed(bank, query), { body: pdf(3) }), 401, 'unauthorized'],
      [await files(browsers.owner, 'PUT', signed(bank, query), { body: pdf(3), csrf: false }), 403, 'forbidden'],
      [await files(anonymous, 'GET', signed(bank, query)), 401, 'unauthorized'],
    ] as const;
    for (const [res, status, code] of cases) expect([res.statusCode, res.json().code], res.body).toEqual([status, code]);
    // A viewer's 10 MiB is refused before it is read: the same 403, not a 413.
    const huge = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(MAX_SIGNED_CERTIFICATE_BYTES, 1)]);
    expect((await files(browsers.viewer, 'PUT', signed(bank, query), { body: huge })).statusCode).toBe(403);
    expect(changedDigests(before, await tableDigests(t.db))).toEqual([]);
  });

  it("answers 404 for another organisation's entity whatever the body, 400 for a bad query or a body that is not a PDF, 413 over 10 MiB; nothing written", async () => {
    const before = await tableDigests(t.db);
    const query = `year=${YEAR}&mode=live&cif=${cif.y}`;
    const cases: [string, Promise<{ statusCode: number; body: string }>, number][] = [
      ['another organisation', files(browsers.otherOwner, 'PUT', signed(bank, query), { body: pdf(4) }), 404],
      ['another organisation, not a PDF', files(browsers.otherOwner, 'PUT', signed(bank, query), { body: 'x' }), 404],
      ['its own entity, another organisation’s company', files(browsers.otherOwner, 'PUT', signed(bBank, query), { body: pdf(4) }), 404],
      ['a year without gifts', files(browsers.owner, 'PUT', signed(bank, `year=2025&mode=live&cif=${cif.y}`), { body: pdf(4) }), 404],
      ['no company', files(browsers.owner, 'PUT', signed(bank, `year=${YEAR}&mode=live`), { body: pdf(4) }), 400],
      ['no mode', files(browsers.owner, 'PUT', signed(bank, `year=${YEAR}&cif=${cif.y}`), { body: pdf(4) }), 400],
      ['a bad year', files(browsers.owner, 'PUT', signed(bank, `year=20266&mode=live&cif=${cif.y}`), { body: pdf(4) }), 400],
      ['not a UUID', files(browsers.owner, 'PUT', signed('banco', query), { body: pdf(4) }), 400],
      ['not a PDF', files(browsers.owner, 'PUT', signed(bank, query), { body: '<html>' }), 400],
      ['JSON', files(browsers.owner, 'PUT', signed(bank, query), { body: '{}', contentType: 'application/json' }), 415],
      [
        'over 10 MiB',
        files(browsers.owner, 'PUT', signed(bank, query), {
          body: Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(MAX_SIGNED_CERTIFICATE_BYTES, 1)]),
        }),
        413,
      ],
    ];
    for (const [name, res, status] of cases) {
      const answer = await res;
      expect(answer.statusCode, `${name}: ${answer.body.slice(0, 300)}`).toBe(status);
    }
    expect(changedDigests(before, await tableDigests(t.db))).toEqual([]);
  });

  it('keeps the test mode apart: a certificate uploaded in test mode is of the test gifts, never in the live pack', async () => {
    const rehearsal = pdf(5);
    const res = await files(browsers.owner, 'PUT', signed(bank, `year=${YEAR}&mode=test&cif=${cif.x}`), { body: rehearsal });
    expect(res.statusCode, res.body).toBe(200);
    expect(entityIn(await taxPack(browsers.viewer, false), cif.x, bank)?.signed_certificate?.sha256).toBe(sha256(rehearsal));
    expect(entityIn(await taxPack(browsers.viewer, true), cif.x, bank)?.signed_certificate?.sha256).not.toBe(sha256(rehearsal));
    // Y gave nothing in test mode.
    expect((await files(browsers.owner, 'PUT', signed(bank, `year=${YEAR}&mode=test&cif=${cif.y}`), { body: rehearsal })).statusCode).toBe(
      404,
    );
    const file = await files(browsers.viewer, 'GET', signed(bank, `year=${YEAR}&mode=test&cif=${cif.x}`));
    expect(file.rawPayload.equals(rehearsal)).toBe(true);
    expect(file.headers['content-disposition']).toContain('-prueba.pdf');
  });
});
