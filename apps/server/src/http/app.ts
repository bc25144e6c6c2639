import { randomUUID, timingSafeEqual } from 'node:crypto';
import { MAX_BODY_BYTES } from '@merma/schema';
import scalar from '@scalar/fastify-api-reference';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import type { Config } from '../config.js';
import type { AuthContext, Clock } from '../context.js';
import type { Db } from '../db/client.js';
import type { Sql, TransactionalSql } from '../db/sql.js';
import { AppError } from '../errors.js';
import { type Logger, urlForLogs } from '../log.js';
import type { Metrics } from '../metrics.js';
import type { AccountDeps } from '../modules/accounts/service.js';
import type { CatalogCache } from '../modules/catalog/service.js';
import type { PhotoSettings } from '../modules/photos/service.js';
import { FilePhotoStorage } from '../modules/photos/storage.js';

import type { SecretBox } from '../secrets/cipher.js';
import type { CheckpointSigner } from '../secrets/signing.js';
import type { DashboardRouter } from '../trpc/dashboard.js';
import type { AppRouter } from '../trpc/router.js';
import type { Authenticator } from './auth.js';
import { registerCors } from './cors.js';
import { serveDashboardApp } from './dashboard-app.js';
import { answerClientError, handleError, sendError } from './errors.js';
import { registerJsonBodyParser } from './json-body.js';
import { buildOpenApiDocument } from './openapi.js';
import { registerPagePolicies } from './page-policy.js';
import type { RateLimiter } from './rate-limit.js';
import { apiSurface } from './surfaces/api.js';
import { dashboardSurface, sessionCookieNames } from './surfaces/dashboard.js';
import { donationLinkSurface } from './surfaces/donation-link.js';
import { photoFileRoutes } from './surfaces/photo-files.js';
import { stationSurface } from './surfaces/station.js';
import { vendorsSurface } from './surfaces/vendors.js';

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext;
  }
}

/** What the app is built around: the composition root's services (services.ts) satisfy it. */
export type AppServices = {
  config: Config;
  db: Db;
  /**
   * Hand-written SQL on the pool under `db` (`primary`), and the runner for reads that may lag
   * (`replica`: the streaming replica of DATABASE_REPLICA_URL while it is usable, db/replica.ts;
   * `primary` itself without one).
   */
  sql: { primary: TransactionalSql; replica: Sql; namedStatements?: boolean };
  clock: Clock;
  log: Logger;
  metrics: Metrics;
  router: AppRouter;
  authenticator: Authenticator;
  rateLimiter: RateLimiter;
  /** Signs the record chain's checkpoints; its public keys are served at /.well-known/. */
  signer: CheckpointSigner;
  /** The keys of secrets at rest; they also seal the stored Idempotency-Key answers (http/idempotency.ts). */
  secrets: SecretBox;
  /** The photos' storage and links (modules/photos): the API's and the station's uploads, the file links. */
  photos: PhotoSettings;
  /** The dashboard's procedures and what signing in needs (http/surfaces/dashboard.ts). */
  dashboard: { router: DashboardRouter; accounts: AccountDeps; catalog: CatalogCache };
  /** Called when the app closes. */
  close(): Promise<void>;
};

export type AppOptions = {
  version?: string;
  /**
   * Called after this process answered a successful write, which may have written outbox events:
   * serve.ts points it at the local worker's dispatcher so deliveries start at once instead of at
   * its next poll.
   */
  afterWrite?: () => void;
};

const REQUEST_ID = /^[\w.:-]{1,128}$/;
/** Load balancers' probes: answered over plain HTTP too, and not logged when healthy. */
const PROBES = new Set(['/healthz', '/readyz']);

const PROTOCOL = Symbol('merma.protocol');
type RememberingSocket = { [PROTOCOL]?: { forwarded: unknown; protocol: string } };
/**
 * `request.protocol`, remembered on the connection: behind a trusted proxy it is the request's
 * X-Forwarded-Proto, and whether the proxy is trusted is a fact of the connection's peer address,
 * which Fastify parses again on every request that asks (`trustProxy`). A connection that keeps
 * sending the same header gets the answer its first request got.
 */
function protocolOf(request: FastifyRequest): string {
  const socket = request.raw.socket as typeof request.raw.socket & RememberingSocket;
  const forwarded = request.headers['x-forwarded-proto'];
  const known = socket[PROTOCOL];
  if (known && known.forwarded === forwarded) return known.protocol;
  const protocol = request.protocol;
  socket[PROTOCOL] = { forwarded, protocol };
  return protocol;
}

