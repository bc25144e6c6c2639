import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Db } from '../src/db/client.js';

/**
 * The served OpenAPI document, read the way a client reads it, and the checks shared by the
 * hostile-input, conformance and wall suites: the error body of the contract, a fingerprint of the
 * tables a request may write, and one of every table (`tableDigests`).
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
      // A donation agreement's signed document travels as a PDF (application/pdf) both ways: its
      // answers are held to this document in donation-agreements.test.ts.
      const json = (content?: Record<string, unknown>) => !content || 'application/json' in content;
      if (!json(op.requestBody?.content) || !Object.values(op.responses).every((r) => json(r.content))) continue;
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

/** Columns written after a request has answered (a key's last use) or by use alone (a session's): not a change. */
const RESTLESS_COLUMNS: Record<string, string[]> = {
  api_keys: ['last_used_at'],
  user_sessions: ['last_seen_at', 'expires_at'],
};

/** The tables of a (migrated) database and their columns, read once. */
const tablesOf = new WeakMap<Db, Map<string, Set<string>>>();

/** Rows of one tenant, which that tenant's own allowed calls may write. */
export type TenantRows = { establishmentIds: string[]; organizationId: string; userIds: string[] };

/**
 * Row count and a digest of every row of every table of the database, found from the catalogue (so a
 * new table is covered without being named here): equal digests mean nothing was written anywhere.
 * With `outside`, that tenant's rows are left out (its establishments, organisation and users, and
 * every row naming one of them), to show that its own calls wrote nothing of anyone else's.
 */
export async function tableDigests(db: Db, outside?: TenantRows): Promise<Record<string, string>> {
  let tables = tablesOf.get(db);
  if (!tables) {
    const columns = await db.$queryRaw<{ table_name: string; column_name: string }[]>`
      SELECT c.table_name::text, c.column_name::text FROM information_schema.columns c
      JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
      WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE'`;
    tables = new Map();
    for (const c of columns) tables.set(c.table_name, (tables.get(c.table_name) ?? new Set()).add(c.column_name));
    tablesOf.set(db, tables);
  }
  const parts = [...tables]
    .sort(([x], [y]) => x.localeCompare(y))
    .map(([table, cols]) => {
      const conditions = outside
        ? [
            cols.has('establishment_id') && 'x.establishment_id IS NULL OR NOT (x.establishment_id::text = ANY($1::text[]))',
            cols.has('organization_id') && 'x.organization_id IS NULL OR x.organization_id::text <> $2',
            cols.has('user_id') && 'x.user_id IS NULL OR NOT (x.user_id::text = ANY($3::text[]))',
            table === 'establishments' && 'NOT (x.id::text = ANY($1::text[]))',
            table === 'organizations' && 'x.id::text <> $2',
            table === 'users' && 'NOT (x.id::text = ANY($3::text[]))',
          ].filter((c): c is string => typeof c === 'string')
        : [];
      const where = conditions.length ? `WHERE ${conditions.map((c) => `(${c})`).join(' AND ')}` : '';
      const row = `(to_jsonb(x) - '{${(RESTLESS_COLUMNS[table] ?? []).join(',')}}'::text[])::text`;
      return `(SELECT count(*) || ':' || md5(coalesce(string_agg(r, '|' ORDER BY r), '')) FROM (SELECT ${row} AS r FROM "${table}" x ${where}) s) AS "${table}"`;
    });
  const sql = `SELECT ${parts.join(', ')}`;
  const [digests] = outside
    ? await db.$queryRawUnsafe<Record<string, string>[]>(sql, outside.establishmentIds, outside.organizationId, outside.userIds)
    : await db.$queryRawUnsafe<Record<string, string>[]>(sql);
  return digests as Record<string, string>;
}

/** The tables whose digests differ, with their row counts before → after. */
export function changedDigests(before: Record<string, string>, after: Record<string, string>): string[] {
  return Object.keys({ ...before, ...after })
    .filter((table) => before[table] !== after[table])
    .map((table) => `${table} (${before[table]?.split(':')[0]} → ${after[table]?.split(':')[0]} rows)`);
}
