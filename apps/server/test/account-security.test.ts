import { randomUUID } from 'node:crypto';
import { deadline } from '@merma/testing';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import type { Mail, Mailer } from '../src/mail.js';
import { MAX_CONSECUTIVE_FAILURES, MAX_FAILURES_PER_IP, MAX_LINK_ATTEMPTS_PER_HOUR } from '../src/modules/accounts/lockout.js';
import { createUserToken, SIGN_IN_LINK_TTL_MS } from '../src/modules/accounts/service.js';
import { capturingMailer, createMember, DashboardBrowser, failure, NO_SESSION, PASSWORD, randomIp, tokenOf } from './dashboard-client.js';
import { createTenant, startTestApp, type TestContext } from './helpers.js';
import { waitFor } from './receiver.js';

/**
 * Attacks on the dashboard's accounts: parallel guessing against the lockout, account enumeration
 * through the password-reset form, links that outlive a password reset, guessable passwords, and
 * sessions left behind by a second sign-in.
 */

// Counts the argon2 hashes the server computes (the real function runs): a bad link must not
// cost one.
const hashed = vi.hoisted(() => ({ count: 0 }));
vi.mock('../src/modules/accounts/password.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../src/modules/accounts/password.js')>();
  return {
    ...real,
    hashPassword: (password: string) => {
      hashed.count += 1;
      return real.hashPassword(password);
    },
  };
});

/**
 * A mailer whose deliveries wait, from `hold()` until `release()`: a request that sends mail
 * itself cannot answer meanwhile. It delivers at once otherwise, so the tests that only need mail
 * do not depend on which test ran before them (the tests run in a random order).
 */
function blockingMailer() {
  const captured = capturingMailer();
  let gate: Promise<void> | null = null;
  let open = () => {};
  const mailer: Mailer & { sent: Mail[]; linkTo(to: string): string; hold(): void; release(): void; failFor: Set<string> } = {
    sent: captured.sent,
    linkTo: captured.linkTo,
    failFor: new Set(),
    async send(mail) {
      if (gate) await gate;
      if (mailer.failFor.has(mail.to)) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:25'), { code: 'ESOCKET' });
      await captured.send(mail);
    },
    close() {},
    hold() {
      gate = new Promise<void>((resolve) => {
        open = resolve;
      });
    },
    release() {
      gate = null;
      open();
    },
  };
  return mailer;
}

let t: TestContext;
const mailer = blockingMailer();

/** A one-time link token of `purpose` for the user, as the e-mails carry (valid an hour). */
const linkFor = (userId: string, purpose: 'password_reset' | 'sign_in', organizationId: string | null = null) =>
  createUserToken(t.db, { userId, purpose, organizationId, ttlMs: SIGN_IN_LINK_TTL_MS, now: new Date() });
let org: { organizationId: string; establishmentId: string };

beforeAll(async () => {
  t = await startTestApp({
    config: { TRUST_PROXY: 'loopback', PUBLIC_URL: 'https://merma.example.com' },
    mailer,
    worker: { mailer },
  });
  org = await createTenant(t.db);
}, deadline(60_000));

afterAll(async () => {
  mailer.release();
  await t?.close();
});

