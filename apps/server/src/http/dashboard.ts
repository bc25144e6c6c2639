import { existsSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import fastifyCookie from '@fastify/cookie';
import fastifyStatic from '@fastify/static';
import { localDate } from '@merma/schema';
import { RecordsExportQuery } from '@merma/schema/dashboard';
import { fastifyRequestHandler } from '@trpc/server/adapters/fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { csrfTokenFor, sameSecret } from '../auth/tokens.js';
import type { Clock } from '../context.js';
import type { Db } from '../db/client.js';
import type { Sql, TransactionalSql } from '../db/sql.js';
import { AppError, issueDetails, toAppError, validationError } from '../errors.js';
import type { Logger } from '../log.js';
import { findLoginSession, type OpenedLoginSession, type SignedInUser } from '../modules/accounts/login-sessions.js';
import type { AccountDeps } from '../modules/accounts/service.js';
import type { CatalogCache } from '../modules/catalog/service.js';
import { exportRecordsCsv } from '../modules/records/export.js';
import { findEstablishment, tenantOf } from '../modules/tenancy/service.js';
import type { DashboardRouter } from '../trpc/dashboard.js';
import type { DashboardContext } from '../trpc/dashboard-base.js';
import { MAX_BODY_DEPTH, nestingExceeds } from './json-body.js';
import type { RateLimiter } from './rate-limit.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A dashboard call (/trpc): session cookie, CSRF and origin checks; never an API key. */
    dashboard?: boolean;
  }
}

/**
 * The session and CSRF cookies' names. In production they carry the `__Host-` prefix: browsers
 * accept such a cookie only when it is Secure, set over HTTPS, for Path=/ and without Domain, so a
 * sibling subdomain or a plain-HTTP man in the middle cannot plant or overwrite one (session
 * fixation, CSRF-token tossing; ASVS 3.4.4). In development and tests the plain names stay:
 * browsers refuse Secure cookies over plain HTTP on any host but localhost.
 */
export function sessionCookieNames(production: boolean) {
  return production ? { session: '__Host-merma_session', csrf: '__Host-merma_csrf' } : { session: 'merma_session', csrf: 'merma_csrf' };
}
export const CSRF_HEADER = 'x-csrf-token';

export type DashboardOptions = {
  db: Db;
  /** The pool under `db`, and the runner for reads that may lag (services.ts). */
  sql: { primary: TransactionalSql; replica: Sql; namedStatements?: boolean };
  clock: Clock;
  log: Logger;
  accounts: AccountDeps;
  router: DashboardRouter;
  catalog: CatalogCache;
  /** The API's limiter, which also holds the dashboard's per-user limits. */
  rateLimiter: RateLimiter;
  production: boolean;
  /** The built app (apps/dashboard/dist); not served when absent. */
  dashboardDir: string;
  /** Serve the app's sources through Vite with hot reload (`pnpm dev`). */
  hotReload: boolean;
};

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A file of the dashboard's build (or the page): its request is logged at debug, not info. */
    staticFile?: boolean;
  }
}

type Checked = { session: SignedInUser | null; token: string | null };

/**
 * The dashboard's transport: its tRPC procedures at /trpc and the app at /dashboard.
 *
 * /trpc trusts the session cookie only (httpOnly, SameSite=Strict, Secure in production) and
 * guards it against cross-site use three ways: a browser's `Sec-Fetch-Site` must say same-origin
 * (or `Origin`, where that header is the only one sent, must be this server); a POST must be JSON
 * (Fastify answers 415 to forms and text, the bodies a cross-site form can send); and while a
 * session exists every POST must carry `x-csrf-token`, the HMAC of the session token that the page
 * reads from the CSRF cookie (`merma_csrf`, `__Host-merma_csrf` in production). A request without a
 * session can only sign in, which the origin check covers.
 */
