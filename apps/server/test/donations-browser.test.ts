import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { localDate } from '@merma/schema';
import { deadline } from '@merma/testing';
import type { Browser, Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { addDays, expectAccessible, hasChromium, signedInPage, startBrowserSuite, TEST_RESULTS, todayIn } from './browser.js';
import { createMember, DashboardBrowser, PASSWORD } from './dashboard-client.js';
import { addKey, createTenant, type Tenant, type TestContext } from './helpers.js';

/**
 * The Donations page in a real browser (chromium, the built dashboard): an owner adds a social
 * entity and an agreement ending in 20 days, uploads its signed PDF, and sees the agreement flagged
 * with the days it has left, in its row and in the alert above, with the SHA-256 of the file; the
 * PDF downloads as it was sent. A developer offers a donation, sends it for signature (the link at
 * PUBLIC_URL and its QR code), the entity's volunteer opens the link on a phone and signs, and the
 * page shows the answer, the refused line waiting and the signed note's SHA-256, whose PDF
 * downloads. An owner opens the tax pack, picks this year, downloads its CSV and an entity's
 * certificate to sign, uploads the certificate the entity signed and sees it received, its SHA-256
 * the stored file's, and makes the entity's link to sign it (shown once with its QR code, the
 * certificate opened through its token). In Spanish at 1280 px, then in English at 390 px (the tax
 * pack and its signing link in both languages at both widths); axe-core on each; screenshots in
 * test-results/.
 */
let t: TestContext;
let tenant: Tenant;
let browser: Browser;
let base: string;
/** Where signing links point: this server's public address as configured, not the address the test browses. */
const PUBLIC_URL = 'https://donaciones.merma.example';
startBrowserSuite((suite) => ({ t, tenant, browser, base } = suite), { config: { PUBLIC_URL } });

const OUT = join(TEST_RESULTS, 'donations');
const PDF = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(3000, 32), Buffer.from('\n%%EOF\n')]);
const SHA = createHash('sha256').update(PDF).digest('hex');
/** The certificate the entity signed, as scanned. */
const SIGNED_CERTIFICATE = Buffer.concat([
  Buffer.from('%PDF-1.4\n% certificado firmado\n'),
  Buffer.alloc(2000, 33),
  Buffer.from('\n%%EOF\n'),
]);
const ENTITY = 'Banco de Alimentos de Prueba';
/** A field by its label, which a required field ends with Mantine's asterisk. */
const field = (label: string) => new RegExp(`^${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}( \\*)?$`);

