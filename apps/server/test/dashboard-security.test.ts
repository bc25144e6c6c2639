import { randomUUID } from 'node:crypto';
import { deadline } from '@merma/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_CONSECUTIVE_FAILURES } from '../src/modules/accounts/lockout.js';
import { capturingMailer, createMember, DashboardBrowser, failure, jobsDone, NO_SESSION, PASSWORD } from './dashboard-client.js';
import { api, createTenant, startTestApp, type TestContext, validRecord } from './helpers.js';
import { startReceiver, waitFor } from './receiver.js';

/**
 * The dashboard's procedures over HTTP: who may call what (session, role, tenant), the CSRF and
 * origin guards, the cookies' flags, the sign-in lockout, and that keys and webhook secrets never
 * show up anywhere after the one answer that creates them.
 */
let t: TestContext;
const logLines: string[] = [];
const mailer = capturingMailer();
let orgA: { organizationId: string; establishmentId: string };
let orgB: { organizationId: string; establishmentId: string };
let ownerA: { id: string; email: string };
let ownerB: { id: string; email: string };

beforeAll(async () => {
  const { Writable } = await import('node:stream');
  t = await startTestApp({
    config: { TRUST_PROXY: 'true', API_KEY_CACHE_TTL_MS: '0', WEBHOOKS_ALLOW_PRIVATE: 'true' },
    logLevel: 'debug',
    logStream: new Writable({
      write(chunk, _enc, done) {
        logLines.push(String(chunk));
        done();
      },
    }),
    mailer,
    worker: { mailer },
  });
  orgA = await createTenant(t.db);
  orgB = await createTenant(t.db);
  ownerA = await createMember(t.db, orgA.organizationId, 'owner');
  ownerB = await createMember(t.db, orgB.organizationId, 'owner');
}, deadline(60_000));

afterAll(async () => {
  await t?.close();
});

const PUBLIC = new Set([
  'accounts.signIn',
  'accounts.signOut',
  'accounts.signInWithLink',
  'accounts.invitation',
  'accounts.acceptInvitation',
  'accounts.requestPasswordReset',
  'accounts.resetPassword',
  // "Who am I?": answers null without a session (asserted below), never anyone's data.
  'accounts.me',
]);

async function signedIn(email: string, ip?: string) {
  const browser = new DashboardBrowser(t.app, ip);
  await browser.signIn(email, PASSWORD);
  return browser;
}

describe('without a session', () => {
  it('every procedure but signing in answers 401; auth.me answers null', async () => {
    const { createDashboardRouter } = await import('../src/trpc/dashboard.js');
    const router = createDashboardRouter({
      webhookTargets: { production: false, allowPrivate: true },
      secrets: undefined as never,
      publicUrl: 'http://x',
      catalog: undefined as never,
      signer: undefined as never,
      invitations: undefined as never,
      photos: undefined as never,
    });
    const procedures = Object.entries(router._def.procedures as unknown as Record<string, { _def: { type: 'query' | 'mutation' } }>);
    expect(procedures.length).toBeGreaterThan(25);
    const browser = new DashboardBrowser(t.app);
    const input = { establishment_id: orgA.establishmentId, livemode: false, id: orgA.establishmentId };
    const answers: Record<string, number> = {};
    for (const [path, procedure] of procedures) {
      if (PUBLIC.has(path)) continue;
      answers[path] = (await browser.raw(procedure._def.type, path, input)).statusCode;
    }
    expect(Object.entries(answers).filter(([, status]) => status !== 401)).toEqual([]);
    expect((await browser.raw('query', 'accounts.me')).json()).toEqual({ result: { data: null } });
  });
});

