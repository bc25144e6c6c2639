import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { deadline } from '@merma/testing';
import type { Browser, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible, hasChromium, startBrowserSuite, TEST_RESULTS } from './browser.js';
import { addKey, type Tenant, type TestContext } from './helpers.js';
import { DESKTOP, drawWithFinger, drawWithMouse, focused, open, PHONE, shot, smallTargets, visit } from './signing-page.js';

/**
 * A social entity's signing page (`/dashboard/sign/{donation_id}#dln_…`, apps/dashboard/src/sign)
 * in a real browser, on the built dashboard and a started server: the kitchen offers a donation
 * and makes a link through the API; the volunteer opens it on a phone (390×844, Spanish, touch) or
 * a desktop (1280×800, English, mouse), accepts one line and refuses another with a reason, draws a
 * signature, signs, and downloads the PDF whose SHA-256 is the one shown. The token leaves the
 * address bar at once and is in no URL the browser asks for; a reload still works; reopening the
 * link shows the signed note; a second signature (another tab) is refused and said so. Links that
 * do not work (not valid, replaced), no connection, and a refusal from the server on a field are
 * each shown for what they are. axe-core at each step (browser.ts); screenshots in test-results/.
 */
let t: TestContext;
let browser: Browser;
let base: string;
let tenant: Tenant;
startBrowserSuite((suite) => ({ t, browser, base, tenant } = suite));

const SIGNED_PDF = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(256, 7), Buffer.from('\n%%EOF\n')]);

/** The kitchen's side, through the API: a live key for the organisation's entity and agreement. */
async function apiCall(key: string, method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown, contentType = 'application/json') {
  return t.app.inject({
    method,
    url: `/api/v1${url}`,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': contentType }) },
    ...(body === undefined ? {} : { payload: Buffer.isBuffer(body) ? body : JSON.stringify(body) }),
  });
}

let agreementId: string;
beforeAll(async () => {
  if (!hasChromium) return;
  const live = (await addKey(t.db, tenant.establishmentId, 'live')).key;
  const entity = await apiCall(live, 'POST', '/social-entities', {
    name: 'Banco de Alimentos del Barrio',
    nif: 'G28029643',
    address: 'Calle Mayor 1, Madrid',
    legal_form: 'banco_de_alimentos',
    ley_49_2002: { art2_entity: true, regime_opted_in: true },
    capacity: { cold_chain: true, vehicle: true },
  });
  expect(entity.statusCode, entity.body).toBe(201);
  const agreement = await apiCall(live, 'POST', '/donation-agreements', {
    entity_id: entity.json().data.id,
    establishment_ids: [tenant.establishmentId],
    valid_from: '2026-01-01',
    valid_until: '2099-12-31',
    renewal: 'none',
    accepted_food_categories: ['bakery', 'fruit_veg', 'dairy'],
    conditions: { chilled: true, frozen: false, cooked: false, near_best_before: true },
    collection: { schedule: 'Lunes', weekdays: ['monday'], transport: 'entity' },
    storage_conditions: 'Seco y frío',
    safety_responsibility_clause: 'Cada parte la suya',
    refusal_procedure: 'Por escrito',
  });
  expect(agreement.statusCode, agreement.body).toBe(201);
  agreementId = agreement.json().data.id;
  const document = await apiCall(live, 'PUT', `/donation-agreements/${agreementId}/document`, SIGNED_PDF, 'application/pdf');
  expect(document.statusCode, document.body).toBe(200);
}, deadline(60_000));

