import { createHash } from 'node:crypto';
import { WebhookEvent } from '@merma/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlOfTransaction } from '../src/db/sql.js';
import { notifyExpiringAgreements } from '../src/modules/donations/expiring.js';
import { errorBodyProblems } from './contract.js';
import { addKey, createTenant, startTestApp, type Tenant, type TestContext } from './helpers.js';

/**
 * Social entities and donation agreements (`/api/v1/social-entities`, `/api/v1/donation-agreements`
 * and the signed document's own route): answers, what is stored, the refusals (nothing stored),
 * another organisation's ids (404), the document's SHA-256 and the 30-day edge of `expiring` and of
 * its webhook, on a moved clock.
 */

let now = new Date('2026-12-01T10:00:00.000Z');
let t: TestContext;
let a: Tenant;
let aLive: string;
let aSecondEstablishment: string;
let b: Tenant;
let bLive: string;

beforeAll(async () => {
  t = await startTestApp({ clock: () => now });
  a = await createTenant(t.db);
  aLive = (await addKey(t.db, a.establishmentId, 'live')).key;
  aSecondEstablishment = (await createTenant(t.db, { organizationId: a.organizationId })).establishmentId;
  b = await createTenant(t.db);
  bLive = (await addKey(t.db, b.establishmentId, 'live')).key;
});
afterAll(() => t?.close());

const send = async (
  key: string,
  method: 'GET' | 'POST' | 'PATCH' | 'PUT',
  url: string,
  body?: unknown,
  contentType = 'application/json',
) => {
  const res = await t.app.inject({
    method,
    url: `/api/v1${url}`,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': contentType }) },
    ...(body === undefined ? {} : { payload: typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body) }),
  });
  return res;
};

const ENTITY = {
  name: 'Banco de Alimentos de Prueba',
  nif: 'g-28029643',
  address: 'Calle Mayor 1, 28013 Madrid',
  legal_form: 'banco_de_alimentos',
  registry_number: 'RNA 12345',
  ley_49_2002: { art2_entity: true, regime_opted_in: true },
  food_bank_network: 'FESBAL',
  contacts: [{ name: 'Ana Ruiz', role: 'Logística', phone: '+34 600 000 000', email: 'ana@example.org' }],
  capacity: { cold_chain: true, vehicle: false, notes: 'Cámara de 10 m³' },
};

const agreementBody = (entityId: string, establishmentIds: string[], overrides: Record<string, unknown> = {}) => ({
  entity_id: entityId,
  establishment_ids: establishmentIds,
  valid_from: '2026-01-01',
  valid_until: '2027-06-30',
  renewal: 'none',
  accepted_food_categories: ['bakery', 'fruit_veg'],
  conditions: { chilled: true, frozen: false, cooked: false, near_best_before: true },
  collection: { schedule: 'Martes y jueves a las 18:00', weekdays: ['tuesday', 'thursday'], transport: 'entity' },
  storage_conditions: 'Refrigerado entre 0 y 4 ºC',
  safety_responsibility_clause: 'El donante responde hasta la entrega; la entidad desde la recogida.',
  refusal_procedure: 'La entidad puede rechazar con motivo por escrito; el donante destina el alimento al siguiente paso.',
  ...overrides,
});

const PDF = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(2048, 7), Buffer.from('\n%%EOF\n')]);

const count = async (table: string) => Number((await t.db.$queryRawUnsafe<{ n: bigint }[]>(`SELECT count(*) AS n FROM ${table}`))[0]?.n);
const counts = async () => ({
  entities: await count('social_entities'),
  agreements: await count('donation_agreements'),
  links: await count('donation_agreement_establishments'),
  documents: await count('donation_agreement_documents'),
});

