import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium } from './browser.js';
import { startTestApp, type TestContext } from './helpers.js';

/**
 * The HTTP layer's protections that belong to no single procedure: every page refuses to be framed.
 */
let t: TestContext;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'merma-hardening-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(
    join(dir, 'index.html'),
    '<!doctype html><html><head><script type="module" src="/dashboard/assets/index-abc123.js"></script></head><body><div id="root"></div></body></html>',
  );
  writeFileSync(join(dir, 'assets', 'index-abc123.js'), 'console.log("app")');
  t = await startTestApp({ config: { TRUST_PROXY: 'true', DASHBOARD_DIR: dir } });
}, 60_000);

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

describe.skipIf(!hasChromium)('the API reference under its policy, in a browser (reason when skipped: no chromium)', () => {
  let browser: Browser;
  let base: string;
  beforeAll(async () => {
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
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
    await page.getByText('Merma').first().waitFor({ timeout: 15_000 });
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
