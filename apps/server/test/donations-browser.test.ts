import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { deadline } from '@merma/testing';
import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { addDays, expectAccessible, hasChromium, signedInPage, startBrowserSuite, TEST_RESULTS, todayIn } from './browser.js';
import { createMember, DashboardBrowser, PASSWORD } from './dashboard-client.js';
import type { Tenant, TestContext } from './helpers.js';

/**
 * The Donations page in a real browser (chromium, the built dashboard): an owner adds a social
 * entity and an agreement ending in 20 days, uploads its signed PDF, and sees the agreement flagged
 * with the days it has left, in its row and in the alert above, with the SHA-256 of the file; the
 * PDF downloads as it was sent. In Spanish at 1280 px, then the same page in English at 390 px;
 * axe-core on each; screenshots in test-results/.
 */
let t: TestContext;
let tenant: Tenant;
let browser: Browser;
let base: string;
startBrowserSuite((suite) => ({ t, tenant, browser, base } = suite));

const OUT = join(TEST_RESULTS, 'donations');
const PDF = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(3000, 32), Buffer.from('\n%%EOF\n')]);
const SHA = createHash('sha256').update(PDF).digest('hex');
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
});
