import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { expectAccessible, hasChromium, signedInPage, startBrowserSuite } from './browser.js';
import { createMember, DashboardBrowser, PASSWORD } from './dashboard-client.js';
import { api, createTenant, type TestContext, validRecord } from './helpers.js';

/**
 * A record's photo on the records page, in a real browser (Debian's chromium through
 * playwright-core, on the built dashboard), in Spanish at 1280 px and English at 390 px, with
 * axe-core: a photo stored by Merma opens by its short-lived signed link (which serves the very
 * bytes uploaded), an integration's own address opens as it was sent.
 */
let t: TestContext;
let browser: Browser;
let base: string;
startBrowserSuite((suite) => ({ t, browser, base } = suite));

/** A real 1×1 PNG (a red pixel). */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64');
const EXTERNAL = 'https://cdn.example.org/cubo/2026-11-30.jpg';

const WORDS = {
  es: { locale: 'es-ES', width: 1280, photo: 'Foto', open: 'Abrir la foto', external: /^Abrir la foto \(una dirección/ },
  en: { locale: 'en-GB', width: 390, photo: 'Photo', open: 'Open the photo', external: /^Open the photo \(an address/ },
} as const;

describe.skipIf(!hasChromium)('a record’s photo on the records page (reason when skipped: no chromium)', () => {
  it.each(Object.entries(WORDS))('%s: opens a stored photo by its signed link, and an outside one as sent', async (_language, w) => {
    const tenant = await createTenant(t.db);
    const owner = await createMember(t.db, tenant.organizationId, 'owner');
    const http = new DashboardBrowser(t.app);
    await http.signIn(owner.email, PASSWORD);
    const client = api(t.app, tenant.key);
    const uploaded = await t.app.inject({
      method: 'POST',
      url: '/api/v1/photos',
      headers: { authorization: `Bearer ${tenant.key}`, 'content-type': 'image/png' },
      payload: PNG,
    });
    expect(uploaded.statusCode, uploaded.body).toBe(201);
    const withPhoto = (await client.post('/api/v1/records', validRecord({ photo_url: uploaded.json().data.url }))).json().data;
    const withOutside = (await client.post('/api/v1/records', validRecord({ photo_url: EXTERNAL }))).json().data;

    const { context, page } = await signedInPage({ browser, base }, { http }, w.locale, w.width);
    try {
      await page.goto(`${base}/dashboard/records?record=${withPhoto.id}`);
      await page.getByText(withPhoto.record_hash).waitFor();
      const open = page.getByRole('link', { name: w.open, exact: true });
      await open.waitFor();
      expect(await open.getAttribute('target')).toBe('_blank');
      // The link is the server's signed one (at its PUBLIC_URL): read here at the address the test serves.
      const href = new URL((await open.getAttribute('href')) ?? '');
      expect(href.pathname).toBe(`/files/photos/${uploaded.json().data.id}`);
      const bytes = await page.request.get(`${base}${href.pathname}${href.search}`);
      expect(bytes.status()).toBe(200);
      expect(Buffer.from(await bytes.body()).equals(PNG)).toBe(true);
      await expectAccessible(page, `record with a photo, ${w.locale} ${w.width}`);

      await page.goto(`${base}/dashboard/records?record=${withOutside.id}`);
      await page.getByText(withOutside.record_hash).waitFor();
      const outside = page.getByRole('link', { name: w.external });
      await outside.waitFor();
      expect(await outside.getAttribute('href')).toBe(EXTERNAL);
      await expectAccessible(page, `record with an outside photo, ${w.locale} ${w.width}`);
    } finally {
      await context.close();
    }
  });
});
