import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { localDate, MAX_BODY_BYTES } from '@merma/schema';
import { deadline } from '@merma/testing';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, type RunnerTestCase, type RunnerTestFile, type RunnerTestSuite } from 'vitest';
import { importProducts } from '../src/admin/service.js';
import { createPrisma } from '../src/db/client.js';
import { fetchOpenApi, listOperations, type OpenApiDocument, type Operation } from './contract.js';
import { inForceOnTheMachineClock } from './donation-fixtures.js';
import {
  addKey,
  buildTestApp,
  CAUSA_CADUCIDAD,
  createTenant,
  DESTINO_DONATION,
  DESTINO_LANDFILL,
  startTestApp,
  type Tenant,
  type TestContext,
  testConfig,
  validRecord,
} from './helpers.js';

/**
 * Responses checked against the served OpenAPI document, so that the document never drifts from
 * the service: every operation is exercised with valid requests and with the usual errors, and each
 * response must have a status the document lists for that operation and a JSON body that validates
 * (JSON Schema 2020-12, which OpenAPI 3.1 uses) against the schema documented for that status.
 * The document itself is linted with Redocly CLI and the ruleset in apps/server/redocly.yaml.
 */
const API = '/api/v1';
const DOC_ID = 'https://merma.invalid/openapi.json';
const PUBLIC_HOOK = 'https://93.184.216.34/hook';

let t: TestContext;
let doc: OpenApiDocument;
let operations: Operation[];
let ajv: Ajv2020;
let tenant: Tenant;
const seen = new Map<string, Set<number>>();
const validators = new Map<string, ValidateFunction>();

beforeAll(async () => {
  t = await startTestApp();
  doc = await fetchOpenApi(t.app);
  operations = listOperations(doc);
  ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  // The whole document is one schema resource: `#/components/schemas/…` references resolve in it.
  ajv.addSchema({ ...doc, $id: DOC_ID });
  tenant = await createTenant(t.db);
});

/** The operations that no test of this file saw answer a success, 400, 401, 403 or 429. */
function unexercised(): string[] {
  return operations.flatMap((op) => {
    const statuses = seen.get(opKey(op)) ?? new Set();
    const wanted = [
      [...statuses].some((s) => s >= 200 && s < 300) ? undefined : '2xx',
      ...[400, 401, 403, 429].map((s) => (statuses.has(s) ? undefined : String(s))),
    ];
    const absent = wanted.filter((w): w is string => w !== undefined);
    return absent.length ? [`${opKey(op)}: ${absent.join(', ')}`] : [];
  });
}

function testsOf(suite: Readonly<RunnerTestSuite | RunnerTestFile>): RunnerTestCase[] {
  return suite.tasks.flatMap((task) => (task.type === 'test' ? [task] : task.type === 'suite' ? testsOf(task) : []));
}

// biome-ignore lint/correctness/noEmptyPattern: vitest reads the first parameter's pattern for the fixtures it needs (none)
afterAll(async ({}, file) => {
  try {
    // Every operation was exercised with a success and with 400, 401, 403 and 429, counted over all the
    // tests of this file, whatever order they ran in. Checked once they have all run and passed: a run
    // narrowed with -t, or one where a test already failed, would list gaps that are not gaps.
    if (testsOf(file).every((test) => test.result?.state === 'pass')) {
      expect(unexercised(), 'operations not exercised with a success and with 400, 401, 403 and 429').toEqual([]);
    }
  } finally {
    const lines = [...seen.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([op, s]) => `  ${op}: ${[...s].sort().join(' ')}`);
    console.log(`conformance: statuses checked per operation\n${lines.join('\n')}`);
    await t?.close();
  }
});

const opKey = (op: Pick<Operation, 'method' | 'path'>) => `${op.method} ${op.path}`;

function operation(method: Operation['method'], path: string): Operation {
  const op = operations.find((o) => o.method === method && o.path === path);
  if (!op) throw new Error(`${method} ${path} is not in the OpenAPI document`);
  return op;
}

/** JSON pointer of a documented response schema, as a reference into the document resource. */
function schemaRef(op: Operation, status: string): string {
  const segment = (s: string) => encodeURIComponent(s.replaceAll('~', '~0').replaceAll('/', '~1'));
  return `${DOC_ID}#/paths/${segment(op.path)}/${op.method.toLowerCase()}/responses/${status}/content/${segment('application/json')}/schema`;
}

/** Asserts that a response is documented for the operation and that its body validates against the documented schema. */
function conform(op: Operation, res: LightMyRequestResponse): void {
  const status = String(res.statusCode);
  const where = `${opKey(op)} → ${status}`;
  const documented = op.responses[status];
  expect(
    documented,
    `${where} is not documented (documented: ${Object.keys(op.responses).join(', ')})\n${res.body.slice(0, 300)}`,
  ).toBeDefined();
  if (!documented) return;
  const schema = documented.content?.['application/json']?.schema;
  expect(schema, `${where}: the document gives no application/json schema`).toBeDefined();
  expect(String(res.headers['content-type']), where).toMatch(/^application\/json/);
  const ref = schemaRef(op, status);
  let validate = validators.get(ref);
  if (!validate) {
    validate = ajv.compile({ $ref: ref });
    validators.set(ref, validate);
  }
  const body = JSON.parse(res.body) as unknown;
  const valid = validate(body);
  expect(valid, `${where}: ${ajv.errorsText(validate.errors, { separator: '\n  ' })}\n${res.body.slice(0, 600)}`).toBe(true);
  for (const [name, header] of Object.entries(documented.headers ?? {})) {
    const value = res.headers[name.toLowerCase()];
    expect(value, `${where}: documented header ${name} is missing`).toBeDefined();
    if (header.schema?.type === 'integer') expect(String(value), `${where}: header ${name}`).toMatch(/^\d+$/);
  }
  let statuses = seen.get(opKey(op));
  if (!statuses) {
    statuses = new Set();
    seen.set(opKey(op), statuses);
  }
  statuses.add(res.statusCode);
}

