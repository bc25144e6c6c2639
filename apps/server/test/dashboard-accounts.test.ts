import { randomUUID } from 'node:crypto';
import { deadline } from '@merma/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoOwnerLink, inviteFirstOwner } from '../src/admin/accounts.js';
import { capturingMailer, createMember, DashboardBrowser, failure, jobsDone, NO_SESSION, PASSWORD, tokenOf } from './dashboard-client.js';
import { api, createTenant, startTestApp, type TestContext, validRecord } from './helpers.js';

/**
 * How people get into the dashboard: the operator's invitation of a first owner, invitations from
 * the team page, password resets, the quickstart's sign-in link; and what a basic or pro
 * organisation sees. Links are one-time, expire, and never add an existing account to an
 * organisation without that account signing in.
 */
let t: TestContext;
const mailer = capturingMailer();

beforeAll(async () => {
  // In-memory sign-in counters (REDIS_URL unset for this app): the quickstart's demo owner has a
  // fixed address, whose reset e-mails Redis would count across test runs (3 an hour).
  // dashboard-security.test.ts covers the lockout with Redis.
  // Password-reset mails are sent by a job: the worker runs with the same mailer.
  t = await startTestApp({
    config: { TRUST_PROXY: 'loopback', PUBLIC_URL: 'https://merma.example.com/', REDIS_URL: '' },
    mailer,
    worker: { mailer },
  });
}, deadline(60_000));

afterAll(async () => {
  await t?.close();
});

describe('accounts.me', () => {
  it('answers 200 with null without a session (no 401 for a signed-out browser), and the session with the public URL once signed in', async () => {
    const anonymous = new DashboardBrowser(t.app);
    const res = await anonymous.raw('query', 'accounts.me');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ result: { data: null } });
    expect(res.headers['set-cookie']).toBeUndefined();
    // A cookie of no session is no session either, and member procedures still refuse it.
    anonymous.cookies.set('merma_session', 'x'.repeat(43));
    expect(await anonymous.session()).toEqual(NO_SESSION);

    const org = await createTenant(t.db);
    const member = await createMember(t.db, org.organizationId, 'viewer');
    const browser = new DashboardBrowser(t.app);
    await browser.signIn(member.email, PASSWORD);
    const me = await browser.query('accounts.me');
    expect(me).toMatchObject({
      user: { email: member.email },
      organization: { id: org.organizationId },
      public_url: 'https://merma.example.com',
    });
    await browser.mutate('accounts.signOut');
    expect(await browser.session()).toEqual(NO_SESSION);
  });
});

