import { randomUUID } from 'node:crypto';
import type { MailLanguage } from '@merma/schema';
import type { Role } from '@merma/schema/dashboard';
import { hashToken, newToken } from '../../auth/tokens.js';
import type { Clock, Log } from '../../context.js';
import type { Db, DbTx } from '../../db/client.js';
import { inTransaction } from '../../db/transaction.js';
import { AppError, validationError } from '../../errors.js';
import { type Mail, type Mailer, mailLanguage } from '../../mail.js';
import { audited, auditedIn } from '../audit/service.js';
import { enqueueFailedSignIn, enqueuePasswordResetMail, type FailedSignIn, type PasswordResetMail } from './jobs.js';
import type { SignInGuard } from './lockout.js';
import { closeAllLoginSessions, type OpenedLoginSession, openLoginSession } from './login-sessions.js';
import { assertStrongPassword, decoyHash, hashPassword, needsRehash, verifyPassword } from './password.js';

/**
 * Signing in to the dashboard: with a password, with a one-time link (password reset, the
 * quickstart's sign-in link), or by accepting an invitation. Every way opens a server-side session
 * (sessions.ts) in one organisation of the user and writes the audit log.
 *
 * A wrong e-mail and a wrong password get the same answer, after the same work (a decoy hash is
 * verified for an unknown address), so the sign-in form does not reveal who has an account.
 */
export type AccountDeps = { db: Db; clock: Clock; guard: SignInGuard; mailer: Mailer; log: Log; publicUrl: string };
export type Client = { ip: string; userAgent: string | null };

export const RESET_TTL_MS = 60 * 60_000;
export const SIGN_IN_LINK_TTL_MS = 60 * 60_000;
const WRONG = 'Wrong e-mail or password';
const BAD_RESET = 'This password-reset link is invalid, used or expired: ask for a new one';

/** The first organisation the user joined: where a new session starts. */
async function homeOrganization(db: DbTx, userId: string): Promise<string | null> {
  const first = await db.membership.findFirst({ where: { user_id: userId }, orderBy: [{ created_at: 'asc' }, { organization_id: 'asc' }] });
  return first?.organization_id ?? null;
}

export async function signIn(deps: AccountDeps, input: { email: string; password: string } & Client): Promise<OpenedLoginSession> {
  const { db, guard } = deps;
  await guard.attempt(input.email, input.ip);
  const user = await db.user.findUnique({ where: { email: input.email } });
  const matches = await verifyPassword(user?.password_hash ?? (await decoyHash()), input.password);
  const now = deps.clock();
  if (!user?.password_hash || !matches) {
    // The same write whether the address has an account or not (a job row), so that neither the
    // answer nor its time tells them apart; the job writes the audit entry of a known account.
    await enqueueFailedSignIn(db, { email: input.email, ip: input.ip, at: now });
    throw new AppError('unauthorized', WRONG);
  }
  await guard.succeeded(input.email, input.ip);
  const organizationId = await homeOrganization(db, user.id);
  if (!organizationId) throw new AppError('forbidden', 'This account no longer belongs to any organisation');
  const rehash = needsRehash(user.password_hash) ? await hashPassword(input.password) : null;
  return audited(
    { db, clock: () => now },
    async (tx) => {
      if (rehash) await tx.user.update({ where: { id: user.id }, data: { password_hash: rehash } });
      return openLoginSession(tx, { userId: user.id, organizationId, ip: input.ip, userAgent: input.userAgent, now });
    },
    () => ({ organizationId, actor: { userId: user.id, email: user.email, ip: input.ip }, action: 'user.signed_in' }),
  );
}

/** `accounts.sign_in_failed`: the audit entry of a wrong password for an account that exists. */
export async function auditFailedSignIn(db: Db, payload: FailedSignIn): Promise<void> {
  // Nothing changes but the log: the entry is written when the address has an account in an organisation.
  await audited(
    { db, clock: () => new Date(payload.at) },
    async (tx) => {
      const user = await tx.user.findUnique({ where: { email: payload.email } });
      const organizationId = user ? await homeOrganization(tx, user.id) : null;
      return user && organizationId ? { user, organizationId } : null;
    },
    (found) =>
      found
        ? {
            organizationId: found.organizationId,
            actor: { userId: found.user.id, email: found.user.email, ip: payload.ip },
            action: 'user.sign_in_failed',
          }
        : [],
  );
}

