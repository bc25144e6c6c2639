import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
