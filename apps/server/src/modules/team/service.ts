import { randomUUID } from 'node:crypto';
import type { MailLanguage } from '@merma/schema';
import type { Member, PendingInvitation, Role, Team } from '@merma/schema/dashboard';
import { newToken } from '../../auth/tokens.js';
import type { DbTx } from '../../db/client.js';
import { AppError } from '../../errors.js';
import { type Actor, auditedIn } from '../audit/service.js';
import { activeKeysCreatedBy, type CreatedKey, revokeKeys } from '../keys/service.js';

/**
 * An organisation's members and pending invitations. Rules, checked here whatever the page shows:
 * only an owner grants, changes or removes the owner role; an admin manages admins, developers and
 * viewers; nobody removes or demotes the last owner (the membership rows are locked while this is
 * checked, so two owners demoting each other at once cannot both succeed). A removed member's
 * sessions in the organisation end at once.
 */
export const INVITATION_TTL_MS = 7 * 86_400_000;

/** The acting member: who they are and their role in the organisation. */
export type Acting = { userId: string | null; role: Role };

export async function getTeam(db: DbTx, organizationId: string, now: Date): Promise<Team> {
  const [members, invitations] = await Promise.all([
    db.membership.findMany({
      where: { organization_id: organizationId },
      include: { user: { select: { email: true, name: true } } },
      orderBy: [{ created_at: 'asc' }, { user_id: 'asc' }],
    }),
    db.invitation.findMany({
      where: { organization_id: organizationId, accepted_at: null, revoked_at: null, expires_at: { gt: now } },
      orderBy: { created_at: 'desc' },
    }),
  ]);
  const inviterIds = [...new Set(invitations.flatMap((i) => (i.invited_by ? [i.invited_by] : [])))];
  const inviters = new Map(
    (await db.user.findMany({ where: { id: { in: inviterIds } }, select: { id: true, email: true } })).map((u) => [u.id, u.email]),
  );
  return {
    members: members.map((m) => toMember(m)),
    invitations: invitations.map((i) => toInvitation(i, i.invited_by ? (inviters.get(i.invited_by) ?? null) : null)),
  };
}

function toMember(m: { user_id: string; role: string; created_at: Date; user: { email: string; name: string } }): Member {
  return { user_id: m.user_id, email: m.user.email, name: m.user.name, role: m.role as Role, joined_at: m.created_at.toISOString() };
}

function toInvitation(
  i: { id: string; email: string; role: string; created_at: Date; expires_at: Date },
  invitedBy: string | null,
): PendingInvitation {
  return {
    id: i.id,
    email: i.email,
    role: i.role as Role,
    invited_by: invitedBy,
    created_at: i.created_at.toISOString(),
    expires_at: i.expires_at.toISOString(),
  };
}

function assertMayGrant(actor: Acting, role: Role) {
  if (role === 'owner' && actor.role !== 'owner') throw new AppError('forbidden', 'Only an owner can make someone an owner');
}

/**
 * Invites `email` with `role`, audited as `member.invited` by `by`. A new invitation replaces the
 * pending (unexpired) ones to the same address, and replacing is revoking: only an owner replaces
 * an owner invitation (403 otherwise, nothing changed), and each replaced invitation is audited as
 * `invitation.revoked` with reason `replaced`. Expired invitations are left as they are (their
 * links already fail). The token is returned for the e-mail and never stored (only its SHA-256).
 * `language` is the invitation e-mail's, kept as the new user's e-mail language (team/mail.ts).
 */
export async function inviteMember(
  db: DbTx,
  input: { organizationId: string; actor: Acting; by: Actor; email: string; role: Role; language: MailLanguage; now: Date },
): Promise<{ invitation: PendingInvitation; token: string }> {
  assertMayGrant(input.actor, input.role);
  const email = input.email.trim().toLowerCase();
  const existing = await db.membership.findFirst({ where: { organization_id: input.organizationId, user: { email } } });
  if (existing) throw new AppError('conflict', `${email} is already a member of this organisation`);
  const pending = await db.invitation.findMany({
    where: { organization_id: input.organizationId, email, accepted_at: null, revoked_at: null, expires_at: { gt: input.now } },
    select: { id: true, role: true },
    orderBy: { created_at: 'asc' },
  });
  if (pending.some((i) => i.role === 'owner') && input.actor.role !== 'owner') {
    throw new AppError('forbidden', `Only an owner can replace the pending owner invitation of ${email}`);
  }
  const { row, token } = await auditedIn(
    db,
    input.now,
    async () => {
      const { token, hash } = newToken();
      const row = await db.invitation.create({
        data: {
          id: randomUUID(),
          organization_id: input.organizationId,
          email,
          role: input.role,
          token_hash: hash,
          invited_by: input.actor.userId,
          language: input.language,
          created_at: input.now,
          expires_at: new Date(input.now.getTime() + INVITATION_TTL_MS),
        },
      });
      if (pending.length > 0) {
        await db.invitation.updateMany({
          where: { id: { in: pending.map((i) => i.id) }, revoked_at: null },
          data: { revoked_at: input.now },
        });
      }
      return { row, token };
    },
    ({ row }) => [
      ...pending.map((replaced) => ({
        organizationId: input.organizationId,
        actor: input.by,
        action: 'invitation.revoked' as const,
        target: email,
        details: { invitation_id: replaced.id, role: replaced.role, reason: 'replaced', replaced_by: row.id },
      })),
      {
        organizationId: input.organizationId,
        actor: input.by,
        action: 'member.invited',
        target: email,
        details: { role: input.role, invitation_id: row.id },
      },
    ],
  );
  return { invitation: toInvitation(row, null), token };
}