/** Ends every login session of the user, on every device (this one included), and every link still unused. */
export async function signOutEverywhere(
  db: Db,
  session: { userId: string; email: string; organizationId: string },
  client: Client,
  now: Date,
): Promise<void> {
  await audited(
    { db, clock: () => now },
    async (tx) => {
      const ended = await closeAllLoginSessions(tx, session.userId);
      await endUserTokens(tx, session.userId, now);
      return ended;
    },
    (ended) => ({
      organizationId: session.organizationId,
      actor: { userId: session.userId, email: session.email, ip: client.ip },
      action: 'user.signed_out_everywhere',
      details: { sessions_ended: ended },
    }),
  );
}

/** The user of a one-time link token of `purpose` that can still be used (null when unknown, used or expired). */
async function findUserToken(db: DbTx, token: string, purpose: 'password_reset' | 'sign_in', now: Date) {
  const found = await db.userToken.findFirst({
    where: { token_hash: hashToken(token), purpose, used_at: null, expires_at: { gt: now } },
    select: { user_id: true },
  });
  return found ? db.user.findUnique({ where: { id: found.user_id }, select: { id: true, email: true, name: true } }) : null;
}

/** Every link of the user still unused stops working (a password reset, signing out everywhere). */
async function endUserTokens(db: DbTx, userId: string, now: Date): Promise<void> {
  await db.userToken.updateMany({ where: { user_id: userId, used_at: null }, data: { used_at: now } });
}

/** Consumes a one-time link token of `purpose` (null when unknown, used or expired). */
async function consumeUserToken(tx: DbTx, token: string, purpose: 'password_reset' | 'sign_in', now: Date) {
  const [row] = await tx.$queryRaw<{ user_id: string; organization_id: string | null }[]>`
    UPDATE user_tokens SET used_at = ${now}
    WHERE token_hash = ${hashToken(token)} AND purpose = ${purpose} AND used_at IS NULL AND expires_at > ${now}
    RETURNING user_id::text, organization_id::text`;
  return row ?? null;
}

export async function createUserToken(
  db: DbTx,
  input: { userId: string; purpose: 'password_reset' | 'sign_in'; organizationId: string | null; ttlMs: number; now: Date },
): Promise<string> {
  const { token, hash } = newToken();
  await db.userToken.create({
    data: {
      id: randomUUID(),
      user_id: input.userId,
      purpose: input.purpose,
      token_hash: hash,
      organization_id: input.organizationId,
      created_at: input.now,
      expires_at: new Date(input.now.getTime() + input.ttlMs),
    },
  });
  return token;
}

