import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Clock } from '../../context.js';
import type { Db } from '../../db/client.js';
import type { Sql } from '../../db/sql.js';
import { AppError } from '../../errors.js';
import type { SignedInUser } from '../../modules/accounts/login-sessions.js';
import { ADMINS } from '../../trpc/dashboard-base.js';
import { acceptPdfBodies } from '../agreement-document.js';
import type { RateLimiter } from '../rate-limit.js';

/** What the dashboard's file routes need (dashboard-documents.ts, dashboard-tax-pack.ts). */
export type DashboardFilesOptions = {
  db: Db;
  sql: Sql;
  clock: Clock;
  rateLimiter: RateLimiter;
  /** The signed-in member of the request, as the dashboard surface's hooks found it (null: none). */
  memberOf(request: FastifyRequest): SignedInUser | null;
};

/**
 * The guard the dashboard's file routes share, settled before a body is read: a request without a
 * session is a 401, a write (PUT) by a member who is not an owner or admin a 403 — so neither sends
 * 10 MiB for nothing — and every request counts against the member's `heavy` limit under
 * `donations.<what>`, as the records' CSV export does. PDF bodies are accepted (the API's parser).
 * Answers the request's member, for the routes.
 */
export function guardMemberFiles(
  app: FastifyInstance,
  options: DashboardFilesOptions,
  what: (request: FastifyRequest) => string,
): (request: FastifyRequest) => SignedInUser {
  acceptPdfBodies(app);
  const member = (request: FastifyRequest): SignedInUser => {
    const user = options.memberOf(request);
    if (!user) throw new AppError('unauthorized', 'Sign in to use the dashboard');
    return user;
  };
  app.addHook('onRequest', async (request) => {
    const user = member(request);
    if (request.method !== 'GET' && !ADMINS.includes(user.role)) {
      throw new AppError('forbidden', `Your role (${user.role}) cannot do this; it needs ${ADMINS.join(' or ')}`);
    }
    await options.rateLimiter.consumeForUser('heavy', `${user.userId}:donations.${what(request)}`);
  });
  return member;
}