type Call = {
  params?: Record<string, string>;
  query?: string;
  body?: unknown;
  /** A body sent as it is (with `contentType`). */
  raw?: string;
  contentType?: string;
  key?: string | null;
  headers?: Record<string, string>;
  app?: FastifyInstance;
};

/** Sends a request to a documented operation and checks the response against the document. */
async function call(method: Operation['method'], path: string, options: Call = {}): Promise<LightMyRequestResponse> {
  const op = operation(method, path);
  const url = API + path.replace(/\{(\w+)\}/g, (_m, name: string) => options.params?.[name] ?? '00000000-0000-4000-8000-000000000000');
  const key = options.key === undefined ? tenant.key : options.key;
  const hasBody = options.raw !== undefined || options.body !== undefined;
  const res = await (options.app ?? t.app).inject({
    method,
    url: options.query ? `${url}?${options.query}` : url,
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(hasBody ? { 'content-type': options.contentType ?? 'application/json' } : {}),
      ...options.headers,
    },
    ...(hasBody ? { payload: options.raw ?? JSON.stringify(options.body) } : {}),
  });
  conform(op, res);
  return res;
}

const expectStatus = (res: LightMyRequestResponse, status: number) => expect(res.statusCode, res.body.slice(0, 300)).toBe(status);

/** Ids of one of each resource, for the operations that name one in their path. */
type Fixtures = {
  shift: string;
  session: string;
  record: string;
  webhook: string;
  delivery: string;
  closure: string;
  product: string;
  entity: string;
  agreement: string;
};
let fixtures: Fixtures;
const paramsFor = (path: string): Record<string, string> => ({
  id: path.startsWith('/sessions')
    ? fixtures.session
    : path.startsWith('/opening-calendar')
      ? fixtures.closure
      : path.startsWith('/products')
        ? fixtures.product
        : path.startsWith('/social-entities')
          ? fixtures.entity
          : path.startsWith('/donation-agreements')
            ? fixtures.agreement
            : path.startsWith('/donations')
              ? fixtures.agreement
              : fixtures.webhook,
  delivery_id: fixtures.delivery,
  line_id: fixtures.agreement,
});

const ENTITY = {
  name: 'Banco de Alimentos',
  nif: 'G28029643',
  address: 'Calle Mayor 1, Madrid',
  legal_form: 'banco_de_alimentos',
  ley_49_2002: { art2_entity: true, regime_opted_in: false },
  capacity: { cold_chain: true, vehicle: true },
};
const LINE = { description: 'Pan', food_category: 'bakery', quantity: 2, unit: 'kg' };
const agreementFor = (entityId: string, establishmentId: string) => ({
  entity_id: entityId,
  establishment_ids: [establishmentId],
  ...inForceOnTheMachineClock(),
  renewal: 'none',
  accepted_food_categories: ['bakery'],
  conditions: { chilled: true, frozen: false, cooked: false, near_best_before: true },
  collection: { schedule: 'Lunes a las 18:00', weekdays: ['monday'], transport: 'entity' },
  storage_conditions: 'Refrigerado',
  safety_responsibility_clause: 'El donante hasta la entrega',
  refusal_procedure: 'Rechazo por escrito con motivo',
});

