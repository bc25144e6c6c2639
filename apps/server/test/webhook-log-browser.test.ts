import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deadline } from '@merma/testing';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DASHBOARD_DIST, expectAccessible, hasChromium, launchChromium, requireBuiltDashboard, signedInPage } from './browser.js';
import { createMember, DashboardBrowser, PASSWORD } from './dashboard-client.js';
import { api, createTenant, startTestApp, subscribe, type Tenant, type TestContext, validRecord } from './helpers.js';
import { type Received, startReceiver, waitFor } from './receiver.js';

/**
 * The endpoint page's delivery log, its deactivation banner and the team page's invitation, in
 * chromium at 1280 and 390 px, in Spanish and English, checked by axe-core:
 * - a test event flips from pending to delivered without a reload (the log polls while a delivery
 *   is pending); expanding it shows the payload sent and the receiver's answer; at 1280 px the
 *   table fits (the resend button is not cut off) and at 390 px the page does not scroll sideways;
 * - a deactivated endpoint says why (410 Gone or repeated failures) and when;
 * - without an SMTP server, inviting someone says no e-mail was sent and shows the link once;
 *   choosing a language in the dashboard keeps it as the language of the person's e-mails.
 */
requireBuiltDashboard();

let t: TestContext;
let tenant: Tenant;
let browser: Browser;
let base: string;
let dataDir: string;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let answerDelayMs = 0;
/** How often an open endpoint page reads an active endpoint again (the dashboard's IntegrationPage). */
const WATCH_ACTIVE_MS = 15_000;

beforeAll(async () => {
  if (!hasChromium) return;
  // No SMTP_URL: e-mails are written to files under DATA_DIR/mail (outside production).
  dataDir = mkdtempSync(join(tmpdir(), 'merma-webhook-log-'));
  t = await startTestApp({
    config: { DASHBOARD_DIR: DASHBOARD_DIST, WEBHOOKS_ALLOW_PRIVATE: 'true', API_KEY_CACHE_TTL_MS: '0', DATA_DIR: dataDir },
    worker: true,
  });
  tenant = await createTenant(t.db);
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
  browser = await launchChromium();
  // The receiver takes its time (the log must show it pending first), then answers with a body.
  receiver = await startReceiver(async (req: Received, res) => {
    // An endpoint that no longer wants events: the dispatcher deactivates it at the first answer.
    if (req.path.startsWith('/unwanted-')) {
      res.statusCode = 410;
      return res.end();
    }
    await new Promise((resolve) => setTimeout(resolve, answerDelayMs));
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ received: true, note: 'gracias desde el receptor' }));
  });
}, deadline(60_000));

