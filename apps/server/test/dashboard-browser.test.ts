import { mkdirSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { deadline } from '@merma/testing';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inviteFirstOwner } from '../src/admin/accounts.js';
import { createEstablishment } from '../src/admin/service.js';
import {
  appRendered,
  DASHBOARD_DIST,
  expectAccessible,
  hasChromium,
  launchChromium,
  requireBuiltDashboard,
  TEST_RESULTS,
} from './browser.js';
import { capturingMailer, createMember, PASSWORD, tokenOf } from './dashboard-client.js';
import { addKey, createTenant, startTestApp, type Tenant, type TestContext, validRecord } from './helpers.js';
import { type Received, startReceiver, waitFor } from './receiver.js';

/**
 * The dashboard in a real browser (Debian's chromium, driven by playwright-core), on the built app
 * (apps/dashboard/dist; turbo builds it before these tests) served by the real server with its job
 * worker: invitation → password → sign in; a test key made, used and revoked; a webhook endpoint
 * added, tested, deactivated by its receiver and reactivated from the page. Every page is checked
 * with axe-core (no serious or critical issue), and the keys and integration pages are saved as
 * screenshots (test-results/). Locators go by role and label, as people find things.
 */
requireBuiltDashboard();
const DIST = DASHBOARD_DIST;
const OUT = TEST_RESULTS;

let t: TestContext;
let tenant: Tenant;
let browser: Browser;
let base: string;
const mailer = capturingMailer();
let answer: (req: Received, res: ServerResponse) => void = (_req, res) => res.end('ok');

beforeAll(async () => {
  if (!hasChromium) return;
  t = await startTestApp({
    config: { DASHBOARD_DIR: DIST, WEBHOOKS_ALLOW_PRIVATE: 'true', API_KEY_CACHE_TTL_MS: '0' },
    worker: true,
    mailer,
  });
  tenant = await createTenant(t.db);
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
  browser = await launchChromium();
}, deadline(60_000));

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const heading = (page: Page, name: string) => page.getByRole('heading', { name, level: 1 });