describe.skipIf(!hasChromium)('the Donations page (reason when skipped: no chromium on this machine)', () => {
  it(
    'adds an entity and an agreement, uploads its signed PDF, and flags it as ending in 20 days',
    async () => {
      mkdirSync(OUT, { recursive: true });
      const member = await createMember(t.db, tenant.organizationId, 'owner');
      const http = new DashboardBrowser(t.app);
      await http.signIn(member.email, PASSWORD);
      const until = addDays(todayIn('Europe/Madrid'), 20);

      const { context, page } = await signedInPage({ browser, base }, { http }, 'es-ES', 1280);
      const errors: string[] = [];
      page.on('pageerror', (err) => errors.push(err.message));
      try {
        await page.goto(`${base}/dashboard/donations`);
        await page.getByRole('heading', { level: 1, name: 'Donaciones' }).waitFor();
        // Test mode (the shell's default): the page says these records are the same in both modes.
        await page.getByText('son los mismos en modo de prueba y en real').waitFor();

        await page.getByRole('button', { name: 'Añadir entidad', exact: true }).click();
        const entityForm = page.getByRole('dialog', { name: 'Nueva entidad social' });
        await entityForm.getByLabel(field('Nombre')).fill(ENTITY);
        await entityForm.getByLabel(field('NIF')).fill('g-28029643');
        await entityForm.getByLabel(field('Forma jurídica')).click();
        await page.getByRole('option', { name: 'Banco de alimentos' }).click();
        await entityForm.getByLabel(field('Dirección')).fill('Calle Mayor 1, 28013 Madrid');
        await entityForm.getByRole('checkbox', { name: /^Entidad del art\. 2/ }).check();
        await entityForm.getByRole('checkbox', { name: 'Cadena de frío' }).check();
        await expectAccessible(page, 'the entity form');
        await entityForm.getByRole('button', { name: 'Añadir entidad', exact: true }).click();
        await entityForm.waitFor({ state: 'detached' });
        await page.getByRole('region', { name: 'Entidades sociales' }).getByRole('cell', { name: 'G28029643' }).waitFor();

        await page.getByRole('button', { name: 'Añadir convenio', exact: true }).click();
        const agreementForm = page.getByRole('dialog', { name: 'Nuevo convenio de donación' });
        await agreementForm.getByLabel(field('Entidad social')).click();
        await page.getByRole('option', { name: `${ENTITY} (G28029643)` }).click();
        await agreementForm.getByLabel(field('Vigente hasta')).fill(until);
        await agreementForm.getByRole('checkbox', { name: 'Panadería y bollería' }).check();
        await agreementForm.getByRole('checkbox', { name: 'Refrigerados' }).check();
        await agreementForm.getByLabel(field('Cuándo recoge')).fill('Martes y jueves a las 18:00');
        await agreementForm.getByRole('checkbox', { name: 'Martes' }).check();
        await agreementForm.getByLabel(field('Condiciones de almacenamiento')).fill('Refrigerado entre 0 y 4 ºC');
        await agreementForm.getByLabel(field('Responsabilidad sobre la seguridad alimentaria')).fill('El donante hasta la entrega.');
        await agreementForm.getByLabel(field('Procedimiento de rechazo')).fill('Por escrito, con su motivo.');
        await expectAccessible(page, 'the agreement form');
        await agreementForm.getByRole('button', { name: 'Añadir convenio', exact: true }).click();
        await agreementForm.waitFor({ state: 'detached' });
        const agreements = page.getByRole('region', { name: 'Convenios de donación' });
        const row = agreements.getByRole('row').filter({ hasText: ENTITY });
        // Unsigned: a draft, never flagged.
        await row.getByText('Borrador').waitFor();
        expect(await row.getByText(/^Vence en/).count()).toBe(0);

        await row.getByRole('button', { name: `Subir PDF del convenio firmado con ${ENTITY}` }).click();
        const upload = page.getByRole('dialog', { name: `Convenio firmado con ${ENTITY}` });
        await upload.getByLabel('Convenio firmado (PDF)').setInputFiles({ name: 'convenio.pdf', mimeType: 'application/pdf', buffer: PDF });
        await upload.getByRole('button', { name: 'Subir', exact: true }).click();
        expect((await upload.getByTestId('stored-sha256').textContent())?.trim()).toBe(SHA);
        await expectAccessible(page, 'the stored document');
        await upload.getByRole('button', { name: 'Cerrar', exact: true }).last().click();
        await upload.waitFor({ state: 'detached' });

        // Signed and ending in 20 days: flagged in its row and in the alert above.
        await row.getByText('Vence en 20 días').waitFor();
        await row.getByText('A punto de vencer').waitFor();
        const alert = page.getByTestId('expiring-agreements');
        await alert.getByText('Un convenio de donación vence en los próximos 30 días').waitFor();
        await alert.getByText(new RegExp(`^${ENTITY}: vence el .*, dentro de 20 días$`)).waitFor();

        // Its terms and the document's SHA-256 open under the row.
        await row.getByRole('button', { name: `Mostrar detalles de ${ENTITY}` }).click();
        expect((await agreements.getByTestId('document-sha256').textContent())?.trim()).toBe(SHA);
        await expectAccessible(page, 'the donations page in Spanish at 1280 px');
        await page.screenshot({ path: join(OUT, 'donations-es-1280.png'), fullPage: true });

        // The download is the file as sent.
        const href = await row.getByRole('link', { name: `Descargar PDF del convenio firmado con ${ENTITY}` }).getAttribute('href');
        const downloaded = await page.request.get(`${base}${href}`);
        expect(downloaded.status()).toBe(200);
        expect(
          createHash('sha256')
            .update(await downloaded.body())
            .digest('hex'),
        ).toBe(SHA);

        const [stored] = await t.db.$queryRaw<{ status: string; sha256: string; valid_until: string }[]>`
          SELECT d.sha256, to_char(a.valid_until, 'YYYY-MM-DD') AS valid_until, 'stored' AS status
          FROM donation_agreements a JOIN donation_agreement_documents d ON d.agreement_id = a.id
          WHERE a.organization_id = ${tenant.organizationId}::uuid`;
        expect(stored).toEqual({ status: 'stored', sha256: SHA, valid_until: until });
      } finally {
        await context.close();
      }

      // The same page in English on a phone.
      const phone = await signedInPage({ browser, base }, { http }, 'en-GB', 390);
      phone.page.on('pageerror', (err) => errors.push(err.message));
      try {
        await phone.page.goto(`${base}/dashboard/donations`);
        await phone.page.getByRole('heading', { level: 1, name: 'Donations' }).waitFor();
        await phone.page.getByTestId('expiring-agreements').getByText('A donation agreement ends within 30 days').waitFor();
        await phone.page.getByText('Expires in 20 days').waitFor();
        await expectAccessible(phone.page, 'the donations page in English at 390 px');
        await phone.page.screenshot({ path: join(OUT, 'donations-en-390.png'), fullPage: true });
      } finally {
        await phone.context.close();
      }
      expect(errors).toEqual([]);
    },
    deadline(120_000),
  );

  it(
    'offers a donation, sends it for signature with its QR code, and shows the signed note once the entity signs',
    async () => {
      mkdirSync(OUT, { recursive: true });
      // An organisation of its own, with an agreement in force for its establishment.
      const kitchen = await createTenant(t.db);
      const entityName = 'Comedor Social San Blas';
      await agreementInForce(kitchen, entityName);
      const member = await createMember(t.db, kitchen.organizationId, 'developer');
      const http = new DashboardBrowser(t.app);
      await http.signIn(member.email, PASSWORD);
      const errors: string[] = [];

      const { context, page } = await signedInPage({ browser, base }, { http }, 'es-ES', 1280);
      page.on('pageerror', (err) => errors.push(err.message));
      let donationId: string;
      let url: string;
      try {
        await page.goto(`${base}/dashboard/donations`);
        await page.getByRole('heading', { level: 1, name: 'Donaciones' }).waitFor();
        await page.getByRole('region', { name: 'Donaciones ofrecidas' }).getByText('Aún no se ha ofrecido ninguna donación.').waitFor();

        await page.getByRole('button', { name: 'Ofrecer una donación', exact: true }).click();
        const form = page.getByRole('dialog', { name: 'Ofrecer una donación' });
        // The one agreement in force is chosen already.
        await expect.poll(() => form.getByLabel(field('Convenio')).inputValue()).toMatch(new RegExp(`^${entityName} \\(hasta el `));
        const first = form.getByRole('group', { name: 'Línea 1' });
        await first.getByLabel(field('Categoría')).click();
        await page.getByRole('option', { name: 'Panadería y bollería' }).click();
        await first.getByLabel(field('Qué es')).fill('Pan de barra');
        await first.getByLabel(field('Cantidad')).fill('3,5');
        await first.getByLabel(field('Lote (opcional)')).fill('L-1125');
        await first.getByRole('checkbox', { name: 'Gluten' }).check();
        await form.getByRole('button', { name: 'Añadir una línea' }).click();
        const second = form.getByRole('group', { name: 'Línea 2' });
        await second.getByLabel(field('Categoría')).click();
        await page.getByRole('option', { name: 'Frutas y verduras' }).click();
        await second.getByLabel(field('Qué es')).fill('Manzanas');
        await second.getByLabel(field('Cantidad')).fill('2');
        await expectAccessible(page, 'the offer form');
        await page.screenshot({ path: join(OUT, 'donation-offer-es-1280.png') });
        await form.getByRole('button', { name: 'Ofrecer', exact: true }).click();

        // Offered: the donation opens, to send it for signature.
        const detail = page.getByRole('dialog', { name: `Donación a ${entityName}` });
        await detail.getByRole('table', { name: 'Líneas de la donación' }).waitFor();
        donationId = new URL(page.url()).searchParams.get('donation') as string;
        await detail.getByRole('button', { name: 'Enviar para firmar' }).click();
        const shown = page.getByRole('dialog', { name: `Enlace de firma para ${entityName}` });
        url = await shown.getByRole('textbox', { name: 'Enlace de firma' }).inputValue();
        expect(url).toMatch(new RegExp(`^${PUBLIC_URL}/dashboard/sign/${donationId}#dln_[A-Za-z0-9_-]{43}$`));
        const qr = shown.getByRole('img', { name: 'Código QR del enlace de firma' });
        await qr.waitFor();
        expect(await qr.locator('path').getAttribute('d')).toMatch(/^M\d+ \d+h1v1h-1z/);
        await shown.getByText(/^Funciona hasta el /).waitFor();
        await shown.getByRole('button', { name: 'Copiar' }).waitFor();
        await expectAccessible(page, 'the signing link');
        await page.screenshot({ path: join(OUT, 'donation-link-es-1280.png') });
        await shown.getByRole('button', { name: 'Hecho' }).click();
        await detail.getByText(/^Se creó un enlace de firma el /).waitFor();
      } finally {
        await context.close();
      }

      // The entity's volunteer opens the link on a phone (this server, as PUBLIC_URL would be) and
      // signs: the bread accepted, the apples refused.
      const volunteer = await browser.newContext({ locale: 'en-GB', viewport: { width: 390, height: 844 }, bypassCSP: true });
      const sign = await volunteer.newPage();
      sign.on('pageerror', (err) => errors.push(err.message));
      let signedSha: string | undefined;
      try {
        await sign.goto(url.replace(PUBLIC_URL, base));
        await sign.getByRole('heading', { name: 'Receive a food donation', level: 1 }).waitFor();
        const question = (line: string) => sign.getByRole('group', { name: `Do you accept “${line}”?`, exact: true });
        await question('Pan de barra').getByText('Accept', { exact: true }).click();
        await question('Manzanas').getByText('Refuse', { exact: true }).click();
        await sign.getByRole('group', { name: 'Reason for refusing' }).getByText('Packaging damaged').click();
        await sign.getByLabel('Full name').fill('Lucía Pérez');
        await sign.getByLabel('DNI, NIE or passport').fill('12345678Z');
        await sign.getByText('Type my name as signature').click();
        await sign.getByLabel('Your name, as your signature').fill('Lucía Pérez');
        await sign.getByText(new RegExp(`^On behalf of ${entityName}`)).click();
        await sign.getByRole('button', { name: 'Sign the note' }).click();
        await sign.getByRole('heading', { name: 'Note signed', level: 1 }).waitFor();
        signedSha = (await sign.getByTestId('note-sha256').textContent())?.trim();
        await sign.screenshot({ path: join(OUT, 'donation-sign-page-en-390.png'), fullPage: true });
      } finally {
        await volunteer.close();
      }
      const [note] = await t.db.$queryRaw<{ sha256: string }[]>`SELECT sha256 FROM donation_notes WHERE donation_id = ${donationId}::uuid`;
      const sha = note?.sha256 as string;
      expect(signedSha).toBe(sha);

      const again = await signedInPage({ browser, base }, { http }, 'es-ES', 1280);
      again.page.on('pageerror', (err) => errors.push(err.message));
      try {
        await again.page.goto(`${base}/dashboard/donations?donation=${donationId}`);
        const detail = again.page.getByRole('dialog', { name: `Donación a ${entityName}` });
        await detail.getByText('Firmado por Lucía Pérez', { exact: false }).waitFor();
        expect((await detail.getByTestId('note-sha256').textContent())?.trim()).toBe(sha);
        await detail.getByText('Motivo: Envase dañado').waitFor();
        await detail.getByRole('button', { name: 'Marcar como recogida' }).waitFor();
        const href = await detail.getByRole('link', { name: 'Descargar el albarán firmado (PDF)' }).getAttribute('href');
        const pdf = await again.page.request.get(`${base}${href}`);
        expect(pdf.status()).toBe(200);
        expect(
          createHash('sha256')
            .update(await pdf.body())
            .digest('hex'),
        ).toBe(sha);
        await expectAccessible(again.page, 'the signed donation in Spanish at 1280 px');
        await again.page.screenshot({ path: join(OUT, 'donation-signed-es-1280.png') });
      } finally {
        await again.context.close();
      }

      // On a phone, in English: the refused line waits for a destination, flagged at the top.
      const phone = await signedInPage({ browser, base }, { http }, 'en-GB', 390);
      phone.page.on('pageerror', (err) => errors.push(err.message));
      try {
        await phone.page.goto(`${base}/dashboard/donations`);
        await phone.page.getByRole('heading', { level: 1, name: 'Donations' }).waitFor();
        await phone.page.getByTestId('awaiting-reroute').getByText('1 refused line is waiting for a destination').waitFor();
        await expectAccessible(phone.page, 'the donations list in English at 390 px');
        await phone.page.screenshot({ path: join(OUT, 'donations-list-en-390.png'), fullPage: true });
        await phone.page.getByRole('button', { name: new RegExp(`^Open the donation to ${entityName}`) }).click();
        const detail = phone.page.getByRole('dialog', { name: `Donation to ${entityName}` });
        expect((await detail.getByTestId('note-sha256').textContent())?.trim()).toBe(sha);
        await detail.getByRole('button', { name: 'Send elsewhere: line 2 (Manzanas)' }).waitFor();
        await expectAccessible(phone.page, 'the signed donation in English at 390 px');
        await phone.page.screenshot({ path: join(OUT, 'donation-signed-en-390.png'), fullPage: true });
      } finally {
        await phone.context.close();
      }
      expect(errors).toEqual([]);
    },
    deadline(180_000),
  );
  it(
    "shows the year's tax pack, takes the entity's signed certificate and shows it received, in Spanish and English at 1280 and 390 px",
    async () => {
      mkdirSync(OUT, { recursive: true });
      // An organisation of its own whose establishment gave a food bank 12 € of bread this year (live).
      const kitchen = await createTenant(t.db);
      const entityName = 'Banco de Alimentos de Vallecas';
      const agreement = await agreementInForce(kitchen, entityName, 'G28029643');
      const live = (await addKey(t.db, kitchen.establishmentId, 'live')).key;
      const api = (method: 'POST', url: string, body?: unknown) =>
        t.app.inject({
          method,
          url: `/api/v1${url}`,
          headers: { authorization: `Bearer ${live}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
        });
      const offered = await api('POST', '/donations', {
        agreement_id: agreement,
        lines: [{ description: 'Pan de barra', food_category: 'bakery', quantity: 6, unit: 'kg', book_value: 12, market_value: 15 }],
      });
      expect(offered.statusCode, offered.body).toBe(201);
      const donation = offered.json().data;
      expect(
        (await api('POST', `/donations/${donation.id}/decision`, { lines: [{ line_id: donation.lines[0].id, decision: 'accepted' }] }))
          .statusCode,
      ).toBe(200);
      const collected = await api('POST', `/donations/${donation.id}/collect`);
      expect(collected.statusCode, collected.body).toBe(200);
      const year = Number(localDate(new Date(collected.json().data.collected_at), 'Europe/Madrid').slice(0, 4));
      const [{ cif } = { cif: '' }] = await t.db.$queryRaw<
        { cif: string }[]
      >`SELECT cif FROM establishments WHERE id = ${kitchen.establishmentId}::uuid`;
      const member = await createMember(t.db, kitchen.organizationId, 'owner');
      const http = new DashboardBrowser(t.app);
      await http.signIn(member.email, PASSWORD);
      const errors: string[] = [];
      const signedSha = createHash('sha256').update(SIGNED_CERTIFICATE).digest('hex');

      const { context, page } = await signedInPage({ browser, base }, { http }, 'es-ES', 1280);
      page.on('pageerror', (err) => errors.push(err.message));
      try {
        await page.goto(`${base}/dashboard/donations?mode=live`);
        const section = page.getByRole('region', { name: 'Pack fiscal' });
        await section.getByRole('heading', { name: 'Pack fiscal' }).waitFor();
        // Last year by default: nothing was collected then.
        await section.getByText(`No se recogió ninguna donación en ${year - 1}.`).waitFor();
        await section.getByRole('combobox', { name: 'Ejercicio' }).click();
        await page.getByRole('option', { name: String(year), exact: true }).click();
        const table = section.getByRole('table', { name: `Entidades sociales a las que donó ${cif} en ${year}` });
        const row = table.getByRole('row').filter({ hasText: entityName });
        await row.waitFor();
        expect(new URL(page.url()).searchParams.get('tax_year')).toBe(String(year));
        // The notes in Spanish, by their codes; the rate and its reason.
        await row.getByText('IVA: base imponible 0 (donación a una entidad del art. 2)').waitFor();
        await row.getByText('40 %', { exact: true }).waitFor();
        await row.getByText('Certificado firmado sin recibir').waitFor();
        await expectAccessible(page, 'the tax pack in Spanish at 1280 px');

        // The pack's CSV and the certificate to sign download as files.
        const csvHref = await section.getByRole('link', { name: `Descargar CSV del pack fiscal de ${year}` }).getAttribute('href');
        const csv = await page.request.get(`${base}${csvHref}`);
        expect(csv.status()).toBe(200);
        expect(await csv.text()).toContain(entityName);
        const prefilled = await row
          .getByRole('link', { name: `Certificado para firmar de ${entityName} (${year}, ${cif})` })
          .getAttribute('href');
        const certificate = await page.request.get(`${base}${prefilled}`);
        expect(certificate.status()).toBe(200);
        expect((await certificate.body()).subarray(0, 5).toString()).toBe('%PDF-');

        // The entity signed it: the owner uploads it and sees its SHA-256.
        await row.getByRole('button', { name: `Subir firmado: certificado de ${entityName} (${year}, ${cif})` }).click();
        const dialog = page.getByRole('dialog', { name: `Certificado firmado por ${entityName} (${year}, ${cif})` });
        await dialog
          .getByLabel('Certificado firmado (PDF)')
          .setInputFiles({ name: 'certificado-firmado.pdf', mimeType: 'application/pdf', buffer: SIGNED_CERTIFICATE });
        await expectAccessible(page, 'the signed certificate form');
        await dialog.getByRole('button', { name: 'Subir', exact: true }).click();
        expect((await dialog.getByTestId('signed-sha256').textContent())?.trim()).toBe(signedSha);
        await expectAccessible(page, 'the stored signed certificate');
        await dialog.getByRole('button', { name: 'Cerrar', exact: true }).last().click();
        await dialog.waitFor({ state: 'detached' });
        await row.getByText(/^Certificado firmado recibido el /).waitFor();
        // The pointer left where the dialog's button was, over a row of the entities' table, which it
        // highlights: axe reads the page as a reader finds it, not under the pointer.
        await page.mouse.move(0, 0);
        const signedHref = await row
          .getByRole('link', { name: `Descargar firmado: certificado de ${entityName} (${year}, ${cif})` })
          .getAttribute('href');
        const signed = await page.request.get(`${base}${signedHref}`);
        expect(signed.status()).toBe(200);
        expect(
          createHash('sha256')
            .update(await signed.body())
            .digest('hex'),
        ).toBe(signedSha);
        await expectAccessible(page, 'the tax pack with its signed certificate, in Spanish at 1280 px');
        await section.screenshot({ path: join(OUT, 'tax-pack-es-1280.png') });

        // The entity's representative signs through a link instead: made for a week, shown once.
        const made = await makeCertificateLink(page, row, LINK_WORDS.es, { entityName, year, cif, week: true });
        await expectOpens(made, { cif, year });
        expect(made.expires).toMatch(/^Funciona hasta el /);
      } finally {
        await context.close();
      }
      const [stored] = await t.db.$queryRaw<{ sha256: string; livemode: boolean; year: number }[]>`
        SELECT sha256, livemode, year FROM donation_certificates WHERE organization_id = ${kitchen.organizationId}::uuid`;
      expect(stored).toEqual({ sha256: signedSha, livemode: true, year });
      const [entry] = await t.db.$queryRaw<{ actor_email: string }[]>`
        SELECT actor_email FROM audit_events WHERE organization_id = ${kitchen.organizationId}::uuid AND action = 'donation_certificate.uploaded'`;
      expect(entry?.actor_email).toBe(member.email);
      const linkLives = async () =>
        (
          await t.db.$queryRaw<{ hours: number; replaced: boolean }[]>`
            SELECT extract(epoch FROM expires_at - created_at)::int / 3600 AS hours, replaced_at IS NOT NULL AS replaced
            FROM certificate_links WHERE organization_id = ${kitchen.organizationId}::uuid ORDER BY created_at, id`
        ).map((l) => [Number(l.hours), l.replaced]);
      expect(await linkLives()).toEqual([[168, false]]);
      const linkEntries = () => t.db.$queryRaw<{ actor_email: string; establishment_id: string; details: Record<string, unknown> }[]>`
        SELECT actor_email, establishment_id::text, details FROM audit_events
        WHERE organization_id = ${kitchen.organizationId}::uuid AND action = 'donation_certificate.link_created' ORDER BY created_at, id`;
      expect(await linkEntries()).toEqual([
        {
          actor_email: member.email,
          establishment_id: kitchen.establishmentId,
          details: expect.objectContaining({ year, cif, livemode: true, expires_at: expect.any(String) }),
        },
      ]);

      // The same section on a phone and on a desktop, in each language: received, and its signing
      // link made again (each one replacing the last), with axe on each.
      for (const [locale, width, words] of [
        ['en-GB', 390, { title: 'Tax pack', received: /^Signed certificate received on / }],
        ['en-GB', 1280, { title: 'Tax pack', received: /^Signed certificate received on / }],
        ['es-ES', 390, { title: 'Pack fiscal', received: /^Certificado firmado recibido el / }],
      ] as const) {
        const shown = await signedInPage({ browser, base }, { http }, locale, width);
        shown.page.on('pageerror', (err) => errors.push(err.message));
        try {
          await shown.page.goto(`${base}/dashboard/donations?mode=live&tax_year=${year}`);
          const section = shown.page.getByRole('region', { name: words.title });
          const row = section.getByRole('row').filter({ hasText: entityName });
          await row.getByText(words.received).waitFor();
          if (locale === 'en-GB') await row.getByText('VAT: taxable base 0 (gift to an art. 2 entity)').waitFor();
          await expectAccessible(shown.page, `the tax pack in ${locale} at ${width} px`);
          await section.screenshot({ path: join(OUT, `tax-pack-${locale.slice(0, 2)}-${width}.png`) });
          const language = locale === 'en-GB' ? 'en' : 'es';
          const made = await makeCertificateLink(shown.page, row, LINK_WORDS[language], { entityName, year, cif, width });
          await expectOpens(made, { cif, year });
        } finally {
          await shown.context.close();
        }
      }
      expect(await linkEntries()).toHaveLength(4);
      // Each link made replaced the last; the latest works for the two days offered first.
      expect(await linkLives()).toEqual([
        [168, true],
        [48, true],
        [48, true],
        [48, false],
      ]);
      expect(errors).toEqual([]);
    },
    deadline(240_000),
  );
});

/** The words of the certificate's signing link, as each language's reader finds them. */
const LINK_WORDS = {
  es: {
    action: 'Enlace para firmar: certificado de',
    title: 'Enlace para firmar el certificado de',
    lifetime: 'Funciona durante',
    week: '7 días',
    make: 'Crear el enlace',
    url: 'Enlace de firma',
    qr: 'Código QR del enlace de firma',
    expires: /^Funciona hasta el /,
    done: 'Hecho',
  },
  en: {
    action: 'Signing link: certificate of',
    title: 'Link to sign the certificate of',
    lifetime: 'Works for',
    week: '7 days',
    make: 'Make the link',
    url: 'Signing link',
    qr: 'QR code of the signing link',
    expires: /^It works until /,
    done: 'Done',
  },
} as const;

/**
 * Makes the entity's link to sign its certificate from its row of the tax pack, as an owner does:
 * the form (a week's life when asked), then the link shown once with its QR code and expiry, axe on
 * both; its address, the link's id and token in it, and the expiry said.
 */
async function makeCertificateLink(
  page: Page,
  row: Locator,
  words: (typeof LINK_WORDS)[keyof typeof LINK_WORDS],
  { entityName, year, cif, week = false, width = 1280 }: { entityName: string; year: number; cif: string; week?: boolean; width?: number },
) {
  const language = words === LINK_WORDS.es ? 'es' : 'en';
  await row.getByRole('button', { name: `${words.action} ${entityName} (${year}, ${cif})` }).click();
  const dialog = page.getByRole('dialog', { name: `${words.title} ${entityName} (${year}, ${cif})` });
  await dialog.getByRole('button', { name: words.make }).waitFor();
  if (week) {
    await dialog.getByRole('combobox', { name: words.lifetime }).click();
    await page.getByRole('option', { name: words.week, exact: true }).click();
  }
  await expectAccessible(page, `the certificate's signing link form in ${language} at ${width} px`);
  await dialog.getByRole('button', { name: words.make }).click();
  const url = await dialog.getByRole('textbox', { name: words.url }).inputValue();
  expect(url).toMatch(new RegExp(`^${PUBLIC_URL}/dashboard/sign/certificate/[0-9a-f-]{36}#dln_[A-Za-z0-9_-]{43}$`));
  const qr = dialog.getByRole('img', { name: words.qr });
  await qr.waitFor();
  expect(await qr.locator('path').getAttribute('d')).toMatch(/^M\d+ \d+h1v1h-1z/);
  const expires = (await dialog.getByText(words.expires).textContent()) ?? '';
  await expectAccessible(page, `the certificate's signing link in ${language} at ${width} px`);
  await page.screenshot({ path: join(OUT, `certificate-link-${language}-${width}.png`) });
  await dialog.getByRole('button', { name: words.done }).click();
  await dialog.waitFor({ state: 'detached' });
  await page.mouse.move(0, 0);
  const id = url.slice(url.indexOf('/certificate/') + '/certificate/'.length, url.indexOf('#'));
  return { url, id, token: url.slice(url.indexOf('#') + 1), expires };
}

/** The link's token opens its certificate at the link's door: the company's gifts of the year, unsigned through it. */
async function expectOpens(made: { id: string; token: string }, { cif, year }: { cif: string; year: number }) {
  const opened = await t.app.inject({
    method: 'GET',
    url: `/donation-link/certificates/${made.id}`,
    headers: { authorization: `Bearer ${made.token}` },
  });
  expect(opened.statusCode, opened.body).toBe(200);
  expect(opened.json().data).toMatchObject({
    year,
    livemode: true,
    donor: { cif },
    deliveries: [{ description: 'Pan de barra' }],
    signed: null,
  });
}

/** A live key's social entity and agreement for `kitchen`'s establishment, its signed PDF stored: in force for a year. */
async function agreementInForce(kitchen: Tenant, name: string, nif = 'G20007779'): Promise<string> {
  const live = (await addKey(t.db, kitchen.establishmentId, 'live')).key;
  const send = (method: 'POST' | 'PUT', url: string, body: unknown, type = 'application/json') =>
    t.app.inject({
      method,
      url: `/api/v1${url}`,
      headers: { authorization: `Bearer ${live}`, 'content-type': type },
      payload: Buffer.isBuffer(body) ? body : JSON.stringify(body),
    });
  const entity = await send('POST', '/social-entities', {
    name,
    nif,
    address: 'Calle Alcalá 500, Madrid',
    legal_form: 'asociacion',
    ley_49_2002: { art2_entity: true, regime_opted_in: true },
    capacity: { cold_chain: true, vehicle: true },
  });
  expect(entity.statusCode, entity.body).toBe(201);
  const agreement = await send('POST', '/donation-agreements', {
    entity_id: entity.json().data.id,
    establishment_ids: [kitchen.establishmentId],
    valid_from: addDays(todayIn('Europe/Madrid'), -30),
    valid_until: addDays(todayIn('Europe/Madrid'), 365),
    renewal: 'none',
    accepted_food_categories: ['bakery', 'fruit_veg'],
    conditions: { chilled: true, frozen: false, cooked: false, near_best_before: true },
    collection: { schedule: 'Martes a las 18:00', weekdays: ['tuesday'], transport: 'entity' },
    storage_conditions: 'Seco',
    safety_responsibility_clause: 'El donante hasta la entrega.',
    refusal_procedure: 'Por escrito, con su motivo.',
  });
  expect(agreement.statusCode, agreement.body).toBe(201);
  const id = agreement.json().data.id as string;
  expect((await send('PUT', `/donation-agreements/${id}/document`, PDF, 'application/pdf')).statusCode).toBe(200);
  return id;
}
