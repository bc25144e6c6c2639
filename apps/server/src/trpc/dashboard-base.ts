import { type ErrorCode, Uuid } from '@merma/schema';
import { type AuditAction, ROLE_CAPABILITIES, type Role } from '@merma/schema/dashboard';
import { initTRPC, type TRPC_ERROR_CODE_KEY, TRPCError } from '@trpc/server';
import { z } from 'zod';
import type { Clock, DataScope, Log } from '../context.js';
import type { Db, DbTx } from '../db/client.js';
import type { Sql } from '../db/sql.js';
import { AppError, retryHeaders, toAppError } from '../errors.js';
import type { OpenedLoginSession, SignedInUser } from '../modules/accounts/login-sessions.js';
import type { AccountDeps, Client } from '../modules/accounts/service.js';
import { audited as auditedChange } from '../modules/audit/service.js';
import { findEstablishment, tenantOf } from '../modules/tenancy/callers.js';

/**
 * The dashboard's procedures (served at /trpc by http/surfaces/dashboard.ts), apart from the public API's:
 * their caller is a signed-in user (session cookie), never an API key. They call the same services
 * as the REST procedures. Roles are checked here, from each procedure's meta, and tenancy by the
 * establishment scope: nothing relies on the page hiding a button.
 */
export type DashboardContext = {
  db: Db;
  /** The same database, for the hand-written SQL of the read paths. */
  sql: Sql;
  /**
   * Where reads that may lag behind the writes run: the streaming replica while it is usable
   * (db/replica.ts), else the primary (trpc/context.ts says which reads).
   */
  replica: Sql;
  clock: Clock;
  log: Log;
  accounts: AccountDeps;
  client: Client;
  /** Who is signed in: the user of the request's login session cookie, null when there is none (or it ended). */
  user: SignedInUser | null;
  /** The CSRF token of that login session. */
  csrfToken: string | null;
  /** Sets or clears the login session's cookies on the answer. */
  cookies: { open(session: OpenedLoginSession): void; clear(): void };
  setHeader(name: string, value: string): void;
  /**
   * Counts a call against a per-user limit (http/rate-limit.ts, the API's limiter); throws a
   * `rate_limited` AppError once it is spent.
   */
  rateLimit(limit: DashboardRateLimit, key: string): Promise<void>;
};

/** The dashboard's per-user limits (numbers in http/rate-limit.ts, DASHBOARD_LIMITS). */
export type DashboardRateLimit = 'heavy' | 'generate';

export type DashboardMeta = {
  /** Roles allowed to call it; every member when absent. */
  roles?: readonly Role[];
  /**
   * A per-user limit for procedures that cost the database much more than a page's usual read
   * (`heavy`: aggregates over many records; `generate`: writing a plan), so that neither a script
   * nor a stuck page can turn the dashboard into an unmetered way around the API's limits.
   */
  rateLimit?: DashboardRateLimit;
};

/** Who may do what: the roles of each capability (ROLE_CAPABILITIES, read by the dashboard too). */
export const ADMINS: readonly Role[] = ROLE_CAPABILITIES.administer;
export const BUILDERS: readonly Role[] = ROLE_CAPABILITIES.build;

const TRPC_CODE: Record<ErrorCode, TRPC_ERROR_CODE_KEY> = {
  validation_error: 'BAD_REQUEST',
  unauthorized: 'UNAUTHORIZED',
  forbidden: 'FORBIDDEN',
  plan_required: 'FORBIDDEN',
  not_found: 'NOT_FOUND',
  method_not_allowed: 'METHOD_NOT_SUPPORTED',
  request_timeout: 'TIMEOUT',
  conflict: 'CONFLICT',
  // tRPC has no 410; only a signing link's own door answers it (http/surfaces/donation-link.ts).
  gone: 'NOT_FOUND',
  payload_too_large: 'PAYLOAD_TOO_LARGE',
  unsupported_media_type: 'UNSUPPORTED_MEDIA_TYPE',
  // tRPC has no 431; the HTTP layer answers it before any procedure (http/errors.ts).
  headers_too_large: 'BAD_REQUEST',
  rate_limited: 'TOO_MANY_REQUESTS',
  service_unavailable: 'SERVICE_UNAVAILABLE',
  internal: 'INTERNAL_SERVER_ERROR',
};
/** tRPC's words for a call made with the wrong method, said as what to do instead. */
function wrongMethodMessage(message: string): string {
  const found = /^Unsupported (\w+)-request to (\w+) procedure at path "(.*)"$/.exec(message);
  if (!found) return message;
  const [, method, type, path] = found;
  return `${path} is a ${type}: call it with ${type === 'mutation' ? 'POST' : 'GET'}, not ${method}`;
}

/**
 * Error bodies carry the contract's `code` (`app_code`) and, for invalid input, `details`, from the
 * same mapping as the REST errors (`toAppError`, src/errors.ts): a database outage is a 503, a
 * deadlock a 409, on both surfaces. An unexpected error's message never reaches the browser;
 * stacks never do.
 */
