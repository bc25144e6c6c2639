/*
 * Serves the tRPC procedures as REST routes, one Fastify route per procedure, following each
 * procedure's `meta.openapi` (method and path) exactly as trpc-to-openapi documents them: GET input
 * is the query string, POST input the JSON body, path parameters are merged in; a POST marked
 * `queryInput` also takes its input fields from the query string. The procedure runs as tRPC's
 * server-side caller runs it (trpc/run.ts), so input and output validation, middlewares and
 * permissions are those of the procedure; each route knows its procedure, so no caller proxy is
 * built per request. trpc-to-openapi's own HTTP adapter does the same mapping but costs several
 * times more per request; the procedures and the OpenAPI document stay the single definition.
 *
 * Each route authorises the key with the procedure's own check (`authorizeProcedure`, the function
 * its middleware runs) before anything else, in particular before an Idempotency-Key's stored
 * answer is looked up: a replay is refused exactly as the request would be (idempotency.ts).
 */
import { API_VERSION_PREFIX } from '@merma/schema';
import type { AnyProcedure } from '@trpc/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../context.js';
import type { Db, DbTx } from '../db/client.js';
import type { StoredAnswer } from '../db/key-claim.js';
import { type Sql, sqlOfTransaction, type TransactionalSql } from '../db/sql.js';
import { toAppError, validationError } from '../errors.js';
import type { SecretBox } from '../secrets/cipher.js';
import { inSpan } from '../tracing/spans.js';
import type { Context } from '../trpc/context.js';
import type { ResponseCheck } from '../trpc/responses.js';
import type { AppRouter } from '../trpc/router.js';
import { runProcedure } from '../trpc/run.js';
import { authorizeProcedure, type Meta, type RateBucket } from '../trpc/trpc.js';
import { answerOnce, fingerprint, isReplay, parseIdempotencyKey } from './idempotency.js';

/** What each API route carries in its Fastify config: the API surface's rate limit hook reads it (surfaces/api.ts). */
export type RouteConfig = { bucket: RateBucket; procedure: string };

declare module 'fastify' {
  /** Other routes (probes, docs, the dashboard) carry none of it. */
  interface FastifyContextConfig extends Partial<RouteConfig> {}
}

type ProcedureEntry = { path: string; meta: Meta & { openapi: NonNullable<Meta['openapi']> }; procedure: AnyProcedure };

export function listOpenApiProcedures(router: AppRouter): ProcedureEntry[] {
  const procedures = router._def.procedures as unknown as Record<string, AnyProcedure>;
  return Object.entries(procedures)
    .map(([path, procedure]) => ({ path, meta: procedure._def.meta as Meta, procedure }))
    .filter((p): p is ProcedureEntry => !!p.meta?.openapi);
}

/**
 * `?lang=en` and `{"lang": "en"}` say the same; a field given both ways with different values is
 * refused rather than one silently winning. A body that is not an object is left for the input
 * schema to refuse.
 */
function mergeQueryIntoBody(query: Record<string, unknown>, body: unknown): unknown {
  if (body !== undefined && body !== null && (typeof body !== 'object' || Array.isArray(body))) return body;
  const fields = (body ?? {}) as Record<string, unknown>;
  const clashes = Object.keys(query).filter((k) => k in fields && JSON.stringify(fields[k]) !== JSON.stringify(query[k]));
  if (clashes.length > 0) {
    throw validationError(
      'A field is given both in the query string and in the body, with different values',
      clashes.map((path) => ({ path, message: 'given in the query string and in the body with different values' })),
    );
  }
  return { ...query, ...fields };
}

/**
 * A refusal the contract foresees (a 4xx answer), or a procedure stopped at its first write to
 * replay an Idempotency-Key's stored answer: not a failure of the service, so its span is not failed.
 */
const isExpected = (err: unknown) => isReplay(err) || toAppError(err).appError.status < 500;

