import fastify, { type FastifyInstance, type InjectOptions, type LightMyRequestResponse } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS, CORS_MAX_AGE_SECONDS, CORS_METHODS, registerCors } from '../src/http/cors.js';

/**
 * The CORS policy (http/cors.ts) on a bare Fastify instance, no database and no socket: which
 * requests are preflights of an allowed origin, which paths are opened to other origins (the API
 * under /api/v1, not the integrations' URLs nor the dashboard's cookie routes), and what the
 * answers carry. cors.test.ts checks the same over real HTTP on the whole app, and in a browser;
 * here each branch has a test of its own, which is what the mutation run (stryker.config.mjs) scores.
 */
const PAGE = 'https://app.example.com';
const OTHER = 'https://evil.example';
const ROUTES = [
  '/api/v1',
  '/api/v1/records',
  '/api/v1x',
  '/api/v1/integrations/square/x',
  '/api/v1/integrations',
  '/trpc/x',
  '/dashboard/',
];

/** An app with the policy and a GET and POST on each route, answering `{ ok: true }`; 401 on `/api/v1/records` without a key. */
async function appWith(origins: '*' | string[]): Promise<FastifyInstance> {
  const app = fastify();
  await registerCors(app, origins);
  // What the API-key check does, registered after the policy as app.ts does: a preflight (which
  // carries no key) is answered before it, and its 401 still names the allowed origin.
  app.addHook('onRequest', async (request, reply) => {
    if (request.url.startsWith('/api/v1/records') && request.method !== 'OPTIONS' && !request.headers.authorization) {
      await reply.code(401).send({ error: 'no key' });
    }
  });
  for (const url of ROUTES) {
    app.get(url, async () => ({ ok: true }));
    app.post(url, async () => ({ ok: true }));
  }
  await app.ready();
  return app;
}

/** An OPTIONS as a browser sends it before a call; `null` leaves out Origin or Access-Control-Request-Method. */
const preflight = (app: FastifyInstance, url: string, origin: string | null, method: string | null = 'POST') =>
  app.inject({
    method: 'OPTIONS',
    url,
    headers: {
      ...(origin === null ? {} : { origin }),
      ...(method === null ? {} : { 'access-control-request-method': method }),
      'access-control-request-headers': 'authorization,content-type',
    },
  });

const corsHeaders = (r: LightMyRequestResponse) => Object.keys(r.headers).filter((h) => h.startsWith('access-control-'));
/** Fastify's own 404 of an unknown route (its message names the URL, query string included). */
const notFound = (r: LightMyRequestResponse, url: string) => {
  expect(r.statusCode).toBe(404);
  expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(r.json()).toEqual({ message: `Route OPTIONS:${url} not found`, error: 'Not Found', statusCode: 404 });
  expect(corsHeaders(r)).toEqual([]);
};

/**
 * Each test builds the apps it calls (a registration takes milliseconds), so that what registerCors
 * does is part of the test: the mutation run only counts code a test itself runs.
 */
const built: FastifyInstance[] = [];
async function build(origins: '*' | string[]): Promise<FastifyInstance> {
  const app = await appWith(origins);
  built.push(app);
  return app;
}
const listedApp = () => build([PAGE, 'http://localhost:5173']);
const anyApp = () => build('*');
afterAll(async () => {
  await Promise.all(built.map((app) => app.close()));
});

describe('a preflight from a listed origin', () => {
  it('is answered 204 with the origin, the methods, the headers the SDK sends and the max age, without credentials', async () => {
    const listed = await listedApp();
    const r = await preflight(listed, '/api/v1/records', PAGE);
    expect(r.statusCode).toBe(204);
    expect(r.body).toBe('');
    expect(r.headers['access-control-allow-origin']).toBe(PAGE);
    expect(r.headers['access-control-allow-methods']).toBe('GET, HEAD, POST, PUT, PATCH, DELETE');
    expect(r.headers['access-control-allow-headers']).toBe('Authorization, Content-Type, Idempotency-Key, X-Merma-SDK, Merma-Version');
    expect(r.headers['access-control-max-age']).toBe('600');
    expect(r.headers['access-control-allow-credentials']).toBeUndefined();
    expect(r.headers.vary).toBe('Origin');
    // The policy's constants are what the answer says.
    expect(r.headers['access-control-allow-methods']).toBe(CORS_METHODS.join(', '));
    expect(r.headers['access-control-allow-headers']).toBe(CORS_ALLOWED_HEADERS.join(', '));
    expect(r.headers['access-control-max-age']).toBe(String(CORS_MAX_AGE_SECONDS));
  });

  it('is answered before a later onRequest hook (the API-key check: a preflight carries no key)', async () => {
    const listed = await listedApp();
    const r = await preflight(listed, '/api/v1/records', 'http://localhost:5173', 'DELETE');
    expect(r.statusCode).toBe(204);
    expect(r.headers['access-control-allow-origin']).toBe('http://localhost:5173');
  });

  it('is answered for the API root and any path under it, query string or not', async () => {
    const listed = await listedApp();
    for (const url of ['/api/v1', '/api/v1?x=1', '/api/v1/records?limit=5&cursor=abc', '/api/v1/anything/else', '/api/v1/integrations']) {
      const r = await preflight(listed, url, PAGE);
      expect(r.statusCode, url).toBe(204);
      expect(r.headers['access-control-allow-origin'], url).toBe(PAGE);
    }
  });

  it("is a 404 without CORS headers for the integrations' URLs, the dashboard's routes and paths that only begin like the API", async () => {
    const listed = await listedApp();
    for (const url of [
      '/api/v1/integrations/square/x',
      '/api/v1/integrations/square/x?y=1',
      '/trpc/x',
      '/dashboard/',
      '/api/v1x',
      '/api/v2/records',
      '/',
    ]) {
      notFound(await preflight(listed, url, PAGE), url);
    }
    // A query string naming an API path does not open another path.
    notFound(await preflight(listed, '/trpc/x?next=/api/v1/records', PAGE), '/trpc/x?next=/api/v1/records');
  });
});