describe('the sign-in lockout under parallel guessing', () => {
  it('a burst of 60 parallel attempts (59 wrong, the right one last) evaluates at most the limit and never signs in', async () => {
    const victim = await createMember(t.db, org.organizationId, 'admin');
    const attempts = Array.from({ length: 60 }, (_, i) =>
      new DashboardBrowser(t.app, randomIp()).raw('mutation', 'accounts.signIn', {
        email: victim.email,
        password: i === 59 ? PASSWORD : `wrong guess ${i}`,
      }),
    );
    const statuses = (await Promise.all(attempts)).map((r) => r.statusCode);
    const evaluated = statuses.filter((s) => s === 401 || s === 200).length;
    expect(evaluated).toBeLessThanOrEqual(MAX_CONSECUTIVE_FAILURES);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(60 - MAX_CONSECUTIVE_FAILURES);
    expect(await t.db.userSession.count({ where: { user_id: victim.id } })).toBe(0);
  });

  it('a right password after fewer failures than the limit signs in, and the count starts again', async () => {
    const member = await createMember(t.db, org.organizationId, 'viewer');
    for (let i = 0; i < MAX_CONSECUTIVE_FAILURES - 1; i++) {
      await failure(new DashboardBrowser(t.app).signIn(member.email, `wrong ${i}`));
    }
    expect((await new DashboardBrowser(t.app).signIn(member.email, PASSWORD)).user.email).toBe(member.email);
    for (let i = 0; i < MAX_CONSECUTIVE_FAILURES - 1; i++) {
      await failure(new DashboardBrowser(t.app).signIn(member.email, `wrong again ${i}`));
    }
    expect((await new DashboardBrowser(t.app).signIn(member.email, PASSWORD)).user.email).toBe(member.email);
  });

  it('an address blocked for its wrong passwords cannot lock other accounts by trying them', async () => {
    const ip = randomIp();
    // 100 wrong passwords from one address, 10 at each of 10 addresses: the address is blocked.
    for (let a = 0; a < MAX_FAILURES_PER_IP / MAX_CONSECUTIVE_FAILURES; a++) {
      const email = `spray-${randomUUID()}@example.com`;
      await Promise.all(
        Array.from({ length: MAX_CONSECUTIVE_FAILURES }, (_, i) =>
          new DashboardBrowser(t.app, ip).raw('mutation', 'accounts.signIn', { email, password: `spray ${i}` }),
        ),
      );
    }
    const victim = await createMember(t.db, org.organizationId, 'owner');
    const fromBlocked = await Promise.all(
      Array.from({ length: MAX_CONSECUTIVE_FAILURES + 2 }, () =>
        new DashboardBrowser(t.app, ip).raw('mutation', 'accounts.signIn', { email: victim.email, password: 'not it' }),
      ),
    );
    expect(fromBlocked.map((r) => r.statusCode)).toEqual(Array(MAX_CONSECUTIVE_FAILURES + 2).fill(429));
    // The victim, from their own address, is not locked out.
    expect((await new DashboardBrowser(t.app).signIn(victim.email, PASSWORD)).user.email).toBe(victim.email);
  });

  it('100 parallel bad reset tokens from one address: at most the link limit are looked up, the rest are 429, none hashed', async () => {
    const ip = randomIp();
    const before = hashed.count;
    const answers = await Promise.all(
      Array.from({ length: 100 }, () =>
        new DashboardBrowser(t.app, ip).raw('mutation', 'accounts.resetPassword', {
          token: randomUUID().replaceAll('-', '').padEnd(43, 'x'),
          password: 'a perfectly good passphrase',
        }),
      ),
    );
    const statuses = answers.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 404).length).toBeLessThanOrEqual(MAX_LINK_ATTEMPTS_PER_HOUR);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(100 - MAX_LINK_ATTEMPTS_PER_HOUR);
    expect(statuses.every((s) => s === 404 || s === 429)).toBe(true);
    expect(hashed.count - before).toBe(0);
  });

  it('parallel bad sign-in links and invitation links are limited the same way', async () => {
    const ip = randomIp();
    const bad = () => randomUUID().replaceAll('-', '').padEnd(43, 'y');
    const answers = await Promise.all([
      ...Array.from({ length: 40 }, () => new DashboardBrowser(t.app, ip).raw('mutation', 'accounts.signInWithLink', { token: bad() })),
      ...Array.from({ length: 40 }, () => new DashboardBrowser(t.app, ip).raw('query', 'accounts.invitation', { token: bad() })),
    ]);
    const statuses = answers.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 404).length).toBeLessThanOrEqual(MAX_LINK_ATTEMPTS_PER_HOUR);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(80 - MAX_LINK_ATTEMPTS_PER_HOUR);
  });
});

