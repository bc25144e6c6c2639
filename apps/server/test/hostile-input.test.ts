import { connect } from 'node:net';
import { MAX_BODY_BYTES } from '@merma/schema';
import { deadline } from '@merma/testing';
import fc from 'fast-check';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  changedTables,
  deref,
  errorBodyProblems,
  fetchOpenApi,
  type JsonSchema,
  listOperations,
  type OpenApiDocument,
  type Operation,
  snapshot,
} from './contract.js';
import {
  api,
  brokenChains,
  buildTestApp,
  createTenant,
  DESTINO_DONATION,
  startTestApp,
  type Tenant,
  testConfig,
  validRecord,
} from './helpers.js';

/**
 * Hostile input against every operation of the OpenAPI document: requests generated from the
 * documented parameters and bodies, valid-looking and deliberately broken. Whatever arrives, the
 * service must answer below 500, every refusal must carry the contract's error body, and a refused
 * request must leave the database as it was. Then a fixed list of classic attacks.
 *
 * MERMA_FUZZ_SEED replays a run (the seed is printed at the end); MERMA_FUZZ_RUNS sets the number
 * of generated requests per operation.
 */
const SEED = Number(process.env.MERMA_FUZZ_SEED ?? Date.now() % 2_147_483_647);
const RUNS = Number(process.env.MERMA_FUZZ_RUNS ?? 40);
const API = '/api/v1';
const PUBLIC_HOOK = 'https://93.184.216.34/hook';

// The app is started while the file is collected: one test per documented operation needs the document.
const t = await startTestApp();
const doc: OpenApiDocument = await fetchOpenApi(t.app);
const operations = listOperations(doc);

let tenant: Tenant;
let tried = 0;
let acceptedWrites = 0;
const statuses = new Map<number, number>();
let catalogIds: { destinos: string[]; causas: string[] } = { destinos: [DESTINO_DONATION], causas: [] };

beforeAll(async () => {
  tenant = await createTenant(t.db);
  const client = api(t.app, tenant.key);
  catalogIds = {
    destinos: (await client.get(`${API}/destinos`)).json().data.map((d: { id: string }) => d.id),
    causas: (await client.get(`${API}/causas`)).json().data.map((c: { id: string }) => c.id),
  };
});

afterAll(async () => {
  const tally = [...statuses.entries()]
    .sort(([a], [b]) => a - b)
    .map(([status, n]) => `${status}×${n}`)
    .join(' ');
  console.log(
    `hostile inputs tried: ${tried} (fast-check seed ${SEED}, ${RUNS} runs per operation; statuses ${tally}; ` +
      `record chains verified after ${acceptedWrites} accepted writes)`,
  );
  await t.close();
});

// ---------------------------------------------------------------------------------------------
// Values

/** JSON text placed as it is in a body: numbers JSON.stringify cannot write (-0), invalid JSON (NaN), deep nesting. */
class RawJson {
  constructor(readonly text: string) {}
  [fc.toStringMethod]() {
    return `RawJson(${this.text.length > 40 ? `${this.text.slice(0, 40)}…[${this.text.length}]` : this.text})`;
  }
}

/** Marks the place of bytes that are not UTF-8 in a body sent as a raw Buffer. */
const BAD_BYTES_MARK = 'BAD_UTF8_BYTES_HERE';
const BAD_BYTES = Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80, 0xf8, 0x88, 0x80, 0x80, 0x80, 0xc0, 0xaf]);

const HUGE = 'x'.repeat(100_000);
const SQL_INJECTION = ["'; DROP TABLE records; --", '1 OR 1=1', '$$', '\\x00', "Robert'); DELETE FROM records WHERE ('1'='1", '$1::text'];

const HOSTILE_STRINGS: string[] = [
  HUGE,
  '🍅'.repeat(20_000),
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '\udc00\ud800',
  BAD_BYTES_MARK,
  ...SQL_INJECTION,
  '',
  ' ',
  '\t\r\n',
  'NaN',
  'Infinity',
  '-0',
  '1e308',
  '1e-30',
  'null',
  'true',
  '2026-02-30',
  '2026-13-01',
  '2025-02-29',
  '0000-01-01',
  '9999-12-31',
  '+275760-09-13',
  '2026-01-01T25:00:00Z',
  '2026-01-01T00:00:00+99:00',
  '24:00',
  '23:60',
  '<script>alert(1)</script>',
  '$\u007bjndi:ldap://127.0.0.1/a}',
  '{{7*7}}',
  '../../etc/passwd',
  '%00',
  '\u202eevil',
  '__proto__',
  'constructor',
  'prototype',
  'javascript:alert(1)',
  'file:///etc/passwd',
  'http://169.254.169.254/latest/meta-data',
  'https://93.184.216.34/\r\nX-Injected: 1',
  'https://93.184.216.34/a b',
  'https://127.0.0.1/hook',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
];

const HOSTILE_NUMBERS = ['1e308', '-1e308', '-0', '1e-30', '1e999', '-1e999', '123456789012345678901234567890', '0.1e1', '1E+2', '-1'].map(
  (text) => new RawJson(text),
);
const INVALID_JSON_TOKENS = ['NaN', 'Infinity', 'undefined', "'single'", '0x10', '01', '.5', '+1'].map((text) => new RawJson(text));
const DEEP = [
  new RawJson('['.repeat(1000) + ']'.repeat(1000)),
  new RawJson('{"a":'.repeat(1000) + '{}' + '}'.repeat(1000)),
  new RawJson('{"__proto__":'.repeat(1000) + '{}' + '}'.repeat(1000)),
];
const EXTRA_KEYS = ['__proto__', 'constructor', 'prototype', 'extra', '', ' food_category', 'x'.repeat(1000), '\u0000', '\ud800'];