async function createEntity(key = aLive, body: Record<string, unknown> = ENTITY) {
  const res = await send(key, 'POST', '/social-entities', body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { id: string };
}

describe('social entities', () => {
  it('stores an entity with its NIF normalised, lists, reads, changes and archives it', async () => {
    const created = await send(aLive, 'POST', '/social-entities', ENTITY);
    expect(created.statusCode, created.body).toBe(201);
    const entity = created.json().data;
    expect(entity).toMatchObject({ ...ENTITY, nif: 'G28029643', archived: false });
    const [row] = await t.db.$queryRawUnsafe<{ organization_id: string; nif: string; cold_chain: boolean }[]>(
      'SELECT organization_id::text, nif, cold_chain FROM social_entities WHERE id = $1::uuid',
      entity.id,
    );
    expect(row).toEqual({ organization_id: a.organizationId, nif: 'G28029643', cold_chain: true });

    // A test key reads it (the organisation's), but does not change it.
    expect((await send(a.key, 'GET', `/social-entities/${entity.id}`)).json().data).toEqual(entity);
    expect((await send(a.key, 'GET', '/social-entities')).json().data.map((e: { id: string }) => e.id)).toContain(entity.id);
    expect((await send(a.key, 'PATCH', `/social-entities/${entity.id}`, { name: 'x' })).statusCode).toBe(403);

    const changed = await send(aLive, 'PATCH', `/social-entities/${entity.id}`, { food_bank_network: null, contacts: [] });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json().data).toMatchObject({ name: ENTITY.name, food_bank_network: null, contacts: [] });

    const archived = await send(aLive, 'POST', `/social-entities/${entity.id}/archive`);
    expect(archived.json().data.archived).toBe(true);
    expect((await send(a.key, 'GET', '/social-entities')).json().data.map((e: { id: string }) => e.id)).not.toContain(entity.id);
    expect((await send(a.key, 'GET', '/social-entities?include_archived=true')).json().data.map((e: { id: string }) => e.id)).toContain(
      entity.id,
    );
    expect((await send(aLive, 'POST', `/social-entities/${entity.id}/restore`)).json().data.archived).toBe(false);
  });

  it('refuses a bad NIF, a missing field and a NIF the organisation already has, storing nothing', async () => {
    const before = await counts();
    for (const nif of ['G28029644', '12345678Z', 'X1234567L', 'G2802964', 'Z28029643']) {
      const res = await send(aLive, 'POST', '/social-entities', { ...ENTITY, nif: nif });
      expect(res.statusCode, nif).toBe(400);
      expect(errorBodyProblems(res)).toEqual([]);
      expect(res.json().details.map((d: { path: string }) => d.path)).toContain('nif');
    }
    expect((await send(aLive, 'POST', '/social-entities', { ...ENTITY, legal_form: 'club' })).statusCode).toBe(400);
    expect((await send(aLive, 'POST', '/social-entities', { ...ENTITY, capacity: undefined })).statusCode).toBe(400);
    expect(await counts()).toEqual(before);
    await createEntity(aLive, { ...ENTITY, nif: 'R2800001F' });
    const twice = await send(aLive, 'POST', '/social-entities', { ...ENTITY, nif: 'R-2800001-F' });
    expect(twice.statusCode).toBe(409);
    expect((await counts()).entities).toBe(before.entities + 1);
    // Another organisation may have the same entity.
    await createEntity(bLive, { ...ENTITY, nif: 'R2800001F' });
  });

  it('creates under an Idempotency-Key (in the request’s transaction) as without one, and replays it', async () => {
    const post = (key: string, body: unknown) =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/social-entities',
        headers: { authorization: `Bearer ${aLive}`, 'content-type': 'application/json', 'idempotency-key': key },
        payload: JSON.stringify(body),
      });
    const body = { ...ENTITY, nif: 'Q2826000H', legal_form: 'otra' };
    const first = await post('entity-once', body);
    expect(first.statusCode, first.body).toBe(201);
    const again = await post('entity-once', body);
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().data).toEqual(first.json().data);
    const duplicate = await post('entity-other', body);
    expect(duplicate.statusCode, duplicate.body).toBe(409);
    expect(duplicate.json().code).toBe('conflict');
    const agreement = await t.app.inject({
      method: 'POST',
      url: '/api/v1/donation-agreements',
      headers: { authorization: `Bearer ${aLive}`, 'content-type': 'application/json', 'idempotency-key': 'agreement-once' },
      payload: JSON.stringify(agreementBody(first.json().data.id, [a.establishmentId])),
    });
    expect(agreement.statusCode, agreement.body).toBe(201);
    expect(agreement.json().data.establishment_ids).toEqual([a.establishmentId]);
  });

  it("answers 404 to another organisation's entity, and changes nothing of it", async () => {
    const theirs = await createEntity(bLive, { ...ENTITY, nif: 'G80453087' });
    for (const [method, url, body] of [
      ['GET', `/social-entities/${theirs.id}`, undefined],
      ['PATCH', `/social-entities/${theirs.id}`, { name: 'Mine now' }],
      ['POST', `/social-entities/${theirs.id}/archive`, undefined],
    ] as const) {
      for (const key of [a.key, aLive]) {
        const res = await send(key, method, url, body);
        expect(res.statusCode, `${method} ${url}`).toBe(404);
        expect(res.body).not.toContain(ENTITY.address);
      }
    }
    expect((await send(bLive, 'GET', `/social-entities/${theirs.id}`)).json().data).toMatchObject({ name: ENTITY.name, archived: false });
    expect((await send(aLive, 'GET', '/social-entities?include_archived=true')).body).not.toContain(theirs.id);
  });
});