describe('password reset does not reveal who has an account', () => {
  it('answers at once and alike for a known and an unknown address while the mail server hangs or fails; the mail is sent later', async () => {
    const member = await createMember(t.db, org.organizationId, 'developer');
    const ghost = `ghost-${randomUUID()}@example.com`;
    // While the mail server hangs, a request that sent the mail itself could not answer.
    mailer.hold();
    onTestFinished(() => mailer.release());
    const known = await new DashboardBrowser(t.app).raw('mutation', 'accounts.requestPasswordReset', { email: member.email });
    const unknown = await new DashboardBrowser(t.app).raw('mutation', 'accounts.requestPasswordReset', { email: ghost });
    expect(known.statusCode).toBe(200);
    expect(unknown.statusCode).toBe(200);
    expect(known.json()).toEqual(unknown.json());
    expect(mailer.sent.some((m) => m.to === member.email)).toBe(false);

    // A mail server that refuses the connection: still the same answer for both.
    const refused = await createMember(t.db, org.organizationId, 'viewer');
    mailer.failFor.add(refused.email);
    const failing = await new DashboardBrowser(t.app).raw('mutation', 'accounts.requestPasswordReset', { email: refused.email });
    expect(failing.statusCode).toBe(200);
    expect(failing.json()).toEqual(unknown.json());

    mailer.release();
    const link = await waitFor(() => mailer.sent.find((m) => m.to === member.email), 15_000, 'the reset mail');
    expect(link.text).toMatch(/https:\/\/merma\.example\.com\/dashboard\/reset-password\?token=[\w-]{43}/);
    expect(mailer.sent.some((m) => m.to === ghost)).toBe(false);
  });

  it('a wrong password writes the same thing during the request for a known and an unknown address; the known one is audited', async () => {
    // An app without a worker, so that what each request wrote is still there to be counted.
    const quiet = await startTestApp({ config: { TRUST_PROXY: 'loopback' } });
    try {
      const tenant = await createTenant(quiet.db);
      const member = await createMember(quiet.db, tenant.organizationId, 'viewer');
      const written = async () => {
        const [row] = await quiet.db.$queryRaw<{ jobs: number; audit: number }[]>`
          SELECT (SELECT count(*)::int FROM graphile_worker.jobs WHERE task_identifier = 'accounts.sign_in_failed') AS jobs,
                 (SELECT count(*)::int FROM audit_events) AS audit`;
        return row as { jobs: number; audit: number };
      };
      const start = await written();
      await failure(new DashboardBrowser(quiet.app).signIn(member.email, 'not the password at all'));
      const afterKnown = await written();
      await failure(new DashboardBrowser(quiet.app).signIn(`nobody-${randomUUID()}@example.com`, 'not the password at all'));
      const afterUnknown = await written();
      expect({ jobs: afterKnown.jobs - start.jobs, audit: afterKnown.audit - start.audit }).toEqual({ jobs: 1, audit: 0 });
      expect({ jobs: afterUnknown.jobs - afterKnown.jobs, audit: afterUnknown.audit - afterKnown.audit }).toEqual({ jobs: 1, audit: 0 });
      await quiet.startWorker();
      await waitFor(
        async () =>
          (await quiet.db.auditEvent.count({ where: { actor_user_id: member.id, action: 'user.sign_in_failed' } })) === 1 || undefined,
        15_000,
        'the failed sign-in in the audit log',
      );
      expect(await quiet.db.auditEvent.count({ where: { action: 'user.sign_in_failed' } })).toBe(1);
    } finally {
      await quiet.close();
    }
  });
});

describe('one-time links after a password reset or signing out everywhere', () => {
  it('a password reset ends every outstanding sign-in link of the user', async () => {
    const member = await createMember(t.db, org.organizationId, 'admin');
    const signInLink = await linkFor(member.id, 'sign_in', org.organizationId);
    const reset = await linkFor(member.id, 'password_reset');
    await new DashboardBrowser(t.app).mutate('accounts.resetPassword', { token: reset, password: 'a fresh kitchen passphrase' });
    expect(await failure(new DashboardBrowser(t.app).mutate('accounts.signInWithLink', { token: signInLink }))).toMatchObject({
      status: 404,
    });
  });

  it('signing out everywhere ends outstanding sign-in and reset links too', async () => {
    const member = await createMember(t.db, org.organizationId, 'developer');
    const signInLink = await linkFor(member.id, 'sign_in');
    const reset = await linkFor(member.id, 'password_reset');
    const browser = new DashboardBrowser(t.app);
    await browser.signIn(member.email, PASSWORD);
    await browser.mutate('accounts.signOutEverywhere');
    expect(await failure(new DashboardBrowser(t.app).mutate('accounts.signInWithLink', { token: signInLink }))).toMatchObject({
      status: 404,
    });
    expect(
      await failure(new DashboardBrowser(t.app).mutate('accounts.resetPassword', { token: reset, password: 'another fine passphrase' })),
    ).toMatchObject({ status: 404 });
  });
});

