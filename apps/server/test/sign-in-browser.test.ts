import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { deadline } from '@merma/testing';
import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { appRendered, expectAccessible, hasChromium, signedInPage, startBrowserSuite, TEST_RESULTS } from './browser.js';
import { createMember, DashboardBrowser, PASSWORD } from './dashboard-client.js';
import type { Tenant, TestContext } from './helpers.js';

/**
 * The sign-in page a browser without a session gets (apps/dashboard/sign-in.html: an entry of its
 * own, without the app's router, query cache, tRPC client or message files), in a real browser:
 * what it downloads and asks before anyone signs in, its checks, the server's refusal in the
 * reader's language, a switch of language, and where it leads once signed in (the page asked for).
 * And the app's own sign-in route, where a browser whose session ended inside the app goes: the
 * same form, and back to the page without loading the app again.
 */
let t: TestContext;
let tenant: Tenant;
let browser: Browser;
let base: string;
startBrowserSuite((suite) => ({ t, tenant, browser, base } = suite));

const WORDS = {
  es: {
    title: 'Iniciar sesión',
    email: 'Correo electrónico',
    password: 'Contraseña',
    submit: 'Entrar',
    invalid: 'Correo o contraseña incorrectos.',
    emailInvalid: 'Escribe una dirección de correo válida',
    required: 'Obligatorio',
    language: 'Idioma',
    records: 'Registros',
  },
  en: {
    title: 'Sign in',
    email: 'E-mail',
    password: 'Password',
    submit: 'Sign in',
    invalid: 'Wrong e-mail or password.',
    emailInvalid: 'Enter a valid e-mail address',
    required: 'Required',
    language: 'Language',
    records: 'Records',
  },
} as const;

const CASES = [
  { language: 'es', other: 'en', locale: 'es-ES', width: 390 },
  { language: 'en', other: 'es', locale: 'en-GB', width: 1280 },
] as const;

const heading = (page: Page, name: string) => page.getByRole('heading', { name, level: 1 });

/** The scripts the page fetched (their file names) and its calls to the dashboard's API, as they happen. */
function watch(page: Page) {
  const seen = { scripts: [] as string[], calls: [] as string[], documents: 0 };
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (request.resourceType() === 'script') seen.scripts.push(url.pathname.split('/').pop() as string);
    if (request.resourceType() === 'document') seen.documents += 1;
    if (url.pathname.startsWith('/trpc/')) seen.calls.push(url.pathname.slice('/trpc/'.length));
  });
  return seen;
}

