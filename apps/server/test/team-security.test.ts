import { randomInt, randomUUID } from 'node:crypto';
import { deadline } from '@merma/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inviteFirstOwner } from '../src/admin/accounts.js';
import { createEstablishment } from '../src/admin/service.js';
import { capturingMailer, createMember, DashboardBrowser, failure, PASSWORD } from './dashboard-client.js';
import { api, createTenant, startTestApp, type TestContext } from './helpers.js';

/**
 * Team management under abuse: invitations are limited per inviter, organisation and address and
 * their e-mail carries no user-written text where a reader trusts it (subject, first line); a
 * pending owner invitation is replaced only by an owner, and every replacement is audited; a
 * removed member's API keys are revoked with the removal when the remover asks (the dashboard's
 * default), and the keys page names each key's creator.
 *
 * Counters live in Redis when REDIS_URL is set (as in production) and outlast a test run: every
 * organisation, user and address here is new, so no two runs share a counter.
 */
let t: TestContext;
const mailer = capturingMailer();

beforeAll(async () => {
  t = await startTestApp({ config: { TRUST_PROXY: 'true', API_KEY_CACHE_TTL_MS: '0' }, mailer });
}, deadline(60_000));

afterAll(async () => {
  await t?.close();
});

const address = (label = 'cook') => `${label}-${randomUUID().slice(0, 8)}@example.com`;
const mailsTo = (to: string) => mailer.sent.filter((m) => m.to === to);

async function signedIn(email: string) {
  const browser = new DashboardBrowser(t.app);
  await browser.signIn(email, PASSWORD);
  return browser;
}

async function auditOf(organizationId: string) {
  const rows = await t.db.auditEvent.findMany({ where: { organization_id: organizationId }, orderBy: { created_at: 'asc' } });
  return rows.map((r) => ({ action: r.action, target: r.target, actor: r.actor_email, details: r.details as Record<string, unknown> }));
}

describe('invitation limits', () => {
  it('a burst from one admin: 20 an hour are sent, the rest answered 429 with Retry-After, neither stored nor mailed', async () => {
    const org = await createTenant(t.db);
    const admin = await createMember(t.db, org.organizationId, 'admin');
    const browser = await signedIn(admin.email);
    const invited = Array.from({ length: 25 }, () => address());
    const answers = await Promise.all(invited.map((email) => browser.raw('mutation', 'team.invite', { email, role: 'viewer' })));
    const statuses = answers.map((a) => a.statusCode);
    expect(statuses.filter((s) => s === 200)).toHaveLength(20);
    expect(statuses.filter((s) => s === 429)).toHaveLength(5);
    for (const refused of answers.filter((a) => a.statusCode === 429)) {
      expect(refused.json().error.data.app_code).toBe('rate_limited');
      const retryAfter = Number(refused.headers['retry-after']);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(3600);
    }
    expect(mailer.sent.filter((m) => invited.includes(m.to))).toHaveLength(20);
    expect(await t.db.invitation.count({ where: { organization_id: org.organizationId } })).toBe(20);
    expect((await auditOf(org.organizationId)).filter((e) => e.action === 'member.invited')).toHaveLength(20);
    // The refused addresses got nothing.
    const refusedTo = invited.filter((_, i) => statuses[i] === 429);
    expect(mailer.sent.filter((m) => refusedTo.includes(m.to))).toEqual([]);
  });

  it('an organisation sends at most 50 a day, whoever the inviters', async () => {
    const org = await createTenant(t.db);
    const admins = await Promise.all([1, 2, 3].map(() => createMember(t.db, org.organizationId, 'admin')));
    const browsers = await Promise.all(admins.map((a) => signedIn(a.email)));
    for (const [i, count] of [20, 20, 10].entries()) {
      for (let n = 0; n < count; n++) await browsers[i]?.mutate('team.invite', { email: address(), role: 'viewer' });
    }
    const last = address();
    const refused = await browsers[2]?.raw('mutation', 'team.invite', { email: last, role: 'viewer' });
    expect(refused?.statusCode).toBe(429);
    expect(refused?.json().error.data.app_code).toBe('rate_limited');
    expect(Number(refused?.headers['retry-after'])).toBeGreaterThan(3600); // the day's window, not the inviter's hour
    expect(mailsTo(last)).toEqual([]);
    expect(await t.db.invitation.count({ where: { organization_id: org.organizationId } })).toBe(50);
  });

  it('one address gets at most 3 a day from an organisation, across inviters; the pending invitation stays as it was', async () => {
    const org = await createTenant(t.db);
    const first = await signedIn((await createMember(t.db, org.organizationId, 'admin')).email);
    const second = await signedIn((await createMember(t.db, org.organizationId, 'owner')).email);
    const target = address('target');
    await first.mutate('team.invite', { email: target, role: 'viewer' });
    await second.mutate('team.invite', { email: target, role: 'developer' });
    const third = await first.mutate('team.invite', { email: target, role: 'viewer' });
    const refused = await second.raw('mutation', 'team.invite', { email: target.toUpperCase(), role: 'admin' });
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error.data.app_code).toBe('rate_limited');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(mailsTo(target)).toHaveLength(3);
    const stored = await t.db.invitation.findMany({ where: { organization_id: org.organizationId, email: target } });
    expect(stored).toHaveLength(3);
    expect(stored.filter((i) => i.revoked_at === null).map((i) => [i.id, i.role])).toEqual([[third.id, 'viewer']]);
    // The inviter refused for this address still invites others.
    await second.mutate('team.invite', { email: address(), role: 'viewer' });
  });

  it('a refused invitation (a role the inviter cannot grant, an existing member) uses up no allowance', async () => {
    const org = await createTenant(t.db);
    const admin = await signedIn((await createMember(t.db, org.organizationId, 'admin')).email);
    const member = await createMember(t.db, org.organizationId, 'viewer');
    const target = address('boss');
    for (let i = 0; i < 4; i++) {
      expect(await failure(admin.mutate('team.invite', { email: target, role: 'owner' }))).toMatchObject({ status: 403 });
      expect(await failure(admin.mutate('team.invite', { email: member.email, role: 'viewer' }))).toMatchObject({ status: 409 });
    }
    for (let i = 0; i < 3; i++) await admin.mutate('team.invite', { email: target, role: 'viewer' });
    expect(mailsTo(target)).toHaveLength(3);
  });
});

