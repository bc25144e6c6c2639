import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreatedInvitation } from '@merma/schema/dashboard';
import { deadline } from '@merma/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMember, DashboardBrowser, failure, PASSWORD } from './dashboard-client.js';
import { createTenant, drain, startTestApp, type TestContext } from './helpers.js';
import { readMail, startSmtp, waitFor } from './receiver.js';

/**
 * The dashboard's e-mails over a real SMTP server (smtp-server, started here), in the recipient's
 * language: an invitation in its inviter's dashboard language, which becomes the new user's; a
 * password reset in the language the user last chose in the dashboard. Without an SMTP server
 * (e-mails written to files under DATA_DIR/mail), a new invitation is not said to be sent: its
 * link is returned once to the inviter, and it works.
 */
const address = (label = 'cook') => `${label}-${randomUUID().slice(0, 8)}@example.com`;

async function signedIn(t: TestContext, email: string) {
  const browser = new DashboardBrowser(t.app);
  await browser.signIn(email, PASSWORD);
  return browser;
}

describe('with an SMTP server', () => {
  let t: TestContext;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  beforeAll(async () => {
    smtp = await startSmtp();
    t = await startTestApp({
      config: { SMTP_URL: smtp.url, MAIL_FROM: 'Merma <cuentas@merma.test>', API_KEY_CACHE_TTL_MS: '0', TRUST_PROXY: 'true' },
      worker: true,
    });
  }, deadline(60_000));
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });
  const mailTo = async (to: string) => {
    const mail = await waitFor(() => smtp.mails.find((m) => m.to.includes(to)), 10_000, `the e-mail to ${to}`);
    return readMail(mail.raw);
  };

  it("sends the invitation in the inviter's language, which becomes the new user's, and says it was sent (no link returned)", async () => {
    const org = await createTenant(t.db);
    const admin = await signedIn(t, (await createMember(t.db, org.organizationId, 'admin')).email);

    const english = address('en');
    const made = CreatedInvitation.parse(await admin.mutate('team.invite', { email: english, role: 'developer', language: 'en' }));
    expect(made).toMatchObject({ email: english, mailed: true, link: null });
    const en = await mailTo(english);
    expect(en.subject).toBe('You are invited to an organisation on Merma');
    expect(en.text.split('\n')[0]).toBe('You have been invited to join an organisation on Merma, with the role developer.');
    expect((await t.db.invitation.findUniqueOrThrow({ where: { id: made.id } })).language).toBe('en');

    const spanish = address('es');
    await admin.mutate('team.invite', { email: spanish, role: 'viewer', language: 'es' });
    const es = await mailTo(spanish);
    expect(es.subject).toBe('Te han invitado a una organización en Merma');
    expect(es.text.split('\n')[0]).toBe('Te han invitado a unirte a una organización en Merma, con el rol lector.');
    expect(es.text).toContain('Para aceptar, abre este enlace antes de 7 días:');

    // Accepting an English invitation makes English the new user's e-mail language.
    const token = /\/dashboard\/invitation\?token=([\w-]{43})/.exec(en.text)?.[1];
    await new DashboardBrowser(t.app).mutate('accounts.acceptInvitation', {
      token,
      name: 'New cook',
      password: 'a long enough password 1',
    });
    expect((await t.db.user.findUniqueOrThrow({ where: { email: english } })).language).toBe('en');
  });

  it("without a language in the request, uses the inviter's saved language, else Spanish", async () => {
    const org = await createTenant(t.db);
    const member = await createMember(t.db, org.organizationId, 'owner');
    const owner = await signedIn(t, member.email);
    const first = address();
    await owner.mutate('team.invite', { email: first, role: 'viewer' });
    expect((await mailTo(first)).subject).toBe('Te han invitado a una organización en Merma');
    await owner.mutate('accounts.setLanguage', { language: 'en' });
    expect((await t.db.user.findUniqueOrThrow({ where: { id: member.id } })).language).toBe('en');
    const second = address();
    await owner.mutate('team.invite', { email: second, role: 'viewer' });
    expect((await mailTo(second)).subject).toBe('You are invited to an organisation on Merma');
    // Only the two languages the dashboard speaks.
    expect(await failure(owner.mutate('accounts.setLanguage', { language: 'fr' }))).toMatchObject({ status: 400 });
    expect(await failure(owner.mutate('team.invite', { email: address(), role: 'viewer', language: 'de' }))).toMatchObject({ status: 400 });
  });

  it('sends the password reset in the language the user chose in the dashboard, Spanish when none', async () => {
    const org = await createTenant(t.db);
    const chose = await createMember(t.db, org.organizationId, 'viewer');
    await (await signedIn(t, chose.email)).mutate('accounts.setLanguage', { language: 'en' });
    const none = await createMember(t.db, org.organizationId, 'viewer');
    for (const who of [chose, none]) {
      const asked = await new DashboardBrowser(t.app).raw('mutation', 'accounts.requestPasswordReset', { email: who.email });
      expect(asked.statusCode).toBe(200);
    }
    await drain(t.db);
    const en = await mailTo(chose.email);
    expect(en.subject).toBe('Reset your Merma password');
    expect(en.text).toMatch(/open this link within an hour:\n\S+\/dashboard\/reset-password\?token=[\w-]{43}\n/);
    const es = await mailTo(none.email);
    expect(es.subject).toBe('Restablece tu contraseña de Merma');
    expect(es.text).toMatch(/abre este enlace antes de una hora:\n\S+\/dashboard\/reset-password\?token=[\w-]{43}\n/);
  });
});

describe('without an SMTP server', () => {
  let t: TestContext;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'merma-mail-'));
    t = await startTestApp({ config: { DATA_DIR: dataDir, API_KEY_CACHE_TTL_MS: '0', TRUST_PROXY: 'true' } });
  }, deadline(60_000));
  afterAll(async () => {
    await t?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('says the invitation was not mailed and returns its link once, which works; the team list never shows it', async () => {
    const org = await createTenant(t.db);
    const admin = await signedIn(t, (await createMember(t.db, org.organizationId, 'admin')).email);
    const invited = address();
    const made = CreatedInvitation.parse(await admin.mutate('team.invite', { email: invited, role: 'developer', language: 'en' }));
    expect(made).toMatchObject({ email: invited, role: 'developer', mailed: false });
    expect(made.link).toMatch(/^http:\/\/localhost:\d+\/dashboard\/invitation\?token=[\w-]{43}$/);
    // The e-mail went to a file only (outside production), holding the same link.
    const files = readdirSync(join(dataDir, 'mail'));
    expect(files).toHaveLength(1);
    expect(readFileSync(join(dataDir, 'mail', files[0] as string), 'utf8')).toContain(made.link as string);
    // Stored by hash only; listed without its link.
    const stored = await t.db.invitation.findUniqueOrThrow({ where: { id: made.id } });
    expect(JSON.stringify(stored)).not.toContain(new URL(made.link as string).searchParams.get('token'));
    expect(JSON.stringify(await admin.query('team.get'))).not.toContain('token=');

    const token = new URL(made.link as string).searchParams.get('token');
    const accepted = await new DashboardBrowser(t.app).mutate('accounts.acceptInvitation', {
      token,
      name: 'Invited by link',
      password: 'a long enough password 2',
    });
    expect(accepted).toMatchObject({ user: { email: invited }, role: 'developer' });
    expect(
      await t.db.membership.count({ where: { organization_id: org.organizationId, user: { email: invited }, role: 'developer' } }),
    ).toBe(1);
  });
});