export function registerProcedureRoutes(
  app: FastifyInstance,
  deps: {
    router: AppRouter;
    db: Db;
    /** The pool under `db`, and the runner for reads that may lag (services.ts). */
    sql: { primary: TransactionalSql; replica: Sql; namedStatements?: boolean };
    clock: Clock;
    /** Seals the stored Idempotency-Key answers (idempotency.ts). */
    secrets: SecretBox;
    responseCheck: ResponseCheck;
  },
) {
  const pooled = deps.sql.primary;

  for (const { path, meta, procedure } of listOpenApiProcedures(deps.router)) {
    const { method, path: openapiPath } = meta.openapi;
    const url = API_VERSION_PREFIX + openapiPath.replace(/\{(\w+)\}/g, ':$1');
    const status = meta.successStatus ?? 200;
    const hasPathParams = url.includes(':');
    const config: RouteConfig = { bucket: meta.rateBucket ?? 'general', procedure: path };

    /** A POST's body, with the query parameters of a `queryInput` procedure merged in. */
    const bodyInput = (request: FastifyRequest): unknown => {
      const query = request.query as Record<string, unknown> | undefined;
      if (!meta.queryInput || !query || Object.keys(query).length === 0) return request.body;
      return mergeQueryIntoBody(query, request.body);
    };

    const call = async (
      request: FastifyRequest,
      db: DbTx,
      idempotencyKey?: string,
      runner?: TransactionalSql,
      storedAnswer?: StoredAnswer,
    ): Promise<string> => {
      // A POST without a body (an action such as /complete) is read as an empty object.
      const raw = method === 'GET' || method === 'DELETE' ? request.query : (bodyInput(request) ?? {});
      const input =
        hasPathParams && (raw === undefined || (typeof raw === 'object' && raw !== null && !Array.isArray(raw)))
          ? { ...(raw as object | undefined), ...(request.params as object) }
          : raw;
      // In a request's transaction (an Idempotency-Key POST) every read is the transaction's own.
      const inTx = db !== deps.db;
      const sql = runner ?? (inTx ? sqlOfTransaction(db) : pooled);
      const replica = inTx ? sql : deps.sql.replica;
      const ctx: Context = {
        db,
        sql,
        replica,
        auth: request.auth,
        clock: deps.clock,
        requestId: request.id,
        idempotencyKey,
        responseCheck: deps.responseCheck,
        storedAnswer,
      };
      const attributes = { 'rpc.system': 'trpc', 'rpc.method': path, 'merma.establishment_id': request.auth.establishmentId };
      return inSpan(`procedure ${path}`, { attributes, expected: isExpected }, async () =>
        JSON.stringify(await runProcedure(procedure, path, ctx, input)),
      );
    };

    app.route({
      method,
      url,
      config,
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        reply.type('application/json; charset=utf-8');
        authorizeProcedure(request.auth, meta);
        const key = method === 'POST' ? parseIdempotencyKey(request.headers['idempotency-key']) : undefined;
        if (!key || meta.ownIdempotency) return reply.code(status).send(await call(request, deps.db, key));
        const print = fingerprint(method, request.url.split('?')[0] ?? url, bodyInput(request));
        // Writes through ctx.sql only (`sqlWrites`): the key is claimed on that connection, no Prisma transaction.
        const stored = await answerOnce(
          { db: deps.db, secrets: deps.secrets, namedStatements: deps.sql.namedStatements ?? false },
          {
            auth: request.auth,
            key,
            print,
            status,
            sqlWrites: meta.sqlWrites ?? false,
            // A write of records answers a replay with its records, read again by the procedure itself.
            rebuild: meta.answersRecords ? (stored) => call(request, deps.db, undefined, undefined, stored) : undefined,
          },
          (db, runner) => call(request, db, undefined, runner),
        );
        if (stored.replayed) reply.header('idempotent-replayed', 'true');
        return reply.code(stored.status).send(stored.body);
      },
    });
  }
}