const t = initTRPC
  .context<DashboardContext>()
  .meta<DashboardMeta>()
  .create({
    isDev: false,
    errorFormatter({ shape, error }) {
      const { appError } = toAppError(error);
      const message = appError.code === 'method_not_allowed' ? wrongMethodMessage(shape.message) : appError.message;
      return {
        ...shape,
        message,
        data: {
          code: shape.data.code,
          httpStatus: shape.data.httpStatus,
          app_code: appError.code,
          details: appError.details,
          path: shape.data.path,
        },
      };
    },
  });

export const dashboardRouter = t.router;

/**
 * Whatever a procedure throws leaves as the tRPC error of its AppError (`toAppError`, the REST
 * API's mapping), with the same retry headers as REST; unexpected ones are logged here, once.
 */
const domainErrors = t.middleware(async ({ ctx, path, next }) => {
  const result = await next();
  if (result.ok) return result;
  const { appError, unexpected } = toAppError(result.error);
  if (unexpected) ctx.log.error({ err: result.error.cause ?? result.error, procedure: path }, 'dashboard call failed');
  for (const [name, value] of retryHeaders(appError)) ctx.setHeader(name, value);
  throw new TRPCError({ code: TRPC_CODE[appError.code], message: appError.message, cause: appError });
});

/** Callable without a session: signing in, links, invitations. */
export const publicProcedure = t.procedure.use(domainErrors);

/**
 * A signed-in member whose role is among the meta's `roles`, within the meta's `rateLimit` (counted
 * per user and procedure before any input is read or query made).
 */
export const memberProcedure = publicProcedure.use(async ({ ctx, meta, path, next }) => {
  const user = ctx.user;
  if (!user) throw new AppError('unauthorized', 'Sign in to use the dashboard');
  if (meta?.roles && !meta.roles.includes(user.role)) {
    throw new AppError('forbidden', `Your role (${user.role}) cannot do this; it needs ${meta.roles.join(' or ')}`);
  }
  if (meta?.rateLimit) await ctx.rateLimit(meta.rateLimit, `${user.userId}:${path}`);
  return next({ ctx: { ...ctx, user } });
});

/**
 * Calls about one establishment: `establishment_id` must name one of the session's organisation
 * (404 otherwise, as for anything of another tenant).
 */
export const establishmentProcedure = memberProcedure.input(z.object({ establishment_id: Uuid })).use(async ({ ctx, input, next }) => {
  const establishment = await findEstablishment(ctx.db, ctx.user.organizationId, input.establishment_id);
  return next({ ctx: { ...ctx, establishment } });
});

/**
 * Establishment data of one mode (`livemode`), as an API key of that mode would see it: `scope`
 * for the data, `tenant` for figures that depend on the establishment's time zone, sector or plan.
 */
export const scopedProcedure = establishmentProcedure.input(z.object({ livemode: z.boolean() })).use(({ ctx, input, next }) => {
  const tenant = tenantOf(ctx.establishment, input.livemode);
  const scope: DataScope = { establishmentId: tenant.establishmentId, livemode: tenant.livemode };
  return next({ ctx: { ...ctx, scope, tenant } });
});

/** The acting user for the audit log. */
export function actorOf(ctx: { user: SignedInUser; client: Client }) {
  return { userId: ctx.user.userId, email: ctx.user.email, ip: ctx.client.ip };
}

type Audited = Pick<DashboardContext, 'db' | 'clock' | 'client'> & { user: SignedInUser; establishment?: { id: string } };

/**
 * One audit entry of a change: its `target` and `details`; `action` when it is not the change's
 * own (a key revoked because its creator was removed), `establishmentId` when it is not the
 * procedure's establishment (or the procedure has none: the team's actions).
 */
export type AuditNote = { target: string; details?: Record<string, unknown>; action?: AuditAction; establishmentId?: string };

/**
 * The one idiom for a change and its audit (modules/audit/service.ts `audited`), for a procedure:
 * its entries are the signed-in user's, in their organisation and (by default) the procedure's
 * establishment. Secrets never go into `details`.
 */
export function audited<T>(
  ctx: Audited,
  action: AuditAction,
  change: (tx: DbTx, now: Date) => Promise<T>,
  describe: (result: T) => AuditNote | AuditNote[],
): Promise<T> {
  return auditedChange({ db: ctx.db, clock: ctx.clock }, change, (result) => {
    const described = describe(result);
    return (Array.isArray(described) ? described : [described]).map((note) => ({
      organizationId: ctx.user.organizationId,
      actor: actorOf(ctx),
      action: note.action ?? action,
      target: note.target,
      establishmentId: note.establishmentId ?? ctx.establishment?.id,
      details: note.details ?? {},
    }));
  });
}