describe('signing in', () => {
  it('sets an httpOnly, SameSite=Strict session cookie and a readable CSRF cookie', async () => {
    const browser = new DashboardBrowser(t.app);
    const res = await browser.raw('mutation', 'accounts.signIn', { email: ownerA.email.toUpperCase(), password: PASSWORD });
    expect(res.statusCode).toBe(200);
    const cookies = res.cookies as {
      name: string;
      httpOnly?: boolean;
      sameSite?: string;
      path?: string;
      secure?: boolean;
      expires?: Date;
    }[];
    const session = cookies.find((c) => c.name === 'merma_session');
    const csrf = cookies.find((c) => c.name === 'merma_csrf');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
    expect(session?.secure).toBeFalsy(); // plain HTTP outside production; see the production test
    expect(csrf).toMatchObject({ sameSite: 'Strict', path: '/' });
    expect(csrf?.httpOnly).toBeFalsy();
    expect(session?.expires?.getTime()).toBeGreaterThan(Date.now() + 6 * 86_400_000);
    const me = res.json().result.data;
    expect(me).toMatchObject({
      user: { email: ownerA.email },
      role: 'owner',
      organization: { id: orgA.organizationId, api_enabled: true },
    });
    expect(me.csrf_token).toBe(browser.cookies.get('merma_csrf'));
    // The database holds the token's hash only.
    const stored = await t.db.userSession.findMany({ where: { user_id: ownerA.id } });
    expect(stored.map((s) => s.token_hash)).not.toContain(browser.cookies.get('merma_session'));
    expect(stored.every((s) => /^[0-9a-f]{64}$/.test(s.token_hash))).toBe(true);
  });

  it('answers a wrong password and an unknown e-mail alike, and locks the account after repeated failures', async () => {
    const victim = await createMember(t.db, orgA.organizationId, 'developer');
    const browser = new DashboardBrowser(t.app);
    const unknown = await failure(browser.signIn(`nobody-${randomUUID()}@example.com`, 'whatever-password'));
    const wrong = await failure(browser.signIn(victim.email, 'not the password'));
    expect(unknown).toMatchObject({ status: 401, code: 'unauthorized' });
    expect(wrong).toMatchObject({ status: 401, code: 'unauthorized', message: unknown.message });
    for (let i = 1; i < MAX_CONSECUTIVE_FAILURES; i++) {
      // from several addresses: the account is locked whatever the IP
      await failure(new DashboardBrowser(t.app).signIn(victim.email, `wrong ${i}`));
    }
    const locked = await new DashboardBrowser(t.app).raw('mutation', 'accounts.signIn', {
      email: victim.email,
      password: PASSWORD,
    });
    expect(locked.statusCode).toBe(429);
    expect(locked.json().error.data.app_code).toBe('rate_limited');
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(60);
    expect(await t.db.userSession.count({ where: { user_id: victim.id } })).toBe(0);
    await jobsDone(t.db, 'accounts.sign_in_failed'); // the audit entries are written by a job
    const failed = await t.db.auditEvent.count({ where: { actor_user_id: victim.id, action: 'user.sign_in_failed' } });
    expect(failed).toBe(MAX_CONSECUTIVE_FAILURES);
  });

  it('signs out everywhere: every other session of the user stops working', async () => {
    const member = await createMember(t.db, orgA.organizationId, 'viewer');
    const laptop = await signedIn(member.email);
    const phone = await signedIn(member.email);
    expect((await phone.query('accounts.me')).user.email).toBe(member.email);
    await laptop.mutate('accounts.signOutEverywhere');
    expect(laptop.cookies.has('merma_session')).toBe(false);
    expect(await phone.session()).toEqual(NO_SESSION);
    expect(await t.db.userSession.count({ where: { user_id: member.id } })).toBe(0);
  });
});