/** Any value that does not belong where it is put. */
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: fc.constantFrom(...HOSTILE_STRINGS), weight: 5 },
  { arbitrary: fc.constantFrom(...HOSTILE_NUMBERS), weight: 3 },
  { arbitrary: fc.constantFrom(...DEEP), weight: 1 },
  { arbitrary: fc.constantFrom(...INVALID_JSON_TOKENS), weight: 1 },
  { arbitrary: fc.constantFrom<unknown>(null, true, false, 0, -1, 1.5, 2 ** 53, -(2 ** 53), [], {}, [[]], [{}]), weight: 2 },
  { arbitrary: fc.constant(withKey({}, '__proto__', { admin: true })), weight: 1 },
  { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 2 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 30 }), weight: 1 },
);

/** A copy of an object with one own property set: `__proto__` too is set as an own property. */
function withKey(value: Record<string, unknown>, key: string, v: unknown): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...value };
  Object.defineProperty(copy, key, { value: v, enumerable: true, writable: true, configurable: true });
  return copy;
}

function withoutKey(value: Record<string, unknown>, key: string): Record<string, unknown> {
  const copy = { ...value };
  delete copy[key];
  return copy;
}

/** JSON text of a value, with RawJson pieces written as they are. */
function encode(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_key, v) => (v instanceof RawJson ? `@@RAW${raws.push(v.text) - 1}@@` : v)) ?? 'null';
  return text.replace(/"@@RAW(\d+)@@"/g, (_m, i: string) => raws[Number(i)] as string);
}

/** Percent-encoding that also writes lone surrogates (as the bytes WTF-8 gives them, which are not UTF-8). */
function percentEncode(value: string): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    const next = value.charCodeAt(i + 1);
    if (code >= 0xd800 && code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      out += encodeURIComponent(value.slice(i, i + 2));
      i++;
    } else if (code >= 0xd800 && code <= 0xdfff) {
      out += [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
        .map((b) => `%${b.toString(16).toUpperCase()}`)
        .join('');
    } else {
      out += encodeURIComponent(value[i] as string);
    }
  }
  return out;
}