describe('the invitation e-mail', () => {
  it('says nothing user-written in its subject or first line; the inviter and organisation come later, quoted, on one line each', async () => {
    const org = await createTenant(t.db);
    await t.db.organization.update({
      where: { id: org.organizationId },
      data: { name: 'Merma Security Team: your account is suspended, verify at http://phish.example' },
    });
    const admin = await createMember(t.db, org.organizationId, 'admin');
    await t.db.user.update({
      where: { id: admin.id },
      data: { name: 'URGENT: confirm your password at http://phish.example\n\nThe Merma team' },
    });
    const browser = await signedIn(admin.email);
    const target = address();
    await browser.mutate('team.invite', { email: target, role: 'developer', language: 'en' });
    const [mail] = mailsTo(target);
    expect(mail?.subject).toBe('You are invited to an organisation on Merma');
    const lines = mail?.text.split('\n') ?? [];
    expect(lines[0]).not.toMatch(/phish|URGENT|Security Team/);
    expect(lines[0]).toContain('developer');
    // Later, quoted, and the name's line breaks do not make lines of their own.
    expect(lines).toContain('Invited by: “URGENT: confirm your password at http://phish.example The Merma team”');
    expect(lines).toContain('Organisation: “Merma Security Team: your account is suspended, verify at http://phish.example”');
    expect(lines.filter((l) => l.startsWith('The Merma team'))).toEqual([]);
    expect(mail?.text).toMatch(/\/dashboard\/invitation\?token=[\w-]{43}/);

    // The same in Spanish.
    const spanish = address();
    await browser.mutate('team.invite', { email: spanish, role: 'developer', language: 'es' });
    const [es] = mailsTo(spanish);
    expect(es?.subject).toBe('Te han invitado a una organización en Merma');
    const esLines = es?.text.split('\n') ?? [];
    expect(esLines[0]).not.toMatch(/phish|URGENT|Security Team/);
    expect(esLines).toContain('Invitación de: “URGENT: confirm your password at http://phish.example The Merma team”');
    expect(esLines).toContain('Organización: “Merma Security Team: your account is suspended, verify at http://phish.example”');
  });
});