export async function registerDashboard(app: FastifyInstance, options: DashboardOptions): Promise<void> {
  const { db, clock, production } = options;
  const { primary: sql, replica } = options.sql;
  await app.register(fastifyCookie);

  const names = sessionCookieNames(production);
  // Never a Domain attribute: the cookies belong to this host only (and `__Host-` requires it).
  const cookieBase = { path: '/', secure: production, sameSite: 'strict' as const };
  const setSessionCookies = (reply: FastifyReply, session: OpenedLoginSession) => {
    reply.setCookie(names.session, session.token, { ...cookieBase, httpOnly: true, expires: session.expiresAt });
    reply.setCookie(names.csrf, session.csrfToken, { ...cookieBase, httpOnly: false, expires: session.expiresAt });
  };
  const clearSessionCookies = (reply: FastifyReply) => {
    reply.clearCookie(names.session, cookieBase);
    reply.clearCookie(names.csrf, cookieBase);
  };

  const checked = new WeakMap<FastifyRequest, Checked>();

  app.addHook('onRequest', async (request, reply) => {
    if (!request.routeOptions.config?.dashboard) return;
    reply.header('cache-control', 'no-store');
    assertSameOrigin(request);
    // A query's input travels as JSON in the URL (`?input=`): held to the bodies' depth limit.
    const input = (request.query as { input?: unknown }).input;
    if (Array.isArray(input)) throw validationError('Give input once', [{ path: 'input', message: 'given more than once' }]);
    if (typeof input === 'string' && nestingExceeds(input, MAX_BODY_DEPTH)) {
      throw validationError(`The input nests deeper than ${MAX_BODY_DEPTH} levels`, [{ path: 'input', message: 'nested too deeply' }]);
    }
    const token = request.cookies[names.session] ?? null;
    const session = token ? await findLoginSession(db, token, clock()) : null;
    if (token && !session) clearSessionCookies(reply);
    // A login session in use lives on (modules/accounts/login-sessions.ts): so do its cookies.
    if (token && session?.renewed) setSessionCookies(reply, { token, expiresAt: session.expiresAt, csrfToken: csrfTokenFor(token) });
    if (session && request.method !== 'GET') {
      const given = request.headers[CSRF_HEADER];
      if (typeof given !== 'string' || !sameSecret(given, csrfTokenFor(token as string))) {
        throw new AppError('forbidden', `Missing or wrong ${CSRF_HEADER} header: send the value of the ${names.csrf} cookie`);
      }
    }
    if (session) (request.log as Logger).setBindings({ user_id: session.userId, organization_id: session.organizationId });
    checked.set(request, { session, token });
  });

  const handle = async (request: FastifyRequest<{ Params: { path: string } }>, reply: FastifyReply) => {
    const { session, token } = checked.get(request) ?? { session: null, token: null };
    await fastifyRequestHandler({
      req: request,
      res: reply,
      path: request.params.path,
      router: options.router,
      allowMethodOverride: false,
      maxBatchSize: 10,
      createContext: (): DashboardContext => ({
        db,
        sql,
        replica,
        clock,
        log: request.log as Logger,
        accounts: options.accounts,
        client: { ip: request.ip, userAgent: request.headers['user-agent'] ?? null },
        user: session,
        csrfToken: token ? csrfTokenFor(token) : null,
        cookies: { open: (opened) => setSessionCookies(reply, opened), clear: () => clearSessionCookies(reply) },
        setHeader: (name, value) => void reply.header(name, value),
        rateLimit: (limit, key) => options.rateLimiter.consumeForUser(limit, key),
      }),
      // Procedures' errors are logged where they are mapped (trpc/dashboard-base.ts); this catches
      // what fails outside them (the context, tRPC itself).
      onError: ({ error, path }) => {
        if (toAppError(error).unexpected) request.log.error({ err: error.cause ?? error, procedure: path }, 'dashboard call failed');
      },
    });
  };
  app.route({ method: ['GET', 'POST'], url: '/trpc/:path', config: { dashboard: true }, handler: handle });

  // The records table as a CSV file (modules/records/export.ts): a download, so a plain GET with
  // the session cookie, the same origin checks, and the filters of the table in the query string.
  app.get('/export/records.csv', { config: { dashboard: true } }, async (request, reply) => {
    const { session } = checked.get(request) ?? { session: null };
    if (!session) throw new AppError('unauthorized', 'Sign in to use the dashboard');
    // Every record of the range, formatted: as heavy as the heaviest procedure (http/rate-limit.ts).
    await options.rateLimiter.consumeForUser('heavy', `${session.userId}:records.export`);
    const parsed = RecordsExportQuery.safeParse(request.query);
    if (!parsed.success) throw validationError('Invalid export query', issueDetails(parsed.error));
    const { establishment_id, mode, dialect, ...filter } = parsed.data;
    const establishment = await findEstablishment(db, session.organizationId, establishment_id);
    const tenant = tenantOf(establishment, mode === 'live');
    const csv = await exportRecordsCsv({ db, sql: replica, clock, catalog: options.catalog }, tenant, filter, dialect);
    const day = localDate(clock(), tenant.timezone);
    return reply
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="merma-${mode}-records-${day}${dialect === 'es' ? '-es' : ''}.csv"`)
      .send(csv);
  });

  await serveApp(app, options);
}

/**
 * A cross-site request is refused before anything runs. Browsers send `Sec-Fetch-Site` (all
 * current ones); older ones send `Origin` on POSTs. Clients that are not browsers send neither and
 * cannot carry a victim's cookies anyway.
 */
function assertSameOrigin(request: FastifyRequest) {
  const site = request.headers['sec-fetch-site'];
  if (typeof site === 'string') {
    if (site === 'same-origin' || (site === 'none' && request.method === 'GET')) return;
    throw new AppError('forbidden', 'Cross-site request refused');
  }
  const origin = request.headers.origin;
  if (typeof origin === 'string' && origin !== `${request.protocol}://${request.host}`) {
    throw new AppError('forbidden', 'Cross-site request refused');
  }
}

type CreateViteServer = (options: object) => Promise<{
  middlewares: (req: IncomingMessage, res: ServerResponse, next: () => void) => void;
  close(): Promise<void>;
}>;

/**
 * The app at /dashboard: built files with long caching for the hashed assets, and index.html for
 * every other path under /dashboard (the app routes in the browser). With hot reload (`pnpm dev`),
 * Vite serves the sources instead, on the same port.
 */
async function serveApp(app: FastifyInstance, options: DashboardOptions) {
  // Every route from here on serves the app's files (and `/`'s redirect to them): a page load asks
  // for dozens, so their "request completed" lines are written at debug, not info (http/app.ts).
  app.addHook('onRoute', (route) => {
    if (route.url === '/' || route.url === '/dashboard' || route.url.startsWith('/dashboard/')) {
      route.config = { ...route.config, staticFile: true };
    }
  });
  // The address people type first: the customers' app (the API is under /api/v1, its reference at /docs).
  app.get('/', async (_request, reply) => reply.redirect('/dashboard', 302));
  const root = resolve(options.dashboardDir);
  if (options.hotReload) {
    const appRoot = resolve(root, '..');
    const require = createRequire(join(appRoot, 'package.json'));
    // Vite is the dashboard's dev dependency, resolved from there: production installs lack it.
    const { createServer } = (await import(pathToFileURL(require.resolve('vite')).href)) as { createServer: CreateViteServer };
    const vite = await createServer({ root: appRoot, server: { middlewareMode: true, hmr: { server: app.server } }, appType: 'spa' });
    app.addHook('onClose', async () => vite.close());
    const viaVite = (request: FastifyRequest, reply: FastifyReply) => {
      reply.hijack();
      // The station is the build's second page (station.html), as the built app serves it below.
      if (STATION_PAGE.test(request.raw.url ?? ''))
        request.raw.url = (request.raw.url ?? '').replace(/^\/dashboard\/station\/?/, '/dashboard/station.html');
      vite.middlewares(request.raw, reply.raw, () => {
        reply.raw.statusCode = 404;
        reply.raw.end();
      });
    };
    app.get('/dashboard', viaVite);
    app.get('/dashboard/*', viaVite);
    return;
  }
  if (!existsSync(join(root, 'index.html'))) {
    options.log.warn({ dir: root }, 'the dashboard is not built (pnpm build): /dashboard answers 503');
    const notBuilt = async () => {
      throw new AppError('service_unavailable', 'The dashboard is not built: run pnpm build (pnpm start builds it)');
    };
    app.get('/dashboard', notBuilt);
    app.get('/dashboard/*', notBuilt);
    return;
  }
  await app.register(fastifyStatic, {
    root,
    prefix: '/dashboard/',
    wildcard: false,
    index: false,
    // The build writes .br and .gz copies beside each file (apps/dashboard/vite.config.ts): the
    // one the browser accepts is sent, with `Vary: Accept-Encoding`; others get the plain file.
    preCompressed: true,
    // Source maps are never served, whatever the folder holds (a build with DASHBOARD_SOURCEMAP=1
    // writes some): they would publish the app's sources. A `.map` URL answers 404.
    allowedPath: (pathName) => !pathName.endsWith('.map'),
    setHeaders: (res, path) => {
      res.header('cache-control', path.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
  const page = async (request: FastifyRequest, reply: FastifyReply) => {
    // A missing file is a 404, not the page: a stale tab asking for an old asset must not get HTML.
    if (/^\/dashboard\/assets\//.test(request.url) || /\.\w+$/.test(request.url.split('?')[0] as string)) {
      throw new AppError('not_found', `No file ${request.url.split('?')[0]}`);
    }
    // Its Content-Security-Policy and X-Frame-Options, as index.html's when fetched by name, come
    // from http/page-policy.ts.
    return reply.header('cache-control', 'no-cache').sendFile('index.html');
  };
  app.get('/dashboard', page);
  app.get('/dashboard/*', page);
  // The kitchen station: the build's second page, with its own manifest and service worker
  // (docs/decisions/0007-the-kitchen-station.md); `?code=` from a pairing QR is read by the page.
  const stationPage = async (_request: FastifyRequest, reply: FastifyReply) =>
    reply.header('cache-control', 'no-cache').sendFile('station.html');
  app.get('/dashboard/station', stationPage);
}

/** The station's address, with or without a trailing slash, with any query. */
const STATION_PAGE = /^\/dashboard\/station\/?(\?.*)?$/;