export async function revokeInvitation(db: DbTx, input: { organizationId: string; actor: Acting; id: string; now: Date }): Promise<string> {
  const found = await db.invitation.findFirst({
    where: { id: input.id, organization_id: input.organizationId, accepted_at: null, revoked_at: null },
  });
  if (!found) throw new AppError('not_found', `No pending invitation ${input.id}`);
  assertMayGrant(input.actor, found.role as Role);
  await db.invitation.update({ where: { id: found.id }, data: { revoked_at: input.now } });
  return found.email;
}

/** The organisation's memberships, locked until the transaction ends, and the one of `userId`. */
async function lockMembers(db: DbTx, organizationId: string, userId: string) {
  const rows = await db.$queryRaw<{ user_id: string; role: Role }[]>`
    SELECT user_id::text, role FROM memberships WHERE organization_id = ${organizationId}::uuid FOR UPDATE`;
  const target = rows.find((r) => r.user_id === userId);
  if (!target) throw new AppError('not_found', `No member ${userId} in this organisation`);
  const owners = rows.filter((r) => r.role === 'owner').length;
  return { target, owners };
}

export async function changeRole(
  db: DbTx,
  input: { organizationId: string; actor: Acting; userId: string; role: Role },
): Promise<{ member: Member; previous: Role }> {
  const { target, owners } = await lockMembers(db, input.organizationId, input.userId);
  if (target.role === 'owner' || input.role === 'owner') assertMayGrant(input.actor, 'owner');
  if (target.role === 'owner' && input.role !== 'owner' && owners === 1) {
    throw new AppError('conflict', 'An organisation needs an owner: make someone else owner first');
  }
  const row = await db.membership.update({
    where: { organization_id_user_id: { organization_id: input.organizationId, user_id: input.userId } },
    data: { role: input.role },
    include: { user: { select: { email: true, name: true } } },
  });
  return { member: toMember(row), previous: target.role };
}

/**
 * Removes a member: their membership and their sessions in the organisation end. With
 * `revokeKeys`, the API keys they created in the organisation's establishments are revoked in the
 * same transaction; otherwise they keep working (they usually run an integration, which the
 * organisation may still need) and are returned as kept, so the caller's audit entry names them.
 */
export async function removeMember(
  db: DbTx,
  input: { organizationId: string; actor: Acting; userId: string; revokeKeys: boolean; now: Date },
): Promise<{ email: string; role: Role; revokedKeys: CreatedKey[]; keptKeys: CreatedKey[] }> {
  const { target, owners } = await lockMembers(db, input.organizationId, input.userId);
  if (target.role === 'owner') {
    assertMayGrant(input.actor, 'owner');
    if (owners === 1) throw new AppError('conflict', 'The last owner cannot be removed: make someone else owner first');
  }
  const user = await db.user.findUniqueOrThrow({ where: { id: input.userId }, select: { email: true } });
  await db.membership.delete({ where: { organization_id_user_id: { organization_id: input.organizationId, user_id: input.userId } } });
  await db.userSession.deleteMany({ where: { organization_id: input.organizationId, user_id: input.userId } });
  const keys = await activeKeysCreatedBy(db, { organizationId: input.organizationId, userId: input.userId });
  if (input.revokeKeys) await revokeKeys(db, { ids: keys.map((k) => k.id), now: input.now });
  return {
    email: user.email,
    role: target.role,
    revokedKeys: input.revokeKeys ? keys : [],
    keptKeys: input.revokeKeys ? [] : keys,
  };
}

/** How many active API keys a member of the organisation created there (404 when not a member). */
export async function memberApiKeys(db: DbTx, input: { organizationId: string; userId: string }): Promise<{ active: number }> {
  const member = await db.membership.findUnique({
    where: { organization_id_user_id: { organization_id: input.organizationId, user_id: input.userId } },
  });
  if (!member) throw new AppError('not_found', `No member ${input.userId} in this organisation`);
  return { active: (await activeKeysCreatedBy(db, input)).length };
}
