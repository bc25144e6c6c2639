import type { FastifyInstance } from 'fastify';
import { AppError } from '../../errors.js';
import {
  assertSignedBySquare,
  odooIntegration,
  type ReceiveDeps,
  receiveOdooWebhook,
  receiveSquareNotification,
  squareIntegration,
} from '../../modules/integrations/receive.js';
import type { ActiveIntegration } from '../../modules/integrations/service.js';
import { SQUARE_SIGNATURE_HEADER } from '../../modules/integrations/square/signature.js';
import { ok } from '../../trpc/trpc.js';
import { assertStorableJson, parseJsonBody } from '../json-body.js';
import type { RateLimiter } from '../rate-limit.js';
import { noStore, storableBodies, wakeAfterWrites } from './hooks.js';

/**
 * The vendors' surface: the integrations' own URLs, outside the API-key routes (modules/integrations/receive.ts says
 * what each does): `POST /api/v1/integrations/square/{id}` and `POST /api/v1/integrations/odoo/{token}`,
 * answered in the API's envelope and error shapes, never cached; a stored notification wakes the
 * webhook dispatcher. Each integration's caller is resolved by modules/tenancy/callers.ts. Their limits are their own
 * (INTEGRATION_LIMITS in rate-limit.ts): per integration once authenticated, and per client address
 * for refused requests, so that unsigned requests cannot spend an integration's limit (`authenticated`).
 *
 * Square's route keeps the raw body: the signature is checked over it before anything else reads
 * it, then it is parsed with the same limits as every body (json-body.ts).
 */
export async function vendorsSurface(
  app: FastifyInstance,
  deps: ReceiveDeps & { rateLimiter: RateLimiter; afterWrite?: () => void },
): Promise<void> {
  const { rateLimiter } = deps;
  noStore(app);
  storableBodies(app);
  wakeAfterWrites(app, deps.afterWrite);
  /**
   * Authenticates, then counts the request against its integration's limit. A refused request (an
   * unknown URL, a wrong signature or token) counts against its address instead, and once the
   * address is over its limit it is answered 429 rather than 401/404. A request that authenticates
   * is never held back by its address: Odoo Online sends every customer's webhooks from shared
   * addresses, so one customer's stale URL must not stop another's sales.
   */
  async function authenticated(ip: string, authenticate: () => Promise<ActiveIntegration>): Promise<ActiveIntegration> {
    let found: ActiveIntegration;
    try {
      found = await authenticate();
    } catch (err) {
      if (err instanceof AppError && (err.code === 'unauthorized' || err.code === 'not_found')) {
        await rateLimiter.consumeIntegration('refused', ip);
      }
      throw err;
    }
    await rateLimiter.consumeIntegration('received', found.row.id);
    return found;
  }

  await app.register(async (square) => {
    square.removeContentTypeParser(['application/json']);
    square.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body.toString()));
    square.post<{ Params: { id: string } }>('/api/v1/integrations/square/:id', async (request, reply) => {
      const raw = typeof request.body === 'string' ? request.body : '';
      const header = request.headers[SQUARE_SIGNATURE_HEADER];
      const found = await authenticated(request.ip, async () => {
        const integration = await squareIntegration(deps, request.params.id);
        assertSignedBySquare(deps, integration, raw, Array.isArray(header) ? header[0] : header, request.url);
        return integration;
      });
      const body = parseJsonBody(raw);
      assertStorableJson(body);
      return reply.send(ok(await receiveSquareNotification(deps, found, body)));
    });
  });

  app.post<{ Params: { token: string } }>('/api/v1/integrations/odoo/:token', async (request, reply) => {
    const found = await authenticated(request.ip, () => odooIntegration(deps, request.params.token));
    return reply.send(ok(await receiveOdooWebhook(deps, found, request.body)));
  });
}
