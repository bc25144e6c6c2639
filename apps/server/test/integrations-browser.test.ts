import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { deadline } from '@merma/testing';
import type { Browser, Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { expectAccessible, hasChromium, signedInPage, startBrowserSuite, TEST_RESULTS } from './browser.js';
import { createMember, DashboardBrowser, PASSWORD } from './dashboard-client.js';
import { createTenant, type Tenant, type TestContext } from './helpers.js';

/**
 * The Integrations page's "Square and Odoo" section in a real browser (Debian's chromium through
 * playwright-core, on the built dashboard served by the real server): a developer connects Odoo and
 * sees its URL once (then only redacted; the database keeps the token's hash), makes a new URL (the
 * replaced token kept, by hash, for the grace period), connects Square with its signature key,
 * access token and location (stored sealed), edits it with the secret fields left empty (the stored
 * secrets kept) and revokes Odoo after confirming. In Spanish, Square is connected without its key
 * (the checklist says what is missing and the URL is refused until it is set), the key is added
 * in the second step, then replaced. A viewer sees the connections and no button, and the server
 * refuses the hidden buttons' call. The audit log lists every action. axe-core finds no serious
 * issue with each form open, in English and Spanish, and at 390 px the page does not scroll
 * sideways. With INTEGRATION_SCREENSHOTS=<dir> (scripts/integration-screenshots.mjs) only the
 * documentation's screenshots are taken, into that directory.
 */
const PUBLIC_URL = 'https://merma.example.com';
const SHOTS = process.env.INTEGRATION_SCREENSHOTS;

let t: TestContext;
let tenant: Tenant;
let browser: Browser;
let base: string;
startBrowserSuite((suite) => ({ t, tenant, browser, base } = suite), { config: { API_KEY_CACHE_TTL_MS: '0', PUBLIC_URL } });

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const ODOO_URL = new RegExp(`^${PUBLIC_URL}/api/v1/integrations/odoo/(mit_[A-Za-z0-9]{32})$`);

/** A member signed in over HTTP, whose session cookies a browser context can be given. */
async function person(role: 'owner' | 'developer' | 'viewer', organizationId = tenant.organizationId) {
  const member = await createMember(t.db, organizationId, role);
  const http = new DashboardBrowser(t.app);
  await http.signIn(member.email, PASSWORD);
  return { ...member, http };
}

/** The Integrations page's "Square and Odoo" section, in English, once it says there is no connection yet. */
async function emptyVendorSection(page: Page) {
  await page.goto(`${base}/dashboard/integrations`);
  const section = page.getByRole('region', { name: 'Square and Odoo' });
  await section.getByText('No Square or Odoo connection in this establishment and mode.').waitFor();
  return section;
}

const row = (id: string) => t.db.integration.findUniqueOrThrow({ where: { id } });
/**
 * The establishment's integration named `name`, once the database shows it: the dialog that follows
 * a create is on screen when the answer came, and the row is then waited for (never past the
 * suite's deadline) rather than read once; a failure lists the names the establishment has.
 */
async function rowNamed(name: string) {
  const names = () =>
    t.db.integration
      .findMany({ where: { establishment_id: tenant.establishmentId }, select: { name: true } })
      .then((rows) => rows.map((r) => r.name));
  await expect.poll(names, { timeout: deadline(10_000) }).toContain(name);
  return t.db.integration.findFirstOrThrow({ where: { establishment_id: tenant.establishmentId, name } });
}
const card = (page: Page, name: string) => page.getByRole('article', { name });

/** What an Odoo automation rule sends: a JSON POST to the integration's URL, nothing else. */
const postOdoo = (token: string, body: unknown) =>
  fetch(`${base}/api/v1/integrations/odoo/${token}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/** What the functions run in the page use of its globals (the server's tests are typed without the DOM's). */
type BrowserGlobals = {
  document: {
    cookie: string;
    documentElement: { scrollWidth: number; clientWidth: number };
    getAnimations(): { playState: string }[];
    querySelectorAll(selector: string): Iterable<unknown>;
  };
  getComputedStyle(element: unknown): { opacity: string };
};

/** The page is no wider than its window: nothing makes it scroll sideways. */
async function expectNoSidewaysScroll(page: Page, what: string) {
  const { scroll, width } = await page.evaluate(() => {
    const { documentElement } = (globalThis as unknown as BrowserGlobals).document;
    return { scroll: documentElement.scrollWidth, width: documentElement.clientWidth };
  });
  expect(scroll, `${what}: page ${scroll}px wide in a ${width}px window`).toBeLessThanOrEqual(width);
}

/** The field labelled `label` (a required field's label ends in Mantine's ` *`). */
const field = (scope: Locator | Page, label: string) =>
  scope.getByLabel(new RegExp(`^${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?: \\*)?$`));

async function fill(scope: Locator | Page, label: string, value: string) {
  await field(scope, label).fill(value);
}

/**
 * Waits for the dialogs' transitions to end (fully shown, or gone), so that axe and screenshots see
 * the page as it stays: a dialog half faded in has too little contrast.
 */
async function settle(page: Page) {
  await page.waitForFunction(
    () => {
      const { document, getComputedStyle } = globalThis as unknown as BrowserGlobals;
      return (
        document.getAnimations().every((a) => a.playState !== 'running') &&
        [...document.querySelectorAll('.mantine-Modal-content, .mantine-Modal-overlay')].every((e) => getComputedStyle(e).opacity === '1')
      );
    },
    undefined,
    { polling: 'raf' },
  );
}

/** axe-core's check of the page once its transitions are over. */
async function accessible(page: Page, what: string) {
  await settle(page);
  await expectAccessible(page, what);
}

/** The value of the read-only "shown once" box, as the person would copy it. */
const shownOnce = (dialog: Locator) => dialog.getByTestId('secret-value').inputValue();

describe.skipIf(!hasChromium || SHOTS)(
  'Square and Odoo on the Integrations page (reason when skipped: no chromium, or taking screenshots)',
  () => {
    it(
      'a developer connects Odoo (URL once, then redacted), makes a new URL, connects and edits Square, revokes Odoo; the audit log lists it all',
      async () => {
        mkdirSync(TEST_RESULTS, { recursive: true });
        const developer = await person('developer');
        const { context, page } = await signedInPage({ browser, base }, developer, 'en-GB');
        const pageErrors: string[] = [];
        page.on('pageerror', (err) => pageErrors.push(err.message));
        try {
          const section = await emptyVendorSection(page);

          // Odoo: the form, then its URL shown once.
          await section.getByRole('button', { name: 'Connect Odoo', exact: true }).click();
          let dialog = page.getByRole('dialog', { name: 'Connect Odoo' });
          await fill(dialog, 'Name', 'Odoo cocina central');
          // Reading Odoo needs the four fields together: one alone is refused before any call.
          await fill(dialog, 'Database', 'cocina');
          await dialog.getByRole('button', { name: 'Connect', exact: true }).click();
          await dialog.getByText('To read Odoo, fill the address, database, login and API key').first().waitFor();
          await accessible(page, 'connect Odoo form, with its errors');
          await fill(dialog, 'Database', '');
          await dialog.getByRole('button', { name: 'Connect', exact: true }).click();
          dialog = page.getByRole('dialog', { name: 'Odoo connected' });
          const first = await shownOnce(dialog);
          const token = ODOO_URL.exec(first)?.[1] as string;
          expect(first).toMatch(ODOO_URL);
          await accessible(page, 'Odoo URL shown once');
          await dialog.getByRole('button', { name: 'I have copied it' }).click();
          await dialog.waitFor({ state: 'hidden' });

          // Listed redacted; the database holds only the token's hash.
          const odoo = card(page, 'Odoo cocina central');
          await odoo.getByText(`${PUBLIC_URL}/api/v1/integrations/odoo/mit_…${token.slice(-4)}`).waitFor();
          expect(await page.content()).not.toContain(token);
          const odooRow = await rowNamed('Odoo cocina central');
          expect(odooRow).toMatchObject({
            kind: 'odoo',
            livemode: false,
            status: 'active',
            token_hash: sha256(token),
            token_hint: token.slice(-4),
            previous_token_hash: null,
            signature_key: null,
            api_credential: null,
            settings: {},
          });
          expect(JSON.stringify(odooRow)).not.toContain(token);

          // A new URL: shown once, different; the replaced one kept (by hash) for the day chosen by default.
          await odoo.getByRole('button', { name: 'New URL for Odoo cocina central' }).click();
          dialog = page.getByRole('dialog', { name: 'Make a new URL' });
          await dialog.getByRole('combobox', { name: 'The current URL keeps working for' }).waitFor();
          expect(await dialog.getByRole('combobox', { name: 'The current URL keeps working for' }).inputValue()).toBe('1 day');
          await accessible(page, 'new Odoo URL form');
          const before = Date.now();
          await dialog.getByRole('button', { name: 'Make a new URL' }).click();
          dialog = page.getByRole('dialog', { name: 'New webhook URL' });
          const second = await shownOnce(dialog);
          expect(second).toMatch(ODOO_URL);
          expect(second).not.toBe(first);
          const newToken = ODOO_URL.exec(second)?.[1] as string;
          await dialog.getByRole('button', { name: 'I have copied it' }).click();
          await odoo.getByText(`mit_…${newToken.slice(-4)}`, { exact: false }).waitFor();
          await odoo.getByText(/^The previous URL still works until /).waitFor();
          const rotated = await row(odooRow.id);
          expect(rotated.token_hash).toBe(sha256(newToken));
          expect(rotated.previous_token_hash).toBe(sha256(token));
          const expires = rotated.previous_token_expires_at?.getTime() ?? 0;
          expect(expires).toBeGreaterThanOrEqual(before + 86_400_000 - 1_000);
          expect(expires).toBeLessThanOrEqual(Date.now() + 86_400_000 + 1_000);

          // Both URLs are Odoo's for the day: a record Merma does not read is refused as such (400),
          // not as a stranger's (401); the refusal shows on the card as the last error.
          const notRead = { _model: 'res.partner', _id: 7 };
          expect((await postOdoo(token, notRead)).status).toBe(400);
          expect((await postOdoo(newToken, notRead)).status).toBe(400);
          expect((await postOdoo(`mit_${'x'.repeat(32)}`, notRead)).status).toBe(401);
          await page.reload();
          await odoo
            .getByRole('alert')
            .getByText(/^Odoo sent a record Merma does not read/)
            .waitFor();
          await odoo.getByRole('alert').getByText('Last error').waitFor();

          // Square, with its signature key, access token and location: stored sealed.
          await section.getByRole('button', { name: 'Connect Square', exact: true }).click();
          dialog = page.getByRole('dialog', { name: 'Connect Square' });
          await dialog.getByText(/^Test mode: use your Square application's Sandbox credentials/).waitFor();
          await fill(dialog, 'Name', 'Square Calle Mayor');
          await fill(dialog, 'Access token', 'EAAAl-sandbox-access-token-0001');
          await fill(dialog, 'Location id (optional)', 'L8X2QBJ4GMCYP');
          await fill(dialog, 'Signature key', 'sq-signature-key-0001');
          await accessible(page, 'connect Square form, filled');
          await dialog.getByRole('button', { name: 'Connect', exact: true }).click();
          dialog = page.getByRole('dialog', { name: 'Square connected: now add the subscription in Square' });
          await dialog.waitFor();
          const squareRow = await rowNamed('Square Calle Mayor');
          const notificationUrl = `${PUBLIC_URL}/api/v1/integrations/square/${squareRow.id}`;
          expect(await dialog.getByRole('textbox', { name: 'Notification URL' }).inputValue()).toBe(notificationUrl);
          await dialog.getByRole('button', { name: 'Done' }).click();
          await dialog.waitFor({ state: 'hidden' });
          expect(squareRow).toMatchObject({
            kind: 'square',
            livemode: false,
            status: 'active',
            token_hash: null,
            settings: { location_id: 'L8X2QBJ4GMCYP' },
          });
          for (const [column, clear] of [
            ['signature_key', 'sq-signature-key-0001'],
            ['api_credential', 'EAAAl-sandbox-access-token-0001'],
          ] as const) {
            expect(squareRow[column], column).not.toBe(clear);
            expect(squareRow[column], column).toMatch(/^enc:/);
            expect(squareRow[column], column).not.toContain(clear);
          }

          const square = card(page, 'Square Calle Mayor');
          expect(await square.getByRole('textbox', { name: 'Notification URL' }).inputValue()).toBe(notificationUrl);
          // One of each vendor per establishment and mode: both connected, neither is offered again.
          expect(await section.getByRole('button', { name: /^Connect / }).count()).toBe(0);
          await square.getByText('Active', { exact: true }).waitFor();
          await square.getByText('Signature key: set.').waitFor();
          await square.getByText('Access token: set.').waitFor();
          await square.getByText('Location: only L8X2QBJ4GMCYP.').waitFor();
          await square.getByText('Nothing received yet.').waitFor();
          await page.screenshot({ path: join(TEST_RESULTS, 'integrations-square-odoo.png'), fullPage: true });

          // Editing with the secret fields left empty changes the name and keeps the stored secrets.
          await square.getByRole('button', { name: 'Edit Square Calle Mayor' }).click();
          dialog = page.getByRole('dialog', { name: 'Edit Square Calle Mayor' });
          expect(await field(dialog, 'Access token').getAttribute('placeholder')).toBe('Stored — leave empty to keep it');
          // A stored location can be changed, not removed (the server has no way to clear it).
          await fill(dialog, 'Location id (optional)', '');
          await fill(dialog, 'Name', 'Square Calle Mayor 3');
          await dialog.getByRole('button', { name: 'Save changes' }).click();
          await dialog.getByText('This setting can be changed but not removed').waitFor();
          await accessible(page, 'edit Square form, with its error');
          await fill(dialog, 'Location id (optional)', 'LQ2SNB8MDZ3KX');
          // Meanwhile two notifications were given up on (jobs.ts): the list read after saving says so.
          await t.db.integration.update({ where: { id: squareRow.id }, data: { failed_count: 2 } });
          await dialog.getByRole('button', { name: 'Save changes' }).click();
          await dialog.waitFor({ state: 'hidden' });
          await card(page, 'Square Calle Mayor 3').getByText('Location: only LQ2SNB8MDZ3KX.').waitFor();
          await card(page, 'Square Calle Mayor 3')
            .getByText('2 notifications were lost: Merma could not read them from the vendor after every retry (about a day and a half).')
            .waitFor();
          const edited = await row(squareRow.id);
          expect(edited).toMatchObject({
            failed_count: 2,
            name: 'Square Calle Mayor 3',
            signature_key: squareRow.signature_key,
            api_credential: squareRow.api_credential,
            settings: { location_id: 'LQ2SNB8MDZ3KX' },
          });

          // Revoking asks first; the row is revoked and its secret erased.
          await odoo.getByRole('button', { name: 'Revoke Odoo cocina central' }).click();
          dialog = page.getByRole('dialog', { name: 'Revoke Odoo cocina central?' });
          await dialog.getByText(/^Its URL stops accepting Odoo's webhooks at once/).waitFor();
          await accessible(page, 'revoke confirmation');
          await dialog.getByRole('button', { name: 'Revoke', exact: true }).click();
          await odoo.getByText('Revoked', { exact: true }).waitFor();
          await section.getByRole('button', { name: 'Connect Odoo', exact: true }).waitFor();
          expect(await odoo.getByRole('button').count()).toBe(0);
          expect(await row(odooRow.id)).toMatchObject({ status: 'revoked', token_hash: null, previous_token_hash: null });
          expect((await postOdoo(newToken, notRead)).status).toBe(401);
          expect((await postOdoo(token, notRead)).status).toBe(401);

          await dialog.waitFor({ state: 'hidden' });
          await page.getByRole('button', { name: 'How to connect Odoo, step by step' }).click();
          await page.getByText(/^Settings → Technical → Automation Rules → New\. Model: Scrap/).waitFor();
          await accessible(page, 'the integrations page with the Odoo guide open');
          expect(pageErrors).toEqual([]);
        } finally {
          await context.close();
        }

        // The audit log names each action, in words.
        const owner = await person('owner');
        const audit = await signedInPage({ browser, base }, owner, 'en-GB');
        try {
          await audit.page.goto(`${base}/dashboard/audit`);
          const cells = (name: string) => audit.page.getByRole('cell', { name, exact: true });
          await cells('Integration revoked').waitFor();
          expect(await cells('Integration connected').count()).toBe(2);
          expect(await cells('Integration secret replaced').count()).toBe(1);
          expect(await cells('Integration changed').count()).toBe(1);
          expect(await cells('odoo: Odoo cocina central').count()).toBe(3);
        } finally {
          await audit.context.close();
        }
        const actions = await t.db.auditEvent.findMany({
          where: { organization_id: tenant.organizationId, action: { startsWith: 'integration.' } },
          orderBy: { created_at: 'asc' },
        });
        expect(actions.map((a) => a.action)).toEqual([
          'integration.created',
          'integration.secret_rotated',
          'integration.created',
          'integration.updated',
          'integration.revoked',
        ]);
        expect(actions[3]?.details).toMatchObject({ changed: ['name', 'location_id'] });
      },
      deadline(120_000),
    );

    it(
      'in Spanish: Square connected without its key says what is missing until the key is pasted, then replaced; at 390 px nothing scrolls sideways',
      async () => {
        const other = await createTenant(t.db);
        const developer = await person('developer', other.organizationId);
        const { context, page } = await signedInPage({ browser, base }, developer, 'es-ES', 390);
        try {
          await page.goto(`${base}/dashboard/integrations`);
          const section = page.getByRole('region', { name: 'Square y Odoo' });
          await section.getByRole('button', { name: 'Conectar Square', exact: true }).click();
          let dialog = page.getByRole('dialog', { name: 'Conectar Square' });
          await fill(dialog, 'Nombre', 'Square Triana');
          await fill(dialog, 'Token de acceso', 'EAAAl-sandbox-token-triana');
          await accessible(page, 'connect Square form (es, 390 px)');
          await expectNoSidewaysScroll(page, 'connect Square form at 390 px');
          await dialog.getByRole('button', { name: 'Conectar', exact: true }).click();
          dialog = page.getByRole('dialog', { name: 'Square conectado: ahora añade la suscripción en Square' });
          await field(dialog, 'Clave de firma').waitFor();
          await dialog.getByRole('button', { name: 'Más tarde' }).click();
          await dialog.waitFor({ state: 'hidden' });

          const square = card(page, 'Square Triana');
          await square.getByText('Configuración incompleta', { exact: true }).waitFor();
          await square.getByText('Clave de firma: falta. La URL rechaza todas las notificaciones hasta que la guardes.').waitFor();
          await square.getByText('Token de acceso: guardado.').waitFor();
          await square.getByText('Ubicación: todas las de la cuenta.').waitFor();
          await section.getByRole('button', { name: 'Cómo conectar Square, paso a paso' }).click();
          await section.getByText(/^En la Developer Console abre tu aplicación → Webhooks → Subscriptions → Add subscription/).waitFor();
          await accessible(page, 'integrations page (es, 390 px) with the Square guide open');
          await expectNoSidewaysScroll(page, 'integrations page at 390 px');
          const squareRow = await t.db.integration.findFirstOrThrow({ where: { establishment_id: other.establishmentId } });
          expect(squareRow.signature_key).toBeNull();

          // The key, pasted with "Editar".
          await square.getByRole('button', { name: 'Editar Square Triana' }).click();
          dialog = page.getByRole('dialog', { name: 'Editar Square Triana' });
          expect(await field(dialog, 'Clave de firma').getAttribute('placeholder')).toBe('Sin configurar');
          await fill(dialog, 'Clave de firma', 'sq-key-triana-1');
          await dialog.getByRole('button', { name: 'Guardar cambios' }).click();
          await dialog.waitFor({ state: 'hidden' });
          await square.getByText('Clave de firma: guardada.').waitFor();
          await square.getByText('Activa', { exact: true }).waitFor();
          const keyed = await row(squareRow.id);
          expect(keyed.signature_key).toMatch(/^enc:/);

          // Replaced, the old key accepted for no time at all.
          await square.getByRole('button', { name: 'Sustituir la clave de firma de Square Triana' }).click();
          dialog = page.getByRole('dialog', { name: 'Sustituir la clave de firma' });
          await dialog.getByRole('button', { name: 'Sustituir la clave' }).click();
          await dialog.getByText('Obligatorio').waitFor();
          await fill(dialog, 'Nueva clave de firma', 'sq-key-triana-2');
          await dialog.getByRole('combobox', { name: 'La clave actual se sigue aceptando durante' }).click();
          await page.getByRole('option', { name: 'Nada (se rechaza desde ya)' }).click();
          await accessible(page, 'replace signature key form (es)');
          await expectNoSidewaysScroll(page, 'replace signature key form at 390 px');
          await dialog.getByRole('button', { name: 'Sustituir la clave' }).click();
          await dialog.waitFor({ state: 'hidden' });
          const replaced = await row(squareRow.id);
          expect(replaced.signature_key).toMatch(/^enc:/);
          expect(replaced.signature_key).not.toBe(keyed.signature_key);
          expect(replaced).toMatchObject({ previous_signature_key: null, previous_signature_key_expires_at: null });
          const audit = await t.db.auditEvent.findFirstOrThrow({
            where: { organization_id: other.organizationId, action: 'integration.secret_rotated' },
          });
          expect(audit).toMatchObject({ target: 'square: Square Triana', details: { kind: 'square', grace_period_seconds: 0 } });

          // Odoo's form in Spanish, open, at 390 px.
          await section.getByRole('button', { name: 'Conectar Odoo', exact: true }).click();
          dialog = page.getByRole('dialog', { name: 'Conectar Odoo' });
          await field(dialog, 'Clave de API').waitFor();
          await accessible(page, 'connect Odoo form (es, 390 px)');
          await expectNoSidewaysScroll(page, 'connect Odoo form at 390 px');
        } finally {
          await context.close();
        }
      },
      deadline(120_000),
    );

    it(
      'a viewer sees the connections and no button, and the server refuses the call the buttons would make',
      async () => {
        const tenant = await createTenant(t.db);
        const owner = await person('owner', tenant.organizationId);
        const made = await owner.http.mutate('integrations.create', {
          establishment_id: tenant.establishmentId,
          livemode: false,
          kind: 'square',
          name: 'Square para ver',
          access_token: 'EAAAl-viewer-test-token',
        });
        const viewer = await person('viewer', tenant.organizationId);
        const { context, page } = await signedInPage({ browser, base }, viewer, 'en-GB');
        try {
          await page.goto(`${base}/dashboard/integrations`);
          const section = page.getByRole('region', { name: 'Square and Odoo' });
          const square = card(page, 'Square para ver');
          await square.getByText('Signature key: missing. The URL refuses every notification until it is set.').waitFor();
          expect(await square.getByRole('textbox', { name: 'Notification URL' }).inputValue()).toBe(
            `${PUBLIC_URL}/api/v1/integrations/square/${made.id}`,
          );
          expect(await section.getByRole('button', { name: /^Connect / }).count()).toBe(0);
          for (const name of ['Edit Square para ver', 'Replace signature key of Square para ver', 'Revoke Square para ver']) {
            expect(await page.getByRole('button', { name }).count(), name).toBe(0);
          }
          await accessible(page, 'integrations as a viewer');

          const refused = await page.evaluate(
            async ({ establishmentId, id }) => {
              const csrf = (globalThis as unknown as BrowserGlobals).document.cookie.match(/merma_csrf=([^;]+)/)?.[1] ?? '';
              const call = (path: string, body: unknown) =>
                fetch(`/trpc/${path}`, {
                  method: 'POST',
                  headers: { 'content-type': 'application/json', 'x-csrf-token': decodeURIComponent(csrf) },
                  body: JSON.stringify(body),
                }).then(async (res) => ({
                  status: res.status,
                  code: ((await res.json()) as { error: { data: { app_code: string } } }).error.data.app_code,
                }));
              return [
                await call('integrations.create', { establishment_id: establishmentId, livemode: false, kind: 'odoo', name: 'sneaky' }),
                await call('integrations.revoke', { establishment_id: establishmentId, livemode: false, id }),
              ];
            },
            { establishmentId: tenant.establishmentId, id: made.id },
          );
          expect(refused).toEqual([
            { status: 403, code: 'forbidden' },
            { status: 403, code: 'forbidden' },
          ]);
          expect(await t.db.integration.count({ where: { name: 'sneaky' } })).toBe(0);
          expect((await row(made.id)).status).toBe('active');
        } finally {
          await context.close();
        }
      },
      deadline(60_000),
    );
  },
);

/**
 * The documentation's screenshots (docs/integrations.md), 1280 px wide, in English: the Connect
 * Square form, a Square integration with its notification URL and checklist, the Connect Odoo
 * form and the Odoo URL shown once. Taken only when INTEGRATION_SCREENSHOTS names a directory.
 */
describe.runIf(hasChromium && SHOTS)('screenshots for the documentation', () => {
  it(
    'takes them',
    async () => {
      const out = resolve(SHOTS as string);
      mkdirSync(out, { recursive: true });
      const developer = await person('developer');
      const { context, page } = await signedInPage({ browser, base }, developer, 'en-GB');
      const dialogShot = async (file: string) => {
        await settle(page);
        await page.screenshot({ path: join(out, file) });
      };
      try {
        const section = await emptyVendorSection(page);

        await section.getByRole('button', { name: 'Connect Square', exact: true }).click();
        let dialog = page.getByRole('dialog', { name: 'Connect Square' });
        await fill(dialog, 'Name', 'Square — Calle Mayor');
        await fill(dialog, 'Access token', 'EAAAl-sandbox-access-token-0001');
        await fill(dialog, 'Location id (optional)', 'L8X2QBJ4GMCYP');
        await dialogShot('integrations-connect-square.png');
        await dialog.getByRole('button', { name: 'Connect', exact: true }).click();
        dialog = page.getByRole('dialog', { name: 'Square connected: now add the subscription in Square' });
        await fill(dialog, 'Signature key', 'sq-signature-key-0001');
        await dialog.getByRole('button', { name: 'Save the key' }).click();
        await dialog.getByRole('button', { name: 'Done' }).click();
        await dialog.waitFor({ state: 'hidden' });
        // What a working connection shows: the time of the last notification.
        await t.db.integration.updateMany({ where: { name: 'Square — Calle Mayor' }, data: { last_received_at: new Date() } });
        await page.reload();
        const square = card(page, 'Square — Calle Mayor');
        await square.getByText(/^Last received: /).waitFor();
        // The card across the page's width (1280 px), with a margin above and below.
        const box = await square.boundingBox();
        if (!box) throw new Error('the Square card is not on the page');
        await page.screenshot({
          path: join(out, 'integrations-square-card.png'),
          clip: { x: 0, y: box.y - 16, width: 1280, height: box.height + 32 },
        });

        await section.getByRole('button', { name: 'Connect Odoo', exact: true }).click();
        dialog = page.getByRole('dialog', { name: 'Connect Odoo' });
        await fill(dialog, 'Name', 'Odoo — central kitchen');
        await dialogShot('integrations-connect-odoo.png');
        await dialog.getByRole('button', { name: 'Connect', exact: true }).click();
        dialog = page.getByRole('dialog', { name: 'Odoo connected' });
        await dialog.getByTestId('secret-value').waitFor();
        await dialogShot('integrations-odoo-url-once.png');
      } finally {
        await context.close();
      }
    },
    deadline(60_000),
  );
});