/** Webhook URLs that name a host would make the service resolve it: generated requests use IP literals only. */
function namesAHost(url: unknown): boolean {
  if (typeof url !== 'string') return false;
  try {
    const parsed = new URL(url);
    return /^https?:$/.test(parsed.protocol) && !/^[\d.]+$|^\[/.test(parsed.hostname);
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Generators derived from the document

type Fixtures = { shift: string; session: string; record: string; webhook: string; delivery: string };

type Generators = {
  valid(schema: JsonSchema | undefined, name?: string): fc.Arbitrary<unknown>;
  broken(schema: JsonSchema | undefined, name?: string): fc.Arbitrary<unknown>;
};

function generators(fixtures: Fixtures): Generators {
  const recordBody = operations.find((o) => o.method === 'POST' && o.path === '/records')?.body;
  const uuidFor = (name: string | undefined): fc.Arbitrary<string> => {
    const known: Record<string, string[]> = {
      destino_id: catalogIds.destinos,
      causa_id: catalogIds.causas,
      shift_id: [fixtures.shift],
      session_id: [fixtures.session],
      record_id: [fixtures.record],
      delivery_id: [fixtures.delivery],
    };
    const pool = (name && known[name]) || Object.values(fixtures);
    return fc.oneof({ arbitrary: fc.constantFrom(...pool), weight: 3 }, { arbitrary: fc.uuid(), weight: 1 });
  };

  function valid(input: JsonSchema | undefined, name?: string, depth = 0): fc.Arbitrary<unknown> {
    const schema = deref(doc, input);
    // Properties whose documented schema is open: use what the description says they carry.
    if (name === 'records' && recordBody) {
      return fc.array(valid(recordBody, undefined, depth + 1), { minLength: 1, maxLength: 3 });
    }
    if (name === 'payload' && recordBody) {
      return fc
        .tuple(
          valid(recordBody, undefined, depth + 1) as fc.Arbitrary<Record<string, unknown>>,
          fc.record(
            {
              source: fc.constantFrom('sap-b1', 'square', 'odoo', 'pos'),
              external_id: fc.string({ minLength: 1, maxLength: 20 }),
              record_id: uuidFor('record_id'),
              ean: fc.stringMatching(/^\d{8,14}$/),
              quantity_kg: fc.double({ min: 0.001, max: 50, noNaN: true }),
            },
            { requiredKeys: ['source'] },
          ),
        )
        .map(([fields, extra]) => ({ ...fields, ...extra }));
    }
    if ('const' in schema) return fc.constant(schema.const);
    if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
    const union = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
    if (union) return fc.oneof(...union.map((s) => valid(s, name, depth + 1)));
    const type = Array.isArray(schema.type) ? (schema.type[0] as string) : (schema.type as string | undefined);
    switch (type) {
      case 'string': {
        if (schema.format === 'uuid') return uuidFor(name);
        if (schema.format === 'date') {
          return fc
            .date({ min: new Date('2025-01-01'), max: new Date('2027-12-31'), noInvalidDate: true })
            .map((d) => d.toISOString().slice(0, 10));
        }
        if (schema.format === 'date-time') {
          // Every form the format allows: milliseconds or not, Z or an offset.
          return fc
            .tuple(
              fc.date({ min: new Date('2025-01-01'), max: new Date('2027-12-31'), noInvalidDate: true }),
              fc.constantFrom('Z', '+02:00', '-05:30', '+00:00'),
              fc.boolean(),
            )
            .map(([d, zone, millis]) => d.toISOString().slice(0, millis ? 23 : 19) + zone);
        }
        if (schema.format === 'uri') {
          return fc.constantFrom(PUBLIC_HOOK, 'https://93.184.216.34/img/tomates.jpg', 'http://93.184.216.34/x?y=1');
        }
        if (typeof schema.pattern === 'string') return fc.stringMatching(new RegExp(schema.pattern));
        const minLength = (schema.minLength as number | undefined) ?? 0;
        const maxLength = Math.max(minLength, Math.min((schema.maxLength as number | undefined) ?? 40, minLength + 40));
        return fc.oneof(
          fc.string({ minLength, maxLength }),
          fc.string({ minLength, maxLength, unit: 'grapheme' }).filter((s) => s.length <= maxLength),
        );
      }
      case 'integer': {
        const min = Math.max((schema.minimum as number | undefined) ?? -1000, -1_000_000);
        const max = Math.min((schema.maximum as number | undefined) ?? 1000, 1_000_000);
        return fc.integer({ min, max });
      }
      case 'number': {
        const min = (schema.minimum as number | undefined) ?? ((schema.exclusiveMinimum as number | undefined) ?? -1000) + 0.001;
        const max = (schema.maximum as number | undefined) ?? 1000;
        return fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
      }
      case 'boolean':
        return fc.boolean();
      case 'null':
        return fc.constant(null);
      case 'array':
        return fc.array(valid(schema.items as JsonSchema | undefined, undefined, depth + 1), {
          minLength: (schema.minItems as number | undefined) ?? 0,
          maxLength: Math.min((schema.maxItems as number | undefined) ?? 3, 3),
        });
      case 'object': {
        const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
        const required = (schema.required ?? []) as string[];
        if (Object.keys(properties).length === 0) {
          return depth > 2 ? fc.constant({}) : fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
        }
        const model = Object.fromEntries(Object.entries(properties).map(([key, s]) => [key, valid(s, key, depth + 1)]));
        return fc.record(model, { requiredKeys: required });
      }
      default:
        return fc.jsonValue({ maxDepth: 2 });
    }
  }

  /** A valid-looking value with one thing wrong: a field of another type, a missing or extra field, the wrong shape. */
  function broken(input: JsonSchema | undefined, name?: string): fc.Arbitrary<unknown> {
    const schema = deref(doc, input);
    const properties = Object.keys((schema.properties ?? {}) as object);
    const required = (schema.required ?? []) as string[];
    const nested = properties.filter((p) => p === 'records' || p === 'payload');
    const kinds = ['wrong-value', 'wrong-value', 'extra-field', 'not-an-object', 'array-of-it'];
    if (required.length > 0) kinds.push('missing-required');
    if (nested.length > 0) kinds.push('nested', 'nested');
    return fc
      .tuple(valid(schema, name), fc.constantFrom(...kinds), fc.nat(), hostileValue, fc.constantFrom(...EXTRA_KEYS))
      .chain(([base, kind, n, bad, extraKey]) => {
        if (typeof base !== 'object' || base === null || Array.isArray(base) || kind === 'not-an-object') return fc.constant(bad);
        const value = base as Record<string, unknown>;
        switch (kind) {
          case 'wrong-value':
            return fc.constant(
              properties.length ? withKey(value, properties[n % properties.length] as string, bad) : withKey(value, 'x', bad),
            );
          case 'missing-required':
            return fc.constant(withoutKey(value, required[n % required.length] as string));
          case 'extra-field':
            return fc.constant(withKey(value, extraKey, bad));
          case 'array-of-it':
            return fc.constant([value]);
          default: {
            // Break something inside: one item of `records`, or a field of the inbound `payload`.
            const key = nested[n % nested.length] as string;
            if (key === 'records' && recordBody) {
              return fc
                .array(fc.oneof(valid(recordBody), broken(recordBody)), { minLength: 1, maxLength: 4 })
                .map((records) => withKey(value, key, records));
            }
            const inner = value[key];
            if (inner && typeof inner === 'object' && !Array.isArray(inner)) {
              const fields = Object.keys(inner);
              const field = fields.length ? (fields[n % fields.length] as string) : 'source';
              return fc.constant(
                withKey(
                  value,
                  key,
                  n % 3 === 0
                    ? withKey(inner as Record<string, unknown>, extraKey, bad)
                    : withKey(inner as Record<string, unknown>, field, bad),
                ),
              );
            }
            return fc.constant(withKey(value, key, bad));
          }
        }
      });
  }

  return { valid, broken };
}

type RequestPlan = {
  path: string;
  query: string;
  body: { payload?: string | Buffer; contentType?: string };
  idempotencyKey: string | null;
};

const GARBAGE_PATH_VALUES = [
  'x',
  '0',
  '-1',
  'null',
  'undefined',
  '%2e%2e',
  '%00',
  '%zz',
  '%ED%A0%80',
  '%FF',
  percentEncode("'; DROP TABLE records; --"),
  percentEncode('1 OR 1=1'),
  'a'.repeat(250),
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '6CCF7D29-F6D9-403D-A9B0-2F907F15477B',
  '6ccf7d29-f6d9-403d-a9b0-2f907f15477bx',
  '6ccf7d29f6d9403da9b02f907f15477b',
  '%7Bid%7D',
  '__proto__',
  'constructor',
  '1e308',
  percentEncode('\ud800'),
  percentEncode('🍅'),
];

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=utf-16',
  'APPLICATION/JSON',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/json-patch+json',
  '',
];

const RAW_PAYLOADS: fc.Arbitrary<string | Buffer> = fc.oneof(
  fc.constantFrom<string | Buffer>(
    '',
    'null',
    'true',
    '1e308',
    '"text"',
    '[]',
    '{',
    '{"a":1,"a":2}',
    '\ufeff{}',
    '{"food_category": "meat",',
    '{}garbage',
    '{"__proto__": {"admin": true}}',
    '{"constructor": {"prototype": {"admin": true}}}',
    BAD_BYTES,
    Buffer.concat([Buffer.from('{"name":"'), BAD_BYTES, Buffer.from('"}')]),
  ),
  fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)),
  fc.string({ unit: 'binary', maxLength: 200 }),
);