describe('valid requests and their errors, operation by operation', () => {
  it('photos', async () => {
    // A real 1×1 PNG.
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64');
    // The upload's body is an image, so it is not among the JSON operations held to the document
    // here (contract.ts); its answers are asserted in photos.test.ts.
    const created = await t.app.inject({
      method: 'POST',
      url: `${API}/photos`,
      headers: { authorization: `Bearer ${tenant.key}`, 'content-type': 'image/png' },
      payload: png,
    });
    expectStatus(created, 201);
    expectStatus(await call('GET', '/photos/{id}', { params: { id: created.json().data.id } }), 200);
    expectStatus(await call('GET', '/photos/{id}', { params: { id: 'nope' } }), 400);
    expectStatus(await call('GET', '/photos/{id}', {}), 404);
  });

  it('social entities and donation agreements', async () => {
    // The organisation's legal records: changed with a live key; a test key reads them.
    const { key } = await addKey(t.db, tenant.establishmentId, 'live');
    expectStatus(await call('POST', '/social-entities', { body: ENTITY }), 403);
    const entity = await call('POST', '/social-entities', { body: { ...ENTITY, nif: 'R2800001F' }, key });
    expectStatus(entity, 201);
    expectStatus(await call('POST', '/social-entities', { body: { ...ENTITY, nif: 'R2800001F' }, key }), 409);
    expectStatus(await call('POST', '/social-entities', { body: { ...ENTITY, nif: 'G28029644' }, key }), 400);
    const params = { id: entity.json().data.id };
    expectStatus(await call('GET', '/social-entities'), 200);
    expectStatus(await call('GET', '/social-entities/{id}', { params }), 200);
    expectStatus(await call('PATCH', '/social-entities/{id}', { params, body: { registry_number: 'RNA 1' }, key }), 200);
    expectStatus(await call('POST', '/social-entities/{id}/archive', { params, key }), 200);
    expectStatus(await call('POST', '/social-entities/{id}/restore', { params, key }), 200);

    const created = await call('POST', '/donation-agreements', { body: agreementFor(params.id, tenant.establishmentId), key });
    expectStatus(created, 201);
    const backwards = { ...agreementFor(params.id, tenant.establishmentId), valid_until: '2020-01-01' };
    expectStatus(await call('POST', '/donation-agreements', { body: backwards, key }), 400);
    const agreement = { id: created.json().data.id };
    expectStatus(await call('GET', '/donation-agreements', { query: 'status=draft' }), 200);
    expectStatus(await call('GET', '/donation-agreements/{id}', { params: agreement }), 200);
    expectStatus(await call('PATCH', '/donation-agreements/{id}', { params: agreement, body: { renewal: 'automatic_yearly' }, key }), 200);
    expectStatus(await call('PATCH', '/donation-agreements/{id}', { params: agreement, body: { valid_until: '2020-01-01' }, key }), 400);
  });

  it('donations', async () => {
    const { key } = await addKey(t.db, tenant.establishmentId, 'live');
    const entity = (await call('POST', '/social-entities', { body: { ...ENTITY, nif: 'G46036018' }, key })).json().data.id;
    const agreement = (await call('POST', '/donation-agreements', { body: agreementFor(entity, tenant.establishmentId), key })).json().data
      .id;
    // Offered under a draft (no signed document yet): 400.
    const offer = { agreement_id: agreement, lines: [LINE, { ...LINE, description: 'Bollos' }] };
    expectStatus(await call('POST', '/donations', { body: offer }), 400);
    const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(64, 1), Buffer.from('\n%%EOF\n')]);
    const put = await t.app.inject({
      method: 'PUT',
      url: `${API}/donation-agreements/${agreement}/document`,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/pdf' },
      payload: pdf,
    });
    expectStatus(put, 200);
    const created = await call('POST', '/donations', { body: offer });
    expectStatus(created, 201);
    const id = created.json().data.id as string;
    const [kept, refused] = created.json().data.lines.map((l: { id: string }) => l.id);
    expectStatus(await call('GET', '/donations', { query: 'awaiting_reroute=false&limit=5' }), 200);
    expectStatus(await call('GET', '/donations/{id}', { params: { id } }), 200);
    expectStatus(await call('POST', '/donations/{id}/collect', { params: { id } }), 409);
    expectStatus(await call('POST', '/donations/{id}/link', { params: { id }, body: { expires_in_hours: 2 } }), 201);
    expectStatus(await call('POST', '/donations/{id}/link', { params: { id }, body: { expires_in_hours: 0 } }), 400);
    const decision = {
      lines: [
        { line_id: kept, decision: 'accepted' },
        { line_id: refused, decision: 'refused', reason: 'Sin espacio' },
      ],
    };
    expectStatus(await call('POST', '/donations/{id}/decision', { params: { id }, body: decision }), 200);
    const reroute = { params: { id, line_id: refused }, body: { destino_id: DESTINO_LANDFILL } };
    expectStatus(await call('POST', '/donations/{id}/lines/{line_id}/reroute', reroute), 200);
    expectStatus(await call('POST', '/donations/{id}/lines/{line_id}/reroute', reroute), 409);
    expectStatus(await call('POST', '/donations/{id}/collect', { params: { id } }), 200);
    const received = await call('POST', '/donations/{id}/receive', { params: { id } });
    expectStatus(received, 200);
    // The tax pack of the year it was collected in (Spain's calendar), with the donation in it.
    const year = localDate(new Date(received.json().data.collected_at), 'Europe/Madrid').slice(0, 4);
    const pack = await call('GET', '/donations/tax-pack', { query: `year=${year}&taxable_base=100000.00` });
    expectStatus(pack, 200);
    expect(JSON.stringify(pack.json().data)).toContain(id);
    const certificateLink = { params: { entity_id: entity }, body: { year: Number(year) } };
    expectStatus(await call('POST', '/donations/tax-pack/certificates/{entity_id}/link', certificateLink), 201);
    expectStatus(await call('GET', '/donations/tax-pack', { query: 'year=1999' }), 400);
  });

  it('catalogues', async () => {
    for (const path of ['/causas', '/destinos', '/establishments', '/products']) {
      expectStatus(await call('GET', path), 200);
      expectStatus(await call('GET', path, { query: 'unknown=1' }), 400);
    }
  });

  it('shifts', async () => {
    const created = await call('POST', '/shifts', { body: { name: 'Noche', start_time: '22:00', end_time: '06:00' } });
    expectStatus(created, 201);
    expectStatus(await call('GET', '/shifts'), 200);
    expectStatus(await call('POST', '/shifts', { body: { name: 'x', start_time: '25:00', end_time: '06:00' } }), 400);
    expectStatus(await call('POST', '/shifts', { body: { name: 'x', start_time: '22:00' } }), 400);
  });

  it('products', async () => {
    // The catalogue is changed with a live key; a test key gets 403.
    const { key } = await addKey(t.db, tenant.establishmentId, 'live');
    const body = { name: 'Barra', food_category: 'bakery', ean: '8410000000047', price: 1, unit_cost: 0.3 };
    expectStatus(await call('POST', '/products', { body }), 403);
    const created = await call('POST', '/products', { body, key });
    expectStatus(created, 201);
    expectStatus(await call('POST', '/products', { body, key }), 409);
    expectStatus(await call('POST', '/products', { body: { ...body, ean: '123' }, key }), 400);
    const id = created.json().data.id;
    expectStatus(await call('PATCH', '/products/{id}', { params: { id }, body: { price: 1.1 }, key }), 200);
    expectStatus(await call('PATCH', '/products/{id}', { params: { id }, body: { unit_cost: 5 }, key }), 400);
    expectStatus(await call('GET', '/products', { query: 'include_inactive=true' }), 200);
    const csv = 'name,food_category,ean\nPan,bakery,8410000000054\n';
    expectStatus(await call('POST', '/products/import', { body: { csv, dry_run: true } }), 200);
    expectStatus(await call('POST', '/products/import', { body: { csv: 'name,food_category,ean\nPan,bakery,1\n' }, key }), 400);
  });

  it('opening calendar', async () => {
    expectStatus(await call('GET', '/opening-calendar'), 200);
    expectStatus(await call('PUT', '/opening-calendar/weekdays', { body: { closed_weekdays: ['monday'] } }), 200);
    expectStatus(await call('PUT', '/opening-calendar/weekdays', { body: { closed_weekdays: ['lunes'] } }), 400);
    const created = await call('POST', '/opening-calendar/closures', { body: { starts_on: '2026-12-24', ends_on: '2026-12-26' } });
    expectStatus(created, 201);
    expectStatus(await call('POST', '/opening-calendar/closures', { body: { starts_on: '2026-12-26', ends_on: '2026-12-24' } }), 400);
    const id = created.json().data.id;
    expectStatus(await call('DELETE', '/opening-calendar/closures/{id}', { params: { id } }), 200);
    expectStatus(await call('DELETE', '/opening-calendar/closures/{id}', { params: { id } }), 404);
  });

  it('sessions', async () => {
    const shift = (await call('POST', '/shifts', { body: { name: 'Mañana', start_time: '07:00', end_time: '15:00' } })).json().data.id;
    const created = await call('POST', '/sessions', { body: { name: 'Cierre de cocina', shift_id: shift } });
    expectStatus(created, 201);
    const id = created.json().data.id;
    expectStatus(await call('POST', '/records', { body: validRecord({ session_id: id }) }), 201);
    expectStatus(await call('GET', '/sessions', { query: 'status=open&limit=10' }), 200);
    expectStatus(await call('GET', '/sessions/{id}', { params: { id } }), 200);
    expectStatus(await call('GET', '/sessions/{id}', { params: { id: '7f4e7c9e-5d2a-4c1b-9e8f-0a1b2c3d4e5f' } }), 404);
    expectStatus(await call('GET', '/sessions/{id}', { params: { id: 'not-a-uuid' } }), 400);
    expectStatus(await call('GET', '/sessions', { query: 'status=closed' }), 400);
    expectStatus(await call('POST', '/sessions', { body: { name: '' } }), 400);
    expectStatus(await call('POST', '/sessions', { body: { name: 'x', shift_id: '7f4e7c9e-5d2a-4c1b-9e8f-0a1b2c3d4e5f' } }), 400);
    expectStatus(await call('POST', '/sessions/{id}/complete', { params: { id } }), 200);
    expectStatus(await call('POST', '/sessions/{id}/complete', { params: { id } }), 409);
    expectStatus(await call('POST', '/sessions/{id}/complete', { params: { id: '7f4e7c9e-5d2a-4c1b-9e8f-0a1b2c3d4e5f' } }), 404);
  });

  it('records', async () => {
    const shift = (await call('POST', '/shifts', { body: { name: 'Tarde', start_time: '15:00', end_time: '23:00' } })).json().data.id;
    const full = validRecord({
      causa_id: CAUSA_CADUCIDAD,
      product_name: 'Tomates pera',
      waste_stage: 'storage',
      shift_id: shift,
      notes: 'caja golpeada',
      photo_url: 'https://93.184.216.34/img/tomates.jpg',
    });
    expectStatus(await call('POST', '/records', { body: full }), 201);
    const batch = await call('POST', '/records/batch', { body: { records: [validRecord(), validRecord({ weight_kg: -1 })] } });
    expectStatus(batch, 200);
    expect(batch.json().data).toMatchObject({ inserted: 1, failed: 1 });
    expectStatus(await call('GET', '/records', { query: 'limit=5&food_category=meat' }), 200);
    expectStatus(await call('GET', '/records', { query: 'from=2026-01-01&to=2026-01-31&offset=0' }), 200);
    expectStatus(await call('GET', '/records/verify'), 200);
    expectStatus(await call('GET', '/records/verify', { query: 'full=true' }), 200);
    expectStatus(await call('GET', '/records/checkpoints', { query: 'limit=5' }), 200);
    const verification = await call('POST', '/records/verifications', { body: {} });
    expectStatus(verification, 202);
    expectStatus(await call('GET', '/records/verifications/{id}', { params: { id: verification.json().data.id } }), 200);
    expectStatus(await call('POST', '/records/verifications', { body: { full: true } }), 400);
    expectStatus(await call('POST', '/records', { body: validRecord({ weight_kg: 'heavy' }) }), 400);
    expectStatus(await call('POST', '/records', { body: validRecord({ destino_id: '7f4e7c9e-5d2a-4c1b-9e8f-0a1b2c3d4e5f' }) }), 400);
    expectStatus(await call('POST', '/records/batch', { body: { records: [] } }), 400);
    expectStatus(await call('GET', '/records', { query: 'limit=500' }), 400);
    expectStatus(await call('GET', '/records', { query: 'from=2026-02-30' }), 400);
    const headers = { 'idempotency-key': 'conformance-1' };
    expectStatus(await call('POST', '/records', { body: validRecord({ weight_kg: 2 }), headers }), 201);
    const replay = await call('POST', '/records', { body: validRecord({ weight_kg: 2 }), headers });
    expectStatus(replay, 201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expectStatus(await call('POST', '/records', { body: validRecord({ weight_kg: 3 }), headers }), 409);
    expectStatus(await call('POST', '/records', { body: validRecord(), headers: { 'idempotency-key': 'x'.repeat(256) } }), 400);
  });

  it('analytics, benchmarking and predictions', async () => {
    for (const group of ['day', 'week', 'month']) expectStatus(await call('GET', '/analytics', { query: `group_by=${group}` }), 200);
    expectStatus(
      await call('GET', '/analytics', { query: `from=2026-01-01T00:00:00Z&to=2026-02-01T00:00:00Z&destino_id=${DESTINO_DONATION}` }),
      200,
    );
    expectStatus(await call('GET', '/analytics', { query: 'group_by=year' }), 400);
    expectStatus(await call('GET', '/analytics', { query: 'from=2026-03-01&to=2026-01-01' }), 400);
    expectStatus(await call('GET', '/benchmarking'), 200);
    expectStatus(await call('GET', '/benchmarking', { query: 'sector=retail' }), 200);
    expectStatus(await call('GET', '/benchmarking', { query: 'sector=space' }), 400);
    expectStatus(await call('GET', '/predict'), 200);
    expectStatus(await call('GET', '/predict', { query: 'horizon=28&food_category=meat' }), 200);
    expectStatus(await call('GET', '/predict', { query: 'type=demand&horizon=3' }), 200);
    expectStatus(await call('GET', '/predict', { query: 'type=demand&product_id=x' }), 400);
    expectStatus(await call('GET', '/predict', { query: 'horizon=29' }), 400);
    expectStatus(await call('GET', '/predict/settings'), 200);
    expectStatus(await call('GET', '/predict/settings', { query: 'unknown=1' }), 400);
    expectStatus(await call('PUT', '/predict/settings', { body: { service_level: 0.9 } }), 200);
    expectStatus(await call('PUT', '/predict/settings', { body: { service_level: 1.5 } }), 400);
  });

  it("compliance: am I obliged?, and an establishment's activity and area", async () => {
    const own = await createTenant(t.db);
    const params = { id: own.establishmentId };
    expectStatus(await call('GET', '/compliance/obligations', { key: own.key }), 200);
    expectStatus(await call('GET', '/compliance/obligations', { key: own.key, query: 'lang=en' }), 200);
    expectStatus(await call('GET', '/compliance/obligations', { key: own.key, query: 'lang=fr' }), 400);
    expectStatus(
      await call('PATCH', '/establishments/{id}', { params, body: { nace_code: '5610', floor_area_m2: 250 }, key: own.key }),
      200,
    );
    expectStatus(await call('PATCH', '/establishments/{id}', { params, body: { nace_code: '99.99' }, key: own.key }), 400);
    expectStatus(await call('PATCH', '/establishments/{id}', { params, body: { floor_area_m2: -5 }, key: own.key }), 400);
    expectStatus(await call('GET', '/compliance/esrs-e5', { key: own.key }), 200);
    expectStatus(await call('GET', '/compliance/esrs-e5', { key: own.key, query: 'year=2025' }), 200);
    expectStatus(await call('GET', '/compliance/esrs-e5', { key: own.key, query: 'year=1800' }), 400);
    expectStatus(await call('GET', '/compliance/hierarchy', { key: own.key }), 200);
    expectStatus(await call('GET', '/compliance/hierarchy', { key: own.key, query: 'year=2025' }), 200);
    expectStatus(await call('GET', '/compliance/hierarchy', { key: own.key, query: 'year=abc' }), 400);
    expectStatus(await call('GET', '/compliance/reduction', { key: own.key }), 200);
    expectStatus(await call('GET', '/compliance/reduction', { key: own.key, query: 'year=2025&baseline=first_year' }), 200);
    expectStatus(await call('GET', '/compliance/reduction', { key: own.key, query: 'baseline=2019' }), 400);
    expectStatus(await call('GET', '/prevention-plan/measures', { key: own.key }), 200);
    expectStatus(await call('GET', '/prevention-plan/measures', { key: own.key, query: 'lang=fr' }), 400);
    expectStatus(await call('GET', '/training-sessions', { key: own.key, query: 'year=2026' }), 200);
    expectStatus(await call('GET', '/training-sessions', { key: own.key, query: 'year=abc' }), 400);
    expectStatus(await call('GET', '/compliance/waste-streams', { key: own.key }), 200);
    expectStatus(await call('GET', '/compliance/organization', { key: own.key }), 200);
    expectStatus(await call('GET', '/compliance/organization', { key: own.key, query: 'baseline=2019' }), 400);
    const stream = { params: { destination_id: '51a096c6-196d-41dd-a02a-968cbfa9803f' }, key: own.key };
    const body = { ler_code: '20 01 08', manager_name: 'Gestora', manager_nima: '2800012345' };
    expectStatus(await call('PUT', '/compliance/waste-streams/{destination_id}', { ...stream, body }), 200);
    expectStatus(
      await call('PUT', '/compliance/waste-streams/{destination_id}', { ...stream, body: { ...body, ler_code: '15 01 01' } }),
      400,
    );
  });

  it('prevention plan', async () => {
    const own = await createTenant(t.db);
    expectStatus(await call('GET', '/prevention-plan', { key: own.key }), 404);
    expectStatus(await call('POST', '/prevention-plan', { key: own.key, body: {} }), 201);
    expectStatus(await call('POST', '/prevention-plan', { key: own.key }), 201);
    expectStatus(await call('GET', '/prevention-plan', { key: own.key }), 200);
    expectStatus(await call('GET', '/prevention-plan', { key: own.key, query: 'format=markdown' }), 200);
    expectStatus(await call('GET', '/prevention-plan', { key: own.key, query: 'format=pdf' }), 400);
    expectStatus(await call('POST', '/prevention-plan', { key: own.key, body: { year: 2026 } }), 400);
    expectStatus(await call('POST', '/prevention-plan', { key: own.key, query: 'lang=en' }), 201);
    expectStatus(await call('POST', '/prevention-plan', { key: own.key, body: { lang: 'en' } }), 201);
    expectStatus(await call('POST', '/prevention-plan', { key: own.key, query: 'lang=fr' }), 400);
    expectStatus(await call('POST', '/prevention-plan', { key: own.key, query: 'lang=en', body: { lang: 'es' } }), 400);
    expectStatus(await call('GET', '/prevention-plan', { key: own.key, query: 'format=markdown&lang=en' }), 200);
    expectStatus(await call('GET', '/prevention-plan', { key: own.key, query: 'lang=fr' }), 400);
  });

  it('inbound events', async () => {
    const created = await call('POST', '/webhooks/inbound', {
      body: { event: 'waste.created', payload: { source: 'sap-b1', external_id: 'ev-1', ...validRecord() } },
    });
    expectStatus(created, 200);
    expect(created.json().data.status).toBe('processed');
    const again = await call('POST', '/webhooks/inbound', {
      body: { event: 'waste.created', payload: { source: 'sap-b1', external_id: 'ev-1', ...validRecord() } },
    });
    expectStatus(again, 200);
    expect(again.json().data.status).toBe('duplicate');
    const original = created.json().data.record_id;
    const update = { event: 'waste.updated', payload: { source: 'sap-b1', external_id: 'ev-2', record_id: original, weight_kg: 2 } };
    expectStatus(await call('POST', '/webhooks/inbound', { body: update }), 200);
    const twice = { ...update, payload: { ...update.payload, external_id: 'ev-3' } };
    expectStatus(await call('POST', '/webhooks/inbound', { body: twice }), 409);
    const unknown = { ...update, payload: { ...update.payload, external_id: 'ev-4', record_id: '7f4e7c9e-5d2a-4c1b-9e8f-0a1b2c3d4e5f' } };
    expectStatus(await call('POST', '/webhooks/inbound', { body: unknown }), 404);
    const loss = {
      event: 'inventory.loss',
      payload: { source: 'pos', ean: '8410000000000', quantity_kg: 1, destino_id: DESTINO_LANDFILL },
    };
    expectStatus(await call('POST', '/webhooks/inbound', { body: loss }), 400);
    expectStatus(await call('POST', '/webhooks/inbound', { body: { event: 'waste.deleted', payload: {} } }), 400);
    await importProducts(t.db, { org: tenant.organizationId, csv: 'name,food_category,ean\nBarra,bakery,8410000000023\n' });
    const day = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
    const sales = {
      event: 'sales.recorded',
      payload: {
        source: 'pos',
        sales: [
          { external_id: 's-1', ean: '8410000000023', quantity: 3, sold_at: day },
          { ean: '1', quantity: 1 },
        ],
      },
    };
    const stored = await call('POST', '/webhooks/inbound', { body: sales });
    expectStatus(stored, 200);
    expect(stored.json().data.sales).toMatchObject({ received: 2, stored: 1, duplicates: 0 });
    const badSales = { event: 'sales.recorded', payload: { source: 'pos', sales: [{ ean: '8410000000023', quantity: -1, sold_at: day }] } };
    expectStatus(await call('POST', '/webhooks/inbound', { body: badSales }), 400);
    expectStatus(
      await call('POST', '/webhooks/inbound', { body: { event: 'waste.created', payload: { source: 'x' }, connector: 'nope' } }),
      400,
    );
  });

  it('webhook subscriptions and deliveries', async () => {
    const created = await call('POST', '/webhooks', { body: { url: PUBLIC_HOOK, events: ['subscription.canceled'], description: 'ERP' } });
    expectStatus(created, 201);
    const id = created.json().data.id;
    const params = { id };
    expectStatus(await call('GET', '/webhooks'), 200);
    expectStatus(await call('GET', '/webhooks/{id}', { params }), 200);
    expectStatus(await call('PATCH', '/webhooks/{id}', { params, body: { description: 'ERP central', events: ['plan.generated'] } }), 200);
    const test = await call('POST', '/webhooks/{id}/test', { params });
    expectStatus(test, 200);
    const delivery = test.json().data.id;
    expectStatus(await call('GET', '/webhooks/{id}/deliveries', { params, query: 'limit=10' }), 200);
    expectStatus(await call('POST', '/webhooks/{id}/deliveries/{delivery_id}/retry', { params: { id, delivery_id: delivery } }), 200);
    const rotated = await call('POST', '/webhooks/{id}/rotate-secret', { params, body: { grace_period_seconds: 3600 } });
    expectStatus(rotated, 200);
    expect(rotated.json().data.previous_secret_expires_at).not.toBeNull();
    expectStatus(await call('POST', '/webhooks/{id}/rotate-secret', { params }), 200);
    expectStatus(await call('POST', '/webhooks/{id}/rotate-secret', { params, body: { secret: 'not-a-standard-secret-at-all' } }), 400);
    expectStatus(await call('POST', '/webhooks/{id}/rotate-secret', { params, body: { grace_period_seconds: 604_801 } }), 400);
    const since = '2026-01-01T00:00:00Z';
    expectStatus(await call('POST', '/webhooks/{id}/recover', { params, body: { since } }), 200);
    expectStatus(await call('POST', '/webhooks/{id}/recover', { params, body: { since, until: '2026-01-02T00:00:00+01:00' } }), 200);
    expectStatus(await call('POST', '/webhooks/{id}/recover', { params, body: { since, until: since } }), 400);
    expectStatus(await call('POST', '/webhooks/{id}/recover', { params, body: {} }), 400);
    await t.db.webhookSubscription.update({ where: { id }, data: { status: 'deactivated', deactivated_at: new Date() } });
    expectStatus(await call('POST', '/webhooks/{id}/recover', { params, body: { since } }), 409);
    expectStatus(await call('POST', '/webhooks/{id}/reactivate', { params }), 200);

    const missing = { id: '7f4e7c9e-5d2a-4c1b-9e8f-0a1b2c3d4e5f' };
    expectStatus(await call('GET', '/webhooks/{id}', { params: missing }), 404);
    expectStatus(await call('PATCH', '/webhooks/{id}', { params: missing, body: { description: 'x' } }), 404);
    expectStatus(await call('GET', '/webhooks/{id}/deliveries', { params: missing }), 404);
    expectStatus(await call('POST', '/webhooks/{id}/test', { params: missing }), 404);
    expectStatus(await call('POST', '/webhooks/{id}/reactivate', { params: missing }), 404);
    expectStatus(await call('POST', '/webhooks/{id}/rotate-secret', { params: missing }), 404);
    expectStatus(await call('POST', '/webhooks/{id}/recover', { params: missing, body: { since: '2026-01-01T00:00:00Z' } }), 404);
    expectStatus(await call('POST', '/webhooks/{id}/deliveries/{delivery_id}/retry', { params: { id, delivery_id: missing.id } }), 404);
    expectStatus(await call('POST', '/webhooks', { body: { url: 'ftp://93.184.216.34/hook', events: ['record.created'] } }), 400);
    expectStatus(await call('POST', '/webhooks', { body: { url: PUBLIC_HOOK, events: [] } }), 400);
    expectStatus(await call('PATCH', '/webhooks/{id}', { params, body: { events: ['record.deleted'] } }), 400);
    expectStatus(await call('GET', '/webhooks/{id}', { params: { id: 'nope' } }), 400);

    const doomed = (await call('POST', '/webhooks', { body: { url: PUBLIC_HOOK, events: ['alert.triggered'] } })).json().data.id;
    expectStatus(await call('DELETE', '/webhooks/{id}', { params: { id: doomed } }), 200);
    expectStatus(await call('DELETE', '/webhooks/{id}', { params: { id: doomed } }), 404);
    expectStatus(await call('GET', '/webhooks/{id}', { params: { id: doomed } }), 404);
  });
});

