import { deadline } from '@merma/testing';
import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { hasChromium, signedInPage, startBrowserSuite } from './browser.js';
import { createMember, DashboardBrowser, PASSWORD } from './dashboard-client.js';
import type { Tenant, TestContext } from './helpers.js';

/**
 * Amounts pasted into the products form in a real browser (chromium, the built dashboard), in
 * Spanish and English: pasted from the clipboard (Ctrl+V), as a person copies `7,50` from a
 * spreadsheet or a supplier's e-mail, they are stored as written — not 750 — whichever decimal
 * mark they carry; one that reads two ways (`1.234` in Spanish) is refused under its field and
 * nothing is written. The database holds what was meant.
 */
let t: TestContext;
let tenant: Tenant;
let browser: Browser;
let base: string;
startBrowserSuite((suite) => ({ t, tenant, browser, base } = suite));

const WORDS = {
  es: {
    locale: 'es-ES',
    add: 'Añadir producto',
    create: 'Crear producto',
    save: 'Guardar cambios',
    name: 'Nombre',
    category: 'Categoría',
    bakery: 'Panadería y bollería',
    ean: 'EAN / GTIN',
    weight: 'Peso por unidad, kg (opcional)',
    price: 'Precio, € (opcional)',
    cost: 'Coste por unidad, € (opcional)',
    salvage: 'Valor de un sobrante, € (opcional)',
    edit: (name: string) => `Editar ${name}`,
    ambiguous: '«1.234» se lee de dos maneras: escribe 1234 si son miles o 1,234 si lleva decimales',
    // What each field gets pasted, and what the database must then hold.
    pasted: { weight: '0,35', price: '7,50', cost: '1.60', salvage: '0,2' },
    grouped: '1.234,5',
    ambiguousText: '1.234',
    shownPrice: '7,5',
  },
  en: {
    locale: 'en-GB',
    add: 'Add product',
    create: 'Create product',
    save: 'Save changes',
    name: 'Name',
    category: 'Category',
    bakery: 'Bakery',
    ean: 'EAN / GTIN',
    weight: 'Weight per unit, kg (optional)',
    price: 'Price, € (optional)',
    cost: 'Cost per unit, € (optional)',
    salvage: 'Value of a leftover, € (optional)',
    edit: (name: string) => `Edit ${name}`,
    ambiguous: '“1,234” reads two ways: write 1234 for thousands or 1.234 for decimals',
    pasted: { weight: '0.35', price: '7,50', cost: '1,60', salvage: '0.20' },
    grouped: '1,234.5',
    ambiguousText: '1,234',
    shownPrice: '7.5',
  },
} as const;

/** Puts `text` on the page's clipboard and pastes it into the field labelled `label`, replacing what it held. */
async function paste(page: Page, label: string, text: string) {
  const field = page.getByRole('dialog').getByLabel(label, { exact: true });
  await field.fill('');
  await page.evaluate(
    // The page's clipboard (the server's tests are typed without the DOM's globals).
    (value) =>
      (globalThis as unknown as { navigator: { clipboard: { writeText(text: string): Promise<void> } } }).navigator.clipboard.writeText(
        value,
      ),
    text,
  );
  await field.focus();
  await field.press('ControlOrMeta+V');
  expect(await field.inputValue()).toBe(text);
}

describe.skipIf(!hasChromium)('amounts pasted into the products form (reason when skipped: no chromium on this machine)', () => {
  it(
    'stores 7,50 as 7.5 in Spanish and English, 1.234,5 and 1,234.5 as 1234.5, and refuses 1.234 that reads two ways',
    async () => {
      const member = await createMember(t.db, tenant.organizationId, 'owner');
      const http = new DashboardBrowser(t.app);
      await http.signIn(member.email, PASSWORD);
      const products = () => t.db.product.findMany({ where: { organization_id: tenant.organizationId } });
      const amounts = async () =>
        (await products()).map((p) => [
          p.name,
          ...[p.unit_weight_kg, p.price, p.unit_cost, p.salvage_value].map((v) => (v === null ? null : Number(v))),
        ]);

      for (const [lang, w] of Object.entries(WORDS)) {
        await t.db.$executeRawUnsafe('DELETE FROM products WHERE organization_id = $1::uuid', tenant.organizationId);
        const { context, page } = await signedInPage({ browser, base }, { http }, w.locale);
        await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
        const errors: string[] = [];
        page.on('pageerror', (err) => errors.push(err.message));
        try {
          await page.goto(`${base}/dashboard/products`);
          await page.getByRole('button', { name: w.add, exact: true }).click();
          const dialog = page.getByRole('dialog');
          const name = `Barra ${lang}`;
          await dialog.getByLabel(w.name, { exact: true }).fill(name);
          await dialog.getByLabel(w.category, { exact: true }).click();
          await page.getByRole('option', { name: w.bakery }).click();
          await dialog.getByLabel(w.ean, { exact: true }).fill('8410000000030');
          await paste(page, w.weight, w.pasted.weight);
          await paste(page, w.price, w.pasted.price);
          await paste(page, w.cost, w.pasted.cost);
          await paste(page, w.salvage, w.pasted.salvage);
          // A new product is created, not "saved changes".
          expect(await dialog.getByRole('button', { name: w.save, exact: true }).count()).toBe(0);
          await dialog.getByRole('button', { name: w.create, exact: true }).click();
          await dialog.waitFor({ state: 'detached' });
          await page.getByRole('cell', { name, exact: true }).waitFor();
          expect(await amounts()).toEqual([[name, 0.35, 7.5, 1.6, 0.2]]);

          // Edited: the stored price shown in the language's mark; a grouped amount pasted is read,
          // one that reads two ways refused under its field, nothing written until it is fixed.
          await page.getByRole('button', { name: w.edit(name), exact: true }).click();
          expect(await dialog.getByLabel(w.price, { exact: true }).inputValue()).toBe(w.shownPrice);
          await paste(page, w.price, w.grouped);
          await paste(page, w.cost, w.ambiguousText);
          await dialog.getByRole('button', { name: w.save, exact: true }).click();
          await dialog.getByText(w.ambiguous, { exact: true }).waitFor();
          expect(await amounts()).toEqual([[name, 0.35, 7.5, 1.6, 0.2]]);
          await paste(page, w.cost, w.pasted.price);
          await dialog.getByRole('button', { name: w.save, exact: true }).click();
          await dialog.waitFor({ state: 'detached' });
          await expect.poll(amounts).toEqual([[name, 0.35, 1234.5, 7.5, 0.2]]);
          expect(errors).toEqual([]);
        } finally {
          await context.close();
        }
      }
    },
    deadline(120_000),
  );
});
