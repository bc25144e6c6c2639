import { createHash } from 'node:crypto';
import { MAX_AGREEMENT_DOCUMENT_BYTES } from '@merma/schema';
import type { Role } from '@merma/schema/dashboard';
import { deadline } from '@merma/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changedDigests, tableDigests } from './contract.js';
import { createMember, DashboardBrowser, failure, PASSWORD } from './dashboard-client.js';
import { createTenant, startTestApp, type Tenant, type TestContext } from './helpers.js';

/**
 * Social entities and donation agreements from the dashboard (`donations.*` at /trpc, and the signed
 * PDF at /files/donation-agreements/{id}/document): every member reads, owners and admins write
 * (developers and viewers are refused, nothing written), each write audited; another organisation's
 * entity or agreement is a 404; the upload takes a PDF up to 10 MiB only, under the session's CSRF
 * header, and the agreement then shows its SHA-256; an agreement ending within 30 days carries the
 * days it has left.
 */
const NOW = new Date('2026-12-01T10:00:00.000Z'); // 11:00 in Madrid
let t: TestContext;
let a: Tenant;
let aSecond: string;
let b: Tenant;
const browsers = {} as Record<Role | 'otherOwner', DashboardBrowser>;

beforeAll(async () => {
  t = await startTestApp({ config: { TRUST_PROXY: 'true', REDIS_URL: '' }, clock: () => NOW });
  a = await createTenant(t.db);
  aSecond = (await createTenant(t.db, { organizationId: a.organizationId })).establishmentId;
  b = await createTenant(t.db);
  const signedIn = async (organizationId: string, role: Role) => {
    const member = await createMember(t.db, organizationId, role);
    const browser = new DashboardBrowser(t.app);
    await browser.signIn(member.email, PASSWORD);
    return browser;
  };
  for (const role of ['owner', 'admin', 'developer', 'viewer'] as const) browsers[role] = await signedIn(a.organizationId, role);
  browsers.otherOwner = await signedIn(b.organizationId, 'owner');
}, deadline(60_000));

afterAll(async () => {
  await t?.close();
});

let counter = 0;
/** A valid NIF of a legal person of its own for each call: G, 7 digits, the control digit. */
function nextNif(): string {
  const digits = String(2_000_000 + ++counter).padStart(7, '0');
  let sum = 0;
  for (let i = 0; i < 7; i++) {
    const d = Number(digits[i]);
    sum += i % 2 === 1 ? d : Math.floor((d * 2) / 10) + ((d * 2) % 10);
  }
  return `G${digits}${(10 - (sum % 10)) % 10}`;
}

const entityInput = (over: Record<string, unknown> = {}) => ({
  name: `Banco de Alimentos ${counter + 1}`,
  nif: nextNif(),
  address: 'Calle Mayor 1, 28013 Madrid',
  legal_form: 'banco_de_alimentos',
  registry_number: 'RNA 12345',
  ley_49_2002: { art2_entity: true, regime_opted_in: false },
  food_bank_network: 'FESBAL',
  contacts: [{ name: 'Ana Ruiz', role: 'Logística', phone: '+34 600 000 000', email: 'ana@example.org' }],
  capacity: { cold_chain: true, vehicle: false, notes: 'Cámara de 10 m³' },
  ...over,
});

const agreementInput = (entityId: string, over: Record<string, unknown> = {}) => ({
  entity_id: entityId,
  establishment_ids: [a.establishmentId, aSecond],
  valid_from: '2026-01-01',
  valid_until: '2027-06-30',
  renewal: 'none',
  accepted_food_categories: ['bakery', 'fruit_veg'],
  conditions: { chilled: true, frozen: false, cooked: false, near_best_before: true },
  collection: { schedule: 'Martes y jueves a las 18:00', weekdays: ['tuesday', 'thursday'], transport: 'entity' },
  storage_conditions: 'Refrigerado entre 0 y 4 ºC',
  safety_responsibility_clause: 'El donante responde hasta la entrega; la entidad desde la recogida.',
  refusal_procedure: 'La entidad puede rechazar con motivo por escrito.',
  ...over,
});

const PDF = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(4096, 7), Buffer.from('\n%%EOF\n')]);
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