/** Headers on every answer, including the router's own refusals (frameworkErrors). */
function setCommonHeaders(request: FastifyRequest, reply: FastifyReply, production: boolean) {
  reply.header('x-request-id', request.id);
  reply.header('x-content-type-options', 'nosniff');
  reply.header('referrer-policy', 'no-referrer');
  if (production) reply.header('strict-transport-security', 'max-age=63072000; includeSubDomains');
}

/**
 * Configures Fastify around the services (services.ts). What every route shares is here: request
 * id → HTTPS guard → CORS (when CORS_ORIGINS is set; preflights are answered here) → body parsing
 * (JSON only, 1 MiB) → envelope, every error leaving through http/errors.ts; the probes, metrics,
 * the OpenAPI document and the reference. Each kind of caller has its own encapsulated plugin in
 * surfaces/ (api, dashboard, station, vendors) whose hooks run for its routes alone: its
 * credential resolved to a tenant (modules/tenancy/callers.ts), its limits, no-store, and the
 * webhook dispatcher woken after a write. For the API: the key → the rate limit of the route's
 * bucket → the procedure (zod input, permission, service) → envelope.
 *
 * One log line per request, when its answer is sent ("request completed", at info): method, URL,
 * route, status, duration and request id, and — once the key is known — the establishment and the
 * key's id (never the key). Fastify's own pair of lines per request is turned off.
 */