export function dashboardLink(publicUrl: string, page: 'invitation' | 'reset-password' | 'link', token: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/dashboard/${page}?token=${token}`;
}

/**
 * Asks for a password-reset e-mail. The request only queues the job `accounts.password_reset_mail`
 * (`sendPasswordResetMail`), whether or not the address has an account: the answer, its time and
 * what it writes are the same for both, and a mail server that is slow or down is the job's
 * business (retried), never this caller's. Limited per address and per IP (lockout.ts). An account
 * that has no password yet (the quickstart's demo owner, who signs in by link) sets its first one
 * this way.
 */
export async function requestPasswordReset(deps: AccountDeps, input: { email: string } & Client): Promise<void> {
  await deps.guard.resetRequested(input.email, input.ip);
  await enqueuePasswordResetMail(deps.db, { email: input.email });
}

/**
 * `accounts.password_reset_mail`: mails a password-reset link (valid for an hour) when the address
 * has an account. When the mail cannot be sent, the link is withdrawn and the job fails, to be
 * retried by the queue with a new link.
 */
export async function sendPasswordResetMail(deps: Pick<AccountDeps, 'db' | 'clock' | 'mailer' | 'publicUrl'>, payload: PasswordResetMail) {
  const user = await deps.db.user.findUnique({ where: { email: payload.email } });
  if (!user) return;
  const now = deps.clock();
  const token = await createUserToken(deps.db, {
    userId: user.id,
    purpose: 'password_reset',
    organizationId: null,
    ttlMs: RESET_TTL_MS,
    now,
  });
  try {
    await deps.mailer.send(
      passwordResetMail({
        to: user.email,
        language: mailLanguage(user.language),
        link: dashboardLink(deps.publicUrl, 'reset-password', token),
      }),
    );
  } catch (err) {
    await deps.db.userToken.updateMany({ where: { token_hash: hashToken(token) }, data: { used_at: now } });
    throw err;
  }
}

/** The password-reset e-mail, in the user's e-mail language (`users.language`, else Spanish). */
export function passwordResetMail(input: { to: string; language: MailLanguage; link: string }): Mail {
  if (input.language === 'en') {
    return {
      to: input.to,
      subject: 'Reset your Merma password',
      text: `Someone asked to reset the password of your Merma account (${input.to}).\n\nTo choose a new password, open this link within an hour:\n${input.link}\n\nIf it was not you, ignore this e-mail: your password stays as it is.`,
    };
  }
  return {
    to: input.to,
    subject: 'Restablece tu contraseña de Merma',
    text: `Alguien ha pedido restablecer la contraseña de tu cuenta de Merma (${input.to}).\n\nPara elegir una contraseña nueva, abre este enlace antes de una hora:\n${input.link}\n\nSi no has sido tú, ignora este correo: tu contraseña sigue como estaba.`,
  };
}

/**
 * Sets a new password from a reset link: every other session of the user ends, every other link of
 * theirs (reset, sign-in) stops working, the account's failed-attempt count starts again, and a new
 * session opens. The token is looked up before the password is checked or hashed, so a wrong token
 * costs no argon2 hash; a refused password leaves the link usable.
 */
export async function resetPassword(deps: AccountDeps, input: { token: string; password: string } & Client): Promise<OpenedLoginSession> {
  await deps.guard.linkAttempt(input.ip);
  const now = deps.clock();
  const found = await findUserToken(deps.db, input.token, 'password_reset', now);
  if (!found) throw new AppError('not_found', BAD_RESET);
  await deps.guard.linkSucceeded(input.ip);
  assertStrongPassword(input.password, found);
  const hash = await hashPassword(input.password);
  const result = await audited(
    { db: deps.db, clock: () => now },
    async (tx) => {
      const used = await consumeUserToken(tx, input.token, 'password_reset', now);
      if (!used) return null; // used meanwhile by a request racing this one
      const user = await tx.user.update({ where: { id: used.user_id }, data: { password_hash: hash, password_changed_at: now } });
      await endUserTokens(tx, user.id, now);
      await closeAllLoginSessions(tx, user.id);
      const organizationId = await homeOrganization(tx, user.id);
      if (!organizationId) throw new AppError('forbidden', 'This account no longer belongs to any organisation');
      const opened = await openLoginSession(tx, { userId: user.id, organizationId, ip: input.ip, userAgent: input.userAgent, now });
      return { opened, email: user.email, userId: user.id, organizationId };
    },
    (reset) =>
      reset
        ? {
            organizationId: reset.organizationId,
            actor: { userId: reset.userId, email: reset.email, ip: input.ip },
            action: 'user.password_reset',
          }
        : [],
  );
  if (!result) throw new AppError('not_found', BAD_RESET);
  await deps.guard.unlocked(result.email);
  return result.opened;
}

/** Signs in with a one-time sign-in link (merma-admin quickstart prints one). */
export async function signInWithLink(deps: AccountDeps, input: { token: string } & Client): Promise<OpenedLoginSession> {
  await deps.guard.linkAttempt(input.ip);
  const now = deps.clock();
  const signedIn = await audited(
    { db: deps.db, clock: () => now },
    async (tx) => {
      const used = await consumeUserToken(tx, input.token, 'sign_in', now);
      if (!used) return null;
      const user = await tx.user.findUniqueOrThrow({ where: { id: used.user_id } });
      const member = used.organization_id
        ? await tx.membership.findUnique({
            where: { organization_id_user_id: { organization_id: used.organization_id, user_id: user.id } },
          })
        : null;
      const organizationId = member?.organization_id ?? (await homeOrganization(tx, user.id));
      if (!organizationId) throw new AppError('forbidden', 'This account no longer belongs to any organisation');
      const opened = await openLoginSession(tx, { userId: user.id, organizationId, ip: input.ip, userAgent: input.userAgent, now });
      return { opened, user, organizationId };
    },
    (found) =>
      found
        ? {
            organizationId: found.organizationId,
            actor: { userId: found.user.id, email: found.user.email, ip: input.ip },
            action: 'user.signed_in',
            details: { method: 'link' },
          }
        : [],
  );
  if (!signedIn) throw new AppError('not_found', 'This sign-in link is invalid, used or expired');
  await deps.guard.linkSucceeded(input.ip);
  return signedIn.opened;
}

type PendingInvitation = {
  id: string;
  organization_id: string;
  email: string;
  role: string;
  expires_at: Date;
  language: string;
  organization: { name: string };
};

async function findInvitation(db: DbTx, token: string, now: Date): Promise<PendingInvitation | null> {
  return db.invitation.findFirst({
    where: { token_hash: hashToken(token), accepted_at: null, revoked_at: null, expires_at: { gt: now } },
    include: { organization: { select: { name: true } } },
  });
}

const BAD_INVITATION = 'This invitation link is invalid, was already used, was revoked or has expired: ask for a new one';

export async function previewInvitation(deps: AccountDeps, input: { token: string; ip: string }) {
  await deps.guard.linkAttempt(input.ip);
  const invitation = await findInvitation(deps.db, input.token, deps.clock());
  if (!invitation) throw new AppError('not_found', BAD_INVITATION);
  await deps.guard.linkSucceeded(input.ip);
  const user = await deps.db.user.findUnique({ where: { email: invitation.email }, select: { password_hash: true } });
  return {
    organization: invitation.organization.name,
    email: invitation.email,
    role: invitation.role as Role,
    has_account: Boolean(user?.password_hash),
    expires_at: invitation.expires_at.toISOString(),
  };
}

/**
 * Accepts an invitation. Someone new gives a name and a password and gets an account; someone who
 * has an account must be signed in as the invited address (a link alone never adds an existing
 * account to an organisation). Either way the membership is created and a session opens in the
 * organisation that invited them.
 */
export async function acceptInvitation(
  deps: AccountDeps,
  input: { token: string; name?: string | undefined; password?: string | undefined; signedInAs: string | null } & Client,
): Promise<OpenedLoginSession> {
  await deps.guard.linkAttempt(input.ip);
  const now = deps.clock();
  const invitation = await findInvitation(deps.db, input.token, now);
  if (!invitation) throw new AppError('not_found', BAD_INVITATION);
  await deps.guard.linkSucceeded(input.ip);
  const existing = await deps.db.user.findUnique({ where: { email: invitation.email } });
  let passwordHash: string | null = null;
  if (existing?.password_hash) {
    if (input.signedInAs !== existing.id) {
      throw new AppError('unauthorized', `Sign in as ${invitation.email} to accept this invitation`);
    }
  } else {
    const missing = [
      ...(input.name ? [] : [{ path: 'name', message: 'required to create the account' }]),
      ...(input.password ? [] : [{ path: 'password', message: 'required to create the account' }]),
    ];
    if (missing.length) throw validationError('A name and a password are needed to create the account', missing);
    assertStrongPassword(input.password as string, { email: invitation.email, name: input.name });
    passwordHash = await hashPassword(input.password as string);
  }
  const accepted = await inTransaction(deps.db, (tx) =>
    auditedIn(
      tx,
      now,
      async () => {
        // Accepted exactly once, even when the link is opened twice at the same moment.
        const claimed = await tx.invitation.updateMany({
          where: { id: invitation.id, accepted_at: null, revoked_at: null },
          data: { accepted_at: now },
        });
        if (claimed.count !== 1) throw new AppError('not_found', BAD_INVITATION);
        const user = existing
          ? passwordHash
            ? await tx.user.update({
                where: { id: existing.id },
                data: { name: input.name as string, password_hash: passwordHash, password_changed_at: now },
              })
            : existing
          : await tx.user.create({
              data: {
                id: randomUUID(),
                email: invitation.email,
                name: input.name as string,
                password_hash: passwordHash,
                password_changed_at: now,
                created_at: now,
                // The invitation's language (its inviter's) is theirs until they choose one in the dashboard.
                language: invitation.language,
              },
            });
        await tx.membership.upsert({
          where: { organization_id_user_id: { organization_id: invitation.organization_id, user_id: user.id } },
          create: { organization_id: invitation.organization_id, user_id: user.id, role: invitation.role, created_at: now },
          update: {},
        });
        const opened = await openLoginSession(tx, {
          userId: user.id,
          organizationId: invitation.organization_id,
          ip: input.ip,
          userAgent: input.userAgent,
          now,
        });
        return { opened, email: user.email, userId: user.id };
      },
      (joined) => ({
        organizationId: invitation.organization_id,
        actor: { userId: joined.userId, email: joined.email, ip: input.ip },
        action: 'member.joined',
        target: joined.email,
        details: { role: invitation.role },
      }),
    ),
  );
  return accepted.opened;
}
