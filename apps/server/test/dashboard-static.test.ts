import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DASHBOARD_DIST } from './browser.js';
import { startTestApp, type TestContext } from './helpers.js';

/**
 * The app at /dashboard: index.html for the app's routes (deep links work), the hashed assets with
 * long caching, a strict Content-Security-Policy; 503 with a clear message when it was not built.
 * (The real build is driven in a browser by the dashboard's browser tests.)
 */
let built: TestContext;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'merma-dashboard-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(
    join(dir, 'index.html'),
    '<!doctype html><html><head><script type="module" src="/dashboard/assets/index-abc123.js"></script></head><body><div id="root"></div></body></html>',
  );
  writeFileSync(join(dir, 'assets', 'index-abc123.js'), 'console.log("app")');
  // What the build writes beside each text file (apps/dashboard/vite.config.ts).
  const big = `export const figures = ${JSON.stringify(Array.from({ length: 400 }, (_, i) => ({ kg: i, label: `fila ${i}` })))};`;
  writeFileSync(join(dir, 'assets', 'chart-def456.js'), big);
  writeFileSync(join(dir, 'assets', 'chart-def456.js.br'), brotliCompressSync(big));
  writeFileSync(join(dir, 'assets', 'chart-def456.js.gz'), gzipSync(big));
  built = await startTestApp({ config: { DASHBOARD_DIR: dir } });
}, 60_000);

afterAll(async () => {
  await built?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('/dashboard', () => {
  it.each(['/dashboard', '/dashboard/', '/dashboard/keys', '/dashboard/integrations/4f1c2a9e-0000-4000-8000-000000000000?mode=test'])(
    'answers the app for %s',
    async (url) => {
      const res = await built.app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.body).toContain('<div id="root"></div>');
      expect(res.headers['content-security-policy']).toMatch(/default-src 'self'.*script-src 'self';.*frame-ancestors 'none'/);
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['cache-control']).toBe('no-cache');
    },
  );

  it('is where / leads', async () => {
    const res = await built.app.inject({ method: 'GET', url: '/' });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('/dashboard');
  });

  it('serves hashed assets for a year, and 404 for a missing one', async () => {
    const res = await built.app.inject({ method: 'GET', url: '/dashboard/assets/index-abc123.js' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/javascript/);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.body).toBe('console.log("app")');
    const missing = await built.app.inject({ method: 'GET', url: '/dashboard/assets/index-old999.js' });
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['content-type']).toMatch(/^application\/json/);
  });

  it('sends the compressed copy the browser accepts, and the plain file to a client that accepts none', async () => {
    const plain = readFileSync(join(dir, 'assets', 'chart-def456.js'), 'utf8');
    const url = '/dashboard/assets/chart-def456.js';
    const br = await built.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip, deflate, br, zstd' } });
    expect(br.statusCode).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-type']).toMatch(/javascript/);
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(plain);
    expect(br.rawPayload.length).toBeLessThan(plain.length / 3);

    const gz = await built.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).toString()).toBe(plain);

    const identity = await built.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'identity' } });
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(identity.body).toBe(plain);
  });

  it('the real build leaves a Brotli and a gzip copy of every script and style sheet over 1 KiB the page loads', () => {
    const index = readFileSync(join(DASHBOARD_DIST, 'index.html'), 'utf8');
    const assets = [...index.matchAll(/\/dashboard\/(assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1] as string);
    const large = assets.filter((asset) => statSync(join(DASHBOARD_DIST, asset)).size > 1024);
    expect(large.length).toBeGreaterThanOrEqual(2);
    for (const asset of large) {
      expect(existsSync(join(DASHBOARD_DIST, `${asset}.br`)), `${asset}.br`).toBe(true);
      expect(gunzipSync(readFileSync(join(DASHBOARD_DIST, `${asset}.gz`))).equals(readFileSync(join(DASHBOARD_DIST, asset)))).toBe(true);
    }
  });

  it('answers 503 with the reason when the dashboard was not built', async () => {
    const bare = await startTestApp({ config: { DASHBOARD_DIR: join(dir, 'missing') } });
    try {
      const res = await bare.app.inject({ method: 'GET', url: '/dashboard/keys' });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({ code: 'service_unavailable', error: expect.stringMatching(/not built/) });
    } finally {
      await bare.close();
    }
  });
});