describe('donation agreements', () => {
  it('stores an agreement for two establishments, a draft until its signed PDF is stored', async () => {
    const entity = await createEntity(aLive, { ...ENTITY, nif: 'G8045308G' });
    const created = await send(aLive, 'POST', '/donation-agreements', agreementBody(entity.id, [a.establishmentId, aSecondEstablishment]));
    expect(created.statusCode, created.body).toBe(201);
    const agreement = created.json().data;
    expect(agreement).toMatchObject({
      entity_id: entity.id,
      entity_name: ENTITY.name,
      establishment_ids: [a.establishmentId, aSecondEstablishment].sort(),
      status: 'draft',
      document: null,
      collection: { transport: 'entity', weekdays: ['tuesday', 'thursday'] },
    });
    const links = await t.db.$queryRawUnsafe<{ establishment_id: string }[]>(
      'SELECT establishment_id::text FROM donation_agreement_establishments WHERE agreement_id = $1::uuid ORDER BY 1',
      agreement.id,
    );
    expect(links.map((l) => l.establishment_id)).toEqual([a.establishmentId, aSecondEstablishment].sort());

    const put = await send(aLive, 'PUT', `/donation-agreements/${agreement.id}/document`, PDF, 'application/pdf');
    expect(put.statusCode, put.body).toBe(200);
    const sha256 = createHash('sha256').update(PDF).digest('hex');
    expect(put.json().data).toMatchObject({ status: 'active', document: { sha256, size_bytes: PDF.length } });
    const [stored] = await t.db.$queryRawUnsafe<{ content: Uint8Array; sha256: string }[]>(
      'SELECT content, sha256 FROM donation_agreement_documents WHERE agreement_id = $1::uuid',
      agreement.id,
    );
    expect(Buffer.from(stored?.content ?? []).equals(PDF)).toBe(true);
    expect(stored?.sha256).toBe(sha256);

    // A test key of another establishment of the organisation reads it and its document.
    const reader = (await addKey(t.db, aSecondEstablishment, 'test', 'donations:read')).key;
    const got = await send(reader, 'GET', `/donation-agreements/${agreement.id}/document`);
    expect(got.statusCode).toBe(200);
    expect(got.headers['content-type']).toBe('application/pdf');
    expect(got.rawPayload.equals(PDF)).toBe(true);
    expect(got.headers.etag).toBe(`"${sha256}"`);
    expect(
      (
        await send(reader, 'GET', `/donation-agreements?entity_id=${entity.id}&establishment_id=${aSecondEstablishment}&status=active`)
      ).json().data,
    ).toEqual([put.json().data]);
    expect((await send(reader, 'PUT', `/donation-agreements/${agreement.id}/document`, PDF, 'application/pdf')).statusCode).toBe(403);

    const patched = await send(aLive, 'PATCH', `/donation-agreements/${agreement.id}`, { establishment_ids: [a.establishmentId] });
    expect(patched.json().data.establishment_ids).toEqual([a.establishmentId]);
  });

  it('refuses bad input, unknown references and a body that is not a PDF, storing nothing', async () => {
    const entity = await createEntity(aLive, { ...ENTITY, nif: 'B12345674' });
    const theirEntity = await createEntity(bLive, { ...ENTITY, nif: 'B12345674' });
    const agreement = (await send(aLive, 'POST', '/donation-agreements', agreementBody(entity.id, [a.establishmentId]))).json().data;
    const before = await counts();
    const refusals: [number, unknown][] = [
      [400, agreementBody(entity.id, [a.establishmentId], { valid_from: '2027-01-01', valid_until: '2026-12-31' })],
      [400, agreementBody(entity.id, [a.establishmentId], { accepted_food_categories: ['gold'] })],
      [400, agreementBody(entity.id, [a.establishmentId], { collection: { schedule: 'x', weekdays: ['lunes'], transport: 'entity' } })],
      [400, agreementBody(entity.id, [])],
      // Unknown ids in a body are a bad request (400), as every body reference of the API.
      [400, agreementBody(entity.id, [a.establishmentId, b.establishmentId])],
      [400, agreementBody(theirEntity.id, [a.establishmentId])],
      [400, agreementBody('7f4e7c9e-5d2a-4c1b-9e8f-0a1b2c3d4e5f', [a.establishmentId])],
    ];
    for (const [status, body] of refusals) {
      const res = await send(aLive, 'POST', '/donation-agreements', body);
      expect(res.statusCode, res.body).toBe(status);
      expect(errorBodyProblems(res)).toEqual([]);
    }
    expect((await send(a.key, 'POST', '/donation-agreements', agreementBody(entity.id, [a.establishmentId]))).statusCode).toBe(403);
    // A change is checked with the dates kept.
    const backwards = await send(aLive, 'PATCH', `/donation-agreements/${agreement.id}`, { valid_until: '2025-12-31' });
    expect(backwards.statusCode).toBe(400);
    expect(
      (await send(aLive, 'PATCH', `/donation-agreements/${agreement.id}`, { establishment_ids: [b.establishmentId] })).statusCode,
    ).toBe(400);
    // The document: not a PDF, another content type, too large.
    const url = `/donation-agreements/${agreement.id}/document`;
    const notPdf = await send(aLive, 'PUT', url, 'hello, not a pdf', 'application/pdf');
    expect(notPdf.statusCode).toBe(400);
    expect(errorBodyProblems(notPdf)).toEqual([]);
    expect((await send(aLive, 'PUT', url, Buffer.alloc(0), 'application/pdf')).statusCode).toBe(400);
    expect((await send(aLive, 'PUT', url, 'x', 'text/plain')).statusCode).toBe(415);
    expect((await send(aLive, 'PUT', url, { pdf: 'x' })).statusCode).toBe(415);
    const huge = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(10 * 1024 * 1024)]);
    const tooLarge = await send(aLive, 'PUT', url, huge, 'application/pdf');
    expect(tooLarge.statusCode).toBe(413);
    expect(errorBodyProblems(tooLarge)).toEqual([]);
    expect((await send(a.key, 'PUT', url, PDF, 'application/pdf')).statusCode).toBe(403);
    expect((await send(aLive, 'GET', url)).statusCode).toBe(404); // none stored yet
    expect(await counts()).toEqual(before);
    expect((await send(aLive, 'GET', `/donation-agreements/${agreement.id}`)).json().data).toEqual(agreement);
    // application/pdf is parsed on the document's route only.
    expect((await send(aLive, 'POST', '/social-entities', PDF, 'application/pdf')).statusCode).toBe(415);
  });

  it("answers 404 to another organisation's agreement and its document, and changes nothing of it", async () => {
    const entity = await createEntity(bLive, { ...ENTITY, nif: 'G2802964C' });
    const theirs = (await send(bLive, 'POST', '/donation-agreements', agreementBody(entity.id, [b.establishmentId]))).json().data;
    await send(bLive, 'PUT', `/donation-agreements/${theirs.id}/document`, PDF, 'application/pdf');
    const before = await counts();
    for (const key of [a.key, aLive]) {
      expect((await send(key, 'GET', `/donation-agreements/${theirs.id}`)).statusCode).toBe(404);
      expect((await send(key, 'PATCH', `/donation-agreements/${theirs.id}`, { storage_conditions: 'x' })).statusCode).toBe(404);
      expect((await send(key, 'GET', `/donation-agreements/${theirs.id}/document`)).statusCode).toBe(404);
      const put = await send(key, 'PUT', `/donation-agreements/${theirs.id}/document`, Buffer.from('%PDF-1.4 other'), 'application/pdf');
      expect(put.statusCode).toBe(404);
      expect((await send(key, 'GET', '/donation-agreements')).body).not.toContain(theirs.id);
    }
    expect(await counts()).toEqual(before);
    expect((await send(bLive, 'GET', `/donation-agreements/${theirs.id}`)).json().data).toEqual(
      (await send(bLive, 'GET', `/donation-agreements/${theirs.id}`)).json().data,
    );
    const [doc] = await t.db.$queryRawUnsafe<{ sha256: string }[]>(
      'SELECT sha256 FROM donation_agreement_documents WHERE agreement_id = $1::uuid',
      theirs.id,
    );
    expect(doc?.sha256).toBe(createHash('sha256').update(PDF).digest('hex'));
  });
});

