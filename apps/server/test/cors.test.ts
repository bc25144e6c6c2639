import { createServer, request as httpRequest, type Server } from 'node:http';
import { CURRENT_API_VERSION } from '@merma/schema';
import { deadline } from '@merma/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { hasChromium, launchChromium } from './browser.js';
import { buildTestApp, createTenant, startTestApp, type Tenant, type TestContext, testConfig, validRecord } from './helpers.js';

/**
 * CORS for /api/v1 (CORS_ORIGINS), over real HTTP as a browser sends it: preflights of listed and
 * unlisted origins, the headers on real answers (errors included), and nothing at all for the
 * dashboard's cookie routes.
 */
const PAGE = 'https://app.example.com';
const DEV_PAGE = 'http://localhost:5173';
const OTHER = 'https://evil.example';

type Answer = { status: number; headers: Record<string, string | string[] | undefined>; body: string };

/** A raw request (node:http, so that Origin and OPTIONS go out exactly as given). */
function send(base: string, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  return new Promise((done, fail) => {
    const req = httpRequest(`${base}${path}`, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => done({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', fail);
    req.end(body);
  });
}

const preflight = (
  base: string,
  path: string,
  origin: string,
  method = 'POST',
  requestHeaders = 'authorization,content-type,idempotency-key,x-merma-sdk,merma-version',
) =>
  send(base, 'OPTIONS', path, {
    origin,
    'access-control-request-method': method,
    'access-control-request-headers': requestHeaders,
  });

const corsHeaders = (a: Answer) => Object.keys(a.headers).filter((h) => h.startsWith('access-control-'));

async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
}

let t: TestContext;
let base: string;
let tenant: Tenant;
const others: FastifyInstance[] = [];

beforeAll(async () => {
  t = await startTestApp({ config: { CORS_ORIGINS: `${PAGE}, ${DEV_PAGE}` } });
  tenant = await createTenant(t.db);
  base = await listen(t.app);
}, deadline(60_000));

afterAll(async () => {
  for (const app of others) await app.close();
  await t?.close();
});

describe('preflight (OPTIONS) for /api/v1', () => {
  it.each([
    [PAGE, '/api/v1/records', 'POST'],
    [DEV_PAGE, '/api/v1/records?limit=5', 'GET'],
    [PAGE, '/api/v1/webhooks/6ccf7d29-f6d9-403d-a9b0-2f907f15477b', 'PATCH'],
    [PAGE, '/api/v1/webhooks/6ccf7d29-f6d9-403d-a9b0-2f907f15477b', 'DELETE'],
  ])('%s → %s (%s): 204 with the origin, methods, request headers and max age', async (origin, path, method) => {
    const res = await preflight(base, path, origin, method);
    expect(res.status).toBe(204);
    expect(res.body).toBe('');
    expect(res.headers['access-control-allow-origin']).toBe(origin);
    expect(res.headers['access-control-allow-methods']).toBe('GET, HEAD, POST, PUT, PATCH, DELETE');
    // What the SDK sends: its own X-Merma-SDK on every call and Merma-Version when pinned.
    expect(res.headers['access-control-allow-headers']).toBe('Authorization, Content-Type, Idempotency-Key, X-Merma-SDK, Merma-Version');
    expect(res.headers['access-control-max-age']).toBe('600');
    // A key is sent explicitly, never as an ambient credential.
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    expect(String(res.headers.vary)).toMatch(/\bOrigin\b/i);
  });

  it('an origin not listed gets no Access-Control-Allow-Origin, so the browser refuses the call', async () => {
    for (const origin of [OTHER, 'https://app.example.com.evil.example', 'http://app.example.com', 'null']) {
      const res = await preflight(base, '/api/v1/records', origin);
      expect(res.headers['access-control-allow-origin'], origin).toBeUndefined();
    }
  });

  it('an OPTIONS that is not a preflight (no Origin, or no requested method) is the usual 404 body', async () => {
    for (const headers of [{}, { origin: PAGE }] as Record<string, string>[]) {
      const res = await send(base, 'OPTIONS', '/api/v1/records', headers);
      expect(res.status).toBe(404);
      expect(JSON.parse(res.body)).toMatchObject({ status: 404, code: 'not_found' });
      expect(corsHeaders(res)).toEqual([]);
    }
  });
});

describe('answers to a listed origin', () => {
  it('a 200 carries the origin and exposes the headers the SDK reads', async () => {
    const res = await send(base, 'GET', '/api/v1/destinos', { origin: PAGE, authorization: `Bearer ${tenant.key}` });
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe(PAGE);
    expect(res.headers['access-control-expose-headers']).toBe(
      'X-Request-Id, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Idempotent-Replayed, Merma-Version',
    );
    expect(res.headers['merma-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(res.headers['x-request-id']).toMatch(/^req_/);
    expect(res.headers['x-ratelimit-limit']).toBeDefined();
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('a replayed POST exposes Idempotent-Replayed', async () => {
    const headers = {
      origin: DEV_PAGE,
      authorization: `Bearer ${tenant.key}`,
      'content-type': 'application/json',
      'idempotency-key': 'cors-replay-1',
    };
    const body = JSON.stringify(validRecord());
    const first = await send(base, 'POST', '/api/v1/records', headers, body);
    const again = await send(base, 'POST', '/api/v1/records', headers, body);
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers['access-control-allow-origin']).toBe(DEV_PAGE);
    expect(String(again.headers['access-control-expose-headers'])).toContain('Idempotent-Replayed');
  });

  it('errors too (401 without a key, 404 of an unknown route), so the page reads them', async () => {
    const unauthorized = await send(base, 'GET', '/api/v1/records', { origin: PAGE });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers['access-control-allow-origin']).toBe(PAGE);
    const missing = await send(base, 'GET', '/api/v1/nothing-here', { origin: PAGE, authorization: `Bearer ${tenant.key}` });
    expect(missing.status).toBe(404);
    expect(missing.headers['access-control-allow-origin']).toBe(PAGE);
  });

  it('a 429 carries the origin and exposes Retry-After', async () => {
    const limited = await buildTestApp({ config: testConfig({ CORS_ORIGINS: PAGE, RATE_LIMIT_GENERAL_PER_MINUTE: '1' }), db: t.db });
    others.push(limited);
    const limitedBase = await listen(limited);
    const own = await createTenant(t.db);
    const headers = { origin: PAGE, authorization: `Bearer ${own.key}` };
    expect((await send(limitedBase, 'GET', '/api/v1/destinos', headers)).status).toBe(200);
    const refused = await send(limitedBase, 'GET', '/api/v1/destinos', headers);
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toMatch(/^\d+$/);
    expect(refused.headers['access-control-allow-origin']).toBe(PAGE);
    expect(String(refused.headers['access-control-expose-headers'])).toContain('Retry-After');
  });

  it('an origin not listed is answered (the server does not know who is a browser) without CORS headers', async () => {
    const res = await send(base, 'GET', '/api/v1/destinos', { origin: OTHER, authorization: `Bearer ${tenant.key}` });
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe("never for the dashboard's cookie routes nor the integrations' URLs", () => {
  it.each([
    ['OPTIONS', '/trpc/accounts.signIn'],
    ['OPTIONS', '/trpc/keys.list'],
    ['OPTIONS', '/export/records.csv'],
    ['OPTIONS', '/dashboard'],
    ['OPTIONS', '/api/v1/integrations/odoo/sometoken'],
    ['OPTIONS', '/api/v1/integrations/square/6ccf7d29-f6d9-403d-a9b0-2f907f15477b'],
  ])('%s %s from a listed origin: 404 and no CORS header', async (_method, path) => {
    const res = await preflight(base, path, PAGE, 'POST', 'content-type,x-csrf-token');
    expect(res.status).toBe(404);
    expect(corsHeaders(res)).toEqual([]);
  });

  it('GET and POST /trpc from a listed origin carry no CORS header', async () => {
    const get = await send(base, 'GET', '/trpc/accounts.me', { origin: PAGE });
    expect(get.status).toBeGreaterThanOrEqual(400);
    expect(corsHeaders(get)).toEqual([]);
    const post = await send(base, 'POST', '/trpc/accounts.signIn', { origin: PAGE, 'content-type': 'application/json' }, '{}');
    expect(post.status).toBeGreaterThanOrEqual(400);
    expect(corsHeaders(post)).toEqual([]);
  });
});

describe('CORS_ORIGINS', () => {
  it('unset (the default): no cross-origin call is answered, preflights are 404', async () => {
    const app = await buildTestApp({ config: testConfig(), db: t.db });
    others.push(app);
    const plain = await listen(app);
    const res = await preflight(plain, '/api/v1/records', PAGE);
    expect(res.status).toBe(404);
    expect(corsHeaders(res)).toEqual([]);
    const get = await send(plain, 'GET', '/api/v1/destinos', { origin: PAGE, authorization: `Bearer ${tenant.key}` });
    expect(get.status).toBe(200);
    expect(corsHeaders(get)).toEqual([]);
  });

  it('* answers every origin outside production', async () => {
    const app = await buildTestApp({ config: testConfig({ CORS_ORIGINS: '*' }), db: t.db });
    others.push(app);
    const any = await listen(app);
    const res = await preflight(any, '/api/v1/records', OTHER);
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
  });

  it('is parsed once, with a message naming the mistake', () => {
    expect(testConfig({ CORS_ORIGINS: ` ${PAGE} ,${DEV_PAGE},${PAGE},` }).corsOrigins).toEqual([PAGE, DEV_PAGE]);
    expect(testConfig().corsOrigins).toBeUndefined();
    const refused = (value: string, env: Record<string, string> = {}) => {
      try {
        testConfig({ CORS_ORIGINS: value, ...env });
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        return (err as Error).message;
      }
      throw new Error(`CORS_ORIGINS=${value} was accepted`);
    };
    expect(refused('https://app.example.com/')).toMatch(
      /CORS_ORIGINS: https:\/\/app\.example\.com\/ \(write https:\/\/app\.example\.com\)/,
    );
    expect(refused('https://App.Example.com')).toContain('(write https://app.example.com)');
    expect(refused('https://app.example.com:443')).toContain('(write https://app.example.com)');
    expect(refused('app.example.com')).toMatch(/CORS_ORIGINS: app\.example\.com: expected origins as browsers send them/);
    expect(refused('ftp://files.example.com')).toContain('ftp://files.example.com:');
    expect(refused('*,https://app.example.com')).toMatch(/\* already allows every origin/);
    expect(refused(',')).toMatch(/expected origins separated by commas/);
    expect(refused('*', { NODE_ENV: 'production' })).toMatch(/CORS_ORIGINS: \* \(every web page\) is refused when NODE_ENV=production/);
    expect(testConfig({ NODE_ENV: 'production', CORS_ORIGINS: PAGE }).corsOrigins).toEqual([PAGE]);
    expect(loadConfig({ CORS_ORIGINS: '*', NODE_ENV: 'development', MERMA_ENCRYPTION_KEY: undefined }).corsOrigins).toBe('*');
  });
});

describe('in a browser (chromium): a page on another origin calls the API', () => {
  /** A page server on its own port: another origin than the API's. */
  async function pageServer(): Promise<{ server: Server; origin: string }> {
    const server = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>tool</title>'),
    );
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    return { server, origin: `http://localhost:${(server.address() as { port: number }).port}` };
  }

  it.skipIf(!hasChromium)('a listed origin creates a record and reads the headers; an unlisted one is refused by the browser', async () => {
    const listed = await pageServer();
    const unlisted = await pageServer();
    const app = await buildTestApp({ config: testConfig({ CORS_ORIGINS: listed.origin }), db: t.db });
    others.push(app);
    const api = await listen(app);
    const browser = await launchChromium();
    try {
      const call = async (origin: string) => {
        const page = await browser.newPage();
        await page.goto(origin);
        return page.evaluate(
          async ({ api, key, body, version }) => {
            try {
              const send = () =>
                fetch(`${api}/api/v1/records`, {
                  method: 'POST',
                  headers: {
                    Authorization: `Bearer ${key}`,
                    'Content-Type': 'application/json',
                    'Idempotency-Key': 'browser-1',
                    // What @merma/sdk adds to every call, and to a pinned one.
                    'X-Merma-SDK': 'js/0.0.0',
                    'Merma-Version': version,
                  },
                  body,
                });
              const first = await send();
              const again = await send();
              return {
                statuses: [first.status, again.status],
                requestId: first.headers.get('x-request-id'),
                remaining: first.headers.get('x-ratelimit-remaining'),
                replayed: again.headers.get('idempotent-replayed'),
                version: first.headers.get('merma-version'),
              };
            } catch (err) {
              return { error: String(err) };
            }
          },
          { api, key: tenant.key, body: JSON.stringify(validRecord({ notes: origin })), version: CURRENT_API_VERSION },
        );
      };
      expect(await call(listed.origin)).toEqual({
        statuses: [201, 201],
        requestId: expect.stringMatching(/^req_/),
        remaining: expect.stringMatching(/^\d+$/),
        replayed: 'true',
        version: CURRENT_API_VERSION,
      });
      expect(await call(unlisted.origin)).toEqual({ error: expect.stringContaining('Failed to fetch') });
      // The refused page's POST never ran: the preflight stopped it.
      const stored = await t.db.record.count({ where: { establishment_id: tenant.establishmentId, notes: unlisted.origin } });
      expect(stored).toBe(0);
    } finally {
      await browser.close();
      listed.server.close();
      unlisted.server.close();
    }
  });
});
