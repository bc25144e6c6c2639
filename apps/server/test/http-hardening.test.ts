import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deadline } from '@merma/testing';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nestingExceeds } from '../src/http/json-body.js';
import { appRendered, DASHBOARD_DIST, hasChromium, launchChromium, requireBuiltDashboard } from './browser.js';
import { createMember, DashboardBrowser, PASSWORD } from './dashboard-client.js';
import { api, buildTestApp, createTenant, startTestApp, type Tenant, type TestContext, testConfig, validRecord } from './helpers.js';

/**
 * The HTTP layer's protections that belong to no single procedure: every page refuses to be framed;
 * one depth limit for every JSON body; prototype keys refused by name.
 */
let t: TestContext;
let dir: string;
let tenant: Tenant;
let base: string;
let owner: { id: string; email: string };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'merma-hardening-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(
    join(dir, 'index.html'),
    '<!doctype html><html><head><script type="module" src="/dashboard/assets/index-abc123.js"></script></head><body><div id="root"></div></body></html>',
  );
  writeFileSync(join(dir, 'assets', 'index-abc123.js'), 'console.log("app")');
  t = await startTestApp({ config: { TRUST_PROXY: 'true', DASHBOARD_DIR: dir } });
  tenant = await createTenant(t.db);
  owner = await createMember(t.db, tenant.organizationId, 'owner');
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
}, deadline(60_000));

afterAll(async () => {
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('framing (clickjacking)', () => {
  it.each([
    '/dashboard',
    '/dashboard/',
    '/dashboard/index.html',
    '/dashboard/index.html?x=1',
    '/dashboard/keys',
    '/dashboard/no/such/page',
    '/docs/',
  ])('%s is an HTML page that no other site may frame', async (url) => {
    const res = await t.app.inject({ method: 'GET', url });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    const csp = String(res.headers['content-security-policy'] ?? '');
    expect(csp.split(';').map((d) => d.trim())).toContain("frame-ancestors 'none'");
    expect(res.headers['x-frame-options']).toBe('DENY');
  });

  it('the dashboard page allows only its own scripts; the API reference its own file and its one inline script, by hash', async () => {
    for (const url of ['/dashboard/', '/dashboard/index.html']) {
      const csp = String((await t.app.inject({ method: 'GET', url })).headers['content-security-policy']);
      expect(csp, url).toMatch(/(^|; )script-src 'self'(;|$)/);
    }
    const docs = await t.app.inject({ method: 'GET', url: '/docs/' });
    const csp = String(docs.headers['content-security-policy']);
    const scriptSrc = csp.split('; ').find((d) => d.startsWith('script-src ')) ?? '';
    expect(scriptSrc).toMatch(/^script-src 'self' 'sha256-[A-Za-z0-9+/]+=*'$/);
    expect(scriptSrc).not.toContain('unsafe');
    // The hash is that of the page's inline script, as the browser computes it.
    const { createHash } = await import('node:crypto');
    const inline = [...docs.body.matchAll(/<script(?![^>]*\ssrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1] as string);
    expect(inline).toHaveLength(1);
    expect(scriptSrc).toContain(
      `'sha256-${createHash('sha256')
        .update(inline[0] as string)
        .digest('base64')}'`,
    );
  });

  it('a redirect, a file and an error are not framable either', async () => {
    for (const url of ['/docs', '/dashboard/assets/index-abc123.js', '/dashboard/assets/missing.js', '/api/v1/records']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(String(res.headers['content-security-policy']), url).toContain("frame-ancestors 'none'");
    }
  });
});

const DEEP_ARRAY = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
const DEEP_OBJECT = `${'{"a":'.repeat(20_000)}{}${'}'.repeat(20_000)}`;
const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

describe('JSON bodies nest at most 64 levels, on every route', () => {
  const post = (url: string, payload: string, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json', 'sec-fetch-site': 'same-origin', ...headers },
      payload,
    });

  it.each([
    ['/trpc/accounts.signIn', 'array', DEEP_ARRAY],
    ['/trpc/accounts.signIn', 'object', DEEP_OBJECT],
    ['/api/v1/records', 'array', DEEP_ARRAY],
    ['/api/v1/records', 'object', DEEP_OBJECT],
    ['/api/v1/records', 'array inside a record', `{"food_category":${DEEP_ARRAY}}`],
  ])('%s: a 20,000-deep %s is a 400 validation_error, and the server goes on answering', async (url, _kind, body) => {
    const res = await post(url, body, { authorization: `Bearer ${tenant.key}` });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ status: 400, code: 'validation_error', error: 'The body nests deeper than 64 levels' });
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    const signIn = await new DashboardBrowser(t.app).raw('mutation', 'accounts.signIn', { email: owner.email, password: PASSWORD });
    expect(signIn.statusCode).toBe(200);
  });

  it('the limit is 64 levels; brackets inside strings do not count', async () => {
    const client = api(t.app, tenant.key);
    const at64 = await client.post('/api/v1/records', `{"food_category":${nested(63)}}`);
    expect(at64.statusCode).toBe(400);
    expect(at64.json().details?.[0]?.path).toBe('food_category'); // refused by the schema, not the depth
    const at65 = await client.post('/api/v1/records', `{"food_category":${nested(64)}}`);
    expect(at65.json().error).toBe('The body nests deeper than 64 levels');
    // Quotes escaped inside the string must not end it early: 200 brackets of text, no nesting.
    const notes = `a "quoted" \\ back-slashed ${'['.repeat(200)}`;
    const created = await client.post('/api/v1/records', JSON.stringify(validRecord({ notes })));
    expect(created.statusCode).toBe(201);
    expect(created.json().data.notes).toBe(notes);
  });
});