describe('guessable passwords', () => {
  const weak = ['aaaaaaaaaaaa', 'password1234', 'qwertyuiopas', '123456789012', 'iloveyou1234'];

  it.each(weak)('refuses %s as a new password (400, nothing changed)', async (password) => {
    const member = await createMember(t.db, org.organizationId, 'viewer');
    const reset = await linkFor(member.id, 'password_reset');
    const refused = await failure(new DashboardBrowser(t.app).mutate('accounts.resetPassword', { token: reset, password }));
    expect(refused).toMatchObject({ status: 400, code: 'validation_error' });
    expect(refused.body.error.data.details).toEqual([{ path: 'password', message: expect.any(String) }]);
    // The link was not used up by a refused password, and the old password still works.
    expect((await new DashboardBrowser(t.app).signIn(member.email, PASSWORD)).user.email).toBe(member.email);
    await new DashboardBrowser(t.app).mutate('accounts.resetPassword', { token: reset, password: 'a sturdy pantry passphrase' });
  });

  it('refuses a password that contains the e-mail address or its name part', async () => {
    const email = `rosalind.pastry-${randomUUID().slice(0, 6)}@example.com`;
    const member = await createMember(t.db, org.organizationId, 'viewer', email);
    const token = () => linkFor(member.id, 'password_reset');
    for (const password of [`${email}!`, `${email.split('@')[0]}2026`]) {
      const refused = await failure(new DashboardBrowser(t.app).mutate('accounts.resetPassword', { token: await token(), password }));
      expect(refused).toMatchObject({ status: 400, code: 'validation_error' });
    }
  });

  it('refuses a guessable password when an invitation creates the account', async () => {
    const admin = await createMember(t.db, org.organizationId, 'owner');
    const browser = new DashboardBrowser(t.app);
    await browser.signIn(admin.email, PASSWORD);
    const invited = `new-cook-${randomUUID().slice(0, 6)}@example.com`;
    await browser.mutate('team.invite', { email: invited, role: 'viewer' });
    const link = await waitFor(() => mailer.sent.find((m) => m.to === invited), 15_000, 'the invitation');
    const token = tokenOf(link.text.match(/https?:\/\/\S+\?token=[\w-]+/)?.[0] as string);
    const refused = await failure(
      new DashboardBrowser(t.app).mutate('accounts.acceptInvitation', { token, name: 'New cook', password: 'password1234' }),
    );
    expect(refused).toMatchObject({ status: 400, code: 'validation_error' });
    const me = await new DashboardBrowser(t.app).mutate('accounts.acceptInvitation', {
      token,
      name: 'New cook',
      password: 'saffron under the stairs',
    });
    expect(me.user.email).toBe(invited);
  });
});

describe('signing in again on the same browser', () => {
  it('ends the session the browser had, so no session is left behind', async () => {
    const member = await createMember(t.db, org.organizationId, 'viewer');
    const browser = new DashboardBrowser(t.app);
    await browser.signIn(member.email, PASSWORD);
    const first = browser.cookies.get('merma_session') as string;
    await browser.signIn(member.email, PASSWORD);
    expect(browser.cookies.get('merma_session')).not.toBe(first);
    expect(await t.db.userSession.count({ where: { user_id: member.id } })).toBe(1);
    const stale = new DashboardBrowser(t.app);
    stale.cookies.set('merma_session', first);
    expect(await stale.session()).toEqual(NO_SESSION);
  });
});