function requestPlans(op: Operation, fixtures: Fixtures): fc.Arbitrary<RequestPlan> {
  const gen = generators(fixtures);
  const resource = op.path.split('/')[1];
  const existing: Record<string, string> = { sessions: fixtures.session, webhooks: fixtures.webhook };

  // Path: the documented path with each parameter an existing id, a random UUID or garbage.
  const segments = op.path.split('/').map((segment): fc.Arbitrary<string> => {
    const param = /^\{(\w+)\}$/.exec(segment)?.[1];
    if (!param) return fc.constant(segment);
    const own = param === 'delivery_id' ? fixtures.delivery : (existing[resource ?? ''] ?? fixtures.record);
    return fc.oneof(
      { arbitrary: fc.constant(own), weight: 4 },
      { arbitrary: fc.constantFrom(...Object.values(fixtures)), weight: 1 },
      { arbitrary: fc.uuid(), weight: 2 },
      { arbitrary: fc.constantFrom(...GARBAGE_PATH_VALUES), weight: 3 },
      { arbitrary: fc.string({ minLength: 1, maxLength: 40, unit: 'binary' }).map(percentEncode), weight: 1 },
    );
  });
  const path = fc.tuple(...segments).map((parts) => API + parts.join('/'));

  // Query string: each documented parameter absent, valid or hostile; sometimes unknown or repeated ones.
  const queryParams = op.parameters.filter((p) => p.in === 'query');
  const hostileQueryValue = fc.oneof(
    fc.constantFrom(...HOSTILE_STRINGS.filter((s) => s.length < 1000 || s === HUGE), '-1', '1e20', 'abc', '1.5', '0x10', '', '[]'),
    fc.string({ unit: 'binary', maxLength: 20 }),
  );
  const pairs = fc.tuple(
    ...queryParams.map((p) =>
      fc.option(
        fc
          .oneof({ arbitrary: gen.valid(p.schema, p.name).map(String), weight: 3 }, { arbitrary: hostileQueryValue, weight: 2 })
          .map((v) => `${p.name}=${percentEncode(v)}`),
        { nil: undefined, freq: 2 },
      ),
    ),
    fc.oneof(
      { arbitrary: fc.constant(undefined), weight: 4 },
      fc.constantFrom(
        '__proto__=1',
        '__proto__[admin]=true',
        'constructor[prototype][admin]=true',
        'unknown=x',
        'a[b]=c',
        `${queryParams[0]?.name ?? 'x'}=1&${queryParams[0]?.name ?? 'x'}=2`,
        `${queryParams[0]?.name ?? 'x'}[]=1`,
        '%zz=%zz',
        '%00=%00',
        `${queryParams[0]?.name ?? 'x'}=%ED%A0%80`,
        '&&&==&',
      ),
    ),
  );
  const query = pairs.map((parts) => {
    const present = parts.filter((p): p is string => p !== undefined);
    return present.length ? `?${present.join('&')}` : '';
  });

  // Body: JSON from the documented schema (valid-looking or broken), or raw bytes with any content type.
  const asJson = (value: fc.Arbitrary<unknown>) =>
    value.map((v) => {
      let text = encode(v);
      if (namesAHost((v as { url?: unknown } | null)?.url)) text = encode(withKey(v as Record<string, unknown>, 'url', PUBLIC_HOOK));
      if (!text.includes(BAD_BYTES_MARK)) return { payload: text, contentType: 'application/json' };
      const parts = text.split(BAD_BYTES_MARK);
      const payload = Buffer.concat(parts.flatMap((part, i) => (i === 0 ? [Buffer.from(part)] : [BAD_BYTES, Buffer.from(part)])));
      return { payload, contentType: 'application/json' };
    });
  const raw = fc.record({ payload: RAW_PAYLOADS, contentType: fc.constantFrom(...CONTENT_TYPES) });
  const none = fc.constant({});
  let body: fc.Arbitrary<RequestPlan['body']>;
  if (op.method === 'GET') body = none;
  else if (op.body) {
    body = fc.oneof(
      { arbitrary: asJson(gen.valid(op.body)), weight: 4 },
      { arbitrary: asJson(gen.broken(op.body)), weight: 7 },
      { arbitrary: raw, weight: 2 },
      { arbitrary: none, weight: op.bodyRequired ? 1 : 0 },
    );
  } else {
    body = fc.oneof(
      { arbitrary: none, weight: 4 },
      { arbitrary: asJson(fc.constant({})), weight: 2 },
      { arbitrary: asJson(hostileValue), weight: 3 },
      { arbitrary: asJson(fc.constantFrom(...EXTRA_KEYS).chain((k) => hostileValue.map((v) => withKey({}, k, v)))), weight: 2 },
      { arbitrary: raw, weight: 1 },
    );
  }

  // Idempotency-Key on some POSTs: two reused keys (replays and 409s), fresh ones, invalid ones.
  const idempotencyKey: fc.Arbitrary<string | null> =
    op.method === 'POST'
      ? fc.oneof(
          { arbitrary: fc.constant(null), weight: 6 },
          { arbitrary: fc.constantFrom('replay-1', 'replay-2'), weight: 2 },
          { arbitrary: fc.uuid(), weight: 1 },
          { arbitrary: fc.constantFrom('x'.repeat(256), ' ', 'clé ü', '\u00ff'), weight: 1 },
        )
      : fc.constant(null);

  // Counterexamples are printed short: bodies can be 100,000 characters long.
  return fc
    .record({ path, query, body, idempotencyKey })
    .map((plan) =>
      Object.assign(plan, { [fc.toStringMethod]: () => describeRequest(op.method, plan.path + plan.query, plan.body.payload) }),
    );
}