describe('nestingExceeds (the depth check on the text)', () => {
  const depthOf = (v: unknown): number =>
    v === null || typeof v !== 'object' ? 0 : 1 + Math.max(0, ...(Array.isArray(v) ? v : Object.values(v)).map(depthOf));

  it('agrees with the parsed value’s depth for any JSON, whatever its strings hold', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 0, max: 9 }), (value, max) => {
        expect(nestingExceeds(JSON.stringify(value), max)).toBe(depthOf(value) > max);
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        expect(nestingExceeds(JSON.stringify([text, { [text]: text }]), 2)).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('dashboard query inputs (JSON in the URL) nest at most 64 levels', () => {
  it('a 65-deep ?input= is refused before any procedure reads it', async () => {
    const browser = new DashboardBrowser(t.app);
    await browser.signIn(owner.email, PASSWORD);
    const input = `{"establishment_id":"${tenant.establishmentId}","livemode":false,"food_category":${nested(64)}}`;
    const res = await browser.raw('query', 'analytics.get', undefined, {});
    expect(res.statusCode).toBe(400); // no input at all: the schema's refusal
    const deep = await t.app.inject({
      method: 'GET',
      url: `/trpc/analytics.get?input=${encodeURIComponent(input)}`,
      headers: { 'sec-fetch-site': 'same-origin', cookie: `merma_session=${browser.cookies.get('merma_session')}` },
    });
    expect(deep.statusCode).toBe(400);
    expect(deep.json()).toMatchObject({ code: 'validation_error', error: 'The input nests deeper than 64 levels' });
  });
});

describe("the dashboard's bodies hold only text the database can store", () => {
  it('an unpaired surrogate is a 400 naming where, and nothing is written; the same name whole is stored as given', async () => {
    const browser = new DashboardBrowser(t.app);
    await browser.signIn(owner.email, PASSWORD);
    const scope = { establishment_id: tenant.establishmentId, livemode: false };
    const shifts = () => t.db.shift.count({ where: { establishment_id: tenant.establishmentId } });
    const before = await shifts();
    const refused = await browser.raw('mutation', 'shifts.create', {
      ...scope,
      shift: { name: 'Noche\ud800', start_time: '22:00', end_time: '06:00' },
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({
      code: 'validation_error',
      error: 'Text must be valid Unicode: the body holds an unpaired UTF-16 surrogate',
      details: [{ path: 'shift.name', message: 'unpaired UTF-16 surrogate' }],
    });
    expect(await shifts()).toBe(before);
    const stored = await browser.raw('mutation', 'shifts.create', {
      ...scope,
      shift: { name: 'Noche \ud83c\udf19', start_time: '22:00', end_time: '06:00' },
    });
    expect(stored.statusCode).toBe(200);
    expect(await t.db.shift.findFirst({ where: { establishment_id: tenant.establishmentId }, select: { name: true } })).toEqual({
      name: 'Noche 🌙',
    });
  });
});

describe('prototype keys', () => {
  it.each([
    ['/api/v1/records', '{"__proto__": {"admin": true}, "food_category": "meat"}', /__proto__/],
    ['/api/v1/records', '{"food_category": "meat", "x": [{"constructor": {"prototype": {"admin": true}}}]}', /constructor.*prototype/],
    ['/api/v1/records', '{"\\u005f_proto__": {"admin": true}}', /__proto__/],
    ['/trpc/accounts.signIn', '{"email": "a@example.com", "password": "x", "__proto__": {"admin": true}}', /__proto__/],
  ])('%s %s: 400 saying the key is refused, not that the JSON is invalid', async (url, payload, named) => {
    const res = await t.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json', 'sec-fetch-site': 'same-origin', authorization: `Bearer ${tenant.key}` },
      payload,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('validation_error');
    expect(res.json().error).toMatch(named);
    expect(res.json().error).toMatch(/refused/);
    expect(res.json().error).not.toMatch(/not valid JSON/);
  });

  it('a "constructor" key without "prototype", or "__proto__" inside a string, is ordinary data', async () => {
    const client = api(t.app, tenant.key);
    const created = await client.post('/api/v1/records', validRecord({ notes: '{"__proto__": 1} constructor.prototype' }));
    expect(created.statusCode).toBe(201);
    const extra = await client.post('/api/v1/records', { ...validRecord(), constructor: { name: 'x' } });
    expect(extra.statusCode).toBe(400); // an unknown field: the schema's refusal, not the parser's
    expect(extra.json().error).not.toMatch(/prototype|not valid JSON/);
  });
});

/** Sends raw bytes to the listening app and resolves with everything it answers before closing. */
function rawExchange(request: string): Promise<string> {
  const { port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: Number(port) });
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk.toString('utf8');
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(answer));
    socket.setTimeout(10_000, () => socket.destroy(new Error(`no answer in 10 s; got ${JSON.stringify(answer)}`)));
    socket.end(request);
  });
}

