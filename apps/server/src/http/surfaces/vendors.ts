import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.js';
import type { ReceiveDeps } from '../../modules/integrations/receive.js';
import type { ActiveIntegration } from '../../modules/integrations/service.js';
import { type VendorRequest, vendors } from '../../modules/integrations/vendors/index.js';
import { ok } from '../../trpc/trpc.js';
import { assertStorableJson, parseJsonBody } from '../json-body.js';
import type { RateLimiter } from '../rate-limit.js';
import { noStore, storableBodies, wakeAfterWrites } from './hooks.js';

/**
 * The vendors' surface: the integrations' own URLs, outside the API-key routes:
 * `POST /api/v1/integrations/square/{id}` and `POST /api/v1/integrations/odoo/{token}`, each
 * authenticated and received by its vendor from the registry (modules/integrations/vendors/index.ts;
 * modules/integrations/receive.ts says what they share), answered in the API's envelope and error
 * shapes, never cached; a stored notification wakes the webhook dispatcher. Each integration's
 * caller is resolved by modules/tenancy/callers.ts. Their limits are their own
 * (INTEGRATION_LIMITS in rate-limit.ts): per integration once authenticated, and per client address
 * for refused requests, so that unsigned requests cannot spend an integration's limit (`authenticated`).
 *
 * A vendor that signs the raw body (Square) gets it as text: the signature is checked over it
 * before anything else reads it, then it is parsed with the same limits as every body (json-body.ts).
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

  // One route per vendor, in a plugin of its own so that a vendor that signs the raw body gets it
  // as text (`url.rawBody`); its path parameter keeps the vendor's name for it (metrics, traces).
  for (const vendor of vendors()) {
    await app.register(async (scope) => {
      if (vendor.url.rawBody) {
        scope.removeContentTypeParser(['application/json']);
        scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body.toString()));
      }
      scope.post<{ Params: Record<string, string> }>(`/api/v1/integrations/${vendor.kind}/:${vendor.url.param}`, async (request, reply) => {
        const text = vendor.url.rawBody ? (typeof request.body === 'string' ? request.body : '') : undefined;
        const found = await authenticated(request.ip, () => vendor.authenticate(deps, requestOf(request, vendor.url.param, text)));
        let body = request.body;
        if (text !== undefined) {
          body = parseJsonBody(text);
          assertStorableJson(body);
        }
        return reply.send(ok(await vendor.receive(deps, found, body)));
      });
    });
  }
}

/** What a vendor reads of a request to authenticate it (modules/integrations/vendors/index.ts). */
function requestOf(request: FastifyRequest<{ Params: Record<string, string> }>, param: string, rawBody: string | undefined): VendorRequest {
  return {
    segment: request.params[param] ?? '',
    ...(rawBody !== undefined ? { rawBody } : {}),
    header: (name) => {
      const value = request.headers[name];
      return Array.isArray(value) ? value[0] : value;
    },
    path: request.url,
  };
}
