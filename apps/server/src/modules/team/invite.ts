import type { MailLanguage } from '@merma/schema';
import type { PendingInvitation, Role } from '@merma/schema/dashboard';
import type { Clock, Log } from '../../context.js';
import type { Db } from '../../db/client.js';
import { AppError } from '../../errors.js';
import type { Mailer } from '../../mail.js';
import { dashboardLink } from '../accounts/service.js';
import { type Actor, audited } from '../audit/service.js';
import { invitationMail } from './mail.js';
import { type Acting, inviteMember } from './service.js';

export type InviteDeps = {
  db: Db;
  clock: Clock;
  log: Pick<Log, 'warn'>;
  /** Absent when nothing can send mail (`merma-admin` without SMTP_URL): the link is returned. */
  mailer: Mailer | undefined;
  publicUrl: string;
};

export type InviteInput = {
  organizationId: string;
  organizationName: string;
  /** Who invites, for the role rules (an operator acts as an owner, with no user). */
  actor: Acting;
  /** Who invites, for the audit log. */
  by: Actor;
  /** The inviter's name as the e-mail shows it. */
  invitedBy: string;
  email: string;
  role: Role;
  language: MailLanguage;
};

/**
 * Inviting someone into an organisation: the one way it is done, by an owner or admin on the team
 * page and by an operator (`merma-admin org create --admin-email`).
 *
 * The invitation (replacing a pending one to the same address) and its audit entries are written
 * in one transaction, then the e-mail is sent. The link exists only in that e-mail, so an
 * invitation whose e-mail could not be sent is one nobody can accept: it is withdrawn (audited as a
 * revocation, reason `mail_not_sent`) and the caller gets a 503 to try again later; nothing is
 * left behind. When no mail reaches an inbox (no mailer, or a mailer that writes to the log or to
 * files) the link is returned, to be handed over by whoever invited, and nowhere stored or logged.
 */
export async function sendInvitation(
  deps: InviteDeps,
  input: InviteInput,
): Promise<{ invitation: PendingInvitation; mailed: boolean; link: string | null }> {
  const { invitation, token } = await deps.db.$transaction((tx) =>
    inviteMember(tx, {
      organizationId: input.organizationId,
      actor: input.actor,
      by: input.by,
      email: input.email,
      role: input.role,
      language: input.language,
      now: deps.clock(),
    }),
  );
  const link = dashboardLink(deps.publicUrl, 'invitation', token);
  if (!deps.mailer) return { invitation, mailed: false, link };
  try {
    await deps.mailer.send(
      invitationMail({
        to: invitation.email,
        organization: input.organizationName,
        role: invitation.role,
        invitedBy: input.invitedBy,
        link,
        language: input.language,
      }),
    );
  } catch (err) {
    deps.log.warn({ err, invitationId: invitation.id }, 'the invitation e-mail could not be sent; the invitation is withdrawn');
    await audited(
      { db: deps.db, clock: deps.clock },
      (tx, now) =>
        tx.invitation.updateMany({ where: { id: invitation.id, accepted_at: null, revoked_at: null }, data: { revoked_at: now } }),
      () => ({
        organizationId: input.organizationId,
        actor: input.by,
        action: 'invitation.revoked',
        target: invitation.email,
        details: { invitation_id: invitation.id, reason: 'mail_not_sent' },
      }),
    );
    throw new AppError(
      'service_unavailable',
      `The invitation e-mail to ${invitation.email} could not be sent, so no invitation was made; try again later`,
      undefined,
      { retryAfterSeconds: 60, shouldRetry: true },
    );
  }
  const mailed = deps.mailer.delivers !== false;
  return { invitation, mailed, link: mailed ? null : link };
}
