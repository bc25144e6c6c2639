import { z } from 'zod';
import { Timestamp, Uuid } from '../common.js';
import { MAIL_LANGUAGES } from '../constants.js';
import { Email } from './accounts.js';
import { Role } from './common.js';

/** The organisation's members and their invitations (`team`). */

export const Member = z.object({
  user_id: Uuid,
  email: z.string(),
  name: z.string(),
  role: Role,
  joined_at: Timestamp,
});
export type Member = z.infer<typeof Member>;

export const PendingInvitation = z.object({
  id: Uuid,
  email: z.string(),
  role: Role,
  invited_by: z.string().nullable(),
  created_at: Timestamp,
  expires_at: Timestamp,
});
export type PendingInvitation = z.infer<typeof PendingInvitation>;

/**
 * A new invitation. When the server sends no e-mail (no SMTP server configured: the e-mail only
 * reaches the log or a file), `mailed` is false and `link` is the invitation link, shown to the
 * inviter this once to pass on; with SMTP the link exists only in the e-mail and `link` is null.
 */
export const CreatedInvitation = PendingInvitation.extend({ mailed: z.boolean(), link: z.string().nullable() });
export type CreatedInvitation = z.infer<typeof CreatedInvitation>;

export const Team = z.object({ members: z.array(Member), invitations: z.array(PendingInvitation) });
export type Team = z.infer<typeof Team>;

/**
 * `language`: the invitation e-mail's, the inviter's dashboard language; it also becomes the new
 * user's e-mail language until they choose one in the dashboard. Without it, the inviter's saved
 * language, else Spanish.
 */
export const InviteMemberInput = z.strictObject({ email: Email, role: Role, language: z.enum(MAIL_LANGUAGES).optional() });
export type InviteMemberInput = z.input<typeof InviteMemberInput>;
export const ChangeRoleInput = z.strictObject({ user_id: Uuid, role: Role });
export const MemberIdInput = z.strictObject({ user_id: Uuid });
/**
 * Removing a member. `revoke_keys` also revokes the API keys they created in the organisation's
 * establishments, in the same transaction; without it those keys keep working (they usually run an
 * integration, not a person's session), and the audit entry names them as kept.
 */
export const RemoveMemberInput = z.strictObject({ user_id: Uuid, revoke_keys: z.boolean().default(false) });
export type RemoveMemberInput = z.input<typeof RemoveMemberInput>;
export const RemovedMember = z.object({ ok: z.literal(true), revoked_keys: z.number().int().min(0) });
export type RemovedMember = z.infer<typeof RemovedMember>;
/** What removing a member would leave behind: the active API keys they created in the organisation. */
export const MemberApiKeys = z.object({ active: z.number().int().min(0) });
export type MemberApiKeys = z.infer<typeof MemberApiKeys>;
export const InvitationIdInput = z.strictObject({ id: Uuid });