// ---------------------------------------------------------------------------------------------
// The checks

function describeRequest(method: string, url: string, payload: string | Buffer | undefined): string {
  const shown = payload === undefined ? '' : String(payload).slice(0, 300);
  return `${method} ${url.slice(0, 300)}${url.length > 300 ? '…' : ''} ${shown}${payload && payload.length > 300 ? `…[${payload.length} bytes]` : ''}`;
}

/** Sends one request and checks the three invariants; returns the response. */
async function hostile(
  app: FastifyInstance,
  request: { method: Operation['method']; url: string; payload?: string | Buffer; headers?: Record<string, string> },
  key = tenant.key,
): Promise<LightMyRequestResponse> {
  tried++;
  const before = await snapshot(t.db);
  const res = await app.inject({
    method: request.method,
    url: request.url,
    headers: { authorization: `Bearer ${key}`, ...request.headers },
    ...(request.payload !== undefined ? { payload: request.payload } : {}),
  });
  const after = await snapshot(t.db);
  statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
  const what = describeRequest(request.method, request.url, request.payload);
  if (res.statusCode >= 500) throw new Error(`${what}\n→ ${res.statusCode} ${res.body.slice(0, 500)}`);
  const refused = res.statusCode < 200 || res.statusCode >= 300;
  if (refused) {
    const problems = errorBodyProblems(res);
    if (problems.length) throw new Error(`${what}\n→ ${res.statusCode} error body: ${problems.join('; ')}\n${res.body.slice(0, 500)}`);
  }
  const changed = changedTables(before, after);
  if ((refused || request.method === 'GET') && changed.length) {
    throw new Error(`${what}\n→ ${res.statusCode} yet it wrote: ${changed.join(', ')}`);
  }
  if (!refused && request.method !== 'GET') {
    // An accepted write must leave every record chain verifiable: what was stored is what was hashed.
    acceptedWrites++;
    const broken = await brokenChains(t.db);
    if (broken.length) throw new Error(`${what}\n→ ${res.statusCode}, and the record chain no longer verifies: ${JSON.stringify(broken)}`);
  }
  return res;
}

async function freshFixtures(): Promise<Fixtures> {
  const client = api(t.app, tenant.key);
  const shift = (await client.post(`${API}/shifts`, { name: 'Mañana', start_time: '08:00', end_time: '16:00' })).json().data.id;
  const session = (await client.post(`${API}/sessions`, { name: 'Cierre', shift_id: shift })).json().data.id;
  const record = (await client.post(`${API}/records`, validRecord({ shift_id: shift, session_id: session }))).json().data.id;
  const webhook = (await client.post(`${API}/webhooks`, { url: PUBLIC_HOOK, events: ['subscription.canceled'] })).json().data.id;
  const delivery = (await client.post(`${API}/webhooks/${webhook}/test`, {})).json().data.id;
  expect(await brokenChains(t.db)).toEqual([]);
  return { shift, session, record, webhook, delivery };
}

describe('generated requests for every documented operation', () => {
  it('reads the operations from the served document', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(operations.length).toBeGreaterThanOrEqual(29);
  });

  for (const op of operations) {
    it(`${op.method} ${op.path}: never 5xx, refusals in the error shape, nothing written`, { timeout: deadline(120_000) }, async () => {
      const fixtures = await freshFixtures();
      await fc.assert(
        fc.asyncProperty(requestPlans(op, fixtures), async (plan) => {
          await hostile(t.app, {
            method: op.method,
            url: plan.path + plan.query,
            ...(plan.body.payload !== undefined ? { payload: plan.body.payload } : {}),
            headers: {
              ...(plan.body.contentType ? { 'content-type': plan.body.contentType } : {}),
              ...(plan.idempotencyKey !== null ? { 'idempotency-key': plan.idempotencyKey } : {}),
            },
          });
        }),
        { numRuns: RUNS, seed: SEED },
      );
    });
  }
});

// ---------------------------------------------------------------------------------------------
// Classic attacks

const json = (method: Operation['method'], url: string, body: unknown) => ({
  method,
  url,
  payload: typeof body === 'string' ? body : JSON.stringify(body),
  headers: { 'content-type': 'application/json' },
});