export async function buildApp(services: AppServices, options: AppOptions = {}): Promise<FastifyInstance> {
  const { config, db, clock, metrics, rateLimiter, router } = services;
  const production = config.env === 'production';
  const app = Fastify({
    loggerInstance: services.log as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
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
    // What Node refuses before there is a request (over-long headers, a timeout, bytes that are not
    // HTTP) is answered with the same error body too.
    clientErrorHandler: answerClientError,
    // URLs the router refuses before any hook runs (bad percent-encoding, an over-long path
    // parameter) get the same error body as every other refusal.
    frameworkErrors: (err, request, reply) => {
      setCommonHeaders(request, reply, production);
      handleError(err, request, reply);
    },
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : `req_${randomUUID().replaceAll('-', '')}`;
    },
  });

  // JSON only: any other body type is answered 415 (Fastify would otherwise parse text/plain). The
  // JSON parser (http/json-body.ts) refuses, on every route, bodies nested deeper than
  // MAX_BODY_DEPTH and prototype keys.
  app.removeContentTypeParser(['text/plain']);
  registerJsonBodyParser(app);
  app.decorateRequest('auth', null as unknown as AuthContext);
  app.setErrorHandler((err, request, reply) => handleError(err, request, reply));
  app.setNotFoundHandler((request, reply) =>
    sendError(request, reply, new AppError('not_found', `No route ${request.method} ${request.url.split('?')[0]}`)),
  );

  // Every page (text/html) refuses to be framed, whichever route or plugin sent it.
  registerPagePolicies(app);

  // The hooks every request runs that never wait are in Fastify's callback form: no promise each.
  app.addHook('onRequest', (request, reply, done) => {
    setCommonHeaders(request, reply, production);
    if (production && protocolOf(request) !== 'https' && !PROBES.has(request.url)) {
      return done(new AppError('forbidden', 'HTTPS is required'));
    }
    done();
  });

  // Browsers' cross-origin calls to /api/v1 (CORS_ORIGINS): after the HTTPS guard, before the
  // API-key check, which a preflight (it carries no key) would fail.
  if (config.corsOrigins) await registerCors(app, config.corsOrigins);

  app.addHook('onResponse', (request, reply, done) => {
    logAnswer(request, reply);
    done();
  });
  const logAnswer = (request: FastifyRequest, reply: FastifyReply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const labels = { method: request.method, route, status: String(reply.statusCode) };
    const seconds = reply.elapsedTime / 1000;
    metrics.httpDuration.observe(labels, seconds);
    if (PROBES.has(request.url) && reply.statusCode < 400) return; // load balancers probe every few seconds
    // The dashboard's files (http/dashboard-app.ts marks their routes) at debug: a page load asks for
    // dozens. A failed one (a stale tab's missing asset) stays at info, as every API request does.
    const level = request.routeOptions.config?.staticFile && reply.statusCode < 400 ? 'debug' : 'info';
    // The line's fields are not built for nothing (LOG_LEVEL=warn); pino says, a disabled logger has no level.
    if ((reply.log as Partial<Logger>).isLevelEnabled?.(level) === false) return;
    reply.log[level](
      {
        method: request.method,
        url: urlForLogs(request.url),
        route,
        status: reply.statusCode,
        responseTime: Math.round(reply.elapsedTime * 10) / 10,
      },
      'request completed',
    );
  };

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

  if (config.metrics.token) {
    // For platforms that expose one port only: the metrics behind a bearer token of their own.
    const expected = Buffer.from(`Bearer ${config.metrics.token}`);
    app.get('/metrics', async (request, reply) => {
      const given = Buffer.from(request.headers.authorization ?? '');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        throw new AppError('unauthorized', 'The metrics need Authorization: Bearer <METRICS_TOKEN>');
      }
      return reply.type(metrics.registry.contentType).send(await metrics.scrape());
    });
  }

  const openapi = buildOpenApiDocument(router, options.version ?? '1.0.0');
  const openapiJson = JSON.stringify(openapi);
  app.get('/api/v1/openapi.json', async (_request, reply) => reply.type('application/json; charset=utf-8').send(openapiJson));
  // The public keys of the record chain's signed checkpoints (a JWKS): for auditors and the SDK's
  // verifyCheckpoint(). Public by nature; cached for an hour.
  const checkpointKeys = JSON.stringify(services.signer.jwks());
  app.get('/.well-known/merma-checkpoint-keys.json', async (_request, reply) =>
    reply.type('application/json; charset=utf-8').header('cache-control', 'public, max-age=3600').send(checkpointKeys),
  );
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

  // Once shutdown began (app.close()), answers close their connection: a client keeping its
  // connection alive (fetch, browsers, proxies) would otherwise hold close() until the process is
  // killed. Idle connections are closed by close() itself (forceCloseConnections: 'idle').
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });

  // One encapsulated plugin per kind of caller (surfaces/): each registers its own hooks (its
  // credential → tenant, limits, no-store, the dispatcher woken after a write) for its routes alone.
  const { afterWrite } = options;
  await app.register(apiSurface, { services, ...(afterWrite ? { afterWrite } : {}) });
  await app.register(dashboardSurface, {
    db,
    sql: services.sql,
    clock,
    log: services.log,
    accounts: services.dashboard.accounts,
    catalog: services.dashboard.catalog,
    signer: services.signer,
    router: services.dashboard.router,
    rateLimiter,
    production,
    ...(afterWrite ? { afterWrite } : {}),
  });
  await app.register(stationSurface, {
    db,
    sql: services.sql,
    clock,
    rateLimiter,
    catalog: services.dashboard.catalog,
    secrets: services.secrets,
    publicUrl: config.publicUrl,
    photos: services.photos,
    ...(afterWrite ? { afterWrite } : {}),
  });
  // The photos' short-lived links, when they are files: no caller, the link's signature is the permission.
  await app.register(photoFileRoutes, {
    sql: services.sql.primary,
    clock,
    secrets: services.secrets,
    storage: services.photos.storage instanceof FilePhotoStorage ? services.photos.storage : undefined,
  });
  await app.register(donationLinkSurface, {
    db,
    sql: services.sql.primary,
    clock,
    rateLimiter,
    catalog: services.dashboard.catalog,
    ...(afterWrite ? { afterWrite } : {}),
  });
  await app.register(vendorsSurface, {
    db,
    clock,
    secrets: services.secrets,
    catalog: services.dashboard.catalog,
    rateLimiter,
    publicUrl: config.publicUrl,
    dedupeDays: config.retention.inboundDedupeDays,
    odoo: {
      policy: { production: config.env === 'production', allowPrivate: config.webhooksAllowPrivate, timeoutMs: config.webhookTimeoutMs },
      userAgent: 'Merma-Integrations/1 (+https://merma.app/docs/integrations)',
    },
    ...(afterWrite ? { afterWrite } : {}),
  });
  // The customers' app and the station page: files for anyone, no caller.
  await serveDashboardApp(app, {
    log: services.log,
    dashboardDir: config.dashboard.dir,
    hotReload: config.dashboard.hotReload,
    sessionCookie: sessionCookieNames(production).session,
  });
  app.addHook('onClose', async () => services.close());
  return app;
}
