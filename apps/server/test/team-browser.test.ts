import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { deadline } from '@merma/testing';
import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { expectAccessible, hasChromium, signedInPage, startBrowserSuite, TEST_RESULTS } from './browser.js';
import { createMember, DashboardBrowser, PASSWORD } from './dashboard-client.js';
import type { Tenant, TestContext } from './helpers.js';

/**
 * Removing a member from the Team page in a real browser (Debian's chromium through playwright-core,
 * on the built dashboard): the dialog counts the API keys the member created and offers, checked,
 * to revoke them; the keys page names each key's creator. In English and in Spanish, with axe-core
 * on the keys page and the dialog, and screenshots of the dialog in both languages (test-results/).
 * People sign in through the API (as a fixture) and the page is used by role and label.
 */
let t: TestContext;
let tenant: Tenant;
let browser: Browser;
let base: string;
startBrowserSuite((suite) => ({ t, tenant, browser, base } = suite), { config: { API_KEY_CACHE_TTL_MS: '0' } });

/** A member with a name people read, signed in over HTTP (for fixtures: keys made as them). */
async function person(role: 'owner' | 'developer', name: string) {
  const member = await createMember(t.db, tenant.organizationId, role);
  await t.db.user.update({ where: { id: member.id }, data: { name } });
  const http = new DashboardBrowser(t.app);
  await http.signIn(member.email, PASSWORD);
  return { ...member, name, http };
}

async function makeKey(who: { http: DashboardBrowser }, name: string) {
  return (await who.http.mutate('keys.create', {
    establishment_id: tenant.establishmentId,
    name,
    mode: 'test',
    permissions: ['*'],
  })) as { id: string; key: string };
}

const status = async (key: string) => (await fetch(`${base}/api/v1/records`, { headers: { authorization: `Bearer ${key}` } })).status;
const heading = (page: Page, name: string) => page.getByRole('heading', { name, level: 1 });

describe.skipIf(!hasChromium)('removing a member in a browser (reason when skipped: no chromium on this machine)', () => {
  it(
    "the keys page names each key's creator; the Team page's dialog revokes the removed member's keys, checked by default",
    async () => {
      mkdirSync(TEST_RESULTS, { recursive: true });
      const owner = await person('owner', 'Ana Cocina');
      const luis = await person('developer', 'Luis Pérez');
      const till1 = await makeKey(luis, 'Till 1');
      const till2 = await makeKey(luis, 'Till 2');
      const erp = await makeKey(owner, 'ERP');
      const { context, page } = await signedInPage({ browser, base }, owner, 'en-GB', 1400);
      const pageErrors: string[] = [];
      page.on('pageerror', (err) => pageErrors.push(err.message));
      try {
        await page.goto(`${base}/dashboard/keys`);
        await heading(page, 'API keys').waitFor();
        const row = (name: string) => page.getByRole('row').filter({ has: page.getByRole('cell', { name, exact: true }) });
        await row('Till 1').getByText('Luis Pérez').waitFor();
        await row('Till 1').getByText(luis.email).waitFor();
        await row('ERP').getByText('Ana Cocina').waitFor();
        await page.getByText('Merma operator (merma-admin)').waitFor(); // createTenant's key, made by merma-admin
        await expectAccessible(page, 'keys with their creators');
        await page.screenshot({ path: join(TEST_RESULTS, 'team-keys-creators.png') });

        await page.getByRole('link', { name: 'Team' }).click();
        await heading(page, 'Team').waitFor();
        await page.getByRole('button', { name: 'Remove Luis Pérez' }).click();
        const dialog = page.getByRole('dialog', { name: 'Remove Luis Pérez?' });
        await dialog.getByText('They created 2 API keys that are still active in this organisation.').waitFor();
        const revoke = dialog.getByRole('checkbox', { name: 'Revoke these 2 keys too' });
        expect(await revoke.isChecked()).toBe(true);
        await expectAccessible(page, 'remove member dialog');
        await dialog.screenshot({ path: join(TEST_RESULTS, 'team-remove-member-en.png') });
        await dialog.getByRole('button', { name: 'Remove', exact: true }).click();
        await page.getByText('Member removed, and the 2 API keys they created were revoked.').waitFor();
        await dialog.waitFor({ state: 'hidden' });
        await page.getByRole('cell', { name: luis.email }).waitFor({ state: 'detached' }); // the team list, refetched

        // The server revoked them with the removal: the API refuses them; the owner's key still works.
        expect(await status(till1.key)).toBe(401);
        expect(await status(till2.key)).toBe(401);
        expect(await status(erp.key)).toBe(200);
        const removed = await t.db.auditEvent.findFirstOrThrow({
          where: { organization_id: tenant.organizationId, action: 'member.removed', target: luis.email },
        });
        expect(removed.details).toEqual({ role: 'developer', revoked_key_ids: [till1.id, till2.id].sort() });

        // The keys page shows them revoked, still named after their creator.
        await page.getByRole('link', { name: 'API keys' }).click();
        await heading(page, 'API keys').waitFor();
        await row('Till 1').getByText('Revoked', { exact: true }).waitFor();
        await row('Till 1').getByText('Luis Pérez').waitFor();
        expect(pageErrors).toEqual([]);
      } finally {
        await context.close();
      }
    },
    deadline(90_000),
  );

  it(
    'in Spanish, unticking the box removes the member and keeps their key working',
    async () => {
      const owner = await person('owner', 'Ana Cocina');
      const marta = await person('developer', 'Marta Gómez');
      const pos = await makeKey(marta, 'TPV');
      const { context, page } = await signedInPage({ browser, base }, owner, 'es-ES', 1400);
      try {
        await page.goto(`${base}/dashboard/team`);
        await heading(page, 'Equipo').waitFor();
        await page.getByRole('button', { name: 'Quitar a Marta Gómez' }).click();
        const dialog = page.getByRole('dialog', { name: '¿Quitar a Marta Gómez?' });
        await dialog.getByText('Creó 1 clave de API que sigue activa en esta organización.').waitFor();
        const revoke = dialog.getByRole('checkbox', { name: 'Revocar también esta clave' });
        expect(await revoke.isChecked()).toBe(true);
        await expectAccessible(page, 'remove member dialog (es)');
        await dialog.screenshot({ path: join(TEST_RESULTS, 'team-remove-member-es.png') });
        await revoke.uncheck();
        await dialog.getByRole('button', { name: 'Quitar', exact: true }).click();
        await page.getByText('Miembro eliminado.').waitFor();
        await page.getByRole('cell', { name: marta.email }).waitFor({ state: 'detached' }); // the team list, refetched
        expect(await status(pos.key)).toBe(200);
        const removed = await t.db.auditEvent.findFirstOrThrow({
          where: { organization_id: tenant.organizationId, action: 'member.removed', target: marta.email },
        });
        expect(removed.details).toEqual({ role: 'developer', kept_key_ids: [pos.id] });
      } finally {
        await context.close();
      }
    },
    deadline(90_000),
  );
});
