import { deadline } from '@merma/testing';
import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { importProducts } from '../src/admin/service.js';
import { expectAccessible, hasChromium, signedInPage, startBrowserSuite, TEST_RESULTS } from './browser.js';
import { createMember, DashboardBrowser, PASSWORD } from './dashboard-client.js';
import { createTenant, type TestContext } from './helpers.js';

/**
 * The lines an integration could not store, on the Integrations page in a real browser, in English
 * and in Spanish: an Odoo webhook sends two lines of a product Merma does not know; the card counts
 * them, lists them with Odoo's ids and the reason, and "map this item to a product" stores both as
 * sales of the product chosen (whose pos_ref becomes Odoo's product id) — the count then goes away.
 */
let t: TestContext;
let browser: Browser;
let base: string;
startBrowserSuite((suite) => ({ t, browser, base } = suite), {
  config: { API_KEY_CACHE_TTL_MS: '0', PUBLIC_URL: 'https://merma.example.com' },
});

const CASES = [
  {
    locale: 'en-GB',
    item: 4242,
    product: 'Cheesecake',
    text: {
      title: 'Lines not stored',
      count: '2 lines received from the vendor could not be stored: they are kept here until their item is mapped to a product.',
      show: 'Show the lines Odoo Centro could not store',
      caption: 'Lines Odoo Centro received and could not store',
      reason: /no product of this organisation/,
      productFor: 'Product for Tarta de queso',
      map: 'Map this item to the product: Tarta de queso',
      stored: '2 kept lines were stored as sales.',
      units: '3 units',
    },
  },
  {
    locale: 'es-ES',
    item: 4343,
    product: 'Flan de huevo',
    text: {
      title: 'Líneas sin guardar',
      count: '2 líneas recibidas del proveedor no se pudieron guardar: se conservan aquí hasta que su artículo se asigne a un producto.',
      show: 'Ver las líneas que Odoo Centro no pudo guardar',
      caption: 'Líneas que Odoo Centro recibió y no pudo guardar',
      reason: /no product of this organisation/,
      productFor: 'Producto para Tarta de queso',
      map: 'Asignar este artículo al producto: Tarta de queso',
      stored: '2 líneas conservadas se guardaron como ventas.',
      units: '3 unidades',
    },
  },
] as const;

describe.skipIf(!hasChromium)('lines an integration could not store, in the browser', () => {
  for (const c of CASES) {
    it(
      `are counted, listed and mapped to a product (${c.locale})`,
      async () => {
        const tenant = await createTenant(t.db);
        await importProducts(t.db, {
          org: tenant.organizationId,
          csv: `name;food_category;ean;pos_ref;unit_weight_kg\n${c.product};bakery;8410000000030;;0,12\n`,
        });
        const member = await createMember(t.db, tenant.organizationId, 'owner');
        const http = new DashboardBrowser(t.app);
        await http.signIn(member.email, PASSWORD);
        const made = await http.mutate('integrations.create', {
          establishment_id: tenant.establishmentId,
          livemode: false,
          kind: 'odoo',
          name: 'Odoo Centro',
        });
        const soldAt = new Date(Date.now() - 3600_000).toISOString().slice(0, 19).replace('T', ' ');
        for (const id of [9001, 9002]) {
          // What an automation rule on pos.order.line sends (bare ids), with the line's product name.
          const res = await fetch(`${base}${new URL(made.secret_url).pathname}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({
              _model: 'pos.order.line',
              _id: id,
              id,
              order_id: 77,
              product_id: c.item,
              full_product_name: 'Tarta de queso',
              qty: 3,
              product_uom_id: 1,
              x_uom_name: 'Units',
              create_date: soldAt,
            }),
          });
          expect(res.status).toBe(400);
        }

        const { context, page } = await signedInPage({ browser, base }, { http }, c.locale);
        try {
          await page.goto(`${base}/dashboard/integrations`);
          const card = page.getByRole('article', { name: 'Odoo Centro' });
          await card.getByText(c.text.title).waitFor();
          await card.getByText(c.text.count).waitFor();
          await card.getByRole('button', { name: c.text.show }).click();
          const table = card.getByRole('table', { name: c.text.caption });
          await table.waitFor();
          const rows = table.getByRole('row');
          await expect.poll(() => rows.count(), { timeout: deadline(10_000) }).toBe(3); // the header and two lines
          await expect(table.getByText(`${c.item}`, { exact: false }).first().textContent()).resolves.toContain(String(c.item));
          await table.getByText(c.text.units).first().waitFor();
          expect(await table.getByText(c.text.reason).count()).toBe(2);
          await expectAccessible(page, `refused lines (${c.locale})`);
          await card.screenshot({ path: `${TEST_RESULTS}/integrations-refused-lines-${c.locale}.png` });

          // Map the first line's item: both lines of the item are stored.
          const select = table.getByRole('combobox', { name: c.text.productFor }).first();
          await select.click();
          await page.getByRole('option', { name: c.product }).click();
          await table.getByRole('button', { name: c.text.map }).first().click();
          await card.getByText(c.text.stored).waitFor();
          await table.waitFor({ state: 'detached' });
          await card.getByText(c.text.count).waitFor({ state: 'detached' });

          const product = await t.db.product.findFirstOrThrow({ where: { organization_id: tenant.organizationId, name: c.product } });
          expect(product.pos_ref).toBe(String(c.item));
          const sales = await t.db.sale.findMany({ where: { establishment_id: tenant.establishmentId }, orderBy: { external_ref: 'asc' } });
          expect(sales.map((s) => [s.external_ref, s.product_id, Number(s.quantity)])).toEqual([
            ['pos.order.line:9001', product.id, 3],
            ['pos.order.line:9002', product.id, 3],
          ]);
          expect(await t.db.integrationRefusedLine.count({ where: { integration_id: made.id, resolved_at: null } })).toBe(0);
        } finally {
          await context.close();
        }
      },
      deadline(60_000),
    );
  }
});