describe('expiring agreements', () => {
  const expiringEvents = async (agreementId: string) =>
    t.db.$queryRawUnsafe<{ establishment_id: string; livemode: boolean; payload: unknown }[]>(
      `SELECT establishment_id::text, livemode, payload FROM events WHERE type = 'agreement.expiring' AND payload->'data'->>'agreement_id' = $1
       ORDER BY establishment_id`,
      agreementId,
    );
  const job = () => notifyExpiringAgreements({ sql: sqlOfTransaction(t.db), clock: () => now });

  it('is expiring from 30 days before valid_until, and the webhook is written once per establishment', async () => {
    const entity = await createEntity(aLive, { ...ENTITY, nif: 'A58818501', legal_form: 'otra' });
    const body = agreementBody(entity.id, [a.establishmentId, aSecondEstablishment], {
      valid_from: '2026-01-01',
      valid_until: '2027-01-31',
    });
    const agreement = (await send(aLive, 'POST', '/donation-agreements', body)).json().data;
    const renewing = (
      await send(aLive, 'POST', '/donation-agreements', { ...body, establishment_ids: [a.establishmentId], renewal: 'automatic_yearly' })
    ).json().data;
    for (const id of [agreement.id, renewing.id]) {
      expect((await send(aLive, 'PUT', `/donation-agreements/${id}/document`, PDF, 'application/pdf')).statusCode).toBe(200);
    }
    const statusOn = async (id: string) => (await send(a.key, 'GET', `/donation-agreements/${id}`)).json().data.status;

    // 31 days before the last day (Madrid): still active, no event.
    now = new Date('2026-12-31T22:30:00.000Z'); // 2026-12-31 23:30 in Madrid
    expect(await statusOn(agreement.id)).toBe('active');
    await job();
    expect(await expiringEvents(agreement.id)).toEqual([]);

    // 30 days before (the next local day, 2027-01-01 in Madrid though still 2026-12-31 in UTC): expiring.
    now = new Date('2026-12-31T23:30:00.000Z');
    expect(await statusOn(agreement.id)).toBe('expiring');
    expect(await statusOn(renewing.id)).toBe('active');
    expect(await job()).toBe(2);
    const events = await expiringEvents(agreement.id);
    expect(events.map((e) => [e.establishment_id, e.livemode])).toEqual(
      [a.establishmentId, aSecondEstablishment].sort().map((id) => [id, true]),
    );
    for (const e of events) {
      const parsed = WebhookEvent.parse(e.payload);
      expect(parsed).toMatchObject({
        event: 'agreement.expiring',
        data: { agreement_id: agreement.id, entity_id: entity.id, valid_until: '2027-01-31', days_left: 30 },
      });
    }
    expect(await expiringEvents(renewing.id)).toEqual([]);

    // Once: a later run (the next day) writes nothing more.
    now = new Date('2027-01-02T10:00:00.000Z');
    expect(await job()).toBe(0);
    expect(await expiringEvents(agreement.id)).toHaveLength(2);

    // Extended, it is active again; nearing its new end it is announced again.
    await send(aLive, 'PATCH', `/donation-agreements/${agreement.id}`, { valid_until: '2027-12-31' });
    expect(await statusOn(agreement.id)).toBe('active');
    now = new Date('2027-12-15T10:00:00.000Z');
    expect(await job()).toBe(2);
    expect(await expiringEvents(agreement.id)).toHaveLength(4);

    // After its last day: expired.
    now = new Date('2028-01-01T10:00:00.000Z');
    expect(await statusOn(agreement.id)).toBe('expired');
    expect((await send(a.key, 'GET', '/donation-agreements?status=expired')).json().data.map((x: { id: string }) => x.id)).toContain(
      agreement.id,
    );
    now = new Date('2026-12-01T10:00:00.000Z');
  });
});