afterAll(async () => {
  await receiver?.close();
  await browser?.close();
  await t?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function owner() {
  const member = await createMember(t.db, tenant.organizationId, 'owner');
  const http = new DashboardBrowser(t.app);
  await http.signIn(member.email, PASSWORD);
  return { ...member, http };
}

/** What the functions run in the page use of its globals (the server's tests are typed without the DOM's). */
type Measured = { scrollWidth: number; clientWidth: number; getBoundingClientRect(): { right: number } };
type PageGlobals = { document: { documentElement: Measured; querySelector(s: string): Measured | null } };

async function expectNoSidewaysScroll(page: Page, what: string) {
  const { scroll, width } = await page.evaluate(() => {
    const { documentElement } = (globalThis as unknown as PageGlobals).document;
    return { scroll: documentElement.scrollWidth, width: documentElement.clientWidth };
  });
  expect(scroll, what).toBeLessThanOrEqual(width);
}

const TEXT = {
  en: {
    locale: 'en-GB',
    sendTest: 'Send test event',
    log: 'Delivery log',
    pending: 'Pending',
    delivered: 'Delivered',
    resend: /^Resend webhook\.test/,
    show: /^Show details of webhook\.test/,
    payload: 'Payload sent',
    answer: 'Answer to attempt 1 (HTTP 200)',
    gone: /The endpoint answered 410 Gone on .+, which means it no longer wants events/,
    failures: /It was deactivated on .+ after 5 deliveries in a row failed/,
    invite: 'Invite',
    email: 'E-mail',
    submit: 'Send invitation',
    notMailed: 'Invitation made, e-mail not sent',
    link: 'Invitation link',
    done: 'I have copied it',
    language: 'Language',
  },
  es: {
    locale: 'es-ES',
    sendTest: 'Enviar evento de prueba',
    log: 'Registro de entregas',
    pending: 'Pendiente',
    delivered: 'Entregado',
    resend: /^Reenviar webhook\.test/,
    show: /^Mostrar detalles de webhook\.test/,
    payload: 'Contenido enviado',
    answer: 'Respuesta al intento 1 (HTTP 200)',
    gone: /El endpoint respondió 410 Gone el .+, que significa que ya no quiere recibir eventos/,
    failures: /Se desactivó el .+ después de que fallaran 5 entregas seguidas/,
    invite: 'Invitar',
    email: 'Correo electrónico',
    submit: 'Enviar invitación',
    notMailed: 'Invitación creada, correo no enviado',
    link: 'Enlace de invitación',
    done: 'Ya lo he copiado',
    language: 'Idioma',
  },
} as const;

describe.skipIf(!hasChromium)('the delivery log, the deactivation banner and invitations without SMTP (skipped: no chromium)', () => {
  for (const language of ['en', 'es'] as const) {
    const text = TEXT[language];
    for (const width of [1280, 390]) {
      it(`${language} at ${width} px: a test event turns delivered without a reload; payload and answer shown; the table fits`, async () => {
        const who = await owner();
        const sub = await subscribe(t, tenant, `${receiver.url}/log-${language}-${width}`, ['record.created']);
        const { context, page } = await signedInPage({ browser, base }, who, text.locale, width);
        try {
          await page.goto(`${base}/dashboard/integrations/${sub.id}`);
          // The log's card (its table scrolls in a region of the same name inside it).
          const log = page.locator('section[aria-labelledby="deliveries-title"]');
          await log.getByRole('heading', { name: text.log }).waitFor();
          answerDelayMs = 1_500;
          await page.getByRole('button', { name: text.sendTest }).click();
          // Pending first, then delivered, on the same page (no reload, no navigation).
          const navigations: string[] = [];
          page.on('framenavigated', (frame) => navigations.push(frame.url()));
          await log.getByText(text.pending, { exact: true }).waitFor({ timeout: deadline(10_000) });
          await log.getByText(text.delivered, { exact: true }).waitFor({ timeout: deadline(15_000) });
          expect(navigations).toEqual([]);
          const stored = await t.db.webhookDelivery.findFirstOrThrow({ where: { subscription_id: sub.id } });
          expect(stored).toMatchObject({ status: 'succeeded', attempts: 1 });

          // The payload sent and the answer, under the expanded row.
          await log.getByRole('button', { name: text.show }).click();
          const payload = log.getByRole('region', { name: text.payload });
          await payload.waitFor();
          const sent = receiver.received.find((r) => r.path === `/log-${language}-${width}`);
          expect(JSON.parse(await payload.innerText())).toEqual(JSON.parse(sent?.body ?? 'null'));
          const answer = log.getByRole('region', { name: text.answer });
          expect(JSON.parse(await answer.innerText())).toEqual({ received: true, note: 'gracias desde el receptor' });

          if (width === 1280) {
            // The table fits its card: nothing to scroll sideways, the resend button fully in view.
            const fits = await page.evaluate(() => {
              const { document } = globalThis as unknown as PageGlobals;
              const table = document.querySelector('section[aria-labelledby="deliveries-title"] table');
              const card = document.querySelector('section[aria-labelledby="deliveries-title"]');
              return { table: table?.getBoundingClientRect().right ?? Infinity, card: card?.getBoundingClientRect().right ?? 0 };
            });
            expect(fits.table).toBeLessThanOrEqual(fits.card);
            const resend = log.getByRole('button', { name: text.resend }).first();
            const box = await resend.boundingBox();
            expect((box?.x ?? Infinity) + (box?.width ?? 0)).toBeLessThanOrEqual(fits.card);
          }
          await expectNoSidewaysScroll(page, `${language} ${width}`);
          await page.mouse.move(0, 0);
          await expectAccessible(page, `delivery log ${language} ${width}`);
        } finally {
          answerDelayMs = 0;
          await context.close();
        }
      });
    }

    it(`${language}: an open page shows its endpoint deactivated by a delivery, without a reload`, async () => {
      // A kitchen of its own: its record goes to this endpoint only.
      const kitchen = await createTenant(t.db);
      const member = await createMember(t.db, kitchen.organizationId, 'owner');
      const http = new DashboardBrowser(t.app);
      await http.signIn(member.email, PASSWORD);
      const unwanted = await subscribe(t, kitchen, `${receiver.url}/unwanted-${language}`, ['record.created']);
      const { context, page } = await signedInPage({ browser, base }, { http }, text.locale);
      try {
        // The page's own clock, moved on instead of waited for: the page reads an active endpoint
        // again every 15 s (IntegrationPage's WATCH_ACTIVE_MS). Once the page is shown its clock
        // stands still, so only the 15 s moved on below can bring the banner.
        await page.clock.install();
        await page.goto(`${base}/dashboard/integrations/${unwanted.id}`);
        await page.getByRole('heading', { name: text.log }).waitFor();
        await page.clock.pauseAt(Date.now() + 1_000);
        expect(await page.getByText(text.gone).count()).toBe(0);
        // A record is stored; its event reaches the receiver, which answers 410 Gone; the dispatcher
        // deactivates the endpoint; the open page says so at its next reading, with no reload.
        expect((await api(t.app, kitchen.key).post('/api/v1/records', validRecord())).statusCode).toBe(201);
        await expect
          .poll(() => t.db.webhookSubscription.findUniqueOrThrow({ where: { id: unwanted.id } }))
          .toMatchObject({ status: 'deactivated', deactivation_reason: 'gone' });
        await page.clock.fastForward(WATCH_ACTIVE_MS);
        // The page's clock then moves on only a millisecond at a time (its query library
        // hands the answer over in a timer), far from another 15 s.
        await expect
          .poll(async () => {
            await page.clock.runFor(1);
            return page.getByText(text.gone).count();
          })
          .toBe(1);
      } finally {
        await context.close();
      }
    });

    it(`${language}: a deactivated endpoint says why and when, at 1280 and 390 px`, async () => {
      const who = await owner();
      const gone = await subscribe(t, tenant, `${receiver.url}/gone-${language}`, ['record.created']);
      const failing = await subscribe(t, tenant, `${receiver.url}/failing-${language}`, ['record.created']);
      const at = new Date('2026-11-20T08:30:00.000Z');
      await t.db.webhookSubscription.update({
        where: { id: gone.id },
        data: { status: 'deactivated', deactivated_at: at, deactivation_reason: 'gone' },
      });
      await t.db.webhookSubscription.update({
        where: { id: failing.id },
        data: { status: 'deactivated', deactivated_at: at, deactivation_reason: 'failures', consecutive_failures: 5 },
      });
      for (const width of [1280, 390]) {
        const { context, page } = await signedInPage({ browser, base }, who, text.locale, width);
        try {
          await page.goto(`${base}/dashboard/integrations/${gone.id}`);
          await page.getByText(text.gone).waitFor();
          await expectNoSidewaysScroll(page, `gone ${language} ${width}`);
          await expectAccessible(page, `gone banner ${language} ${width}`);
          await page.goto(`${base}/dashboard/integrations/${failing.id}`);
          await page.getByText(text.failures).waitFor();
          expect(await page.getByText(text.gone).count()).toBe(0);
          await expectAccessible(page, `failures banner ${language} ${width}`);
        } finally {
          await context.close();
        }
      }
    });

    it(`${language}: without SMTP, an invitation shows its link once, at 1280 and 390 px`, async () => {
      const who = await owner();
      for (const width of [1280, 390]) {
        const { context, page } = await signedInPage({ browser, base }, who, text.locale, width);
        try {
          await page.goto(`${base}/dashboard/team`);
          await page.getByRole('button', { name: text.invite, exact: true }).click();
          const dialog = page.getByRole('dialog');
          const invited = `invited-${language}-${width}-${Date.now()}@example.com`;
          await dialog.getByLabel(text.email).fill(invited);
          await dialog.getByRole('button', { name: text.submit }).click();
          await dialog.getByRole('heading', { name: text.notMailed }).waitFor();
          const link = await dialog.getByLabel(text.link).inputValue();
          expect(link).toMatch(/\/dashboard\/invitation\?token=[\w-]{43}$/);
          const stored = await t.db.invitation.findFirstOrThrow({ where: { email: invited } });
          // No role chosen: the least privilege, a viewer's.
          expect(stored).toMatchObject({ role: 'viewer', language, accepted_at: null, revoked_at: null });
          expect(link).not.toContain(stored.token_hash);
          await expectNoSidewaysScroll(page, `invite ${language} ${width}`);
          await expectAccessible(page, `invitation link ${language} ${width}`);
          // Escape does not close it: only the deliberate button does.
          await page.keyboard.press('Escape');
          await dialog.getByLabel(text.link).waitFor();
          await dialog.getByRole('button', { name: text.done }).click();
          await dialog.waitFor({ state: 'detached' });
          await page.getByRole('cell', { name: invited }).first().waitFor();
          if (width === 390) continue;
          // Choosing the other language in the dashboard makes it the language of this person's e-mails.
          const other = language === 'en' ? 'es' : 'en';
          await page.getByRole('combobox', { name: text.language }).selectOption(other);
          await waitFor(
            async () => (await t.db.user.findUniqueOrThrow({ where: { id: who.id } })).language === other,
            10_000,
            'the saved language',
          );
        } finally {
          await context.close();
        }
      }
    });
  }
});