describe('cross-site requests', () => {
  it('refuses a change without the CSRF token, with a wrong one, from another site, or as a form', async () => {
    const browser = await signedIn(ownerA.email);
    const create = { establishment_id: orgA.establishmentId, name: 'csrf', mode: 'test', permissions: ['*'] };
    const missing = await browser.raw('mutation', 'keys.create', create, { csrf: false });
    expect(missing.statusCode).toBe(403);
    expect(missing.json().code).toBe('forbidden');
    const wrong = await browser.raw('mutation', 'keys.create', create, { headers: { 'x-csrf-token': 'A'.repeat(43) } });
    expect(wrong.statusCode).toBe(403);
    const crossSite = await browser.raw('mutation', 'keys.create', create, { headers: { 'sec-fetch-site': 'cross-site' } });
    expect(crossSite.statusCode).toBe(403);
    const otherOrigin = await browser.raw('mutation', 'keys.create', create, {
      headers: { 'sec-fetch-site': undefined, origin: 'https://evil.example' },
    });
    expect(otherOrigin.statusCode).toBe(403);
    const formPost = (headers: Record<string, string>) =>
      t.app.inject({
        method: 'POST',
        url: '/trpc/keys.create',
        headers: {
          cookie: `merma_session=${browser.cookies.get('merma_session')}`,
          'content-type': 'application/x-www-form-urlencoded',
          ...headers,
        },
        payload: `establishment_id=${orgA.establishmentId}&name=x&mode=test&permissions=*`,
      });
    expect((await formPost({})).statusCode).toBe(403);
    // Even with the token (which a cross-site form cannot know), only JSON is read.
    expect((await formPost({ 'x-csrf-token': browser.cookies.get('merma_csrf') as string })).statusCode).toBe(415);
    expect(await t.db.apiKey.count({ where: { name: { in: ['csrf', 'x'] } } })).toBe(0);
    const allowed = await browser.raw('mutation', 'keys.create', create);
    expect(allowed.statusCode).toBe(200);
  });

  it('refuses a cross-site sign-in (login CSRF)', async () => {
    const res = await new DashboardBrowser(t.app).raw(
      'mutation',
      'accounts.signIn',
      { email: ownerA.email, password: PASSWORD },
      {
        headers: { 'sec-fetch-site': 'cross-site' },
      },
    );
    expect(res.statusCode).toBe(403);
    expect(res.cookies).toEqual([]);
  });
});

describe('roles', () => {
  it('a viewer cannot see or make keys, invite or read the audit log — the server refuses, whatever the page shows', async () => {
    const viewer = await createMember(t.db, orgA.organizationId, 'viewer');
    const browser = await signedIn(viewer.email);
    const scope = { establishment_id: orgA.establishmentId };
    expect(await failure(browser.query('keys.list', scope))).toMatchObject({ status: 403, code: 'forbidden' });
    expect(await failure(browser.mutate('keys.create', { ...scope, name: 'v', mode: 'test', permissions: ['*'] }))).toMatchObject({
      status: 403,
    });
    expect(await failure(browser.mutate('team.invite', { email: 'x@example.com', role: 'viewer' }))).toMatchObject({ status: 403 });
    expect(await failure(browser.query('audit.list', {}))).toMatchObject({ status: 403 });
    expect(
      await failure(
        browser.mutate('webhooks.create', { ...scope, livemode: false, url: 'https://example.com/h', events: ['record.created'] }),
      ),
    ).toMatchObject({
      status: 403,
    });
    // but reads the integrations and the team
    expect(await browser.query('webhooks.list', { ...scope, livemode: false })).toEqual(expect.any(Array));
    expect((await browser.query('team.get')).members.length).toBeGreaterThan(0);
    expect(await t.db.apiKey.count({ where: { name: 'v' } })).toBe(0);
  });

  it('an admin cannot touch an owner; nobody removes or demotes the last owner', async () => {
    const org = await createTenant(t.db);
    const owner = await createMember(t.db, org.organizationId, 'owner');
    const admin = await createMember(t.db, org.organizationId, 'admin');
    const asAdmin = await signedIn(admin.email);
    expect(await failure(asAdmin.mutate('team.remove', { user_id: owner.id }))).toMatchObject({ status: 403 });
    expect(await failure(asAdmin.mutate('team.changeRole', { user_id: owner.id, role: 'viewer' }))).toMatchObject({ status: 403 });
    expect(await failure(asAdmin.mutate('team.changeRole', { user_id: admin.id, role: 'owner' }))).toMatchObject({ status: 403 });
    expect(await failure(asAdmin.mutate('team.invite', { email: 'boss@example.com', role: 'owner' }))).toMatchObject({ status: 403 });
    const asOwner = await signedIn(owner.email);
    expect(await failure(asOwner.mutate('team.remove', { user_id: owner.id }))).toMatchObject({ status: 409, code: 'conflict' });
    expect(await failure(asOwner.mutate('team.changeRole', { user_id: owner.id, role: 'admin' }))).toMatchObject({ status: 409 });
    // with a second owner, the first may step down
    await asOwner.mutate('team.changeRole', { user_id: admin.id, role: 'owner' });
    expect(await asOwner.mutate('team.changeRole', { user_id: owner.id, role: 'admin' })).toMatchObject({ role: 'admin' });
    const roles = await t.db.membership.findMany({ where: { organization_id: org.organizationId }, orderBy: { role: 'asc' } });
    expect(roles.map((r) => r.role).sort()).toEqual(['admin', 'owner']);
  });

  it('a removed member is signed out of the organisation at once', async () => {
    const member = await createMember(t.db, orgA.organizationId, 'developer');
    const browser = await signedIn(member.email);
    const owner = await signedIn(ownerA.email);
    await owner.mutate('team.remove', { user_id: member.id });
    expect(await browser.session()).toEqual(NO_SESSION);
  });
});