describe("the signed document's routes in the OpenAPI document", () => {
  it('document each status they answer, with its content type', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    const item = doc.paths['/donation-agreements/{id}/document'];
    expect(Object.keys(item).sort()).toEqual(['get', 'put']);
    expect(item.put.requestBody.content).toHaveProperty('application/pdf');
    expect(item.put['x-permission']).toBe('donations:write');
    expect(item.get['x-permission']).toBe('donations:read');
    expect(item.get.responses['200'].content).toHaveProperty('application/pdf');

    const entity = await createEntity(aLive, { ...ENTITY, nif: 'B87654323' });
    const agreement = (await send(aLive, 'POST', '/donation-agreements', agreementBody(entity.id, [a.establishmentId]))).json().data;
    const url = `/donation-agreements/${agreement.id}/document`;
    const unknown = '/donation-agreements/7f4e7c9e-5d2a-4c1b-9e8f-0a1b2c3d4e5f/document';
    const answers: [string, number, () => Promise<{ statusCode: number }>][] = [
      ['get', 404, () => send(aLive, 'GET', url)], // none yet
      ['put', 200, () => send(aLive, 'PUT', url, PDF, 'application/pdf')],
      ['put', 400, () => send(aLive, 'PUT', url, 'not a pdf', 'application/pdf')],
      ['put', 403, () => send(a.key, 'PUT', url, PDF, 'application/pdf')],
      ['put', 404, () => send(aLive, 'PUT', unknown, PDF, 'application/pdf')],
      ['put', 415, () => send(aLive, 'PUT', url, { pdf: 'x' })],
      ['put', 401, () => send('svc_test_unknown', 'PUT', url, PDF, 'application/pdf')],
      ['get', 400, () => send(aLive, 'GET', '/donation-agreements/not-a-uuid/document')],
    ];
    for (const [method, status, answer] of answers) {
      expect((await answer()).statusCode, `${method} ${status}`).toBe(status);
      expect(item[method].responses[String(status)], `${method} ${status} is not documented`).toBeDefined();
    }
    expect((await send(aLive, 'GET', url)).statusCode).toBe(200);
  });
});