describe('invitations', () => {
  it('the first owner (merma-admin org create --admin-email) accepts by choosing a name and password, once', async () => {
    const org = await createTenant(t.db);
    await t.db.organization.update({ where: { id: org.organizationId }, data: { name: 'Grupo Horeca' } });
    const invited = await inviteFirstOwner(t.db, {
      organizationId: org.organizationId,
      organizationName: 'Grupo Horeca',
      email: 'chef@example.com',
      mailer,
      publicUrl: 'https://merma.example.com',
      log: { warn() {} },
    });
    expect(invited).toMatchObject({ email: 'chef@example.com', role: 'owner' });
    const link = mailer.linkTo('chef@example.com');
    expect(link).toMatch(/^https:\/\/merma\.example\.com\/dashboard\/invitation\?token=[\w-]{43}$/);
    const token = tokenOf(link);
    expect(JSON.stringify(await t.db.invitation.findMany())).not.toContain(token);

    const browser = new DashboardBrowser(t.app);
    expect(await browser.query('accounts.invitation', { token })).toMatchObject({
      organization: 'Grupo Horeca',
      email: 'chef@example.com',
      role: 'owner',
      has_account: false,
    });
    const short = await failure(browser.mutate('accounts.acceptInvitation', { token, name: 'Chef', password: 'short' }));
    expect(short).toMatchObject({ status: 400, code: 'validation_error' });
    expect(short.body.error.data.details).toEqual([expect.objectContaining({ path: 'password' })]);
    const missing = await failure(browser.mutate('accounts.acceptInvitation', { token }));
    expect(missing).toMatchObject({ status: 400, code: 'validation_error' });

    const me = await browser.mutate('accounts.acceptInvitation', { token, name: 'Chef Ana', password: PASSWORD });
    expect(me).toMatchObject({
      user: { email: 'chef@example.com', name: 'Chef Ana' },
      role: 'owner',
      organization: { id: org.organizationId },
    });
    expect(me.establishments).toEqual([expect.objectContaining({ id: org.establishmentId })]);
    expect(
      await failure(new DashboardBrowser(t.app).mutate('accounts.acceptInvitation', { token, name: 'X', password: PASSWORD })),
    ).toMatchObject({
      status: 404,
    });
    // and signs in with that password from now on
    expect((await new DashboardBrowser(t.app).signIn('chef@example.com', PASSWORD)).role).toBe('owner');
  });

  it('a member invites with a role; an existing account joins only when signed in as the invited address', async () => {
    const org = await createTenant(t.db);
    const owner = await createMember(t.db, org.organizationId, 'owner');
    const other = await createTenant(t.db);
    const someone = await createMember(t.db, other.organizationId, 'owner');
    const ownerBrowser = new DashboardBrowser(t.app);
    await ownerBrowser.signIn(owner.email, PASSWORD);
    const pending = await ownerBrowser.mutate('team.invite', { email: someone.email.toUpperCase(), role: 'developer' });
    expect(pending).toMatchObject({ email: someone.email, role: 'developer', invited_by: owner.email });
    expect((await ownerBrowser.query('team.get')).invitations).toEqual([expect.objectContaining({ id: pending.id })]);
    const token = tokenOf(mailer.linkTo(someone.email));

    const stranger = new DashboardBrowser(t.app);
    expect(await stranger.query('accounts.invitation', { token })).toMatchObject({ has_account: true });
    // a link alone does not take over an account, nor set its password
    expect(
      await failure(stranger.mutate('accounts.acceptInvitation', { token, name: 'Mallory', password: 'another password!' })),
    ).toMatchObject({
      status: 401,
    });
    const invitee = new DashboardBrowser(t.app);
    await invitee.signIn(someone.email, PASSWORD);
    const me = await invitee.mutate('accounts.acceptInvitation', { token });
    expect(me).toMatchObject({ role: 'developer', organization: { id: org.organizationId } });
    expect(me.organizations.map((o: { id: string }) => o.id).sort()).toEqual([org.organizationId, other.organizationId].sort());
    // switching back and forth
    expect((await invitee.mutate('accounts.switchOrganization', { organization_id: other.organizationId })).role).toBe('owner');
    expect((await invitee.query('accounts.me')).organization.id).toBe(other.organizationId);

    const team = await ownerBrowser.query('team.get');
    expect(team.invitations).toEqual([]);
    expect(team.members.map((m: { email: string; role: string }) => [m.email, m.role])).toContainEqual([someone.email, 'developer']);
    const actions = (await ownerBrowser.query('audit.list', {})).entries.map((e: { action: string }) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['member.invited', 'member.joined']));
  });

  it('an invitation whose e-mail cannot be sent is withdrawn and answered 503, and inviting again works once mail does', async () => {
    const org = await createTenant(t.db);
    const owner = await createMember(t.db, org.organizationId, 'owner');
    const browser = new DashboardBrowser(t.app);
    await browser.signIn(owner.email, PASSWORD);
    const refused = await failure(browser.mutate('team.invite', { email: 'cook@unreachable.example', role: 'viewer' }));
    expect(refused).toMatchObject({ status: 503, code: 'service_unavailable', message: expect.stringContaining('could not be sent') });
    expect((await browser.query('team.get')).invitations).toEqual([]);
    const stored = await t.db.invitation.findMany({ where: { organization_id: org.organizationId } });
    expect(stored).toEqual([
      expect.objectContaining({ email: 'cook@unreachable.example', revoked_at: expect.any(Date), accepted_at: null }),
    ]);
    const entries = (await browser.query('audit.list', {})).entries as { action: string; target: string; details: object }[];
    expect(entries.filter((e) => e.target === 'cook@unreachable.example').map((e) => [e.action, e.details])).toEqual([
      ['invitation.revoked', { invitation_id: stored[0]?.id, reason: 'mail_not_sent' }],
      ['member.invited', { invitation_id: stored[0]?.id, role: 'viewer' }],
    ]);
    // Once mail goes out, the same person is invited normally.
    const pending = await browser.mutate('team.invite', { email: 'cook@example.com', role: 'viewer' });
    expect((await browser.query('team.get')).invitations).toEqual([expect.objectContaining({ id: pending.id })]);
    expect(mailer.linkTo('cook@example.com')).toContain('token=');
  });

  it('merma-admin org create --admin-email: an e-mail that cannot be sent withdraws the invitation too (503), as on the team page', async () => {
    const org = await createTenant(t.db);
    const warnings: object[] = [];
    const invite = () =>
      inviteFirstOwner(t.db, {
        organizationId: org.organizationId,
        organizationName: 'Grupo Horeca',
        email: 'boss@unreachable.example',
        mailer,
        publicUrl: 'https://merma.example.com',
        log: { warn: (obj: object) => void warnings.push(obj) },
      });
    await expect(invite()).rejects.toMatchObject({ code: 'service_unavailable', message: expect.stringContaining('could not be sent') });
    const stored = await t.db.invitation.findMany({ where: { organization_id: org.organizationId } });
    expect(stored).toEqual([expect.objectContaining({ email: 'boss@unreachable.example', role: 'owner', revoked_at: expect.any(Date) })]);
    const audit = await t.db.auditEvent.findMany({ where: { organization_id: org.organizationId }, orderBy: { action: 'asc' } });
    expect(audit.map((e) => [e.action, e.actor_email, e.details])).toEqual([
      ['invitation.revoked', 'merma-admin', { invitation_id: stored[0]?.id, reason: 'mail_not_sent' }],
      ['member.invited', 'merma-admin', { invitation_id: stored[0]?.id, role: 'owner' }],
    ]);
    expect(warnings).toEqual([expect.objectContaining({ invitationId: stored[0]?.id })]);
  });

  it('a revoked or expired invitation is refused', async () => {
    const org = await createTenant(t.db);
    const owner = await createMember(t.db, org.organizationId, 'owner');
    const browser = new DashboardBrowser(t.app);
    await browser.signIn(owner.email, PASSWORD);
    const pending = await browser.mutate('team.invite', { email: 'late@example.com', role: 'viewer' });
    const token = tokenOf(mailer.linkTo('late@example.com'));
    await browser.mutate('team.revokeInvitation', { id: pending.id });
    expect(await failure(new DashboardBrowser(t.app).query('accounts.invitation', { token }))).toMatchObject({ status: 404 });
    await browser.mutate('team.invite', { email: 'late@example.com', role: 'viewer' });
    const second = tokenOf(mailer.linkTo('late@example.com'));
    await t.db.invitation.updateMany({
      where: { email: 'late@example.com', revoked_at: null },
      data: { expires_at: new Date(Date.now() - 1000) },
    });
    expect(await failure(new DashboardBrowser(t.app).query('accounts.invitation', { token: second }))).toMatchObject({ status: 404 });
    expect(await t.db.user.count({ where: { email: 'late@example.com' } })).toBe(0);
  });
});

