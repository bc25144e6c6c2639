import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Db } from '../src/db/client.js';

/**
 * The served OpenAPI document, read the way a client reads it, and the checks shared by the
 * hostile-input and conformance suites: the error body of the contract and a fingerprint of the
 * tables a request may write.
 */
export type JsonSchema = { [keyword: string]: unknown };
export type Parameter = { name: string; in: 'path' | 'query' | 'header' | 'cookie'; required?: boolean; schema?: JsonSchema };
type MediaType = { schema?: JsonSchema };
export type ResponseObject = {
  description?: string;
  headers?: Record<string, { schema?: JsonSchema }>;
  content?: Record<string, MediaType>;
};
export type Operation = {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';
  /** Path as documented, relative to the server URL: `/webhooks/{id}`. */
  path: string;
  operationId: string;
  /** The key permission the operation needs (`x-permission`). */
  permission: string | undefined;
  parameters: Parameter[];
  body: JsonSchema | undefined;
  bodyRequired: boolean;
  responses: Record<string, ResponseObject>;
};
export type OpenApiDocument = {
  openapi: string;
  servers: { url: string }[];
  paths: Record<string, Record<string, Record<string, unknown>>>;
  components: { schemas: Record<string, JsonSchema> };
};

export async function fetchOpenApi(app: FastifyInstance): Promise<OpenApiDocument> {
  const res = await app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
  if (res.statusCode !== 200) throw new Error(`GET /api/v1/openapi.json answered ${res.statusCode}`);
  return res.json() as OpenApiDocument;
}

export function listOperations(doc: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, raw] of Object.entries(item)) {
      if (!['get', 'post', 'patch', 'delete', 'put'].includes(method)) continue;
      const op = raw as {
        security?: unknown[];
        operationId: string;
        'x-permission'?: string;
        parameters?: Parameter[];
        requestBody?: { required?: boolean; content?: Record<string, MediaType> };
        responses: Record<string, ResponseObject>;
      };
      // The integrations' own URLs take no API key (`security: []`): Square signs its notifications,
      // Odoo's URL carries a token. Their refusals are tested in integrations.test.ts.
      if (Array.isArray(op.security) && op.security.length === 0) continue;
      operations.push({
        method: method.toUpperCase() as Operation['method'],
        path,
        operationId: op.operationId,
        permission: op['x-permission'],
        parameters: op.parameters ?? [],
        body: op.requestBody?.content?.['application/json']?.schema,
        bodyRequired: op.requestBody?.required === true,
        responses: op.responses,
      });
    }
  }
  return operations;
}

/** The schema a `$ref` (`#/components/schemas/Name`) points to; other schemas as they are. */
export function deref(doc: OpenApiDocument, schema: JsonSchema | undefined): JsonSchema {
  let current = schema ?? {};
  for (let hops = 0; typeof current.$ref === 'string' && hops < 10; hops++) {
    const name = (current.$ref as string).replace('#/components/schemas/', '');
    const target = doc.components.schemas[name];
    if (!target) throw new Error(`Unresolved $ref ${current.$ref as string}`);
    current = target;
  }
  return current;
}

const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * What is wrong with a non-2xx response according to the Errors section of the contract:
 * `{ error, status, timestamp, code, details?, request_id }` (429 adds `resetAt`), served as JSON,
 * `status` equal to the HTTP status and `request_id` equal to the X-Request-Id header.
 */
export function errorBodyProblems(res: LightMyRequestResponse): string[] {
  const problems: string[] = [];
  const type = String(res.headers['content-type'] ?? '');
  if (!type.startsWith('application/json')) problems.push(`content-type is "${type}"`);
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(res.body) as Record<string, unknown>;
  } catch {
    return [...problems, `body is not JSON: ${res.body.slice(0, 200)}`];
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) return [...problems, 'body is not an object'];
  if (typeof body.error !== 'string' || body.error.length === 0) problems.push('error is not a non-empty string');
  if (body.status !== res.statusCode) problems.push(`status ${String(body.status)} differs from HTTP ${res.statusCode}`);
  if (typeof body.code !== 'string' || body.code.length === 0) problems.push('code is not a string');
  if (typeof body.timestamp !== 'string' || !ISO_TIMESTAMP.test(body.timestamp)) problems.push('timestamp is not ISO 8601 UTC');
  if (typeof body.request_id !== 'string' || body.request_id.length === 0) problems.push('request_id is missing');
  else if (body.request_id !== res.headers['x-request-id']) problems.push('request_id differs from the X-Request-Id header');
  if (body.details !== undefined) {
    const ok =
      Array.isArray(body.details) &&
      body.details.every((d) => d && typeof d === 'object' && typeof d.path === 'string' && typeof d.message === 'string');
    if (!ok) problems.push('details is not an array of {path, message}');
  }
  if (res.statusCode === 429 && (typeof body.resetAt !== 'string' || Number.isNaN(Date.parse(body.resetAt)))) {
    problems.push('429 without resetAt');
  }
  return problems;
}

/** Tables an API request can write (besides api_keys, which only the admin CLI touches). */
export const WRITABLE_TABLES = [
  'records',
  'events',
  'webhook_subscriptions',
  'webhook_deliveries',
  'sessions',
  'shifts',
  'inbound_events',
  'prevention_plans',
  'idempotency_keys',
] as const;

export type Snapshot = Record<(typeof WRITABLE_TABLES)[number], string>;

const SNAPSHOT_SQL = `SELECT ${WRITABLE_TABLES.map(
  (table) => `(SELECT count(*) || ':' || md5(coalesce(string_agg(x::text, '|' ORDER BY x::text), '')) FROM ${table} x) AS ${table}`,
).join(', ')}`;

/** Row count and a digest of every row of each writable table: equal snapshots mean nothing was written. */
export async function snapshot(db: Db): Promise<Snapshot> {
  const rows = await db.$queryRawUnsafe<Snapshot[]>(SNAPSHOT_SQL);
  return rows[0] as Snapshot;
}

/** The tables whose rows differ between two snapshots, with their row counts before → after. */
export function changedTables(before: Snapshot, after: Snapshot): string[] {
  return WRITABLE_TABLES.filter((table) => before[table] !== after[table]).map(
    (table) => `${table} (${before[table].split(':')[0]} → ${after[table].split(':')[0]} rows)`,
  );
}