describe.skipIf(!hasChromium)('the sign-in page in a browser (reason when skipped: no chromium on this machine)', () => {
  it.each(CASES)(
    '$language, $width px: a page of the app opened without a session is the light sign-in page, which leads back to it',
    async ({ language, other, locale, width }) => {
      const words = WORDS[language];
      const member = await createMember(t.db, tenant.organizationId, 'owner');
      const context = await browser.newContext({ locale, viewport: { width, height: 900 }, bypassCSP: true });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (err) => errors.push(err.message));
      const seen = watch(page);
      try {
        await page.goto(`${base}/dashboard/records?mode=live`);
        await appRendered(page);
        await heading(page, words.title).waitFor();
        // At the sign-in page's address, the page asked for kept for afterwards, as the app's router writes it.
        const url = new URL(page.url());
        expect(url.pathname).toBe('/dashboard/sign-in');
        expect(url.searchParams.get('redirect')).toBe('/records?mode=live');
        expect(await page.title()).toBe(`${words.title} · Merma`);
        expect(
          await page.evaluate(
            () => (globalThis as unknown as { document: { documentElement: { lang: string } } }).document.documentElement.lang,
          ),
        ).toBe(language);
        // None of the app's code, none of its message files, no question to the API.
        expect(seen.scripts.some((f) => f.startsWith('sign-in-'))).toBe(true);
        expect(seen.scripts.filter((f) => /^(index|app|i18n|main|es|en)-/.test(f))).toEqual([]);
        expect(seen.calls).toEqual([]);
        await expectAccessible(page, `sign-in page (${language}, ${width} px)`);

        // Checked before anything is sent.
        await page.getByRole('button', { name: words.submit }).click();
        await page.getByText(words.emailInvalid, { exact: true }).waitFor();
        await page.getByText(words.required, { exact: true }).waitFor();
        mkdirSync(TEST_RESULTS, { recursive: true });
        await page.screenshot({ path: join(TEST_RESULTS, `sign-in-checked-${language}-${width}.png`), fullPage: true });
        await page.getByLabel(words.email).fill('not an address');
        await page.getByRole('button', { name: words.submit }).click();
        await page.getByText(words.emailInvalid, { exact: true }).waitFor();
        expect(seen.calls).toEqual([]);

        // A wrong password: refused in the reader's words; no session.
        await page.getByLabel(words.email).fill(member.email);
        await page.getByLabel(words.password, { exact: true }).fill('not the password at all');
        await page.getByRole('button', { name: words.submit }).click();
        await page.getByRole('alert').filter({ hasText: words.invalid }).waitFor();
        expect(seen.calls).toEqual(['accounts.signIn']);
        expect((await context.cookies()).map((c) => c.name)).not.toContain('merma_session');
        await expectAccessible(page, `sign-in refused (${language}, ${width} px)`);
        mkdirSync(TEST_RESULTS, { recursive: true });
        await page.screenshot({ path: join(TEST_RESULTS, `sign-in-refused-${language}-${width}.png`), fullPage: true });

        // The other language: the page, the refusal, the document's language and the remembered choice.
        const theirs = WORDS[other];
        await page.getByRole('combobox', { name: words.language }).selectOption(other);
        await heading(page, theirs.title).waitFor();
        await page.getByRole('alert').filter({ hasText: theirs.invalid }).waitFor();
        expect(await page.title()).toBe(`${theirs.title} · Merma`);
        expect((await context.cookies()).find((c) => c.name === 'merma_language')?.value).toBe(other);
        expect(
          await page.evaluate(() =>
            (globalThis as unknown as { localStorage: { getItem(k: string): string | null } }).localStorage.getItem('merma.language'),
          ),
        ).toBe(other);

        // The right password: the app opens at the page asked for, in the language chosen.
        await page.getByLabel(theirs.password, { exact: true }).fill(PASSWORD);
        await page.getByRole('button', { name: theirs.submit }).click();
        await page.waitForURL((u) => u.pathname === '/dashboard/records' && u.searchParams.get('mode') === 'live');
        await appRendered(page);
        await heading(page, theirs.records).waitFor();
        expect((await context.cookies()).map((c) => c.name)).toContain('merma_session');
        expect(seen.calls[1]).toBe('accounts.signIn');
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    },
    deadline(90_000),
  );

  it("a session that ended inside the app: the app's own sign-in route, the same form, back to the page without loading the app again", {
    timeout: deadline(90_000),
  }, async () => {
    const member = await createMember(t.db, tenant.organizationId, 'owner');
    const http = new DashboardBrowser(t.app);
    await http.signIn(member.email, PASSWORD);
    const { context, page } = await signedInPage({ browser, base }, { http }, 'en-GB', 1280);
    const seen = watch(page);
    try {
      // The browser still holds the cookies; the server no longer knows the session.
      await t.db.userSession.deleteMany({ where: { user_id: member.id } });
      await page.goto(`${base}/dashboard/records`);
      await page.waitForURL((u) => u.pathname === '/dashboard/sign-in');
      // (The router writes the page's address with its scope: `/records?mode=test`.)
      expect(new URL(new URL(page.url()).searchParams.get('redirect') ?? '', base).pathname).toBe('/records');
      await heading(page, WORDS.en.title).waitFor();
      // The app's code asked who is signed in: this is its route, not the sign-in page.
      expect(seen.calls.some((c) => c.includes('accounts.me'))).toBe(true);
      expect(seen.scripts.some((f) => f.startsWith('sign-in-'))).toBe(false);
      await page.getByLabel(WORDS.en.email).fill(member.email);
      await page.getByLabel(WORDS.en.password, { exact: true }).fill('not the password at all');
      await page.getByRole('button', { name: WORDS.en.submit }).click();
      await page.getByRole('alert').filter({ hasText: WORDS.en.invalid }).waitFor();
      await page.getByLabel(WORDS.en.password, { exact: true }).fill(PASSWORD);
      await page.getByRole('button', { name: WORDS.en.submit }).click();
      await heading(page, WORDS.en.records).waitFor();
      expect(new URL(page.url()).pathname).toBe('/dashboard/records');
      expect(seen.documents).toBe(1);
    } finally {
      await context.close();
    }
  });
});