describe.skipIf(!hasChromium)('the dashboard in a browser (reason when skipped: no chromium on this machine)', () => {
  it(
    'invitation → password → sign in → a key made, used and revoked → a webhook tested, deactivated and reactivated',
    async () => {
      mkdirSync(OUT, { recursive: true });
      const receiver = await startReceiver((req, res) => answer(req, res));
      // bypassCSP only lets axe-core be injected: the page's own CSP allows no inline script.
      const context = await browser.newContext({ locale: 'en-GB', viewport: { width: 1400, height: 900 }, bypassCSP: true });
      const page = await context.newPage();
      const pageErrors: string[] = [];
      page.on('pageerror', (err) => pageErrors.push(err.message));
      try {
        // The operator invites the first owner; the e-mailed link opens the invitation page.
        await inviteFirstOwner(t.db, {
          organizationId: tenant.organizationId,
          organizationName: 'Org',
          email: 'ana@example.com',
          mailer,
          publicUrl: base,
          log: { warn() {} },
        });
        const link = mailer.linkTo('ana@example.com');
        await page.goto(`${base}/dashboard/invitation?token=${tokenOf(link)}`);
        await page.getByLabel('Your name').fill('Ana Cocina');
        await page.getByLabel('New password').fill(PASSWORD);
        await page.getByLabel('Repeat the password').fill(PASSWORD);
        await expectAccessible(page, 'invitation');
        await page.getByRole('button', { name: 'Accept the invitation' }).click();
        await heading(page, 'Overview').waitFor(); // everyone lands on the overview

        // Signing out and in again with the new password.
        await page.getByRole('button', { name: /Account menu/ }).click();
        await page.getByRole('menuitem', { name: 'Sign out', exact: true }).click();
        await heading(page, 'Sign in').waitFor();
        await expectAccessible(page, 'sign-in');
        await page.getByLabel('E-mail').fill('ana@example.com');
        await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await heading(page, 'Overview').waitFor();
        await page.getByRole('link', { name: 'API keys' }).click();
        await heading(page, 'API keys').waitFor();

        // A test key with every permission, shown once.
        await page.getByRole('button', { name: 'Create key' }).click();
        const dialog = page.getByRole('dialog');
        await dialog.getByLabel('Name').fill('Till 1');
        await dialog.getByLabel('All permissions').check();
        await expectAccessible(page, 'create key dialog');
        await dialog.getByRole('button', { name: 'Create key' }).click();
        const shown = dialog.getByLabel('API key');
        await shown.waitFor();
        const key = await shown.inputValue();
        expect(key).toMatch(/^svc_test_[0-9A-Za-z]{32}$/);
        await page.keyboard.press('Escape'); // closing is deliberate: Escape does not dismiss the key
        expect(await shown.isVisible()).toBe(true);
        await dialog.getByRole('button', { name: 'I have copied it' }).click();
        await page.getByRole('cell', { name: 'Till 1', exact: true }).waitFor();
        expect(await page.locator('body').textContent()).not.toContain(key);

        // The key works against the API…
        const created = await fetch(`${base}/api/v1/records`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify(validRecord()),
        });
        expect(created.status).toBe(201);
        // …until it is revoked in the page.
        await page.getByRole('button', { name: 'Revoke key Till 1' }).click();
        await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
        await page.getByText('Revoked', { exact: true }).first().waitFor();
        // Gone from the page: a role locator stops matching the dialog while it is still fading out.
        await page.locator('[role="dialog"]').waitFor({ state: 'detached' });
        const refused = await fetch(`${base}/api/v1/records`, { headers: { authorization: `Bearer ${key}` } });
        expect(refused.status).toBe(401);
        expect(await t.db.apiKey.count({ where: { name: 'Till 1', revoked_at: { not: null } } })).toBe(1);
        await expectAccessible(page, 'keys');
        await page.screenshot({ path: join(OUT, 'dashboard-keys.png') });

        // A webhook endpoint to a local receiver; its secret shown once.
        await page.getByRole('link', { name: 'Integrations' }).click();
        await heading(page, 'Integrations').waitFor();
        await page.getByRole('button', { name: 'Add endpoint' }).click();
        await dialog.getByLabel('Endpoint URL').fill(`${receiver.url}/merma`);
        await dialog.getByLabel('record.created', { exact: true }).check();
        await dialog.getByRole('button', { name: 'Add endpoint' }).click();
        const secret = await dialog.getByLabel('Signing secret').inputValue();
        expect(secret).toMatch(/^whsec_/);
        await dialog.getByRole('button', { name: 'I have copied it' }).click();
        // The pointer, left where the dialog's button was, would hover a table row, whose highlight lowers the link's contrast.
        await page.mouse.move(0, 0);
        await expectAccessible(page, 'integrations');
        await page.getByRole('link', { name: `${receiver.url}/merma` }).click();
        await heading(page, 'Endpoint').waitFor();

        // A test event: delivered, and shown in the log.
        await page.getByRole('button', { name: 'Send test event' }).click();
        await waitFor(() => receiver.received.find((r) => r.body.includes('webhook.test')), 15_000, 'the test event');
        await waitFor(
          async () => {
            await page.reload();
            await page.getByRole('cell', { name: 'webhook.test' }).first().waitFor();
            return (await page.getByRole('cell', { name: 'Delivered', exact: true }).count()) > 0;
          },
          15_000,
          'the delivery in the log',
        );
        await expectAccessible(page, 'integration detail');
        await page.screenshot({ path: join(OUT, 'dashboard-integration.png'), fullPage: true });

        // The receiver answers 410 Gone to the next event: the endpoint is deactivated…
        answer = (_req, res) => {
          res.statusCode = 410;
          res.end('gone');
        };
        const second = await addKey(t.db, tenant.establishmentId, 'test');
        const stored = await fetch(`${base}/api/v1/records`, {
          method: 'POST',
          headers: { authorization: `Bearer ${second.key}`, 'content-type': 'application/json' },
          body: JSON.stringify(validRecord()),
        });
        expect(stored.status).toBe(201);
        await waitFor(
          async () => (await t.db.webhookSubscription.findFirst({ where: { url: `${receiver.url}/merma` } }))?.status === 'deactivated',
          20_000,
          'deactivation',
        );
        // …and reactivated from the page once the receiver is fixed.
        answer = (_req, res) => res.end('ok');
        await page.reload();
        await page.getByText('Endpoint deactivated').waitFor();
        await expectAccessible(page, 'deactivated endpoint');
        await page.getByRole('button', { name: 'Reactivate' }).click();
        await page.getByText('Endpoint reactivated.').waitFor();
        expect((await t.db.webhookSubscription.findFirst({ where: { url: `${receiver.url}/merma` } }))?.status).toBe('active');

        // Team and audit log.
        await page.getByRole('link', { name: 'Team' }).click();
        await heading(page, 'Team').waitFor();
        await page.getByRole('cell', { name: 'ana@example.com' }).waitFor();
        await expectAccessible(page, 'team');
        // An invitation whose e-mail cannot be sent is not made, and the page says why.
        await page.getByRole('button', { name: 'Invite' }).click();
        const invite = page.getByRole('dialog');
        await invite.getByLabel('E-mail').fill('cook@unreachable.example');
        await invite.getByRole('button', { name: 'Send invitation' }).click();
        await invite
          .getByRole('alert')
          .getByText('The invitation e-mail could not be sent, so no invitation was made.', { exact: false })
          .waitFor();
        await expectAccessible(page, 'invitation not sent');
        await invite.getByLabel('E-mail').fill('cook@example.com');
        await invite.getByRole('button', { name: 'Send invitation' }).click();
        await page.getByText('Invitation sent to cook@example.com.').waitFor();
        await page.getByRole('cell', { name: 'cook@example.com', exact: true }).waitFor();
        expect(await page.getByRole('cell', { name: 'cook@unreachable.example' }).count()).toBe(0);
        await page.getByRole('link', { name: 'Audit log' }).click();
        await heading(page, 'Audit log').waitFor();
        for (const action of [
          'API key created',
          'API key revoked',
          'Endpoint created',
          'Endpoint reactivated',
          'Member joined',
          'Signed in',
        ]) {
          await page.getByRole('cell', { name: action }).first().waitFor();
        }
        await expectAccessible(page, 'audit log');
        expect(pageErrors).toEqual([]);
      } finally {
        await context.close();
        await receiver.close();
      }
    },
    deadline(120_000),
  );

  it(
    'a viewer of a multi-establishment organisation switches establishments, sees no keys page, and the API refuses what the page hides',
    async () => {
      const org = await createTenant(t.db, { plan: 'enterprise_multi' });
      const second = await createEstablishment(t.db, {
        org: org.organizationId,
        name: 'Zeta Obrador',
        cif: 'B99999999',
        sector: 'horeca',
        timezone: 'Europe/Madrid',
      });
      const secondKey = await addKey(t.db, second.id, 'test');
      const hook = await fetch(`${base}/api/v1/webhooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secondKey.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: 'http://127.0.0.1:9/zeta', events: ['record.created'] }),
      });
      expect(hook.status).toBe(201);
      const viewer = await createMember(t.db, org.organizationId, 'viewer');
      const context = await browser.newContext({ locale: 'en-GB', viewport: { width: 1400, height: 900 }, bypassCSP: true });
      const page = await context.newPage();
      try {
        // The pages reached from e-mails, also when their link is bad.
        await page.goto(`${base}/dashboard/forgot-password`);
        await heading(page, 'Reset your password').waitFor();
        await expectAccessible(page, 'forgot password');
        await page.goto(`${base}/dashboard/reset-password?token=${'x'.repeat(43)}`);
        await heading(page, 'New password').waitFor();
        await expectAccessible(page, 'reset password');
        await page.goto(`${base}/dashboard/link?token=${'x'.repeat(43)}`);
        await page.getByText('This link is not valid, has been used already or has expired.').waitFor();
        await expectAccessible(page, 'bad sign-in link');

        // The sign-in page loads the app at its first page once signed in: the app, not that page's first frame.
        await page.goto(`${base}/dashboard/sign-in`);
        await page.getByLabel('E-mail').fill(viewer.email);
        await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.waitForURL((url) => url.pathname === '/dashboard/');
        await appRendered(page);
        await heading(page, 'Overview').waitFor();
        expect(await page.getByRole('link', { name: 'API keys' }).count()).toBe(0);
        await page.getByRole('link', { name: 'Integrations' }).click();
        await heading(page, 'Integrations').waitFor();
        expect(await page.getByRole('button', { name: 'Add endpoint' }).count()).toBe(0);
        expect(await page.getByRole('link', { name: 'http://127.0.0.1:9/zeta' }).count()).toBe(0);

        // The establishment switcher: the second establishment's endpoint shows once it is picked.
        await page.getByRole('combobox', { name: 'Establishment' }).click();
        await page.getByRole('option', { name: 'Zeta Obrador' }).click();
        await page.getByRole('link', { name: 'http://127.0.0.1:9/zeta' }).waitFor();
        expect(new URL(page.url()).searchParams.get('establishment')).toBe(second.id);
        await expectAccessible(page, 'integrations as a viewer');

        // What the page hides, the server refuses: a key made from the page's own session.
        const refused = await page.evaluate(async (establishmentId) => {
          const csrf = (globalThis as unknown as { document: { cookie: string } }).document.cookie.match(/merma_csrf=([^;]+)/)?.[1] ?? '';
          const res = await fetch('/trpc/keys.create', {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-csrf-token': decodeURIComponent(csrf) },
            body: JSON.stringify({ establishment_id: establishmentId, name: 'sneaky', mode: 'test', permissions: ['*'] }),
          });
          return { status: res.status, code: ((await res.json()) as { error: { data: { app_code: string } } }).error.data.app_code };
        }, second.id);
        expect(refused).toEqual({ status: 403, code: 'forbidden' });
        expect(await t.db.apiKey.count({ where: { name: 'sneaky' } })).toBe(0);
      } finally {
        await context.close();
      }
    },
    deadline(60_000),
  );
});