describe('password reset', () => {
  it('mails a one-hour link; the new password ends every other session and the old password stops working', async () => {
    const org = await createTenant(t.db);
    const member = await createMember(t.db, org.organizationId, 'admin');
    const elsewhere = new DashboardBrowser(t.app);
    await elsewhere.signIn(member.email, PASSWORD);
    const before = mailer.sent.length;
    const answer = await new DashboardBrowser(t.app).mutate('accounts.requestPasswordReset', { email: member.email });
    const unknown = await new DashboardBrowser(t.app).mutate('accounts.requestPasswordReset', {
      email: `ghost-${randomUUID()}@example.com`,
    });
    expect(answer).toEqual(unknown);
    await jobsDone(t.db, 'accounts.password_reset_mail');
    expect(mailer.sent.length).toBe(before + 1);
    const link = mailer.linkTo(member.email);
    expect(link).toMatch(/^https:\/\/merma\.example\.com\/dashboard\/reset-password\?token=/);

    const browser = new DashboardBrowser(t.app);
    const me = await browser.mutate('accounts.resetPassword', { token: tokenOf(link), password: 'a brand new passphrase' });
    expect(me.user.email).toBe(member.email);
    expect(await elsewhere.session()).toEqual(NO_SESSION);
    expect((await browser.query('accounts.me')).user.email).toBe(member.email);
    expect(await failure(new DashboardBrowser(t.app).signIn(member.email, PASSWORD))).toMatchObject({ status: 401 });
    expect((await new DashboardBrowser(t.app).signIn(member.email, 'a brand new passphrase')).user.email).toBe(member.email);
    expect(
      await failure(
        new DashboardBrowser(t.app).mutate('accounts.resetPassword', { token: tokenOf(link), password: 'yet another passphrase' }),
      ),
    ).toMatchObject({
      status: 404,
    });
  });

  it('sends at most 3 reset e-mails an hour to one address', async () => {
    const org = await createTenant(t.db);
    const member = await createMember(t.db, org.organizationId, 'viewer');
    const before = mailer.sent.filter((m) => m.to === member.email).length;
    for (let i = 0; i < 3; i++) await new DashboardBrowser(t.app).mutate('accounts.requestPasswordReset', { email: member.email });
    expect(await failure(new DashboardBrowser(t.app).mutate('accounts.requestPasswordReset', { email: member.email }))).toMatchObject({
      status: 429,
    });
    await jobsDone(t.db, 'accounts.password_reset_mail');
    expect(mailer.sent.filter((m) => m.to === member.email).length).toBe(before + 3);
  });
});

