import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { deadline } from '@merma/testing';
import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { hasChromium, startBrowserSuite, TEST_RESULTS } from './browser.js';
import type { Tenant, TestContext } from './helpers.js';

/**
 * The /docs page in a real browser (Debian's chromium, driven by playwright-core). CI installs
 * chromium; a developer machine without it skips this file and says so.
 */
let t: TestContext;
let tenant: Tenant;
let browser: Browser;
let base: string;
startBrowserSuite((suite) => ({ t, tenant, browser, base } = suite), { dashboard: false });

describe.skipIf(!hasChromium)('the API reference page (reason when skipped: no chromium on this machine)', () => {
  it('lists every operation, performs an authenticated request, and renders', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const failed: string[] = [];
    page.on('requestfailed', (r) => {
      if (r.url().startsWith(base)) failed.push(r.url());
    });
    await page.goto(`${base}/docs/`, { waitUntil: 'networkidle' });
    const doc = (await (await fetch(`${base}/api/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { summary: string }>>;
    };
    const summaries = Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => op.summary));
    expect(summaries.length).toBeGreaterThanOrEqual(10);
    await page
      .getByText(summaries[0] as string)
      .first()
      .waitFor({ timeout: deadline(15_000) });
    // The sidebar lists every operation by its summary once its tag group is opened.
    mkdirSync(TEST_RESULTS, { recursive: true });
    const closed = page.getByRole('button', { name: /^Open Group - (?!Models)/ });
    while ((await closed.count()) > 0) await closed.first().click();
    // biome-ignore lint/performance/useDomNodeTextContent: the visible text is what a reader sees
    const sidebar = await page.locator('body').innerText();
    for (const summary of summaries) expect(sidebar, summary).toContain(summary);

    // "Try it": the page calls the API with a key, as the reference's request panel does.
    const answer = await page.evaluate(async (key) => {
      const res = await fetch('/api/v1/destinos', { headers: { Authorization: `Bearer ${key}` } });
      return { status: res.status, body: (await res.json()) as { data: unknown[] } };
    }, tenant.key);
    expect(answer.status).toBe(200);
    expect(answer.body.data).toHaveLength(7);
    expect(failed).toEqual([]);

    await page.screenshot({ path: join(TEST_RESULTS, 'docs-page.png') });
    expect(existsSync(join(TEST_RESULTS, 'docs-page.png'))).toBe(true);
  });
});
