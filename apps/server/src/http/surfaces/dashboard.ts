import fastifyCookie from '@fastify/cookie';
import { localDate } from '@merma/schema';
import { DossierExportQuery, EsrsE5ExportQuery, RecordsExportQuery } from '@merma/schema/dashboard';
import { fastifyRequestHandler } from '@trpc/server/adapters/fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { csrfTokenFor, sameSecret } from '../../auth/tokens.js';
import type { Clock } from '../../context.js';
import type { Db } from '../../db/client.js';
import type { Sql, TransactionalSql } from '../../db/sql.js';
import { AppError, issueDetails, toAppError, validationError } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { OpenedLoginSession, SignedInUser } from '../../modules/accounts/login-sessions.js';
import type { AccountDeps } from '../../modules/accounts/service.js';
import type { CatalogCache } from '../../modules/catalog/service.js';
import { buildDossier } from '../../modules/compliance/dossier.js';
import { esrsE5 } from '../../modules/compliance/esrs.js';
import { esrsE5Csv, esrsFileName } from '../../modules/compliance/esrs-csv.js';
import { exportRecordsCsv } from '../../modules/records/export.js';
import { findEstablishment, findSessionCaller, tenantOf } from '../../modules/tenancy/callers.js';
import type { CheckpointSigner } from '../../secrets/signing.js';
import type { DashboardRouter } from '../../trpc/dashboard.js';
import type { DashboardContext } from '../../trpc/dashboard-base.js';
import { MAX_BODY_DEPTH, nestingExceeds } from '../json-body.js';
import type { RateLimiter } from '../rate-limit.js';
import { dashboardDocumentRoutes } from './dashboard-documents.js';
import { dashboardTaxPackRoutes } from './dashboard-tax-pack.js';
import { noStore, storableBodies, wakeAfterWrites } from './hooks.js';

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
  /** The checkpoints' public keys, for the inspection dossier. */
  signer: Pick<CheckpointSigner, 'jwks'>;
  /** The API's limiter, which also holds the dashboard's per-user limits. */
  rateLimiter: RateLimiter;
  production: boolean;
  afterWrite?: () => void;
};

type Checked = { session: SignedInUser | null; token: string | null };

/**
 * The dashboard's surface: its tRPC procedures at /trpc, the records' CSV export and the donation
 * agreements' signed PDF (dashboard-documents.ts), in a plugin of their own whose hooks run for them
 * alone (the app's files are served apart: http/dashboard-app.ts). A successful write wakes the
 * webhook dispatcher.
 *
 * /trpc trusts the session cookie only (httpOnly, SameSite=Strict, Secure in production) and
 * guards it against cross-site use three ways: a browser's `Sec-Fetch-Site` must say same-origin
 * (or `Origin`, where that header is the only one sent, must be this server); a POST must be JSON
 * (Fastify answers 415 to forms and text, the bodies a cross-site form can send); and while a
 * session exists every POST must carry `x-csrf-token`, the HMAC of the session token that the page
 * reads from the CSRF cookie (`merma_csrf`, `__Host-merma_csrf` in production). A request without a
 * session can only sign in, which the origin check covers. The PDF upload (a PUT, whose
 * `application/pdf` body no cross-site form can send without a preflight) is held to the same
 * origin check and CSRF header.
 */
export async function dashboardSurface(app: FastifyInstance, options: DashboardOptions): Promise<void> {
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

  noStore(app);
  storableBodies(app);
  wakeAfterWrites(app, options.afterWrite);
  app.addHook('onRequest', async (request, reply) => {
    assertSameOrigin(request);
    // A query's input travels as JSON in the URL (`?input=`): held to the bodies' depth limit.
    const input = (request.query as { input?: unknown }).input;
    if (Array.isArray(input)) throw validationError('Give input once', [{ path: 'input', message: 'given more than once' }]);
    if (typeof input === 'string' && nestingExceeds(input, MAX_BODY_DEPTH)) {
      throw validationError(`The input nests deeper than ${MAX_BODY_DEPTH} levels`, [{ path: 'input', message: 'nested too deeply' }]);
    }
    const token = request.cookies[names.session] ?? null;
    const session = token ? ((await findSessionCaller(db, token, clock()))?.user ?? null) : null;
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
  app.route({ method: ['GET', 'POST'], url: '/trpc/:path', handler: handle });

  // The records table as a CSV file (modules/records/export.ts): a download, so a plain GET with
  // the session cookie, the same origin checks, and the filters of the table in the query string.
  app.get('/export/records.csv', async (request, reply) => {
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

  // The inspection dossier (modules/compliance/dossier.ts) of an establishment the member's
  // organisation holds: the same bytes as the API's for the same establishment, mode and year.
  // Every member downloads it, agreements included (members read the donations page).
  app.get('/export/dossier.zip', async (request, reply) => {
    const { session } = checked.get(request) ?? { session: null };
    if (!session) throw new AppError('unauthorized', 'Sign in to use the dashboard');
    await options.rateLimiter.consumeForUser('heavy', `${session.userId}:compliance.dossier`);
    const parsed = DossierExportQuery.safeParse(request.query);
    if (!parsed.success) throw validationError('Invalid dossier query', issueDetails(parsed.error));
    const { establishment_id, mode, ...query } = parsed.data;
    const establishment = await findEstablishment(db, session.organizationId, establishment_id);
    const tenant = tenantOf(establishment, mode === 'live');
    const dossier = await buildDossier({ db, sql: replica, clock, catalog: options.catalog, signer: options.signer }, tenant, {
      ...query,
      agreements: true,
    });
    return reply
      .header('content-type', 'application/zip')
      .header('content-disposition', `attachment; filename="${dossier.fileName}"`)
      .send(Buffer.from(dossier.bytes.buffer, dossier.bytes.byteOffset, dossier.bytes.byteLength));
  });

  // The ESRS E5-5 figures as a CSV (modules/compliance/esrs-csv.ts): the same file as the API's.
  app.get('/export/esrs-e5.csv', async (request, reply) => {
    const { session } = checked.get(request) ?? { session: null };
    if (!session) throw new AppError('unauthorized', 'Sign in to use the dashboard');
    await options.rateLimiter.consumeForUser('heavy', `${session.userId}:compliance.esrsE5Csv`);
    const parsed = EsrsE5ExportQuery.safeParse(request.query);
    if (!parsed.success) throw validationError('Invalid ESRS query', issueDetails(parsed.error));
    const { establishment_id, mode, year, lang } = parsed.data;
    const establishment = await findEstablishment(db, session.organizationId, establishment_id);
    const figures = await esrsE5(replica, tenantOf(establishment, mode === 'live'), year, clock());
    return reply
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${esrsFileName(figures, lang)}"`)
      .send(await esrsE5Csv(figures, lang));
  });

  // The signed agreement PDF, up and down, and a donation's signed note, down: a plugin of its own,
  // so that its `application/pdf` body parser serves its routes alone (/trpc keeps answering 415 to
  // a PDF); these hooks run first.
  await app.register(dashboardDocumentRoutes, {
    db,
    sql,
    clock,
    rateLimiter: options.rateLimiter,
    memberOf: (request) => checked.get(request)?.session ?? null,
  });
  // The donations' tax pack as files, and the signed certificates up and down: another such plugin.
  await app.register(dashboardTaxPackRoutes, {
    db,
    sql,
    clock,
    rateLimiter: options.rateLimiter,
    memberOf: (request) => checked.get(request)?.session ?? null,
  });
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