describe('an OPTIONS that is not an allowed preflight', () => {
  it('from an origin not listed: no Access-Control-Allow-Origin, so the browser refuses the call', async () => {
    const listed = await listedApp();
    const r = await preflight(listed, '/api/v1/records', OTHER);
    expect(r.headers['access-control-allow-origin']).toBeUndefined();
    expect(r.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it("without Origin, or without Access-Control-Request-Method, is the usual 404 (not the plugin's text/plain 400)", async () => {
    const listed = await listedApp();
    const any = await anyApp();
    notFound(await preflight(listed, '/api/v1/records', null), '/api/v1/records');
    notFound(await preflight(listed, '/api/v1/records', PAGE, null), '/api/v1/records');
    notFound(await preflight(listed, '/api/v1/records', null, null), '/api/v1/records');
    notFound(await preflight(any, '/api/v1/records', PAGE, null), '/api/v1/records');
    notFound(await preflight(any, '/api/v1/records', null), '/api/v1/records');
  });
});

describe('answers to a listed origin', () => {
  const call = (app: FastifyInstance, options: InjectOptions) => app.inject(options);

  it('carry the origin and expose the headers the SDK reads, on a 200 and on an error alike', async () => {
    const listed = await listedApp();
    const ok = await call(listed, { method: 'GET', url: '/api/v1/records', headers: { origin: PAGE, authorization: 'Bearer k' } });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ ok: true });
    expect(ok.headers['access-control-allow-origin']).toBe(PAGE);
    expect(ok.headers['access-control-expose-headers']).toBe(
      'X-Request-Id, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Idempotent-Replayed, Merma-Version',
    );
    expect(ok.headers['access-control-expose-headers']).toBe(CORS_EXPOSED_HEADERS.join(', '));
    expect(ok.headers['access-control-allow-credentials']).toBeUndefined();
    // Only preflights say which methods and headers may be sent.
    expect(ok.headers['access-control-allow-methods']).toBeUndefined();

    const refused = await call(listed, { method: 'POST', url: '/api/v1/records', headers: { origin: PAGE }, payload: {} });
    expect(refused.statusCode).toBe(401);
    expect(refused.headers['access-control-allow-origin']).toBe(PAGE);
    expect(refused.headers['access-control-expose-headers']).toBe(CORS_EXPOSED_HEADERS.join(', '));
  });

  it("carry no CORS header from the dashboard's routes nor the integrations' URLs", async () => {
    const listed = await listedApp();
    for (const url of ['/trpc/x', '/dashboard/', '/api/v1/integrations/square/x', '/api/v1x']) {
      for (const method of ['GET', 'POST'] as const) {
        const r = await call(listed, { method, url, headers: { origin: PAGE }, ...(method === 'POST' ? { payload: {} } : {}) });
        expect(r.statusCode, `${method} ${url}`).toBe(200);
        expect(corsHeaders(r), `${method} ${url}`).toEqual([]);
      }
    }
  });

  it('carry no CORS header when the request names no origin (a server, curl, a same-origin page)', async () => {
    const listed = await listedApp();
    const any = await anyApp();
    const r = await call(listed, { method: 'GET', url: '/api/v1/records', headers: { authorization: 'Bearer k' } });
    expect(r.statusCode).toBe(200);
    expect(corsHeaders(r)).toEqual([]);
    expect(corsHeaders(await call(any, { method: 'GET', url: '/api/v1' }))).toEqual([]);
  });
});

describe("an origin not listed, and '*'", () => {
  it('an origin not listed is answered without Access-Control-Allow-Origin', async () => {
    const listed = await listedApp();
    const r = await listed.inject({ method: 'GET', url: '/api/v1/records', headers: { origin: OTHER, authorization: 'Bearer k' } });
    expect(r.statusCode).toBe(200);
    expect(r.headers['access-control-allow-origin']).toBeUndefined();
  });

  it("'*' answers any origin's preflight and calls with *, still only under /api/v1", async () => {
    const any = await anyApp();
    const r = await preflight(any, '/api/v1/records', OTHER);
    expect(r.statusCode).toBe(204);
    expect(r.headers['access-control-allow-origin']).toBe('*');
    expect(r.headers['access-control-allow-credentials']).toBeUndefined();
    expect(r.headers['access-control-max-age']).toBe('600');
    const get = await any.inject({ method: 'GET', url: '/api/v1', headers: { origin: OTHER } });
    expect(get.headers['access-control-allow-origin']).toBe('*');
    notFound(await preflight(any, '/trpc/x', OTHER), '/trpc/x');
    notFound(await preflight(any, '/api/v1/integrations/square/x', OTHER), '/api/v1/integrations/square/x');
    const trpc = await any.inject({ method: 'GET', url: '/trpc/x', headers: { origin: OTHER } });
    expect(corsHeaders(trpc)).toEqual([]);
  });
});
