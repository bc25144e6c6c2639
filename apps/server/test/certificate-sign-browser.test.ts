import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { deadline } from '@merma/testing';
import type { Browser, Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DASHBOARD_DIST, expectAccessible, hasChromium, launchChromium, requireBuiltDashboard, TEST_RESULTS } from './browser.js';
import { inForceOnTheMachineClock, signedAgreement, socialEntity } from './donation-fixtures.js';
import { addKey, createTenant, startTestApp, type TestContext } from './helpers.js';
import { pdfText } from './pdf.js';
import { DESKTOP, drawWithFinger, drawWithMouse, focused, open, PHONE, shot, smallTargets, visit } from './signing-page.js';

/**
 * The certificate of Ley 49/2002 art. 24 signed on the signing page
 * (`/dashboard/sign/certificate/{link_id}#dln_…`, apps/dashboard/src/sign/certificate) in a real
 * browser, on the built dashboard and a started server: a kitchen's donations collected in 2025
 * (made through the API on a moved clock), the link made through the API
 * (`POST /api/v1/donations/tax-pack/certificates/{entity_id}/link`), opened by the entity's
 * representative on a phone (390×844, Spanish, touch) or a desktop (1280×800, English, mouse):
 * the deliveries and their total, a test certificate and an entity outside the regime said as such,
 * the form's problems with nothing sent, a drawn signature, the signed screen, and the PDF
 * downloaded whose SHA-256 is the one shown, stored and announced in `Repr-Digest`. The token
 * leaves the address bar at once and is in no URL asked for; a second tab's signature is refused
 * and said so; a server's refusal lands on its field; a replaced, an expired and a cut link each
 * say what they are. axe-core at each step; screenshots in test-results/.
 */

/** The server's "now": the real time, unless a step moves it (donations of 2025, a link past its expiry). */
let moved: Date | null = null;
let t: TestContext;
let browser: Browser;
let base: string;