/** An offered donation of three lines: bread, apples, yoghurts (chilled, with milk). */
async function offered() {
  const res = await apiCall(tenant.key, 'POST', '/donations', {
    agreement_id: agreementId,
    lines: [
      { description: 'Pan de barra', food_category: 'bakery', quantity: 3, unit: 'kg', lot: 'L-0412', allergens: ['gluten'] },
      { description: 'Manzanas', food_category: 'fruit_veg', quantity: 2.5, unit: 'kg', best_before: '2099-12-20' },
      {
        description: 'Yogures naturales',
        food_category: 'dairy',
        quantity: 12,
        unit: 'unit',
        net_kg: 1.5,
        use_by: '2099-12-10',
        storage: 'chilled',
        temperature_c: 4,
        allergens: ['milk'],
      },
    ],
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { id: string; lines: { id: string }[] };
}

/** The kitchen's link to the donation, on this test server's address (PUBLIC_URL is not its port). */
async function linkFor(donationId: string) {
  const res = await apiCall(tenant.key, 'POST', `/donations/${donationId}/link`, {});
  expect(res.statusCode, res.body).toBe(201);
  const url = new URL(res.json().data.url as string);
  return { url: `${base}${url.pathname}${url.hash}`, token: url.hash.slice(1) };
}

/** The line's decision group (its legend names the line), as a screen reader finds it. */
const lineGroup = (page: Page, question: string) => page.getByRole('group', { name: question, exact: true });

const storedNote = (donationId: string) =>
  t.db.$queryRawUnsafe<{ sha256: string; signature_kind: string; signer_name: string; signer_id_document: string }[]>(
    'SELECT sha256, signature_kind, signer_name, signer_id_document FROM donation_notes WHERE donation_id = $1::uuid',
    donationId,
  );

const lineStates = async (donationId: string) =>
  (
    await t.db.$queryRawUnsafe<{ status: string; refusal_reason: string | null }[]>(
      'SELECT status, refusal_reason FROM donation_lines WHERE donation_id = $1::uuid ORDER BY position',
      donationId,
    )
  ).map((l) => [l.status, l.refusal_reason]);

describe.skipIf(!hasChromium)('the signing page in a browser (reason when skipped: no chromium)', () => {
  it('on a phone in Spanish: answers each line, signs with a finger, and downloads the PDF whose SHA-256 it shows', {
    timeout: deadline(120_000),
  }, async () => {
    mkdirSync(TEST_RESULTS, { recursive: true });
    const donation = await offered();
    const link = await linkFor(donation.id);
    const { context, page } = await open(browser, PHONE, 'es-ES');
    const asked: string[] = [];
    page.on('request', (r) => asked.push(`${r.url()} ${r.headers().referer ?? ''}`));
    try {
      const answer = await page.goto(link.url);
      expect(answer?.status()).toBe(200);
      const headers = answer?.headers() ?? {};
      expect(headers['content-security-policy']).toMatch(/script-src 'self';.*frame-ancestors 'none'/);
      expect(headers['cache-control']).toBe('no-cache');
      expect(headers['referrer-policy']).toBe('no-referrer');
      const heading = page.getByRole('heading', { name: 'Recibir una donación de alimentos', level: 1 });
      await heading.waitFor();
      // The token left the address bar (and so the history) at once, and was sent only as a header.
      expect(new URL(page.url()).hash).toBe('');
      expect(new URL(page.url()).pathname).toBe(`/dashboard/sign/${donation.id}`);
      // A reload (a pull-to-refresh) still opens the donation: the token is kept in this tab.
      await page.reload();
      await heading.waitFor();
      await page.getByText('Banco de Alimentos del Barrio').first().waitFor();
      await page.getByText('Yogures naturales').first().waitFor();
      await expect.poll(() => focused(heading)).toBe(true);
      await expectAccessible(page, 'sign page, phone, form');
      expect(await smallTargets(page)).toEqual([]);
      await shot(page, 'sign-phone-es-form');

      // Sign with nothing answered: nothing is sent, the first line's choice takes focus, the count is said.
      const bread = lineGroup(page, '¿Aceptas «Pan de barra»?');
      await page.getByRole('button', { name: 'Firmar el albarán' }).click();
      await page.getByRole('alert').filter({ hasText: 'Faltan 7 datos: están marcados en el formulario.' }).waitFor();
      await expect.poll(() => focused(bread.getByRole('radio', { name: 'Aceptar' }))).toBe(true);
      expect(await page.getByText('Elige Aceptar o Rechazar.').count()).toBe(3);
      await expectAccessible(page, 'sign page, phone, problems shown');
      await shot(page, 'sign-phone-es-problems');

      await bread.getByText('Aceptar', { exact: true }).click();
      const apples = lineGroup(page, '¿Aceptas «Manzanas»?');
      await apples.getByText('Rechazar', { exact: true }).click();
      // A refusal asks its reason: the form says so, on the reason.
      await page.getByText('Elige un motivo.').waitFor();
      await page.getByRole('group', { name: 'Motivo del rechazo' }).getByText('Envase dañado').click();
      await page.getByLabel('Detalle (opcional)').fill('Dos cajas golpeadas');
      await lineGroup(page, '¿Aceptas «Yogures naturales»?').getByText('Aceptar', { exact: true }).click();
      await page.getByLabel('Nombre y apellidos').fill('Lucía Pérez');
      // A DNI whose letter does not match its number.
      await page.getByLabel('DNI, NIE o pasaporte').fill('12345678Y');
      await page.getByText('La letra no corresponde a ese número de DNI.').waitFor();
      await page.getByLabel('DNI, NIE o pasaporte').fill('12345678z');

      const canvas = page.getByRole('img', { name: 'Zona de firma: dibuja tu firma con el dedo o el ratón' });
      await drawWithFinger(context, page, canvas);
      await page.getByText('Firma dibujada.').waitFor();
      await page.getByText(/^Confirmo, en nombre de Banco de Alimentos del Barrio/).click();
      // Checked once the page has taken the click (a frame later on a loaded machine).
      await expect.poll(() => page.getByRole('checkbox').isChecked()).toBe(true);
      await expectAccessible(page, 'sign page, phone, answered');
      expect(await smallTargets(page)).toEqual([]);
      await shot(page, 'sign-phone-es-answered');

      await page.getByRole('button', { name: 'Firmar el albarán' }).click();
      const signed = page.getByRole('heading', { name: 'Albarán firmado', level: 1 });
      await signed.waitFor();
      await expect.poll(() => focused(signed)).toBe(true);
      const [stored] = await storedNote(donation.id);
      expect(stored).toMatchObject({ signature_kind: 'drawn', signer_name: 'Lucía Pérez', signer_id_document: '12345678Z' });
      const shown = (await page.getByTestId('note-sha256').textContent())?.trim();
      expect(shown).toBe(stored?.sha256);
      expect(await lineStates(donation.id)).toEqual([
        ['accepted', null],
        ['refused', 'Envase dañado: Dos cajas golpeadas'],
        ['accepted', null],
      ]);
      await page.getByText('Rechazada: Envase dañado: Dos cajas golpeadas').waitFor();
      await expectAccessible(page, 'sign page, phone, signed');
      expect(await smallTargets(page)).toEqual([]);
      await shot(page, 'sign-phone-es-signed');

      // The PDF, fetched with the token and saved from memory: the bytes whose SHA-256 is shown.
      const [pdf] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Descargar PDF' }).click()]);
      expect(pdf.suggestedFilename()).toBe(`albaran-donacion-${donation.id}.pdf`);
      const bytes = readFileSync(await pdf.path());
      expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(shown);
      const [csv] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Descargar CSV' }).click()]);
      const sheet = readFileSync(await csv.path(), 'utf8');
      expect(sheet).toContain('Envase dañado: Dos cajas golpeadas');
      expect(sheet).toContain(shown);

      // Reopening the link shows the signed note; in English once switched.
      await visit(page, link.url);
      await signed.waitFor();
      expect((await page.getByTestId('note-sha256').textContent())?.trim()).toBe(shown);
      await page.getByText('English').click();
      await page.getByRole('heading', { name: 'Note signed', level: 1 }).waitFor();
      await page.getByText('Signed by Lucía Pérez on').waitFor();
      await expectAccessible(page, 'sign page, phone, signed, English');
      await shot(page, 'sign-phone-en-signed');

      // The token never was in a URL the browser asked for, nor in a Referer.
      expect(asked.filter((line) => line.includes(link.token))).toEqual([]);
      expect(asked.some((line) => line.includes(`/donation-link/donations/${donation.id}`))).toBe(true);
    } finally {
      await context.close();
    }
  });

  it('on a desktop in English: signs with the mouse; a second tab’s signature is refused and shows the signed note', {
    timeout: deadline(120_000),
  }, async () => {
    mkdirSync(TEST_RESULTS, { recursive: true });
    const donation = await offered();
    const link = await linkFor(donation.id);
    const { context, page } = await open(browser, DESKTOP, 'en-GB');
    try {
      await page.goto(link.url);
      await page.getByRole('heading', { name: 'Receive a food donation', level: 1 }).waitFor();
      // A second tab with the same link, opened before the first signs.
      const other = await context.newPage();
      await other.goto(link.url);
      await other.getByRole('heading', { name: 'Receive a food donation', level: 1 }).waitFor();
      // The tab in front runs its animation frames (the page's focus moves, axe waits for them).
      await page.bringToFront();

      await expectAccessible(page, 'sign page, desktop, form');
      await shot(page, 'sign-desktop-en-form');
      await lineGroup(page, 'Do you accept “Pan de barra”?').getByText('Refuse', { exact: true }).click();
      await page.getByRole('group', { name: 'Reason for refusing' }).getByText('Another reason').click();
      await page.getByRole('button', { name: 'Sign the note' }).click();
      // Every missing answer is marked; "another reason" needs its words, which take focus first
      // after the first line's (answered).
      await expect.poll(() => focused(page.getByLabel('Say why'))).toBe(true);
      await page.getByLabel('Say why').fill('We have no van today');
      await lineGroup(page, 'Do you accept “Manzanas”?').getByText('Accept', { exact: true }).click();
      await lineGroup(page, 'Do you accept “Yogures naturales”?').getByText('Accept', { exact: true }).click();
      await page.getByLabel('Full name').fill('John Smith');
      await page.getByLabel('DNI, NIE or passport').fill('X1234567L');
      const canvas = page.getByRole('img', { name: 'Signature area: draw your signature with a finger or the mouse' });
      await drawWithMouse(page, canvas);
      await page.getByText('Signature drawn.').waitFor();
      // Cleared and drawn again.
      await page.getByRole('button', { name: 'Clear the signature' }).click();
      await page.getByText('No signature yet.').waitFor();
      await drawWithMouse(page, canvas);
      await page.getByText('Signature drawn.').waitFor();
      await page.getByText(/^On behalf of Banco de Alimentos del Barrio/).click();
      await expectAccessible(page, 'sign page, desktop, answered');
      await shot(page, 'sign-desktop-en-answered');
      await page.getByRole('button', { name: 'Sign the note' }).click();
      await page.getByRole('heading', { name: 'Note signed', level: 1 }).waitFor();
      const shown = (await page.getByTestId('note-sha256').textContent())?.trim();
      expect(shown).toMatch(/^[0-9a-f]{64}$/);
      expect(await lineStates(donation.id)).toEqual([
        ['refused', 'We have no van today'],
        ['accepted', null],
        ['accepted', null],
      ]);
      await expectAccessible(page, 'sign page, desktop, signed');
      await shot(page, 'sign-desktop-en-signed');
      const [pdf] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download PDF' }).click()]);
      const bytes = readFileSync(await pdf.path());
      expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(shown);

      // The other tab answers and signs too: the server refuses a second signature (410), and the
      // tab shows the signed note, saying that its own was not kept.
      await other.bringToFront();
      for (const line of ['Pan de barra', 'Manzanas', 'Yogures naturales']) {
        await lineGroup(other, `Do you accept “${line}”?`).getByText('Accept', { exact: true }).click();
      }
      await other.getByLabel('Full name').fill('Someone Else');
      await other.getByLabel('DNI, NIE or passport').fill('AB1234567');
      await other.getByText('Type my name as signature').click();
      await other.getByLabel('Your name, as your signature').fill('Someone Else');
      await other.getByText(/^On behalf of Banco de Alimentos del Barrio/).click();
      const second = other.waitForResponse((r) => r.url().endsWith('/signature'));
      await other.getByRole('button', { name: 'Sign the note' }).click();
      expect((await second).status()).toBe(410);
      await other.getByRole('heading', { name: 'Note signed', level: 1 }).waitFor();
      await other.getByText('This donation had already been signed: a second signature was not saved.', { exact: false }).waitFor();
      expect((await other.getByTestId('note-sha256').textContent())?.trim()).toBe(shown);
      await expectAccessible(other, 'sign page, desktop, second signature refused');
      await shot(other, 'sign-desktop-en-already-signed');
      const notes = await storedNote(donation.id);
      expect(notes.map((n) => [n.signer_name, n.sha256])).toEqual([['John Smith', shown]]);
    } finally {
      await context.close();
    }
  });

  it('says why a link does not work, offers a retry without a connection, and puts the server’s refusal on its field', {
    timeout: deadline(120_000),
  }, async () => {
    mkdirSync(TEST_RESULTS, { recursive: true });
    const donation = await offered();
    const first = await linkFor(donation.id);
    const link = await linkFor(donation.id);
    const { context, page } = await open(browser, PHONE, 'es-ES');
    try {
      // Not valid: a token cut short, and no token at all.
      await visit(page, link.url.slice(0, -6));
      await page.getByRole('heading', { name: 'Este enlace no es válido', level: 1 }).waitFor();
      await expectAccessible(page, 'sign page, invalid link');
      await shot(page, 'sign-phone-es-invalid');
      // Replaced by the newer link.
      await visit(page, first.url);
      await page.getByRole('heading', { name: 'Hay un enlace más reciente', level: 1 }).waitFor();
      await expectAccessible(page, 'sign page, replaced link');
      // …and the dead token is not kept in the tab.
      expect(await page.evaluate(() => (globalThis as unknown as { sessionStorage: { length: number } }).sessionStorage.length)).toBe(0);
      await page.goto(`${base}/dashboard/sign/${donation.id}`);
      await page.getByRole('heading', { name: 'Este enlace no es válido', level: 1 }).waitFor();

      // No connection: said, and tried again.
      await context.route('**/donation-link/**', (route) => route.abort('internetdisconnected'));
      await visit(page, link.url);
      await page.getByRole('heading', { name: 'No hay conexión', level: 1 }).waitFor();
      await expectAccessible(page, 'sign page, offline');
      await shot(page, 'sign-phone-es-offline');
      await context.unroute('**/donation-link/**');
      await page.getByRole('button', { name: 'Reintentar' }).click();
      await page.getByRole('heading', { name: 'Recibir una donación de alimentos', level: 1 }).waitFor();

      // The whole form by keyboard, the typed signature chosen with the arrow keys.
      for (const line of ['Pan de barra', 'Manzanas', 'Yogures naturales']) {
        const accept = lineGroup(page, `¿Aceptas «${line}»?`).getByRole('radio', { name: 'Aceptar' });
        await accept.focus();
        await page.keyboard.press('Space');
        await expect.poll(() => accept.isChecked()).toBe(true);
      }
      await page.getByLabel('Nombre y apellidos').fill('Lucía Pérez');
      await page.getByLabel('DNI, NIE o pasaporte').fill('PAB123456');
      await page.getByRole('radio', { name: 'Dibujar la firma' }).focus();
      await page.keyboard.press('ArrowDown');
      await page.getByLabel('Tu nombre, como firma').fill('Lucía Pérez');
      await page.getByRole('checkbox').focus();
      await page.keyboard.press('Space');

      // The server refuses a field (here a stand-in answer): its detail is put on that field, which takes focus.
      await context.route('**/donation-link/donations/*/signature', (route) =>
        route.fulfill({
          status: 400,
          contentType: 'application/json',
          body: JSON.stringify({
            error: 'Invalid input: signer.id_document: is not a document number',
            status: 400,
            code: 'validation_error',
            details: [{ path: 'signer.id_document', message: 'is not a document number' }],
          }),
        }),
      );
      await page.getByRole('button', { name: 'Firmar el albarán' }).click();
      await page.getByText('No se aceptó: signer.id_document: is not a document number').waitFor();
      await page.getByRole('alert').filter({ hasText: 'No se guardó la firma: revisa los datos marcados.' }).waitFor();
      await expect.poll(() => focused(page.getByLabel('DNI, NIE o pasaporte'))).toBe(true);
      await expectAccessible(page, 'sign page, refused by the server');
      await shot(page, 'sign-phone-es-server-refusal');
      await context.unroute('**/donation-link/donations/*/signature');
      await page.getByRole('button', { name: 'Firmar el albarán' }).click();
      await page.getByRole('heading', { name: 'Albarán firmado', level: 1 }).waitFor();
      const [stored] = await storedNote(donation.id);
      expect(stored).toMatchObject({ signature_kind: 'typed', signer_id_document: 'PAB123456' });
    } finally {
      await context.close();
    }
  });
});
