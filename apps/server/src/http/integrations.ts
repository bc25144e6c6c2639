import type { FastifyInstance } from 'fastify';
import {
  assertSignedBySquare,
  odooIntegration,
  type ReceiveDeps,
  receiveOdooWebhook,
  receiveSquareNotification,
  squareIntegration,
} from '../modules/integrations/receive.js';
import { SQUARE_SIGNATURE_HEADER } from '../modules/integrations/square/signature.js';
import { ok } from '../trpc/trpc.js';
import { assertStorableJson, parseJsonBody } from './json-body.js';
import type { RateLimiter } from './rate-limit.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** An integration's own URL (Square, Odoo): authenticated by the vendor's signature or URL token, never an API key. */
    integration?: boolean;
  }
}

/**
 * The integrations' own URLs, outside the API-key routes (modules/integrations/receive.ts says
 * what each does): `POST /api/v1/integrations/square/{id}` and `POST /api/v1/integrations/odoo/{token}`,
 * answered in the API's envelope and error shapes. Each integration has the API's general rate
 * limit of its own, so a vendor retrying in a loop cannot starve the establishment's API keys.
 *
 * Square's route keeps the raw body: the signature is checked over it before anything else reads
 * it, then it is parsed with the same limits as every body (json-body.ts).
 */
export function registerIntegrationRoutes(app: FastifyInstance, deps: ReceiveDeps & { rateLimiter: RateLimiter }): void {
  app.register(async (square) => {
    square.removeContentTypeParser(['application/json']);
    square.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body.toString()));
    square.post<{ Params: { id: string } }>(
      '/api/v1/integrations/square/:id',
      { config: { integration: true } },
      async (request, reply) => {
        const found = await squareIntegration(deps, request.params.id);
        await deps.rateLimiter.consume('general', `integration:${found.row.id}`, reply);
        const raw = typeof request.body === 'string' ? request.body : '';
        const signature = request.headers[SQUARE_SIGNATURE_HEADER];
        await assertSignedBySquare(deps, found, raw, Array.isArray(signature) ? signature[0] : signature);
        const body = parseJsonBody(raw);
        assertStorableJson(body);
        return reply.send(ok(await receiveSquareNotification(deps, found, body)));
      },
    );
  });

  app.post<{ Params: { token: string } }>('/api/v1/integrations/odoo/:token', { config: { integration: true } }, async (request, reply) => {
    const found = await odooIntegration(deps, request.params.token);
    await deps.rateLimiter.consume('general', `integration:${found.row.id}`, reply);
    return reply.send(ok(await receiveOdooWebhook(deps, found, request.body)));
  });
}