describe('the errors every operation can answer', () => {
  beforeAll(async () => {
    const shift = (await call('POST', '/shifts', { body: { name: 'Fixture', start_time: '08:00', end_time: '16:00' } })).json().data.id;
    const session = (await call('POST', '/sessions', { body: { name: 'Fixture', shift_id: shift } })).json().data.id;
    const record = (await call('POST', '/records', { body: validRecord() })).json().data.id;
    const webhook = (await call('POST', '/webhooks', { body: { url: PUBLIC_HOOK, events: ['subscription.canceled'] } })).json().data.id;
    const delivery = (await call('POST', '/webhooks/{id}/test', { params: { id: webhook } })).json().data.id;
    const closure = (await call('POST', '/opening-calendar/closures', { body: { starts_on: '2027-01-06', ends_on: '2027-01-06' } })).json()
      .data.id;
    const live = await addKey(t.db, tenant.establishmentId, 'live');
    const product = (
      await call('POST', '/products', { body: { name: 'Fixture', food_category: 'bakery', ean: '8410000000061' }, key: live.key })
    ).json().data.id;
    const entity = (await call('POST', '/social-entities', { body: { ...ENTITY, nif: 'G80453087' }, key: live.key })).json().data.id;
    const agreement = (
      await call('POST', '/donation-agreements', { body: agreementFor(entity, tenant.establishmentId), key: live.key })
    ).json().data.id;
    fixtures = { shift, session, record, webhook, delivery, closure, product, entity, agreement };
  });

  const bodyFor = (op: Operation) => (op.method === 'GET' || op.method === 'DELETE' ? {} : { body: {} });

  it('401 without a key, with a malformed key and with an unknown key', async () => {
    for (const op of operations) {
      for (const key of [null, 'not-a-key', 'svc_test_0000000000000000000000000000000000000000']) {
        expectStatus(await call(op.method, op.path, { params: paramsFor(op.path), key, ...bodyFor(op) }), 401);
      }
    }
  });

  it('403 for a key without the permission, and for an organisation whose plan has no API', async () => {
    const catalogOnly = await addKey(t.db, tenant.establishmentId, 'test', 'catalog:read');
    const recordsOnly = await addKey(t.db, tenant.establishmentId, 'test', 'records:read');
    const basic = await createTenant(t.db, { plan: 'basic' });
    for (const op of operations) {
      expect(op.permission, `${opKey(op)} states no x-permission`).toBeTruthy();
      const limited = op.permission === 'catalog:read' ? recordsOnly.key : catalogOnly.key;
      expectStatus(await call(op.method, op.path, { params: paramsFor(op.path), key: limited, ...bodyFor(op) }), 403);
      expectStatus(await call(op.method, op.path, { params: paramsFor(op.path), key: basic.key, ...bodyFor(op) }), 403);
    }
  });

  it('400 for a malformed path parameter or an unknown query parameter', async () => {
    for (const op of operations) {
      if (op.path.includes('{')) {
        const params = Object.fromEntries(Object.keys(paramsFor(op.path)).map((name) => [name, 'not-a-uuid']));
        expectStatus(await call(op.method, op.path, { params, ...bodyFor(op) }), 400);
      }
      if (op.method === 'GET') expectStatus(await call(op.method, op.path, { params: paramsFor(op.path), query: 'nonsense=1' }), 400);
    }
  });

  it('400 for malformed JSON, 413 for a body over 1 MiB and 415 for another content type, on every operation that reads a body', async () => {
    const huge = JSON.stringify({ notes: 'x'.repeat(MAX_BODY_BYTES) });
    for (const op of operations.filter((o) => o.method !== 'GET')) {
      const params = paramsFor(op.path);
      expectStatus(await call(op.method, op.path, { params, raw: '{"food_category":' }), 400);
      expectStatus(await call(op.method, op.path, { params, raw: huge }), 413);
      expectStatus(await call(op.method, op.path, { params, raw: 'food_category=meat', contentType: 'text/plain' }), 415);
    }
  });

  it('409 when an Idempotency-Key is reused with another body', async () => {
    const session = (await call('POST', '/sessions', { body: { name: 'Idem' } })).json().data.id;
    const creates: [string, unknown, unknown, Record<string, string>?][] = [
      ['/records', validRecord({ weight_kg: 1 }), validRecord({ weight_kg: 2 })],
      ['/records/batch', { records: [validRecord()] }, { records: [validRecord(), validRecord()] }],
      ['/shifts', { name: 'A', start_time: '01:00', end_time: '02:00' }, { name: 'B', start_time: '01:00', end_time: '02:00' }],
      ['/sessions', { name: 'A' }, { name: 'B' }],
      ['/prevention-plan', {}, undefined],
      ['/webhooks', { url: PUBLIC_HOOK, events: ['plan.generated'] }, { url: PUBLIC_HOOK, events: ['alert.triggered'] }],
      ['/webhooks/{id}/test', {}, undefined, { id: fixtures.webhook }],
      ['/sessions/{id}/complete', {}, undefined, { id: session }],
    ];
    for (const [path, first, second, params] of creates) {
      const headers = { 'idempotency-key': `conflict-${path}` };
      const ok = await call('POST', path, { params, body: first, headers });
      expect(ok.statusCode, `${path}: ${ok.body.slice(0, 200)}`).toBeLessThan(300);
      expectStatus(
        await call('POST', path, { params, headers, ...(second === undefined ? { raw: '{"again":true}' } : { body: second }) }),
        409,
      );
    }
  });

  it('429 with Retry-After and resetAt once a key is over its limit', async () => {
    const limited = await buildTestApp({
      config: testConfig({ RATE_LIMIT_GENERAL_PER_MINUTE: '1', RATE_LIMIT_RECORDS_PER_MINUTE: '1', RATE_LIMIT_ANALYTICS_PER_HOUR: '1' }),
      db: t.db,
    });
    try {
      const own = await createTenant(t.db);
      for (const op of operations) {
        const params = paramsFor(op.path);
        await call(op.method, op.path, { app: limited, key: own.key, params, ...bodyFor(op) });
        const res = await call(op.method, op.path, { app: limited, key: own.key, params, ...bodyFor(op) });
        expectStatus(res, 429);
      }
    } finally {
      await limited.close();
    }
  });

  it('503 when the database is unreachable', async () => {
    const unreachable = createPrisma('postgresql://merma@127.0.0.1:1/merma', 1);
    const down = await buildTestApp({ config: testConfig(), db: unreachable });
    try {
      for (const op of operations) {
        expectStatus(await call(op.method, op.path, { app: down, params: paramsFor(op.path), ...bodyFor(op) }), 503);
      }
    } finally {
      await down.close();
      await unreachable.$disconnect();
    }
  });
});

describe('the document itself', () => {
  it('passes Redocly CLI lint with the committed ruleset (redocly.yaml), offline', () => {
    const require = createRequire(import.meta.url);
    const cli = join(dirname(require.resolve('@redocly/cli/package.json')), 'bin', 'cli.js');
    const config = join(dirname(fileURLToPath(import.meta.url)), '..', 'redocly.yaml');
    const dir = mkdtempSync(join(tmpdir(), 'merma-openapi-'));
    try {
      const file = join(dir, 'openapi.json');
      writeFileSync(file, JSON.stringify(doc, null, 2));
      const run = spawnSync(process.execPath, [cli, 'lint', file, '--config', config, '--format', 'stylish'], {
        encoding: 'utf8',
        timeout: deadline(60_000),
        // No usage data and no update check: the lint needs no network.
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
      });
      expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
      expect(`${run.stdout}${run.stderr}`).not.toMatch(/warning/i);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