describe('tenancy', () => {
  it("a user of organisation A reads and changes nothing of B's", async () => {
    const asB = await signedIn(ownerB.email);
    const bKey = await asB.mutate('keys.create', {
      establishment_id: orgB.establishmentId,
      name: 'b key',
      mode: 'test',
      permissions: ['*'],
    });
    const receiver = await startReceiver();
    try {
      const bHook = await asB.mutate('webhooks.create', {
        establishment_id: orgB.establishmentId,
        livemode: false,
        url: receiver.url,
        events: ['record.created'],
      });
      const memberB = await createMember(t.db, orgB.organizationId, 'viewer');
      const asA = await signedIn(ownerA.email);
      const bScope = { establishment_id: orgB.establishmentId };
      expect(await failure(asA.query('keys.list', bScope))).toMatchObject({ status: 404 });
      expect(await failure(asA.mutate('keys.revoke', { ...bScope, id: bKey.id }))).toMatchObject({ status: 404 });
      expect(await failure(asA.mutate('keys.revoke', { establishment_id: orgA.establishmentId, id: bKey.id }))).toMatchObject({
        status: 404,
      });
      expect(await failure(asA.query('webhooks.get', { ...bScope, livemode: false, id: bHook.id }))).toMatchObject({ status: 404 });
      expect(
        await failure(asA.query('webhooks.get', { establishment_id: orgA.establishmentId, livemode: false, id: bHook.id })),
      ).toMatchObject({
        status: 404,
      });
      expect(
        await failure(asA.mutate('webhooks.delete', { establishment_id: orgA.establishmentId, livemode: false, id: bHook.id })),
      ).toMatchObject({
        status: 404,
      });
      expect(await failure(asA.mutate('team.remove', { user_id: memberB.id }))).toMatchObject({ status: 404 });
      expect(await failure(asA.mutate('team.changeRole', { user_id: memberB.id, role: 'admin' }))).toMatchObject({ status: 404 });
      expect(await failure(asA.mutate('accounts.switchOrganization', { organization_id: orgB.organizationId }))).toMatchObject({
        status: 404,
      });
      const team = await asA.query('team.get');
      expect(team.members.map((m: { email: string }) => m.email)).not.toContain(ownerB.email);
      const audit = await asA.query('audit.list', { limit: 200 });
      expect(audit.entries.length).toBeGreaterThan(0);
      expect(audit.entries.filter((e: { target: string | null }) => e.target === bKey.redacted || e.target === receiver.url)).toEqual([]);
      // B's things are untouched
      expect(await t.db.apiKey.findUnique({ where: { id: bKey.id } })).toMatchObject({ revoked_at: null });
      expect(await t.db.webhookSubscription.count({ where: { id: bHook.id } })).toBe(1);
      expect(await t.db.membership.count({ where: { user_id: memberB.id, role: 'viewer' } })).toBe(1);
    } finally {
      await receiver.close();
    }
  });
});