describe('replacing a pending invitation', () => {
  it('an admin cannot replace a pending owner invitation by inviting the address again (403, nothing changes)', async () => {
    const org = await createTenant(t.db);
    const owner = await signedIn((await createMember(t.db, org.organizationId, 'owner')).email);
    const admin = await signedIn((await createMember(t.db, org.organizationId, 'admin')).email);
    const target = address('heir');
    const ownerInvitation = await owner.mutate('team.invite', { email: target, role: 'owner' });
    const before = await auditOf(org.organizationId);
    const refused = await failure(admin.mutate('team.invite', { email: target, role: 'viewer' }));
    expect(refused).toMatchObject({ status: 403, code: 'forbidden' });
    const stored = await t.db.invitation.findMany({ where: { organization_id: org.organizationId, email: target } });
    expect(stored.map((i) => [i.id, i.role, i.revoked_at])).toEqual([[ownerInvitation.id, 'owner', null]]);
    expect((await owner.query('team.get')).invitations).toEqual([expect.objectContaining({ id: ownerInvitation.id, role: 'owner' })]);
    expect(mailsTo(target)).toHaveLength(1);
    expect(await auditOf(org.organizationId)).toEqual(before);
  });

  it('an owner (or the operator) replacing an invitation is audited as its revocation', async () => {
    const org = await createTenant(t.db);
    const ownerUser = await createMember(t.db, org.organizationId, 'owner');
    const owner = await signedIn(ownerUser.email);
    const target = address('heir');
    const first = await owner.mutate('team.invite', { email: target, role: 'owner' });
    const second = await owner.mutate('team.invite', { email: target, role: 'viewer' });
    expect((await t.db.invitation.findUnique({ where: { id: first.id } }))?.revoked_at).toEqual(expect.any(Date));
    const entries = (await auditOf(org.organizationId)).filter((e) => e.target === target);
    expect(entries).toContainEqual({
      action: 'invitation.revoked',
      target,
      actor: ownerUser.email,
      details: { invitation_id: first.id, role: 'owner', reason: 'replaced', replaced_by: second.id },
    });
    // An admin replaces a viewer's invitation, audited the same way.
    const admin = await signedIn((await createMember(t.db, org.organizationId, 'admin')).email);
    const third = await admin.mutate('team.invite', { email: target, role: 'developer' });
    expect((await auditOf(org.organizationId)).filter((e) => e.action === 'invitation.revoked' && e.target === target)).toHaveLength(2);
    // merma-admin org create --admin-email sent again replaces it too (the operator acts as an owner).
    const other = address('ops');
    await inviteFirstOwner(t.db, {
      organizationId: org.organizationId,
      organizationName: 'Org',
      email: other,
      mailer,
      publicUrl: 'http://x',
      log: { warn() {} },
    });
    await inviteFirstOwner(t.db, {
      organizationId: org.organizationId,
      organizationName: 'Org',
      email: other,
      mailer,
      publicUrl: 'http://x',
      log: { warn() {} },
    });
    const ops = await t.db.invitation.findMany({
      where: { organization_id: org.organizationId, email: other },
      orderBy: { created_at: 'asc' },
    });
    expect(ops.map((i) => i.revoked_at === null)).toEqual([false, true]);
    expect((await auditOf(org.organizationId)).filter((e) => e.target === other).map((e) => [e.action, e.actor, e.details.reason])).toEqual(
      expect.arrayContaining([
        ['member.invited', 'merma-admin', undefined],
        ['member.invited', 'merma-admin', undefined],
        ['invitation.revoked', 'merma-admin', 'replaced'],
      ]),
    );
    expect(third.role).toBe('developer');
  });
});