beforeAll(async () => {
  if (!hasChromium) return;
  requireBuiltDashboard();
  t = await startTestApp({ clock: () => moved ?? new Date(), config: { DASHBOARD_DIR: DASHBOARD_DIST } });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
  browser = await launchChromium();
}, deadline(60_000));
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function apiCall(key: string, method: 'GET' | 'POST', url: string, body?: unknown) {
  const res = await t.app.inject({
    method,
    url: `/api/v1${url}`,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
  expect(res.statusCode, res.body.slice(0, 500)).toBeLessThan(300);
  return res;
}

/**
 * A kitchen of its own organisation (tests run shuffled) that gave a food bank two lines in 2025:
 * bread on 12 March (book value 4.50, market 6) and apples on 3 October (book 30, market 25: the
 * art. 18 value is capped at 25). Donations of the key's `mode`; the entity `inRegime` or not.
 */
async function scene(mode: 'live' | 'test', inRegime: boolean) {
  const tenant = await createTenant(t.db, { mode: 'live' });
  const key = mode === 'live' ? tenant.key : (await addKey(t.db, tenant.establishmentId, 'test')).key;
  const entityId = await socialEntity(t, tenant.key, { ley_49_2002: { art2_entity: true, regime_opted_in: inRegime } });
  const agreementId = await signedAgreement(t, tenant.key, entityId, [tenant.establishmentId], {
    valid_from: '2025-01-01',
    // Still in force on the machine's clock (the signing happens there), whatever the year.
    valid_until: inForceOnTheMachineClock().valid_until,
  });
  try {
    for (const [at, description, quantity, book, market] of [
      ['2025-03-12T09:00:00.000Z', 'Pan de barra', 3, 4.5, 6],
      ['2025-10-03T09:00:00.000Z', 'Manzanas', 12.5, 30, 25],
    ] as const) {
      moved = new Date(at);
      const offered = (
        await apiCall(key, 'POST', '/donations', {
          agreement_id: agreementId,
          lines: [{ description, food_category: 'bakery', quantity, unit: 'kg', book_value: book, market_value: market }],
        })
      ).json().data;
      await apiCall(key, 'POST', `/donations/${offered.id}/decision`, { lines: [{ line_id: offered.lines[0].id, decision: 'accepted' }] });
      await apiCall(key, 'POST', `/donations/${offered.id}/collect`);
    }
  } finally {
    moved = null;
  }
  return { tenant, key, entityId };
}

/** The kitchen's link to the 2025 certificate, on this test server's address (PUBLIC_URL is not its port). */
async function linkFor(key: string, entityId: string) {
  const res = await apiCall(key, 'POST', `/donations/tax-pack/certificates/${entityId}/link`, { year: 2025 });
  expect(res.statusCode).toBe(201);
  const { url, expires_at } = res.json().data as { url: string; expires_at: string };
  const parsed = new URL(url);
  return {
    url: `${base}${parsed.pathname}${parsed.hash}`,
    id: parsed.pathname.split('/').at(-1) as string,
    token: parsed.hash.slice(1),
    expires_at,
  };
}

const storedLink = async (id: string) =>
  (
    await t.db.$queryRawUnsafe<
      { sha256: string | null; signer_name: string; signer_role: string; place: string; signature_kind: string }[]
    >('SELECT sha256, signer_name, signer_role, place, signature_kind FROM certificate_links WHERE id = $1::uuid', id)
  )[0];

/** The deliveries table as read: each row's cells (Intl's no-break spaces as spaces). */
const tableRows = (page: Page) =>
  page
    .getByRole('table')
    .getByRole('row')
    .evaluateAll((rows) =>
      rows.map((row) =>
        [...(row as unknown as { querySelectorAll(s: string): Iterable<{ textContent: string | null }> }).querySelectorAll('th, td')].map(
          (cell) => cell.textContent?.replace(/[\u00a0\u202f]/g, ' ') ?? '',
        ),
      ),
    );

/** Downloads the signed PDF with the page's button; its bytes and the answer that carried them. */
async function downloadPdf(page: Page, button: string) {
  const answered = page.waitForResponse((r: Response) => r.url().endsWith('/certificate.pdf'));
  const click = page.getByRole('button', { name: button });
  const [file] = await Promise.all([page.waitForEvent('download'), click.click()]);
  const response = await answered;
  return { name: file.suggestedFilename(), bytes: readFileSync(await file.path()), digest: response.headers()['repr-digest'] };
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe.skipIf(!hasChromium)('the certificate signed on the signing page in a browser (reason when skipped: no chromium)', () => {
  it('on a phone in Spanish: reads the year’s deliveries, signs with a finger, and downloads the PDF whose SHA-256 it shows', {
    timeout: deadline(120_000),
  }, async () => {
    mkdirSync(TEST_RESULTS, { recursive: true });
    const { key, entityId } = await scene('live', true);
    const link = await linkFor(key, entityId);
    const { context, page } = await open(browser, PHONE, 'es-ES');
    const asked: string[] = [];
    page.on('request', (r) => asked.push(`${r.url()} ${r.headers().referer ?? ''}`));
    try {
      const answer = await page.goto(link.url);
      expect(answer?.status()).toBe(200);
      expect(answer?.headers()['cache-control']).toBe('no-cache');
      expect(answer?.headers()['content-security-policy']).toMatch(/script-src 'self';.*frame-ancestors 'none'/);
      const heading = page.getByRole('heading', { name: 'Certificado de donaciones recibidas en 2025', level: 1 });
      await heading.waitFor();
      // The token left the address bar at once; a reload still opens the certificate (kept in this tab).
      expect(new URL(page.url()).hash).toBe('');
      expect(new URL(page.url()).pathname).toBe(`/dashboard/sign/certificate/${link.id}`);
      await page.reload();
      await heading.waitFor();
      await expect.poll(() => focused(heading)).toBe(true);
      expect(await page.title()).toBe('Firma del certificado · Merma');
      expect(await tableRows(page)).toEqual([
        ['Fecha de entrega', 'Bienes', 'Kilos', 'Valor (art. 18)'],
        ['12 mar', 'Pan de barra', '3', '4,50 €'],
        ['3 oct', 'Manzanas', '12,5', '25,00 €'],
        ['Total', '15,5', '29,50 €'],
      ]);
      expect(await page.getByText('Certificado de prueba').count()).toBe(0);
      expect(await page.getByText('Estas donaciones no dan derecho a deducción').count()).toBe(0);
      // Nothing wider than the phone.
      expect(
        await page.evaluate(
          () => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth,
        ),
      ).toBe(390);
      await expectAccessible(page, 'certificate, phone, form');
      expect(await smallTargets(page)).toEqual([]);
      await shot(page, 'certificate-phone-es-form');

      // Sign with nothing given: nothing is sent, the name takes focus, the count is said.
      await page.getByRole('button', { name: 'Firmar el certificado' }).click();
      await page.getByRole('alert').filter({ hasText: 'Faltan 5 datos: están marcados en el formulario.' }).waitFor();
      await expect.poll(() => focused(page.getByLabel('Nombre y apellidos'))).toBe(true);
      await page.getByText('Escribe tu cargo en la entidad.').waitFor();
      expect(await storedLink(link.id)).toMatchObject({ sha256: null });
      await expectAccessible(page, 'certificate, phone, problems shown');
      await shot(page, 'certificate-phone-es-problems');

      await page.getByLabel('Nombre y apellidos').fill('Marta Ruiz');
      await page.getByLabel('DNI, NIE o pasaporte').fill('12345678z');
      await page.getByLabel('Cargo en la entidad').fill('Presidenta');
      await page.getByLabel('Lugar de expedición').fill('Sevilla');
      await drawWithFinger(context, page, page.getByRole('img', { name: 'Zona de firma: dibuja tu firma con el dedo o el ratón' }));
      await page.getByText('Firma dibujada.').waitFor();
      await expectAccessible(page, 'certificate, phone, answered');
      expect(await smallTargets(page)).toEqual([]);
      await shot(page, 'certificate-phone-es-answered');

      await page.getByRole('button', { name: 'Firmar el certificado' }).click();
      const signed = page.getByRole('heading', { name: 'Certificado firmado', level: 1 });
      await signed.waitFor();
      await expect.poll(() => focused(signed)).toBe(true);
      await page.getByText(/^Firmado por Marta Ruiz \(Presidenta\) el /).waitFor();
      const shown = (await page.getByTestId('certificate-sha256').textContent())?.trim();
      expect(await storedLink(link.id)).toEqual({
        sha256: shown,
        signer_name: 'Marta Ruiz',
        signer_role: 'Presidenta',
        place: 'Sevilla',
        signature_kind: 'drawn',
      });
      await expectAccessible(page, 'certificate, phone, signed');
      expect(await smallTargets(page)).toEqual([]);
      await shot(page, 'certificate-phone-es-signed');

      // The PDF, fetched with the token and saved from memory: the bytes whose SHA-256 is shown and announced.
      const pdf = await downloadPdf(page, 'Descargar PDF');
      expect(pdf.name).toMatch(/^certificado-donaciones-2025-B\d{8}-G\d{8}\.pdf$/);
      expect(pdf.bytes.subarray(0, 5).toString()).toBe('%PDF-');
      expect(sha256(pdf.bytes)).toBe(shown);
      expect(pdf.digest).toBe(`sha-256=:${Buffer.from(shown as string, 'hex').toString('base64')}:`);
      const text = pdfText(pdf.bytes).replace(/\s*\n\s*/g, ' ');
      for (const phrase of [
        'Certificado de donaciones recibidas',
        'Pan de barra',
        'Manzanas',
        'En Sevilla, a ',
        'Marta Ruiz',
        'Presidenta',
        '12345678Z',
      ]) {
        expect(text).toContain(phrase);
      }
      // The kitchen's API serves the same signed certificate.
      const viaApi = await apiCall(key, 'GET', `/donations/tax-pack/certificates/${entityId}/signed?year=2025`);
      expect(sha256(viaApi.rawPayload)).toBe(shown);

      // Reopening the link shows the signed certificate; in English once switched.
      await visit(page, link.url);
      await signed.waitFor();
      await page.getByText('English').click();
      await page.getByRole('heading', { name: 'Certificate signed', level: 1 }).waitFor();
      await page.getByText(/^Signed by Marta Ruiz \(Presidenta\) on /).waitFor();
      await expectAccessible(page, 'certificate, phone, signed, English');
      await shot(page, 'certificate-phone-en-signed');

      // The token never was in a URL the browser asked for, nor in a Referer.
      expect(asked.filter((line) => line.includes(link.token))).toEqual([]);
      expect(asked.some((line) => line.includes(`/donation-link/certificates/${link.id}`))).toBe(true);
    } finally {
      await context.close();
    }
  });

  it('on a desktop in English: a test certificate of an entity outside the regime, a refused field, signed with the mouse; a second tab is refused', {
    timeout: deadline(120_000),
  }, async () => {
    mkdirSync(TEST_RESULTS, { recursive: true });
    const { key, entityId } = await scene('test', false);
    const link = await linkFor(key, entityId);
    const { context, page } = await open(browser, DESKTOP, 'en-GB');
    try {
      await page.goto(link.url);
      const title = page.getByRole('heading', { name: 'Certificate of donations received in 2025', level: 1 });
      await title.waitFor();
      // A second tab with the same link, opened before the first signs.
      const other = await context.newPage();
      await other.goto(link.url);
      await other.getByRole('heading', { name: 'Certificate of donations received in 2025', level: 1 }).waitFor();
      await page.bringToFront();

      await page.getByText('Made from test donations: it has no tax value.').waitFor();
      await page.getByText('These donations give no deduction').waitFor();
      expect((await tableRows(page)).at(-1)).toEqual(['Total', '15.5', '€29.50']);
      await expectAccessible(page, 'certificate, desktop, form');
      await shot(page, 'certificate-desktop-en-form');

      await page.getByLabel('Full name').fill('John Smith');
      await page.getByLabel('DNI, NIE or passport').fill('X1234567L');
      await page.getByLabel('Position in the entity').fill('Secretary');
      await page.getByLabel('Place of issue').fill('Madrid');
      const canvas = page.getByRole('img', { name: 'Signature area: draw your signature with a finger or the mouse' });
      await drawWithMouse(page, canvas);
      await page.getByText('Signature drawn.').waitFor();
      await page.getByRole('button', { name: 'Clear the signature' }).click();
      await page.getByText('No signature yet.').waitFor();
      await drawWithMouse(page, canvas);
      await page.getByText('Signature drawn.').waitFor();

      // The server refuses a field (here a stand-in answer): its detail is put on that field, which takes focus.
      await context.route('**/donation-link/certificates/*/signature', (route) =>
        route.fulfill({
          status: 400,
          contentType: 'application/json',
          body: JSON.stringify({
            error: 'Invalid input: place: is not a town',
            status: 400,
            code: 'validation_error',
            details: [{ path: 'place', message: 'is not a town' }],
          }),
        }),
      );
      await page.getByRole('button', { name: 'Sign the certificate' }).click();
      await page.getByText('Not accepted: place: is not a town').waitFor();
      await page.getByRole('alert').filter({ hasText: 'The signature was not saved: check the marked fields.' }).waitFor();
      await expect.poll(() => focused(page.getByLabel('Place of issue'))).toBe(true);
      await expectAccessible(page, 'certificate, desktop, refused by the server');
      await shot(page, 'certificate-desktop-en-server-refusal');
      await context.unroute('**/donation-link/certificates/*/signature');

      await page.getByRole('button', { name: 'Sign the certificate' }).click();
      await page.getByRole('heading', { name: 'Certificate signed', level: 1 }).waitFor();
      const shown = (await page.getByTestId('certificate-sha256').textContent())?.trim();
      expect(await storedLink(link.id)).toMatchObject({ sha256: shown, signer_role: 'Secretary', signature_kind: 'drawn' });
      await page.getByText('Made from test donations: it has no tax value.').waitFor();
      await expectAccessible(page, 'certificate, desktop, signed');
      await shot(page, 'certificate-desktop-en-signed');
      const pdf = await downloadPdf(page, 'Download PDF');
      expect(pdf.name).toMatch(/-prueba\.pdf$/);
      expect(sha256(pdf.bytes)).toBe(shown);
      expect(pdfText(pdf.bytes)).toContain('PRUEBA');

      // The other tab signs too: the server refuses a second signature (410), and the tab shows the
      // signed certificate, saying that its own was not kept.
      await other.bringToFront();
      await other.getByLabel('Full name').fill('Someone Else');
      await other.getByLabel('DNI, NIE or passport').fill('AB1234567');
      await other.getByLabel('Position in the entity').fill('Treasurer');
      await other.getByLabel('Place of issue').fill('Getafe');
      await other.getByText('Type my name as signature').click();
      await other.getByLabel('Your name, as your signature').fill('Someone Else');
      const second = other.waitForResponse((r) => r.url().endsWith('/signature'));
      await other.getByRole('button', { name: 'Sign the certificate' }).click();
      expect((await second).status()).toBe(410);
      await other.getByRole('heading', { name: 'Certificate signed', level: 1 }).waitFor();
      await other.getByText('This certificate had already been signed: a second signature was not saved.', { exact: false }).waitFor();
      expect((await other.getByTestId('certificate-sha256').textContent())?.trim()).toBe(shown);
      await expectAccessible(other, 'certificate, desktop, second signature refused');
      await shot(other, 'certificate-desktop-en-already-signed');
      expect(await storedLink(link.id)).toMatchObject({ signer_name: 'John Smith', sha256: shown });
    } finally {
      await context.close();
    }
  });

  it('says why a link does not work: cut short, replaced by a newer one, past its expiry; and no connection, retried', {
    timeout: deadline(120_000),
  }, async () => {
    mkdirSync(TEST_RESULTS, { recursive: true });
    const { key, entityId } = await scene('live', true);
    const first = await linkFor(key, entityId);
    const link = await linkFor(key, entityId);
    const { context, page } = await open(browser, PHONE, 'es-ES');
    try {
      await visit(page, link.url.slice(0, -6));
      await page.getByRole('heading', { name: 'Este enlace no es válido', level: 1 }).waitFor();
      await expectAccessible(page, 'certificate, invalid link');

      await visit(page, first.url);
      await page.getByRole('heading', { name: 'Hay un enlace más reciente', level: 1 }).waitFor();
      await page.getByText(/La empresa donante ha creado un enlace nuevo para este certificado/).waitFor();
      await expectAccessible(page, 'certificate, replaced link');
      await shot(page, 'certificate-phone-es-replaced');
      // …and the dead token is not kept in the tab.
      expect(await page.evaluate(() => (globalThis as unknown as { sessionStorage: { length: number } }).sessionStorage.length)).toBe(0);

      // No connection: said, and tried again.
      await context.route('**/donation-link/**', (route) => route.abort('internetdisconnected'));
      await visit(page, link.url);
      await page.getByRole('heading', { name: 'No hay conexión', level: 1 }).waitFor();
      await page.getByText('No se pudo cargar el certificado.', { exact: false }).waitFor();
      await expectAccessible(page, 'certificate, offline');
      await context.unroute('**/donation-link/**');
      await page.getByRole('button', { name: 'Reintentar' }).click();
      await page.getByRole('heading', { name: 'Certificado de donaciones recibidas en 2025', level: 1 }).waitFor();

      // Past its expiry (the server's clock moved there): a 410 the page says, the token forgotten.
      moved = new Date(new Date(link.expires_at).getTime() + 1_000);
      try {
        await page.reload();
        await page.getByRole('heading', { name: 'Este enlace ha caducado', level: 1 }).waitFor();
      } finally {
        moved = null;
      }
      expect(await page.evaluate(() => (globalThis as unknown as { sessionStorage: { length: number } }).sessionStorage.length)).toBe(0);
      await expectAccessible(page, 'certificate, expired link');
      await shot(page, 'certificate-phone-es-expired');
    } finally {
      await context.close();
    }
  });
});