function parseAnswer(raw: string) {
  const [head = '', body = ''] = raw.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}

describe('error answers say what happened', () => {
  it('a GET of a dashboard mutation is a 405 method_not_allowed naming the method to use', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/trpc/accounts.signIn', headers: { 'sec-fetch-site': 'same-origin' } });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('POST');
    const error = res.json().error;
    expect(error.data).toMatchObject({ code: 'METHOD_NOT_SUPPORTED', httpStatus: 405, app_code: 'method_not_allowed' });
    expect(error.message).toMatch(/mutation.*POST|POST.*mutation/);
    // The same for a member's mutation, signed in or not, and for a POST of a query.
    const browser = new DashboardBrowser(t.app);
    expect((await browser.raw('query', 'keys.create', {})).json().error.data.app_code).toBe('method_not_allowed');
    await browser.signIn(owner.email, PASSWORD);
    expect((await browser.raw('query', 'keys.create', {})).statusCode).toBe(405);
    const postQuery = await browser.raw('mutation', 'accounts.me', {});
    expect(postQuery.statusCode).toBe(405);
    expect(postQuery.headers.allow).toBe('GET');
    expect(postQuery.json().error.data.app_code).toBe('method_not_allowed');
  });

  it('an over-long header is a 431 in the error envelope, and the server goes on answering', async () => {
    const raw = await rawExchange(`GET /api/v1/records HTTP/1.1\r\nHost: localhost\r\nX-Filler: ${'a'.repeat(20_000)}\r\n\r\n`);
    const answer = parseAnswer(raw);
    expect(answer.status).toBe(431);
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    const body = JSON.parse(answer.body);
    expect(body).toMatchObject({ status: 431, code: 'headers_too_large', error: expect.stringMatching(/header/i) });
    expect(answer.headers.connection).toBe('close');
    expect(Number(answer.headers['content-length'])).toBe(Buffer.byteLength(answer.body));
    expect(new Date(body.timestamp).toISOString()).toBe(body.timestamp);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
  });

  it('a request trickled past the deadline is a 408 request_timeout in the error envelope', async () => {
    const slow = await buildTestApp({ config: testConfig({ REQUEST_TIMEOUT_MS: '1000', DASHBOARD_DIR: dir }), db: t.db });
    try {
      await slow.listen({ host: '127.0.0.1', port: 0 });
      const { port } = slow.server.address() as { port: number };
      const raw = await new Promise<string>((resolve, reject) => {
        const socket = connect({ host: '127.0.0.1', port });
        let answer = '';
        // A header trickled a byte every 200 ms: the connection is never idle, the request never complete.
        const trickle = setInterval(() => socket.write('a'), 200);
        socket.on('data', (chunk) => {
          // Answered: no more bytes, or the next one meets a connection the server is closing.
          clearInterval(trickle);
          answer += chunk.toString('utf8');
        });
        // A byte already on its way when the server closed comes back as a reset: the answer is what counts.
        socket.on('error', (err) => (answer ? socket.destroy() : reject(err)));
        socket.on('close', () => {
          clearInterval(trickle);
          resolve(answer);
        });
        socket.setTimeout(10_000, () => socket.destroy(new Error('no answer in 10 s')));
        socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: ');
      });
      const answer = parseAnswer(raw);
      expect(answer.status).toBe(408);
      expect(JSON.parse(answer.body)).toMatchObject({ status: 408, code: 'request_timeout' });
    } finally {
      await slow.close();
    }
  });

  it('malformed HTTP is a 400 validation_error in the error envelope', async () => {
    const answer = parseAnswer(await rawExchange('GET /healthz HTTP/1.1\r\nHost: localhost\r\nBad Header Name: x\r\n\r\n'));
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ status: 400, code: 'validation_error' });
  });
});

