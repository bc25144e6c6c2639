/*
 * Serves the tRPC procedures as REST routes, one Fastify route per procedure, following each
 * procedure's `meta.openapi` (method and path) exactly as trpc-to-openapi documents them: GET input
 * is the query string, POST input the JSON body, path parameters are merged in. The procedure runs
 * through tRPC's server-side caller, so input and output validation, middlewares and permissions are
 * those of the procedure. trpc-to-openapi's own HTTP adapter does the same mapping but costs several
 * times more per request; the procedures and the OpenAPI document stay the single definition.
 */
import { API_VERSION_PREFIX } from '@merma/schema';
import type { AnyProcedure } from '@trpc/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../context.js';
import { type Db, type DbTx, poolOf } from '../db/client.js';
import { sqlOfPool, sqlOfTransaction } from '../db/sql.js';
import { inSpan } from '../tracing/spans.js';
import type { Context } from '../trpc/context.js';
import type { AppRouter } from '../trpc/router.js';
import { createCallerFactory, type Meta, type RateBucket } from '../trpc/trpc.js';
import { toAppError } from './errors.js';
import { fingerprint, parseIdempotencyKey, withIdempotency } from './idempotency.js';

/** What each API route carries in its Fastify config: the auth hook, the rate limiter and the logs read it. */
export type RouteConfig = { api: true; bucket: RateBucket; procedure: string };

declare module 'fastify' {
  /** Other routes (probes, docs, the dashboard) carry none of it. */
  interface FastifyContextConfig extends Partial<RouteConfig> {}
}

type ProcedureEntry = { path: string; meta: Meta & { openapi: NonNullable<Meta['openapi']> } };

export function listOpenApiProcedures(router: AppRouter): ProcedureEntry[] {
  const procedures = router._def.procedures as unknown as Record<string, AnyProcedure>;
  return Object.entries(procedures)
    .map(([path, proc]) => ({ path, meta: proc._def.meta as Meta }))
    .filter((p): p is ProcedureEntry => !!p.meta?.openapi);
}

function resolve(caller: unknown, path: string): (input: unknown) => Promise<unknown> {
  let target = caller as Record<string, unknown>;
  for (const part of path.split('.')) target = target[part] as Record<string, unknown>;
  return target as unknown as (input: unknown) => Promise<unknown>;
}

/** A refusal the contract foresees (a 4xx answer), not a failure of the service: its span is not failed. */
const isClientError = (err: unknown) => toAppError(err).appError.status < 500;

export function registerProcedureRoutes(app: FastifyInstance, deps: { router: AppRouter; db: Db; clock: Clock }) {
  const createCaller = createCallerFactory(deps.router);
  const pooled = sqlOfPool(poolOf(deps.db));

  for (const { path, meta } of listOpenApiProcedures(deps.router)) {
    const { method, path: openapiPath } = meta.openapi;
    const url = API_VERSION_PREFIX + openapiPath.replace(/\{(\w+)\}/g, ':$1');
    const status = meta.successStatus ?? 200;
    const hasPathParams = url.includes(':');
    const config: RouteConfig = { api: true, bucket: meta.rateBucket ?? 'general', procedure: path };

    const call = async (request: FastifyRequest, db: DbTx, idempotencyKey?: string): Promise<string> => {
      // A POST without a body (an action such as /complete) is read as an empty object.
      const raw = method === 'GET' || method === 'DELETE' ? request.query : (request.body ?? {});
      const input =
        hasPathParams && (raw === undefined || (typeof raw === 'object' && raw !== null && !Array.isArray(raw)))
          ? { ...(raw as object | undefined), ...(request.params as object) }
          : raw;
      const pool = db === deps.db ? pooled : sqlOfTransaction(db);
      const ctx: Context = { db, pool, auth: request.auth, clock: deps.clock, requestId: request.id, idempotencyKey };
      const attributes = { 'rpc.system': 'trpc', 'rpc.method': path, 'merma.establishment_id': request.auth.establishmentId };
      return inSpan(`procedure ${path}`, { attributes, expected: isClientError }, async () =>
        JSON.stringify(await resolve(createCaller(ctx), path)(input)),
      );
    };

    app.route({
      method,
      url,
      config,
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        reply.type('application/json; charset=utf-8');
        const key = method === 'POST' ? parseIdempotencyKey(request.headers['idempotency-key']) : undefined;
        if (!key || meta.ownIdempotency) return reply.code(status).send(await call(request, deps.db, key));
        const stored = await withIdempotency(
          deps.db,
          request.auth,
          key,
          fingerprint(method, request.url.split('?')[0] ?? url, request.body),
          async (tx) => ({ status, body: await call(request, tx) }),
        );
        if (stored.replayed) reply.header('idempotent-replayed', 'true');
        return reply.code(stored.status).send(stored.body);
      },
    });
  }
}
