import { randomUUID } from 'node:crypto';
import { MAX_BODY_BYTES } from '@merma/schema';
import scalar from '@scalar/fastify-api-reference';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { AuthContext, Clock } from '../context.js';
import type { Db } from '../db/client.js';
import { inspectJson, UNPAIRED_SURROGATE } from '../db/text.js';
import { AppError, validationError } from '../errors.js';
import { createCatalogCache } from '../modules/catalog/service.js';
import { createAppRouter } from '../trpc/router.js';
import { createAuthenticator } from './auth.js';
import { type RouteConfig, registerProcedureRoutes } from './binding.js';
import { handleError, sendError } from './errors.js';
import { buildOpenApiDocument } from './openapi.js';
import { createRateLimiter } from './rate-limit.js';

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext;
  }
}

export type AppDeps = {
  config: Config;
  db: Db;
  clock?: Clock;
  /** Where logs go (stdout by default; tests pass a capturing stream). */
  logStream?: NodeJS.WritableStream;
  logLevel?: string;
  version?: string;
  /**
   * Called after this process answered a successful write, which may have written outbox events:
   * main.ts points it at the local worker's dispatcher so deliveries start at once instead of at
   * its next poll.
   */
  afterWrite?: () => void;
};

const REQUEST_ID = /^[\w.:-]{1,128}$/;
/** Deepest nesting of a JSON body (the documented bodies nest 3 levels; POS payloads a few more). */
const MAX_BODY_DEPTH = 64;

/**
 * Builds the HTTP application. Request path: request id → HTTPS guard → auth (key hash lookup,
 * establishment, plan, mode) → rate limit for the route's bucket → body parsing (1 MiB) → the
 * procedure (zod input, permission, service, Prisma) → envelope. Every error leaves through
 * http/errors.ts.
 */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, db } = deps;
  const clock = deps.clock ?? (() => new Date());
  const app = Fastify({
    logger: {
      level: deps.logLevel ?? config.logLevel,
      // API keys never reach a log: the Authorization header is redacted wherever it appears.
      redact: { paths: ['req.headers.authorization', 'headers.authorization', 'authorization'], censor: '[redacted]' },
      serializers: {
        req: (req) => ({
          method: req.method,
          url: req.url,
          remoteAddress: req.ip,
          headers: req.headers, // authorization is redacted above
        }),
      },
      ...(deps.logStream ? { stream: deps.logStream } : {}),
    },
    bodyLimit: MAX_BODY_BYTES,
    requestTimeout: config.requestTimeoutMs,
    connectionTimeout: config.requestTimeoutMs,
    // Node enforces the request deadline only when it checks its connections (every 30 s by
    // default): check often enough that a client trickling bytes is cut off near the deadline.
    http: {
      requestTimeout: config.requestTimeoutMs,
      headersTimeout: config.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, Math.ceil(config.requestTimeoutMs / 4)),
    },
    trustProxy: config.trustProxy as boolean | string,
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    // URLs the router refuses before any hook runs (bad percent-encoding, an over-long path
    // parameter) get the same error body as every other refusal.
    frameworkErrors: (err, request, reply) => {
      reply.header('x-request-id', request.id);
      reply.header('x-content-type-options', 'nosniff');
      reply.header('referrer-policy', 'no-referrer');
      handleError(err, request, reply);
    },
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : `req_${randomUUID().replaceAll('-', '')}`;
    },
  });

  const catalog = createCatalogCache();
  const router = createAppRouter({
    catalog,
    webhookTargets: { production: config.env === 'production', allowPrivate: config.webhooksAllowPrivate },
  });
  const authenticator = createAuthenticator(db, config.apiKeyCacheTtlMs);
  const rateLimiter = createRateLimiter(config);
  const production = config.env === 'production';

  // JSON only: any other body type is answered 415 (Fastify would otherwise parse text/plain).
  app.removeContentTypeParser(['text/plain']);
  app.decorateRequest('auth', null as unknown as AuthContext);
  app.setErrorHandler((err, request, reply) => handleError(err, request, reply));
  app.setNotFoundHandler((request, reply) =>
    sendError(request, reply, new AppError('not_found', `No route ${request.method} ${request.url.split('?')[0]}`)),
  );

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'no-referrer');
    if (production) {
      reply.header('strict-transport-security', 'max-age=63072000; includeSubDomains');
      const probe = request.url === '/healthz' || request.url === '/readyz';
      if (!probe && request.protocol !== 'https') {
        throw new AppError('forbidden', 'HTTPS is required');
      }
    }
    const route = request.routeOptions.config as Partial<RouteConfig> | undefined;
    if (!route?.api) return;
    reply.header('cache-control', 'no-store');
    request.auth = await authenticator.authenticate(request);
    await rateLimiter.consume(route.bucket ?? 'general', request.auth.keyId, reply);
  });

  // A JSON body must be text the database can store as given (unpaired surrogates, `\ud800`
  // escapes, would be stored as U+FFFD) and nest at most MAX_BODY_DEPTH levels (deeper bodies
  // overflow the stack of whatever serialises them again: the Idempotency-Key fingerprint, jsonb).
  app.addHook('preValidation', async (request) => {
    if (!(request.routeOptions.config as Partial<RouteConfig> | undefined)?.api || request.body === undefined) return;
    const found = inspectJson(request.body, UNPAIRED_SURROGATE, MAX_BODY_DEPTH);
    if (found?.reason === 'text') {
      throw validationError('Text must be valid Unicode: the body holds an unpaired UTF-16 surrogate', [
        { path: found.path, message: 'unpaired UTF-16 surrogate' },
      ]);
    }
    if (found) {
      throw validationError(`The body nests deeper than ${MAX_BODY_DEPTH} levels`, [{ path: found.path, message: 'nested too deeply' }]);
    }
  });

  app.get('/healthz', async (_request, reply) => reply.send({ status: 'ok' }));
  app.get('/readyz', async (request, reply) => {
    try {
      await db.$queryRaw`SELECT 1`;
      return reply.send({ status: 'ready' });
    } catch (err) {
      request.log.warn({ err }, 'readiness check failed');
      return sendError(request, reply, new AppError('service_unavailable', 'Database unreachable', undefined, { retryAfterSeconds: 1 }));
    }
  });

  const openapi = buildOpenApiDocument(router, deps.version ?? '1.0.0');
  const openapiJson = JSON.stringify(openapi);
  app.get('/api/v1/openapi.json', async (_request, reply) => reply.type('application/json; charset=utf-8').send(openapiJson));
  await app.register(scalar, {
    routePrefix: '/docs',
    configuration: {
      url: '/api/v1/openapi.json',
      title: 'Merma API reference',
      withDefaultFonts: false, // no font CDN: the page works offline and behind strict firewalls
      showDeveloperTools: 'never',
      hideClientButton: true,
      agent: { disabled: true },
      authentication: { preferredSecurityScheme: 'bearerAuth' },
    },
  });

  const afterWrite = deps.afterWrite;
  if (afterWrite) {
    app.addHook('onResponse', async (request, reply) => {
      if (request.method === 'GET' || request.method === 'HEAD' || reply.statusCode >= 300) return;
      if ((request.routeOptions.config as Partial<RouteConfig> | undefined)?.api) afterWrite();
    });
  }

  registerProcedureRoutes(app, { router, db, clock });
  app.addHook('onClose', async () => rateLimiter.close());
  return app;
}