describe('session cookies in production', () => {
  let prod: FastifyInstance;
  const https = { 'x-forwarded-proto': 'https' };
  beforeAll(async () => {
    prod = await buildTestApp({ config: testConfig({ NODE_ENV: 'production', TRUST_PROXY: 'loopback', DASHBOARD_DIR: dir }), db: t.db });
    await prod.ready();
  });
  afterAll(() => prod?.close());

  it('are __Host- cookies (Secure, Path=/, no Domain), and the session and CSRF token work under those names', async () => {
    const browser = new DashboardBrowser(prod);
    const signIn = await browser.raw('mutation', 'accounts.signIn', { email: owner.email, password: PASSWORD }, { headers: https });
    expect(signIn.statusCode).toBe(200);
    const setCookies = ([] as string[]).concat(signIn.headers['set-cookie'] ?? []);
    expect(setCookies.map((c) => c.slice(0, c.indexOf('=')))).toEqual(['__Host-merma_session', '__Host-merma_csrf']);
    for (const cookie of setCookies) {
      const attributes = cookie.split(';').map((a) => a.trim().toLowerCase());
      expect(attributes, cookie).toContain('secure');
      expect(attributes, cookie).toContain('path=/');
      expect(attributes, cookie).toContain('samesite=strict');
      expect(
        attributes.some((a) => a.startsWith('domain=')),
        cookie,
      ).toBe(false);
    }
    expect(setCookies[0]).toMatch(/; HttpOnly/i);
    expect(setCookies[1]).not.toMatch(/; HttpOnly/i);
    expect(signIn.json().result.data.csrf_token).toBe(browser.cookies.get('__Host-merma_csrf'));

    // The session is read from its __Host- cookie; a change carries the token of the __Host- CSRF cookie.
    const me = await browser.raw('query', 'accounts.me', undefined, { headers: https });
    expect(me.statusCode).toBe(200);
    expect(me.json().result.data.user.email).toBe(owner.email);
    const created = await browser.raw(
      'mutation',
      'keys.create',
      { establishment_id: tenant.establishmentId, name: 'prod cookie', mode: 'test', permissions: ['*'] },
      { headers: https },
    );
    expect(created.statusCode).toBe(200);
    expect(await t.db.apiKey.count({ where: { name: 'prod cookie' } })).toBe(1);
    const withoutToken = await browser.raw(
      'mutation',
      'keys.create',
      { establishment_id: tenant.establishmentId, name: 'x' },
      {
        headers: https,
        csrf: false,
      },
    );
    expect(withoutToken.statusCode).toBe(403);

    // The plain names mean nothing in production: a cookie any subdomain could plant is not a session.
    const token = browser.cookies.get('__Host-merma_session') as string;
    const plain = (path: string) =>
      prod.inject({
        method: 'GET',
        url: `/trpc/${path}`,
        headers: { ...https, 'sec-fetch-site': 'same-origin', cookie: `merma_session=${token}` },
      });
    const plainMe = await plain('accounts.me');
    expect(plainMe.statusCode).toBe(200);
    expect(plainMe.json().result.data).toBeNull();
    expect((await plain('team.get')).statusCode).toBe(401);

    // Signing out clears them under the same names.
    const out = await browser.raw('mutation', 'accounts.signOut', {}, { headers: https });
    expect(out.statusCode).toBe(200);
    const cleared = ([] as string[]).concat(out.headers['set-cookie'] ?? []);
    expect(cleared.map((c) => c.slice(0, c.indexOf('=')))).toEqual(['__Host-merma_session', '__Host-merma_csrf']);
    expect(browser.cookies.size).toBe(0);
  });

  it('outside production they keep their plain names (browsers refuse Secure cookies over plain HTTP)', async () => {
    const browser = new DashboardBrowser(t.app);
    await browser.signIn(owner.email, PASSWORD);
    expect([...browser.cookies.keys()].sort()).toEqual(['merma_csrf', 'merma_session']);
  });
});

