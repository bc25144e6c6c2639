import fastifyCors, { type FastifyCorsOptions } from '@fastify/cors';
import { API_VERSION_HEADER } from '@merma/schema';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * Cross-origin calls to the public API from web pages (CORS_ORIGINS, off by default), through
 * @fastify/cors.
 *
 * Only `/api/v1`: it is authenticated by an API key in `Authorization`, which a browser never adds
 * by itself, so answering another origin lets that page use a key it already holds and nothing
 * more (no credentials mode, no cookies). The dashboard's routes (`/trpc`, the CSV export, the
 * pages) are authenticated by the session cookie and are never opened to another origin: they get
 * no CORS header and their preflights stay 404, so the browser refuses. Nor are the integrations'
 * own URLs (`/api/v1/integrations/…`): Square and Odoo call them server to server.
 *
 * Preflights are answered in an onRequest hook registered before the API-key check (a preflight
 * carries no key) and every later answer of an allowed origin — 401, 429 included — carries
 * `Access-Control-Allow-Origin`, so a page reads the error instead of an opaque network failure.
 * A request from an origin not listed gets no `Access-Control-Allow-Origin`: the browser keeps
 * the answer from the page. A plain OPTIONS that is not a preflight is the usual 404.
 */
export const CORS_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
/**
 * What a page may send: the headers the SDK sets (`X-Merma-SDK` on every call, `Merma-Version` when
 * a version is pinned) besides the key, the body's type and the Idempotency-Key. A header missing
 * here makes the browser refuse every call of the SDK ("Failed to fetch").
 */
export const CORS_ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Merma-SDK', API_VERSION_HEADER];
/** What a page may read of an answer beyond the CORS-safelisted headers: what the SDK reads. */
export const CORS_EXPOSED_HEADERS = [
  'X-Request-Id',
  'Retry-After',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Idempotent-Replayed',
  API_VERSION_HEADER,
];
/** How long a browser may reuse a preflight's answer (Chrome caps it at 2 hours). */
export const CORS_MAX_AGE_SECONDS = 600;

/** Paths opened to other origins: the API-key routes and the OpenAPI document, not the integrations' URLs. */
function isCorsPath(url: string): boolean {
  const path = url.split('?')[0] ?? '';
  return (path === '/api/v1' || path.startsWith('/api/v1/')) && !path.startsWith('/api/v1/integrations/');
}

export async function registerCors(app: FastifyInstance, origins: '*' | string[]): Promise<void> {
  const allowed: FastifyCorsOptions = {
    origin: origins,
    methods: CORS_METHODS,
    allowedHeaders: CORS_ALLOWED_HEADERS,
    exposedHeaders: CORS_EXPOSED_HEADERS,
    maxAge: CORS_MAX_AGE_SECONDS,
    credentials: false,
  };
  const off: FastifyCorsOptions = { origin: false };
  await app.register(fastifyCors, {
    hook: 'onRequest',
    delegator: (request: FastifyRequest, done: (err: Error | null, options: FastifyCorsOptions) => void) => {
      const preflight = request.method === 'OPTIONS';
      const crossOrigin = request.headers.origin !== undefined;
      // Not a preflight (no Origin or no Access-Control-Request-Method): the usual 404, not the
      // plugin's text/plain 400.
      if (preflight && !(crossOrigin && request.headers['access-control-request-method'])) return done(null, off);
      done(null, isCorsPath(request.url) && crossOrigin ? allowed : off);
    },
  });
}