describe('the quickstart sign-in link', () => {
  it('signs the demo owner in once', async () => {
    const org = await createTenant(t.db);
    const demo = await demoOwnerLink(t.db, { organizationId: org.organizationId, publicUrl: 'https://merma.example.com' });
    expect(demo.sign_in_link).toMatch(/^https:\/\/merma\.example\.com\/dashboard\/link\?token=[\w-]{43}$/);
    const browser = new DashboardBrowser(t.app);
    const me = await browser.mutate('accounts.signInWithLink', { token: tokenOf(demo.sign_in_link) });
    expect(me).toMatchObject({ role: 'owner', organization: { id: org.organizationId } });
    expect(
      await failure(new DashboardBrowser(t.app).mutate('accounts.signInWithLink', { token: tokenOf(demo.sign_in_link) })),
    ).toMatchObject({
      status: 404,
    });
    // Once the link is used, the demo owner (who has no password) chooses one through a reset.
    await new DashboardBrowser(t.app).mutate('accounts.requestPasswordReset', { email: demo.email });
    await jobsDone(t.db, 'accounts.password_reset_mail');
    const reset = mailer.linkTo(demo.email);
    await new DashboardBrowser(t.app).mutate('accounts.resetPassword', { token: tokenOf(reset), password: 'my own demo passphrase' });
    expect((await new DashboardBrowser(t.app).signIn(demo.email, 'my own demo passphrase')).role).toBe('owner');
  });
});

describe('session lifetime', () => {
  it('a session in use lives on 7 days past its last use (the cookies too), 30 days after sign-in at most', async () => {
    let now = new Date('2027-03-01T09:00:00Z');
    const timed = await startTestApp({ clock: () => now });
    try {
      const org = await createTenant(timed.db);
      const member = await createMember(timed.db, org.organizationId, 'viewer');
      const browser = new DashboardBrowser(timed.app);
      await browser.signIn(member.email, PASSWORD);
      const day = 86_400_000;
      const at = (days: number) => new Date(Date.parse('2027-03-01T09:00:00Z') + days * day);
      const cookieExpiry = (res: { cookies: unknown }) =>
        (res.cookies as { name: string; expires?: Date }[]).find((c) => c.name === 'merma_session')?.expires?.toISOString();
      for (const days of [6, 12, 18, 24]) {
        now = at(days);
        const res = await browser.raw('query', 'accounts.me');
        expect(res.statusCode, `day ${days}`).toBe(200);
        expect(res.json().result.data.user.email, `day ${days}`).toBe(member.email);
        expect(cookieExpiry(res), `day ${days}`).toBe(at(Math.min(days + 7, 30)).toISOString());
      }
      const [stored] = await timed.db.userSession.findMany({ where: { user_id: member.id } });
      expect(stored?.expires_at.toISOString()).toBe(at(30).toISOString());
      now = at(29.9);
      expect((await browser.query('accounts.me')).user.email).toBe(member.email);
      now = at(30);
      expect(await browser.session()).toEqual(NO_SESSION);
      // and one left alone for 7 days ends
      const idle = new DashboardBrowser(timed.app);
      await idle.signIn(member.email, PASSWORD);
      now = at(37.01);
      expect(await idle.session()).toEqual(NO_SESSION);
    } finally {
      await timed.close();
    }
  });
});

describe('plans without the API', () => {
  it('a pro organisation signs in and is told the API needs Enterprise; its keys get 403 as before', async () => {
    const org = await createTenant(t.db, { plan: 'pro' });
    const owner = await createMember(t.db, org.organizationId, 'owner');
    const browser = new DashboardBrowser(t.app);
    const me = await browser.signIn(owner.email, PASSWORD);
    expect(me.organization).toMatchObject({ plan: 'pro', api_enabled: false });
    const key = await browser.mutate('keys.create', { establishment_id: org.establishmentId, name: 'k', mode: 'test', permissions: ['*'] });
    const res = await api(t.app, key.key).post('/api/v1/records', validRecord());
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('plan_required');
  });
});

describe('in production', () => {
  it('marks the cookies Secure', async () => {
    const prod = await startTestApp({ config: { NODE_ENV: 'production', TRUST_PROXY: 'loopback' } });
    try {
      const org = await createTenant(prod.db);
      const owner = await createMember(prod.db, org.organizationId, 'owner');
      const res = await prod.app.inject({
        method: 'POST',
        url: '/trpc/accounts.signIn',
        headers: { 'content-type': 'application/json', 'x-forwarded-proto': 'https', 'sec-fetch-site': 'same-origin' },
        payload: JSON.stringify({ email: owner.email, password: PASSWORD }),
      });
      expect(res.statusCode).toBe(200);
      const cookies = res.cookies as { name: string; secure?: boolean; httpOnly?: boolean }[];
      expect(cookies.map((c) => [c.name, c.secure])).toEqual([
        ['__Host-merma_session', true],
        ['__Host-merma_csrf', true],
      ]);
    } finally {
      await prod.close();
    }
  });
});