describe.skipIf(!hasChromium)('the API reference under its policy, in a browser (reason when skipped: no chromium)', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("renders under its policy (nothing refused but zod's eval probe) and cannot be framed by another site", async () => {
    const page = await browser.newPage();
    await page.addInitScript({
      content: `globalThis.cspViolations = [];
        document.addEventListener('securitypolicyviolation', (e) => cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));`,
    });
    await page.goto(`${base}/docs/`, { waitUntil: 'networkidle' });
    await page
      .getByText('Merma')
      .first()
      .waitFor({ timeout: deadline(15_000) });
    // The bundle's zod probes whether it may compile validators (`new Function('')`) and, refused,
    // validates without: that probe is the one refusal expected.
    const violations = (await page.evaluate('cspViolations')) as string[];
    expect(violations.filter((v) => v !== 'script-src eval')).toEqual([]);

    // Another origin (localhost instead of 127.0.0.1) frames the dashboard's index.html: the browser
    // refuses to render it inside the frame.
    const other = base.replace('127.0.0.1', 'localhost');
    await page.goto(`${other}/docs/`, { waitUntil: 'networkidle' });
    await page.evaluate(`new Promise((resolve) => {
      const frame = document.createElement('iframe');
      frame.addEventListener('load', resolve, { once: true });
      frame.src = ${JSON.stringify(`${base}/dashboard/index.html`)};
      document.body.append(frame);
    })`);
    const child = page.frames().find((f) => f !== page.mainFrame());
    expect(child).toBeDefined();
    // A refused frame holds the browser's error page, not the app's document.
    const rendered = await child?.evaluate(`document.getElementById('root') !== null`).catch(() => false);
    expect(rendered).toBe(false);
  });
});

describe.skipIf(!hasChromium)('the built dashboard in production, in a browser (reason when skipped: no chromium)', () => {
  let prod: FastifyInstance;
  let browser: Browser;
  let prodBase: string;
  beforeAll(async () => {
    requireBuiltDashboard();
    prod = await buildTestApp({
      config: testConfig({ NODE_ENV: 'production', TRUST_PROXY: 'loopback', DASHBOARD_DIR: DASHBOARD_DIST }),
      db: t.db,
    });
    await prod.listen({ host: '127.0.0.1', port: 0 });
    prodBase = `http://127.0.0.1:${(prod.server.address() as { port: number }).port}`;
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await prod?.close();
  });

  it('signs in and makes a change with the __Host- cookies (the page reads the CSRF token under its production name)', {
    timeout: deadline(60_000),
  }, async () => {
    // As behind the TLS-terminating proxy: every request says it came over HTTPS. Chromium keeps
    // Secure cookies for loopback addresses, so the __Host- cookies work here.
    const context = await browser.newContext({ locale: 'en-GB', extraHTTPHeaders: { 'x-forwarded-proto': 'https' } });
    const page = await context.newPage();
    const heading = (name: string) => page.getByRole('heading', { name, level: 1 });
    await page.goto(`${prodBase}/dashboard/`);
    await heading('Sign in').waitFor();
    await page.getByLabel('E-mail').fill(owner.email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // The sign-in page loads the app once signed in: wait for the app, not the overview's first frame.
    await page.waitForURL((url) => url.pathname === '/dashboard/');
    await appRendered(page);
    await heading('Overview').waitFor();
    // Beside them, the language the dashboard speaks here, which chooses the language of a page's
    // first frame (apps/dashboard/src/i18n/index.ts): readable by the page, and Secure when the
    // page's own address is https (here the browser speaks plain HTTP to a simulated proxy).
    expect((await context.cookies()).map((c) => [c.name, c.secure, c.httpOnly]).sort()).toEqual([
      ['__Host-merma_csrf', true, false],
      ['__Host-merma_session', true, true],
      ['merma_language', false, false],
    ]);

    await page.getByRole('link', { name: 'API keys' }).click();
    await heading('API keys').waitFor();
    await page.getByRole('button', { name: 'Create key' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('Made in production');
    await dialog.getByLabel('All permissions').check();
    await dialog.getByRole('button', { name: 'Create key' }).click();
    // Refused without the token (403), the dialog would show the error and no key.
    const refused = dialog.getByText('Something went wrong');
    await dialog.getByLabel('API key').or(refused).first().waitFor();
    expect(await refused.count()).toBe(0);
    expect(await dialog.getByLabel('API key').inputValue()).toMatch(/^svc_test_/);
    expect(await t.db.apiKey.count({ where: { name: 'Made in production' } })).toBe(1);
    await context.close();
  });
});
