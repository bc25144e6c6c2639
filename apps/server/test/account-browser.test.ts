import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { deadline } from '@merma/testing';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUserToken, RESET_TTL_MS } from '../src/modules/accounts/service.js';
import { expectAccessible, hasChromium, requireBuiltDashboard, startServedDashboard, TEST_RESULTS } from './browser.js';
import { createMember } from './dashboard-client.js';
import { createTenant, type TestContext } from './helpers.js';

/**
 * A guessable new password in a real browser: the reset page puts the server's refusal on the
 * password field, in the page's language, and keeps the link usable (it does not claim the link is
 * invalid); a good passphrase then signs the person in.
 */
requireBuiltDashboard();

let served: Awaited<ReturnType<typeof startServedDashboard>> | undefined;
let t: TestContext;
let browser: Browser;
let base: string;

beforeAll(async () => {
  if (!hasChromium) return;
  served = await startServedDashboard({ REDIS_URL: '' });
  ({ t, base, browser } = served);
}, deadline(60_000));

afterAll(async () => {
  await served?.close();
});

describe.skipIf(!hasChromium)('choosing a new password in a browser (reason when skipped: no chromium on this machine)', () => {
  it.each([
    { locale: 'en-GB', field: 'New password', repeat: 'Repeat the password', submit: 'Save and sign in', refused: 'Too easy to guess' },
    {
      locale: 'es-ES',
      field: 'Nueva contraseña',
      repeat: 'Repite la contraseña',
      submit: 'Guardar y entrar',
      refused: 'Demasiado fácil de adivinar',
    },
  ])(
    '$locale: a guessable password is refused on its field, then a passphrase signs in',
    async ({ locale, field, repeat, submit, refused }) => {
      const tenant = await createTenant(t.db);
      const member = await createMember(t.db, tenant.organizationId, 'viewer');
      const token = await createUserToken(t.db, {
        userId: member.id,
        purpose: 'password_reset',
        organizationId: null,
        ttlMs: RESET_TTL_MS,
        now: new Date(),
      });
      const context = await browser.newContext({ locale, viewport: { width: 1200, height: 900 }, bypassCSP: true });
      const page = await context.newPage();
      try {
        await page.goto(`${base}/dashboard/reset-password?token=${token}`);
        await page.getByLabel(field).fill('password1234');
        await page.getByLabel(repeat).fill('password1234');
        await page.getByRole('button', { name: submit }).click();
        await page.getByText(refused).waitFor();
        expect(await page.getByRole('alert').count()).toBe(0); // not "this link is invalid"
        await expectAccessible(page, `${locale} refused password`);
        mkdirSync(TEST_RESULTS, { recursive: true });
        await page.screenshot({ path: join(TEST_RESULTS, `password-refused-${locale}.png`) });
        await page.getByLabel(field).fill('saffron under the old stairs');
        await page.getByLabel(repeat).fill('saffron under the old stairs');
        await page.getByRole('button', { name: submit }).click();
        await page.getByText(member.email).waitFor(); // the signed-in app shows who is signed in
        expect(await t.db.userSession.count({ where: { user_id: member.id } })).toBe(1);
      } catch (err) {
        await page.screenshot({ path: `/tmp/account-browser-${locale}.png` });
        throw err;
      } finally {
        await context.close();
      }
    },
  );
});
