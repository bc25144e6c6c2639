import type { Role } from '@merma/schema/dashboard';
import type { Mail } from '../../mail.js';

/** The invitation e-mail, sent by the team page and by `merma-admin org create --admin-email`. */
export function invitationMail(input: { to: string; organization: string; role: Role; invitedBy: string; link: string }): Mail {
  return {
    to: input.to,
    subject: `You are invited to ${input.organization} on Merma`,
    text: `${input.invitedBy} invited you to join ${input.organization} on Merma as ${input.role}.\n\nTo accept, open this link within 7 days:\n${input.link}\n\nIf you did not expect this invitation, ignore this e-mail.`,
  };
}