describe("a removed member's API keys", () => {
  /** An organisation with two establishments, an admin, and a developer who made a key in each. */
  async function orgWithDeveloperKeys() {
    const org = await createTenant(t.db);
    const second = await createEstablishment(t.db, {
      org: org.organizationId,
      name: 'Obrador',
      cif: `B${randomInt(10_000_000, 99_999_999)}`,
      sector: 'horeca',
      timezone: 'Europe/Madrid',
    });
    const admin = await createMember(t.db, org.organizationId, 'admin');
    const developer = await createMember(t.db, org.organizationId, 'developer');
    const asDeveloper = await signedIn(developer.email);
    const keys = [];
    for (const establishment of [org.establishmentId, second.id]) {
      keys.push(
        await asDeveloper.mutate('keys.create', { establishment_id: establishment, name: 'POS', mode: 'test', permissions: ['*'] }),
      );
    }
    // one already revoked: it stays as it was
    const old = await asDeveloper.mutate('keys.create', {
      establishment_id: org.establishmentId,
      name: 'old',
      mode: 'test',
      permissions: ['*'],
    });
    await asDeveloper.mutate('keys.revoke', { establishment_id: org.establishmentId, id: old.id });
    const asAdmin = await signedIn(admin.email);
    const adminKey = await asAdmin.mutate('keys.create', {
      establishment_id: org.establishmentId,
      name: 'ERP',
      mode: 'test',
      permissions: ['*'],
    });
    return { org, admin, asAdmin, developer, keys, old, adminKey };
  }
  const works = async (key: string) => (await api(t.app, key).get('/api/v1/records')).statusCode;

  it('the removal dialog learns how many active keys the member made; only owners and admins may ask', async () => {
    const { asAdmin, developer } = await orgWithDeveloperKeys();
    expect(await asAdmin.query('team.memberApiKeys', { user_id: developer.id })).toEqual({ active: 2 });
    const asDeveloper = await signedIn(developer.email);
    expect(await failure(asDeveloper.query('team.memberApiKeys', { user_id: developer.id }))).toMatchObject({ status: 403 });
    const stranger = await createTenant(t.db);
    const outsider = await createMember(t.db, stranger.organizationId, 'developer');
    expect(await failure(asAdmin.query('team.memberApiKeys', { user_id: outsider.id }))).toMatchObject({ status: 404 });
  });

  it('removed with revoke_keys: the keys they made in this organisation answer 401 at once, audited by key id; others keep working', async () => {
    const { org, admin, asAdmin, developer, keys, old, adminKey } = await orgWithDeveloperKeys();
    // The same developer also works for another organisation, with a key there.
    const elsewhere = await createTenant(t.db);
    await t.db.membership.create({ data: { organization_id: elsewhere.organizationId, user_id: developer.id, role: 'developer' } });
    const asDeveloper = await signedIn(developer.email);
    await asDeveloper.mutate('accounts.switchOrganization', { organization_id: elsewhere.organizationId });
    const elsewhereKey = await asDeveloper.mutate('keys.create', {
      establishment_id: elsewhere.establishmentId,
      name: 'theirs',
      mode: 'test',
      permissions: ['*'],
    });
    for (const k of keys) expect(await works(k.key)).toBe(200);

    const removed = await asAdmin.mutate('team.remove', { user_id: developer.id, revoke_keys: true });
    expect(removed).toEqual({ ok: true, revoked_keys: 2 });
    for (const k of keys) expect(await works(k.key)).toBe(401);
    expect(await works(adminKey.key)).toBe(200);
    expect(await works(elsewhereKey.key)).toBe(200);
    expect(await works(org.key)).toBe(200);
    const oldRow = await t.db.apiKey.findUniqueOrThrow({ where: { id: old.id } });
    expect(oldRow.revoked_at?.getTime()).toBeLessThan(Date.now());

    const entries = await auditOf(org.organizationId);
    const revokedIds = keys.map((k) => k.id).sort();
    expect(entries.find((e) => e.action === 'member.removed')).toEqual({
      action: 'member.removed',
      target: developer.email,
      actor: admin.email,
      details: { role: 'developer', revoked_key_ids: revokedIds },
    });
    const keyEntries = entries.filter((e) => e.action === 'api_key.revoked' && e.details.reason === 'member_removed');
    expect(keyEntries.map((e) => e.details.key_id).sort()).toEqual(revokedIds);
    expect(keyEntries.map((e) => e.target).sort()).toEqual(keys.map((k) => k.redacted).sort());
    const everything = JSON.stringify(entries);
    for (const k of keys) expect(everything).not.toContain(k.key);
    expect(await failure(asAdmin.query('team.memberApiKeys', { user_id: developer.id }))).toMatchObject({ status: 404 });
  });

  it('removed without revoke_keys: the keys keep working (they belong to integrations) and the audit names them as kept', async () => {
    const { org, asAdmin, developer, keys } = await orgWithDeveloperKeys();
    expect(await asAdmin.mutate('team.remove', { user_id: developer.id })).toEqual({ ok: true, revoked_keys: 0 });
    for (const k of keys) expect(await works(k.key)).toBe(200);
    const removed = (await auditOf(org.organizationId)).find((e) => e.action === 'member.removed');
    expect(removed?.details).toEqual({ role: 'developer', kept_key_ids: keys.map((k) => k.id).sort() });
  });

  it("an admin cannot remove an owner, with or without the owner's keys", async () => {
    const org = await createTenant(t.db);
    const ownerUser = await createMember(t.db, org.organizationId, 'owner');
    await createMember(t.db, org.organizationId, 'owner');
    const owner = await signedIn(ownerUser.email);
    const key = await owner.mutate('keys.create', { establishment_id: org.establishmentId, name: 'k', mode: 'test', permissions: ['*'] });
    const admin = await signedIn((await createMember(t.db, org.organizationId, 'admin')).email);
    expect(await failure(admin.mutate('team.remove', { user_id: ownerUser.id, revoke_keys: true }))).toMatchObject({ status: 403 });
    expect(await works(key.key)).toBe(200);
  });

  it('keys.list names who made each key; merma-admin keys have no creator', async () => {
    const { org, asAdmin, developer, keys, adminKey, admin } = await orgWithDeveloperKeys();
    const listed = (await asAdmin.query('keys.list', { establishment_id: org.establishmentId })) as {
      id: string;
      created_by: unknown;
    }[];
    const creatorOf = (id: string) => listed.find((k) => k.id === id)?.created_by;
    const devUser = await t.db.user.findUniqueOrThrow({ where: { id: developer.id } });
    const adminUser = await t.db.user.findUniqueOrThrow({ where: { id: admin.id } });
    expect(creatorOf(keys[0]?.id as string)).toEqual({ id: developer.id, email: developer.email, name: devUser.name });
    expect(creatorOf(adminKey.id)).toEqual({ id: admin.id, email: admin.email, name: adminUser.name });
    expect(creatorOf(org.keyId)).toBeNull();
  });
});