const newEntity = (over: Record<string, unknown> = {}) => browsers.owner.mutate('donations.createEntity', entityInput(over));
const newAgreement = async (over: Record<string, unknown> = {}) =>
  browsers.owner.mutate('donations.createAgreement', agreementInput((await newEntity()).id, over));

/** The signed PDF sent as the page sends it: a PUT with the session's cookies and CSRF header. */
function upload(
  browser: DashboardBrowser,
  id: string,
  body: Buffer | string,
  { contentType = 'application/pdf', csrf = true }: { contentType?: string; csrf?: boolean } = {},
) {
  const headers: Record<string, string> = {
    'sec-fetch-site': 'same-origin',
    'x-forwarded-for': browser.ip,
    'content-type': contentType,
  };
  if (browser.cookies.size) headers.cookie = [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const token = browser.cookies.get('merma_csrf');
  if (csrf && token) headers['x-csrf-token'] = token;
  return t.app.inject({ method: 'PUT', url: `/files/donation-agreements/${id}/document`, headers, payload: body });
}

function download(browser: DashboardBrowser, id: string) {
  const headers: Record<string, string> = { 'sec-fetch-site': 'same-origin', 'x-forwarded-for': browser.ip };
  if (browser.cookies.size) headers.cookie = [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  return t.app.inject({ method: 'GET', url: `/files/donation-agreements/${id}/document`, headers });
}

const auditOf = (action: string) =>
  t.db.auditEvent.findMany({ where: { organization_id: a.organizationId, action }, orderBy: { created_at: 'asc' } });
const auditAbout = async (action: string, key: string, id: string) =>
  (await auditOf(action)).filter((e) => (e.details as Record<string, unknown>)[key] === id);

describe('social entities from the dashboard', () => {
  it('adds an entity (NIF normalised), lists it, changes it and archives and restores it, each change audited', async () => {
    const nif = nextNif();
    const input = entityInput({ nif: `${nif.slice(0, 1).toLowerCase()}-${nif.slice(1)}` }); // as written on paper
    const created = await browsers.admin.mutate('donations.createEntity', input);
    expect(created).toMatchObject({ ...input, nif, archived: false });
    expect(await auditAbout('social_entity.created', 'entity_id', created.id)).toEqual([
      expect.objectContaining({ target: input.name, details: { entity_id: created.id, nif, legal_form: 'banco_de_alimentos' } }),
    ]);
    // Every member reads the organisation's entities.
    const listed = await browsers.viewer.query('donations.entities');
    expect(listed.find((e: { id: string }) => e.id === created.id)).toEqual(created);

    const changed = await browsers.owner.mutate('donations.updateEntity', {
      id: created.id,
      food_bank_network: null,
      capacity: { cold_chain: true, vehicle: true },
      contacts: [],
    });
    expect(changed).toMatchObject({ food_bank_network: null, contacts: [], capacity: { cold_chain: true, vehicle: true, notes: null } });
    const [updated] = await auditAbout('social_entity.updated', 'entity_id', created.id);
    expect(updated?.details).toEqual({
      entity_id: created.id,
      changes: {
        food_bank_network: { before: 'FESBAL', after: null },
        capacity: { before: input.capacity, after: { cold_chain: true, vehicle: true, notes: null } },
      },
      contacts_changed: true,
    });

    expect((await browsers.owner.mutate('donations.archiveEntity', { id: created.id })).archived).toBe(true);
    // Archiving what is archived changes nothing and writes no entry.
    expect((await browsers.owner.mutate('donations.archiveEntity', { id: created.id })).archived).toBe(true);
    expect(await auditAbout('social_entity.archived', 'entity_id', created.id)).toHaveLength(1);
    // Archived entities stay in the dashboard's list, marked.
    expect((await browsers.viewer.query('donations.entities')).find((e: { id: string }) => e.id === created.id)?.archived).toBe(true);
    expect((await browsers.admin.mutate('donations.restoreEntity', { id: created.id })).archived).toBe(false);
    expect(await auditAbout('social_entity.restored', 'entity_id', created.id)).toHaveLength(1);
  });

  it("refuses what the API refuses, with the API's answers: a bad NIF (400), a NIF the organisation has (409); nothing written", async () => {
    const taken = await newEntity();
    const before = await tableDigests(t.db);
    const bad = await failure(browsers.owner.mutate('donations.createEntity', entityInput({ nif: 'G28029644' })));
    expect(bad).toMatchObject({ status: 400, code: 'validation_error' });
    expect(bad.body.error.data.details.map((d: { path: string }) => d.path)).toContain('nif');
    const twice = await failure(browsers.owner.mutate('donations.createEntity', entityInput({ nif: taken.nif })));
    expect(twice).toMatchObject({ status: 409, code: 'conflict' });
    const other = await newEntity();
    const before2 = await tableDigests(t.db);
    expect(await failure(browsers.owner.mutate('donations.updateEntity', { id: other.id, nif: taken.nif }))).toMatchObject({
      status: 409,
    });
    expect(changedDigests(before2, await tableDigests(t.db))).toEqual([]);
    // The only change between the first digest and the second is the entity made in between.
    expect(changedDigests(before, before2).map((c) => c.split(' ')[0])).toEqual(['audit_events', 'social_entities']);
  });

  it.each(['developer', 'viewer'] as const)('refuses a %s every write (403, nothing written)', async (role) => {
    const entity = await newEntity();
    const agreement = await newAgreement();
    const before = await tableDigests(t.db);
    for (const [path, input] of [
      ['donations.createEntity', entityInput()],
      ['donations.updateEntity', { id: entity.id, name: 'x' }],
      ['donations.archiveEntity', { id: entity.id }],
      ['donations.restoreEntity', { id: entity.id }],
      ['donations.createAgreement', agreementInput(entity.id)],
      ['donations.updateAgreement', { id: agreement.id, valid_until: '2027-12-31' }],
    ] as const) {
      expect(await failure(browsers[role].mutate(path, input)), path).toMatchObject({ status: 403, code: 'forbidden' });
    }
    expect(changedDigests(before, await tableDigests(t.db))).toEqual([]);
  });
});

describe('donation agreements from the dashboard', () => {
  it('adds and changes an agreement, each audited; lists it by entity and by establishment', async () => {
    const entity = await newEntity();
    const created = await browsers.owner.mutate('donations.createAgreement', agreementInput(entity.id));
    expect(created).toMatchObject({
      entity_id: entity.id,
      entity_name: entity.name,
      establishment_ids: [a.establishmentId, aSecond].sort(),
      status: 'draft',
      document: null,
      expires_in_days: null,
    });
    expect(await auditAbout('donation_agreement.created', 'agreement_id', created.id)).toEqual([
      expect.objectContaining({
        target: entity.name,
        establishment_id: null,
        details: {
          agreement_id: created.id,
          entity_id: entity.id,
          establishment_ids: created.establishment_ids,
          valid_from: '2026-01-01',
          valid_until: '2027-06-30',
          renewal: 'none',
        },
      }),
    ]);

    const changed = await browsers.admin.mutate('donations.updateAgreement', {
      id: created.id,
      establishment_ids: [aSecond],
      valid_until: '2027-12-31',
    });
    expect(changed).toMatchObject({ establishment_ids: [aSecond], valid_until: '2027-12-31' });
    const [entry] = await auditAbout('donation_agreement.updated', 'agreement_id', created.id);
    expect(entry?.details).toEqual({
      agreement_id: created.id,
      entity_id: entity.id,
      changes: {
        establishment_ids: { before: created.establishment_ids, after: [aSecond] },
        valid_until: { before: '2027-06-30', after: '2027-12-31' },
      },
    });
    // The dates are checked with the ones kept, as the API does.
    expect(await failure(browsers.owner.mutate('donations.updateAgreement', { id: created.id, valid_until: '2025-12-31' }))).toMatchObject({
      status: 400,
      code: 'validation_error',
    });

    const ids = (list: { id: string }[]) => list.map((x) => x.id);
    expect(ids(await browsers.viewer.query('donations.agreements', { entity_id: entity.id }))).toEqual([created.id]);
    expect(ids(await browsers.viewer.query('donations.agreements', { establishment_id: aSecond }))).toContain(created.id);
    expect(ids(await browsers.viewer.query('donations.agreements', { establishment_id: a.establishmentId }))).not.toContain(created.id);
  });

  it('says how many days an agreement in force has left from 30 days before its end, and never before', async () => {
    // 1 December in Madrid: 31 December is 30 days ahead, 1 January 31.
    const ending = await newAgreement({ valid_until: '2026-12-31' });
    const later = await newAgreement({ valid_until: '2027-01-01' });
    const renewed = await newAgreement({ valid_until: '2026-12-05', renewal: 'automatic_yearly' });
    for (const { id } of [ending, later, renewed]) expect((await upload(browsers.owner, id, PDF)).statusCode).toBe(200);
    const listed = await browsers.viewer.query('donations.agreements', { establishment_id: a.establishmentId });
    const shown = (id: string) => listed.find((x: { id: string }) => x.id === id);
    expect(shown(ending.id)).toMatchObject({ status: 'expiring', expires_in_days: 30 });
    expect(shown(later.id)).toMatchObject({ status: 'active', expires_in_days: null });
    expect(shown(renewed.id)).toMatchObject({ status: 'active', expires_in_days: null });
    const expiring = await browsers.viewer.query('donations.agreements', { establishment_id: a.establishmentId, status: 'expiring' });
    expect(expiring.map((x: { id: string }) => x.id)).toContain(ending.id);
    expect(expiring.map((x: { id: string }) => x.id)).not.toContain(later.id);
  });

  it("keeps another organisation out: A's entity, agreement and establishment are 404 (a body reference 400), nothing written", async () => {
    const entity = await newEntity();
    const agreement = await newAgreement();
    expect((await upload(browsers.owner, agreement.id, PDF)).statusCode).toBe(200);
    const before = await tableDigests(t.db);
    const other = browsers.otherOwner;
    for (const [kind, path, input] of [
      ['mutation', 'donations.updateEntity', { id: entity.id, name: 'x' }],
      ['mutation', 'donations.archiveEntity', { id: entity.id }],
      ['mutation', 'donations.restoreEntity', { id: entity.id }],
      ['mutation', 'donations.updateAgreement', { id: agreement.id, valid_until: '2027-12-31' }],
      ['query', 'donations.agreements', { entity_id: entity.id }],
      ['query', 'donations.agreements', { establishment_id: a.establishmentId }],
    ] as const) {
      const call = kind === 'query' ? other.query(path, input) : other.mutate(path, input);
      expect(await failure(call), path).toMatchObject({ status: 404, code: 'not_found' });
    }
    const bodyRefs = await failure(other.mutate('donations.createAgreement', { ...agreementInput(entity.id) }));
    expect(bodyRefs).toMatchObject({ status: 400, code: 'validation_error' });
    const put = await upload(other, agreement.id, PDF);
    expect([put.statusCode, put.json().code]).toEqual([404, 'not_found']);
    const get = await download(other, agreement.id);
    expect([get.statusCode, get.json().code]).toEqual([404, 'not_found']);
    expect(changedDigests(before, await tableDigests(t.db))).toEqual([]);
    // And B's lists show nothing of A's.
    const bList = JSON.stringify([await other.query('donations.entities'), await other.query('donations.agreements', {})]);
    expect(bList).not.toContain(entity.id);
    expect(bList).not.toContain(agreement.id);
  });
});

describe("the signed agreement's PDF from the dashboard", () => {
  it('stores a PDF an admin sends, audited with its SHA-256, which the agreement shows; every member downloads it', async () => {
    const agreement = await newAgreement();
    const res = await upload(browsers.admin, agreement.id, PDF);
    expect(res.statusCode, res.body).toBe(200);
    const answered = res.json();
    expect(answered).toMatchObject({
      id: agreement.id,
      status: 'active',
      document: { sha256: sha256(PDF), size_bytes: PDF.length },
      expires_in_days: null,
    });
    const listed = await browsers.viewer.query('donations.agreements', { entity_id: agreement.entity_id });
    expect(listed[0].document.sha256).toBe(sha256(PDF));
    expect(await auditAbout('donation_agreement.document_uploaded', 'agreement_id', agreement.id)).toEqual([
      expect.objectContaining({
        target: agreement.entity_name,
        actor_email: expect.stringMatching(/^admin-/),
        details: { agreement_id: agreement.id, sha256: sha256(PDF), size_bytes: PDF.length },
      }),
    ]);

    const got = await download(browsers.viewer, agreement.id);
    expect(got.statusCode).toBe(200);
    expect(got.headers['content-type']).toBe('application/pdf');
    expect(got.headers['content-disposition']).toBe(`attachment; filename="donation-agreement-${agreement.id}.pdf"`);
    expect(got.headers.etag).toBe(`"${sha256(PDF)}"`);
    expect(got.headers['cache-control']).toBe('no-store');
    expect(got.rawPayload.equals(PDF)).toBe(true);
  });

  it('refuses what is not a PDF (400), JSON (415), more than 10 MiB (413), nothing stored or audited', async () => {
    const agreement = await newAgreement();
    const before = await tableDigests(t.db);
    const notPdf = await upload(browsers.owner, agreement.id, Buffer.from('<html>not a pdf</html>'));
    expect([notPdf.statusCode, notPdf.json().code]).toEqual([400, 'validation_error']);
    const json = await upload(browsers.owner, agreement.id, JSON.stringify({ pdf: 'x' }), { contentType: 'application/json' });
    expect([json.statusCode, json.json().code]).toEqual([415, 'unsupported_media_type']);
    const text = await upload(browsers.owner, agreement.id, 'x', { contentType: 'text/plain' });
    expect(text.statusCode).toBe(415);
    const huge = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(MAX_AGREEMENT_DOCUMENT_BYTES, 1)]);
    const tooLarge = await upload(browsers.owner, agreement.id, huge);
    expect([tooLarge.statusCode, tooLarge.json().code]).toEqual([413, 'payload_too_large']);
    // Exactly 10 MiB is taken.
    const fits = await upload(browsers.owner, agreement.id, huge.subarray(0, MAX_AGREEMENT_DOCUMENT_BYTES));
    expect(fits.statusCode, fits.body.slice(0, 300)).toBe(200);
    expect(fits.json().document).toMatchObject({ size_bytes: MAX_AGREEMENT_DOCUMENT_BYTES });
    const after = changedDigests(before, await tableDigests(t.db)).map((c) => c.split(' ')[0]);
    // Only the upload that fits wrote: the document and one entry (the agreement's updated_at is
    // set to the clock's now, which the fixed clock already gave it).
    expect(after).toEqual(['audit_events', 'donation_agreement_documents']);
    expect(await auditAbout('donation_agreement.document_uploaded', 'agreement_id', agreement.id)).toHaveLength(1);
  });

  it('refuses an upload without a session (401), from a developer or viewer (403) or without the CSRF header (403); a download without a session (401)', async () => {
    const agreement = await newAgreement();
    const before = await tableDigests(t.db);
    const anonymous = new DashboardBrowser(t.app);
    const cases = [
      [await upload(anonymous, agreement.id, PDF), 401, 'unauthorized'],
      [await upload(browsers.developer, agreement.id, PDF), 403, 'forbidden'],
      [await upload(browsers.viewer, agreement.id, PDF), 403, 'forbidden'],
      [await upload(browsers.owner, agreement.id, PDF, { csrf: false }), 403, 'forbidden'],
      [await download(anonymous, agreement.id), 401, 'unauthorized'],
    ] as const;
    for (const [res, status, code] of cases) expect([res.statusCode, res.json().code]).toEqual([status, code]);
    expect(changedDigests(before, await tableDigests(t.db))).toEqual([]);
    // A cross-site request is refused before anything is read.
    const crossSite = await t.app.inject({
      method: 'GET',
      url: `/files/donation-agreements/${agreement.id}/document`,
      headers: { 'sec-fetch-site': 'cross-site', cookie: [...browsers.owner.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    expect(crossSite.statusCode).toBe(403);
    // An agreement without a document yet: 404 to everyone.
    expect((await download(browsers.owner, agreement.id)).statusCode).toBe(404);
  });

  it('leaves /trpc refusing a PDF body (415): the PDF parser serves the document route alone', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/trpc/donations.createEntity',
      headers: {
        'sec-fetch-site': 'same-origin',
        'content-type': 'application/pdf',
        cookie: [...browsers.owner.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
        'x-csrf-token': browsers.owner.cookies.get('merma_csrf') ?? '',
      },
      payload: PDF,
    });
    expect(res.statusCode).toBe(415);
  });
});