describe('classic attacks', () => {
  it('stores SQL-looking text verbatim in every free-text field of a record', async () => {
    const own = await createTenant(t.db);
    for (const text of SQL_INJECTION) {
      const res = await hostile(t.app, json('POST', `${API}/records`, validRecord({ product_name: text, notes: text })), own.key);
      expect(res.statusCode, text).toBe(201);
      expect(res.json().data).toMatchObject({ product_name: text, notes: text });
      const list = await hostile(t.app, { method: 'GET', url: `${API}/records?limit=200` }, own.key);
      const stored = list.json().data.find((r: { id: string }) => r.id === res.json().data.id);
      expect(stored).toMatchObject({ product_name: text, notes: text });
    }
    const list = await api(t.app, own.key).get(`${API}/records`);
    expect(list.json().meta.pagination.total).toBe(SQL_INJECTION.length);
  });

  it('answers NUL bytes and lone surrogates anywhere in an inbound event without a server error', async () => {
    const own = await createTenant(t.db);
    const record = (await api(t.app, own.key).post(`${API}/records`, validRecord())).json().data.id;
    expect(await brokenChains(t.db)).toEqual([]);
    const bases: Record<string, Record<string, unknown>> = {
      'waste.created': { source: 'pos', external_id: 'e-1', ...validRecord({ product_name: 'Tomates', notes: 'n' }) },
      'waste.updated': { source: 'pos', external_id: 'e-2', record_id: record, notes: 'corrected' },
      'inventory.loss': { source: 'pos', external_id: 'e-3', ean: '8410000000000', quantity_kg: 1, reason: 'roto' },
    };
    const failures: string[] = [];
    for (const [event, payload] of Object.entries(bases)) {
      for (const field of [...Object.keys(payload), 'free_text']) {
        for (const bad of ['\u0000', 'a\u0000b', '\ud800', 'x\udfffy']) {
          const body = { event, payload: withKey(payload, field, bad) };
          await hostile(t.app, json('POST', `${API}/webhooks/inbound`, body), own.key).catch((err: Error) => {
            failures.push(`${event} ${field}=${JSON.stringify(bad)}: ${err.message.split('\n')[1]}`);
          });
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it('answers bodies nested 400,000 levels deep (under 1 MiB) without a server error', async () => {
    const depth = 400_000;
    const deep = '['.repeat(depth) + ']'.repeat(depth);
    const failures: string[] = [];
    for (const [url, payload] of [
      [`${API}/records`, `{"food_category":${deep}}`],
      [`${API}/records/batch`, `{"records":[${deep}]}`],
      [`${API}/webhooks/inbound`, `{"event":"waste.created","payload":{"source":"pos","x":${deep}}}`],
      [
        `${API}/webhooks/inbound`,
        `{"event":"waste.created","payload":${JSON.stringify({ source: 'pos', ...validRecord() }).replace('}', `,"x":${deep}}`)}}`,
      ],
      [`${API}/shifts`, deep],
    ] as const) {
      for (const idempotency of [{}, { 'idempotency-key': `deep-${url}` }] as Record<string, string>[]) {
        const headers = { 'content-type': 'application/json', ...idempotency };
        await hostile(t.app, { method: 'POST', url, payload, headers }).catch((err: Error) => {
          failures.push(`${url} ${JSON.stringify(idempotency)}: ${err.message.split('\n')[1]}`);
        });
      }
    }
    expect(failures).toEqual([]);
  });

  it('refuses bodies over 1 MiB with 413 on every operation that takes one', async () => {
    const fixtures = await freshFixtures();
    const huge = 'x'.repeat(MAX_BODY_BYTES + 1);
    for (const [method, url, body] of [
      ['POST', `${API}/records`, validRecord({ notes: huge })],
      ['POST', `${API}/records/batch`, { records: [validRecord({ notes: huge })] }],
      ['POST', `${API}/webhooks/inbound`, { event: 'waste.created', payload: { source: 'pos', blob: huge } }],
      ['PATCH', `${API}/webhooks/${fixtures.webhook}`, { description: huge }],
      ['POST', `${API}/sessions/${fixtures.session}/complete`, { x: huge }],
    ] as const) {
      const res = await hostile(t.app, json(method, url, body));
      expect(res.statusCode, `${method} ${url}`).toBe(413);
      expect(res.json().code).toBe('payload_too_large');
    }
  });

  it('refuses a batch of 10,001 records without storing any', async () => {
    const own = await createTenant(t.db);
    const payload = JSON.stringify({ records: Array.from({ length: 10_001 }, () => validRecord()) });
    const res = await hostile(t.app, json('POST', `${API}/records/batch`, payload), own.key);
    // Under the byte limit the schema refuses it (at most 500 items); over it the body limit does.
    expect(res.statusCode).toBe(Buffer.byteLength(payload) > MAX_BODY_BYTES ? 413 : 400);
    expect(
      await api(t.app, own.key)
        .get(`${API}/records`)
        .then((r) => r.json().meta.pagination.total),
    ).toBe(0);
  });

  it('refuses out-of-range and non-numeric pagination', async () => {
    for (const query of [
      'limit=-1',
      'limit=1e20',
      'offset=1e20',
      'limit=abc',
      'limit=0',
      'limit=201',
      'limit=1.5',
      'offset=-1',
      'offset=NaN',
    ]) {
      const res = await hostile(t.app, { method: 'GET', url: `${API}/records?${query}` });
      expect(res.statusCode, query).toBe(400);
      expect(res.json().details?.length, query).toBeGreaterThan(0);
    }
  });

  describe('in a production-mode app', () => {
    let prod: FastifyInstance;
    const https = { 'x-forwarded-proto': 'https' };
    beforeAll(async () => {
      prod = await buildTestApp({
        config: testConfig({ NODE_ENV: 'production', TRUST_PROXY: 'loopback', REQUEST_TIMEOUT_MS: '1000' }),
        db: t.db,
      });
      await prod.listen({ port: 0, host: '127.0.0.1' });
    });
    afterAll(() => prod?.close());

    it('refuses webhook URLs that inject headers, are not HTTPS or reach inside the network', async () => {
      const created = await hostile(prod, {
        ...json('POST', `${API}/webhooks`, { url: PUBLIC_HOOK, events: ['subscription.canceled'] }),
        headers: { 'content-type': 'application/json', ...https },
      });
      expect(created.statusCode).toBe(201);
      const id = created.json().data.id;
      for (const url of [
        'https://example.com/\r\nX-Injected: 1',
        'https://93.184.216.34/\r\nX-Injected: 1',
        'https://93.184.216.34/hook\nX-Injected: 1',
        'https://93.184.216.34/a b',
        'https://93.184.216.34/\thook',
        ' https://93.184.216.34/hook',
        'https://93.184.216.34/hook\u0000',
        'https://exa mple.com/',
        'javascript:alert(1)',
        'file:///etc/passwd',
        'data:text/plain,hi',
        'ftp://93.184.216.34/hook',
        'http://93.184.216.34/hook',
        'http://169.254.169.254/latest/meta-data',
        'https://169.254.169.254/latest/meta-data',
        'https://[::ffff:169.254.169.254]/latest/meta-data',
        'https://127.0.0.1/hook',
        'https://0x7f000001/hook',
        'https://2130706433/hook',
        'https://[::1]/hook',
        'https://10.0.0.1/hook',
        'https://localhost/hook',
        'https://user:secret@93.184.216.34/hook',
      ]) {
        for (const request of [
          json('POST', `${API}/webhooks`, { url, events: ['record.created'] }),
          json('PATCH', `${API}/webhooks/${id}`, { url }),
        ]) {
          const res = await hostile(prod, { ...request, headers: { ...request.headers, ...https } });
          expect(res.statusCode, `${request.method} ${JSON.stringify(url)}`).toBe(400);
          expect(res.json().details?.length, JSON.stringify(url)).toBeGreaterThan(0);
        }
      }
      const kept = await api(prod, tenant.key).get(`${API}/webhooks/${id}`, { headers: https });
      expect(kept.json().data.url).toBe(PUBLIC_HOOK);
    });

    /**
     * Sends `head` at once, then `trickle` one byte every 200 ms; resolves, once the server closed
     * the connection, with what came back and how many bytes of `trickle` had been sent by then.
     */
    function slowClient(head: string, trickle: string): Promise<{ sent: number; reply: string }> {
      const { port } = prod.server.address() as { port: number };
      return new Promise((resolve, reject) => {
        const socket = connect({ port, host: '127.0.0.1' });
        let reply = '';
        let timer: NodeJS.Timeout | undefined;
        let i = 0;
        const done = () => {
          clearInterval(timer);
          resolve({ sent: i, reply });
        };
        const giveUp = setTimeout(() => {
          socket.destroy();
          reject(new Error(`still open after 15 s; received ${JSON.stringify(reply.slice(0, 200))}`));
        }, deadline(15_000));
        socket.on('data', (chunk) => {
          reply += chunk.toString('latin1');
        });
        socket.on('close', () => {
          clearTimeout(giveUp);
          done();
        });
        socket.on('error', () => {});
        socket.on('connect', () => {
          socket.write(head);
          timer = setInterval(() => {
            if (i < trickle.length && !socket.destroyed) socket.write(trickle[i++] as string);
          }, 200);
        });
      });
    }

    it('cuts off a slow-loris body before it is sent (REQUEST_TIMEOUT_MS=1000)', async () => {
      tried++;
      const body = JSON.stringify(validRecord({ notes: 'n'.repeat(200) }));
      const head = [
        `POST ${API}/records HTTP/1.1`,
        'Host: 127.0.0.1',
        `Authorization: Bearer ${tenant.key}`,
        'X-Forwarded-Proto: https',
        'Content-Type: application/json',
        `Content-Length: ${Buffer.byteLength(body)}`,
        '',
        '',
      ].join('\r\n');
      const before = await snapshot(t.db);
      // The rest of the body would take about 50 s to trickle in: the server cut it off long before.
      const { sent, reply } = await slowClient(head + body.slice(0, 10), body.slice(10));
      expect(sent).toBeLessThan(body.length - 10);
      expect(reply === '' || reply.startsWith('HTTP/1.1 408'), reply.slice(0, 200)).toBe(true);
      expect(changedTables(before, await snapshot(t.db))).toEqual([]);
    });

    it('cuts off slow headers before they are sent', async () => {
      tried++;
      const head = `GET ${API}/causas HTTP/1.1\r\nHost: 127.0.0.1\r\n`;
      const slow = `X-Slow: ${'a'.repeat(200)}\r\n\r\n`;
      const { sent, reply } = await slowClient(head, slow);
      expect(sent).toBeLessThan(slow.length);
      expect(reply === '' || reply.startsWith('HTTP/1.1 408'), reply.slice(0, 200)).toBe(true);
    });
  });
});

// ---------------------------------------------------------------------------------------------
// Unicode text

describe('unicode text in a record', () => {
  /** A record body as JSON text with `"notes":<notesJson>` written as it is (escapes included). */
  const withRawNotes = (notesJson: string) => JSON.stringify(validRecord()).replace(/}$/, `,"notes":${notesJson}}`);

  /** The stored record as the list returns it and as the database column holds it. */
  async function stored(key: string, id: string) {
    const list = await api(t.app, key).get(`${API}/records`, { query: { limit: '200' } });
    expect(list.statusCode).toBe(200);
    const listed = list.json().data.find((r: { id: string }) => r.id === id);
    const [row] = await t.db.$queryRaw<{ notes: string | null; product_name: string | null; notes_bytes: string | null }[]>`
      SELECT notes, product_name, encode(convert_to(notes, 'UTF8'), 'hex') AS notes_bytes FROM records WHERE id = ${id}::uuid`;
    return { listed, row };
  }

  it.each([
    ['a lone high surrogate', '"\\ud800"'],
    ['a lone low surrogate', '"x\\udfffy"'],
    ['a reversed pair', '"\\udc00\\ud800"'],
    ['a high surrogate at the end', '"tomates \\ud83c"'],
  ])('refuses %s escaped in notes with 400 naming the field', async (_name, notesJson) => {
    const own = await createTenant(t.db);
    const res = await hostile(t.app, json('POST', `${API}/records`, withRawNotes(notesJson)), own.key);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'validation_error', details: [{ path: 'notes', message: expect.any(String) }] });

    const batch = await hostile(t.app, json('POST', `${API}/records/batch`, `{"records":[${withRawNotes(notesJson)}]}`), own.key);
    expect(batch.statusCode).toBe(400);
    expect(batch.json().details).toEqual([expect.objectContaining({ path: 'records.0.notes' })]);
  });

  it('accepts an escaped surrogate pair as the character it encodes', async () => {
    const own = await createTenant(t.db);
    const res = await hostile(t.app, json('POST', `${API}/records`, withRawNotes('"\\ud83c\\udf45 x2"')), own.key);
    expect(res.statusCode).toBe(201);
    expect(res.json().data.notes).toBe('🍅 x2');
    const { listed, row } = await stored(own.key, res.json().data.id);
    expect(listed.notes).toBe('🍅 x2');
    expect(row?.notes).toBe('🍅 x2');
  });

  it.each([
    ['an emoji ZWJ sequence with a skin tone', '👩🏽‍🍳 cocinera'],
    ['a combining mark (not normalised)', 'cafe\u0301 / café'],
    ['line and paragraph separators', 'línea\u2028otra\u2029fin'],
    ['right-to-left and zero-width characters', 'שלום\u200b\u200d\u202e!'],
    ['a character outside the BMP that is not an emoji', '𝄞 𠀀'],
  ])('stores %s exactly: the response, the list and the column hold the same code points', async (_name, text) => {
    const own = await createTenant(t.db);
    const res = await hostile(t.app, json('POST', `${API}/records`, validRecord({ notes: text, product_name: text })), own.key);
    expect(res.statusCode).toBe(201);
    const created = res.json().data;
    expect(created).toMatchObject({ notes: text, product_name: text });
    const { listed, row } = await stored(own.key, created.id);
    for (const value of [listed.notes, listed.product_name, row?.notes, row?.product_name]) {
      expect([...(value as string)].map((c) => c.codePointAt(0))).toEqual([...text].map((c) => c.codePointAt(0)));
    }
    expect(row?.notes_bytes).toBe(Buffer.from(text, 'utf8').toString('hex'));
    expect(listed.record_hash).toBe(created.record_hash);
    const verify = await api(t.app, own.key).get(`${API}/records/verify`);
    expect(verify.json().data).toMatchObject({ valid: true, checked: 1, head_hash: created.record_hash });
  });

  // The limit is MAX_NOTES_LENGTH (500), checked by zod's `.max()`. In ASCII every unit is a
  // character, so this boundary holds whichever unit is counted.
  it('accepts notes of exactly 500 ASCII characters and refuses 501 with 400 naming the field', async () => {
    const own = await createTenant(t.db);
    const ok = await hostile(t.app, json('POST', `${API}/records`, validRecord({ notes: 'n'.repeat(500) })), own.key);
    expect(ok.statusCode).toBe(201);
    expect(ok.json().data.notes).toHaveLength(500);
    const over = await hostile(t.app, json('POST', `${API}/records`, validRecord({ notes: 'n'.repeat(501) })), own.key);
    expect(over.statusCode).toBe(400);
    expect(over.json().details).toEqual([expect.objectContaining({ path: 'notes' })]);
  });

  // What a kitchen manager expects: 500 characters, an emoji being one. The unit is the code point
  // (what zod 4 counts for strings, what JSON Schema's maxLength and PostgreSQL's char_length count;
  // stable, unlike grapheme clusters, which change with Unicode versions): 500 🍅 (1,000 UTF-16
  // units) fit, 501 do not. A ZWJ sequence is several code points: 👩🏽‍🍳 counts as 4.
  it('counts the 500-character notes limit in code points: 500 emoji accepted, 501 refused', async () => {
    const own = await createTenant(t.db);
    const length = async (id: string) =>
      (await t.db.$queryRaw<{ n: number }[]>`SELECT char_length(notes)::int AS n FROM records WHERE id = ${id}::uuid`)[0]?.n;
    const ok = await hostile(t.app, json('POST', `${API}/records`, validRecord({ notes: '🍅'.repeat(500) })), own.key);
    expect(ok.statusCode).toBe(201);
    expect(ok.json().data.notes).toBe('🍅'.repeat(500));
    expect(await length(ok.json().data.id)).toBe(500);
    const over = await hostile(t.app, json('POST', `${API}/records`, validRecord({ notes: '🍅'.repeat(501) })), own.key);
    expect(over.statusCode).toBe(400);
    expect(over.json().details).toEqual([expect.objectContaining({ path: 'notes' })]);

    const cooks = await hostile(t.app, json('POST', `${API}/records`, validRecord({ notes: '👩🏽‍🍳'.repeat(125) })), own.key);
    expect(cooks.statusCode).toBe(201);
    expect(await length(cooks.json().data.id)).toBe(500);
    const oneMore = await hostile(t.app, json('POST', `${API}/records`, validRecord({ notes: '👩🏽‍🍳'.repeat(126) })), own.key);
    expect(oneMore.statusCode).toBe(400);
  });
});
