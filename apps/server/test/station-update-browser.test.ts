import { appendFileSync, cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deadline } from '@merma/testing';
import type { Browser, Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { DASHBOARD_DIST, hasChromium, requireBuiltDashboard, startBrowserSuite } from './browser.js';
import { createMember, DashboardBrowser, PASSWORD } from './dashboard-client.js';
import { createTenant, type TestContext } from './helpers.js';

/**
 * A new version of the kitchen station reaches a tablet that never closes it: the new service
 * worker takes over at once, and the page reloads itself between two records — not while a cook
 * is half-way through one. Served from a copy of the built dashboard, whose worker script the test
 * changes as a deployment would.
 */
requireBuiltDashboard();
const dist = mkdtempSync(join(tmpdir(), 'merma-dashboard-'));
if (hasChromium) cpSync(DASHBOARD_DIST, dist, { recursive: true });
afterAll(() => rmSync(dist, { recursive: true, force: true }));

let t: TestContext;
let browser: Browser;
let base: string;
startBrowserSuite((suite) => ({ t, browser, base } = suite), { config: { DASHBOARD_DIR: dist } });

/** A mark on the page's window: gone once the page has reloaded. */
const mark = (page: Page) => page.evaluate(() => Object.assign(globalThis, { __merma_mark: true }));
const marked = (page: Page) => page.evaluate(() => (globalThis as { __merma_mark?: boolean }).__merma_mark === true);

describe.skipIf(!hasChromium)('a new version of the station (reason when skipped: no chromium)', () => {
  it('takes over at once and reloads the page between two records, not during one', async () => {
    const tenant = await createTenant(t.db);
    const owner = await createMember(t.db, tenant.organizationId, 'owner');
    const http = new DashboardBrowser(t.app);
    await http.signIn(owner.email, PASSWORD);
    const started = await http.mutate('stations.startPairing', { establishment_id: tenant.establishmentId, livemode: false, name: 'Cubo' });
    const context = await browser.newContext({ locale: 'es-ES', viewport: { width: 1024, height: 768 } });
    try {
      const page = await context.newPage();
      await page.goto(`${base}/dashboard/station?code=${encodeURIComponent(started.code)}`);
      await page.getByRole('button', { name: 'Vincular', exact: true }).click();
      await page.getByRole('heading', { name: '¿Qué se tira?' }).waitFor();
      await page.evaluate(async () => {
        await (globalThis as unknown as { navigator: { serviceWorker: { ready: Promise<unknown> } } }).navigator.serviceWorker.ready;
      });
      // Half-way through a record when the new version is deployed and found.
      await page.getByRole('button', { name: 'Lácteos', exact: true }).click();
      await mark(page);
      appendFileSync(join(dist, 'station-sw.js'), '\n// the next build\n');
      // Found (as the browser checks on its own at navigations and every day), it takes over.
      await page.evaluate(async () => {
        type Sw = EventTarget & { getRegistration(): Promise<{ update(): Promise<void> } | undefined> };
        const sw = (globalThis as unknown as { navigator: { serviceWorker: Sw } }).navigator.serviceWorker;
        const taken = new Promise((resolve) => sw.addEventListener('controllerchange', resolve, { once: true }));
        await (await sw.getRegistration())?.update();
        await taken;
      });
      await page.waitForTimeout(500);
      // The record in progress is not interrupted.
      expect(await marked(page)).toBe(true);
      await page.getByRole('button', { name: 'Caducidad', exact: true }).click();
      await page.getByRole('button', { name: 'Donación', exact: true }).click();
      await page.getByRole('button', { name: '2', exact: true }).click();
      await page.getByRole('button', { name: 'Guardar', exact: true }).click();
      // Saved: back at the first step, the page reloads into the new version.
      await page.waitForFunction(() => (globalThis as { __merma_mark?: boolean }).__merma_mark !== true, undefined, {
        timeout: deadline(15_000),
      });
      await page.getByRole('heading', { name: '¿Qué se tira?' }).waitFor();
      await page.getByText('Todos los registros enviados').waitFor();
      const [row] = await t.db.$queryRawUnsafe<{ n: number }[]>(
        'SELECT count(*)::int AS n FROM records WHERE establishment_id = $1::uuid',
        tenant.establishmentId,
      );
      expect(row?.n).toBe(1);
    } finally {
      await context.close();
    }
  });
});