describe('API keys from the dashboard', () => {
  it('shows the key once, tracks its last use and revokes it (401 afterwards); the key and webhook secret appear in no log, list or audit entry', async () => {
    const browser = await signedIn(ownerA.email);
    const scope = { establishment_id: orgA.establishmentId };
    const created = await browser.mutate('keys.create', {
      ...scope,
      name: 'POS bridge',
      mode: 'test',
      permissions: ['records:read', 'records:write'],
    });
    expect(created).toMatchObject({ name: 'POS bridge', mode: 'test', permissions: ['records:read', 'records:write'], last_used_at: null });
    expect(created.key).toMatch(/^svc_test_[0-9A-Za-z]{32}$/);
    expect(created.redacted).toBe(`svc_test_…${created.key.slice(-4)}`);
    expect(created.created_by).toEqual({ id: ownerA.id, email: ownerA.email, name: expect.any(String) });

    const stored = await api(t.app, created.key).post('/api/v1/records', validRecord());
    expect(stored.statusCode).toBe(201);
    // written off the request's path, so looked for until it shows
    const listed = await waitFor(async () => {
      const key = (await browser.query('keys.list', scope)).find((k: { id: string }) => k.id === created.id);
      return key.last_used_at ? key : null;
    });
    expect(Date.parse(listed.last_used_at)).toBeGreaterThan(Date.now() - 60_000);
    expect(listed).not.toHaveProperty('key');

    const receiver = await startReceiver();
    let secret: string;
    try {
      const hook = await browser.mutate('webhooks.create', { ...scope, livemode: false, url: receiver.url, events: ['record.created'] });
      secret = hook.secret;
      expect(secret).toMatch(/^whsec_/);
      const rotated = await browser.mutate('webhooks.rotateSecret', { ...scope, livemode: false, id: hook.id, grace_period_seconds: 0 });
      const hooks = await browser.query('webhooks.list', { ...scope, livemode: false });
      expect(JSON.stringify(hooks)).not.toContain(secret);
      expect(JSON.stringify(hooks)).not.toContain(rotated.secret);
      secret = `${secret} ${rotated.secret}`;
    } finally {
      await receiver.close();
    }

    const revoked = await browser.mutate('keys.revoke', { ...scope, id: created.id });
    expect(revoked.revoked_at).not.toBeNull();
    const refused = await api(t.app, created.key).get('/api/v1/records');
    expect(refused.statusCode).toBe(401);

    const audit = await browser.query('audit.list', { limit: 200 });
    const actions = audit.entries.map((e: { action: string }) => e.action);
    expect(actions).toEqual(
      expect.arrayContaining(['api_key.created', 'api_key.revoked', 'webhook.created', 'webhook.secret_rotated', 'user.signed_in']),
    );
    const created_entry = audit.entries.find((e: { action: string }) => e.action === 'api_key.created');
    expect(created_entry).toMatchObject({ actor: { email: ownerA.email }, ip: browser.ip, target: created.redacted });
    const everything = [
      logLines.join(''),
      JSON.stringify(await t.db.auditEvent.findMany()),
      JSON.stringify(await browser.query('keys.list', scope)),
    ].join('\n');
    expect(logLines.length).toBeGreaterThan(10);
    expect(everything).not.toContain(created.key);
    for (const s of secret.split(' ')) {
      expect(everything).not.toContain(s);
      expect(everything).not.toContain(s.slice('whsec_'.length));
    }
    expect(everything).not.toContain(PASSWORD);
    expect(everything).not.toContain(browser.cookies.get('merma_session'));
  });
});
