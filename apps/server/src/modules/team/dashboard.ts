import {
  ChangeRoleInput,
  CreatedInvitation,
  InvitationIdInput,
  InviteMemberInput,
  Member,
  MemberApiKeys,
  MemberIdInput,
  OkResponse,
  RemovedMember,
  RemoveMemberInput,
  type Role,
  Team,
} from '@merma/schema/dashboard';
import { mailLanguage } from '../../mail.js';
import { ADMINS, actorOf, audited, dashboardRouter, memberProcedure } from '../../trpc/dashboard-base.js';
import { sendInvitation } from './invite.js';
import type { InvitationLimiter } from './limits.js';
import { changeRole, getTeam, memberApiKeys, removeMember, revokeInvitation } from './service.js';

const admin = memberProcedure.meta({ roles: ADMINS });
const actingOf = (ctx: { user: { userId: string; role: Role } }) => ({ userId: ctx.user.userId, role: ctx.user.role });

/**
 * The team page: every member sees it; owners and admins invite, change roles and remove.
 * Invitations are limited per inviter, organisation and address (`invitations`, team/limits.ts).
 */
export const teamDashboardRouter = (deps: { invitations: InvitationLimiter }) =>
  dashboardRouter({
    get: memberProcedure.output(Team).query(({ ctx }) => getTeam(ctx.db, ctx.user.organizationId, ctx.clock())),

    invite: admin
      .input(InviteMemberInput)
      .output(CreatedInvitation)
      .mutation(async ({ ctx, input }) => {
        // Taken before anything is written: past a limit, nothing is stored or mailed (429).
        const allowance = await deps.invitations.take({
          inviterId: ctx.user.userId,
          organizationId: ctx.user.organizationId,
          email: input.email,
        });
        // The invitee has no language of their own yet: the inviter's dashboard language, else theirs saved, else Spanish.
        const inviter = await ctx.db.user.findUnique({ where: { id: ctx.user.userId }, select: { language: true } });
        const language = mailLanguage(input.language, inviter?.language);
        let sent: Awaited<ReturnType<typeof sendInvitation>>;
        try {
          sent = await sendInvitation(
            { db: ctx.db, clock: ctx.clock, log: ctx.log, mailer: ctx.accounts.mailer, publicUrl: ctx.accounts.publicUrl },
            {
              organizationId: ctx.user.organizationId,
              organizationName: ctx.user.organizationName,
              actor: actingOf(ctx),
              by: actorOf(ctx),
              invitedBy: ctx.user.name || ctx.user.email,
              email: input.email,
              role: input.role,
              language,
            },
          );
        } catch (err) {
          // Nothing was made (refused, or withdrawn because its e-mail was not sent): it does not count.
          await allowance.giveBack();
          throw err;
        }
        // Without an SMTP server the e-mail reaches only the log (links redacted) or a file on the
        // server: the inviter is told so and gets the link, in this answer only (never stored or
        // logged), to pass on themselves, as `merma-admin org create` prints it for an operator.
        return { ...sent.invitation, invited_by: ctx.user.email, mailed: sent.mailed, link: sent.link };
      }),

    revokeInvitation: admin
      .input(InvitationIdInput)
      .output(OkResponse)
      .mutation(async ({ ctx, input }) => {
        await audited(
          ctx,
          'invitation.revoked',
          (tx, now) => revokeInvitation(tx, { organizationId: ctx.user.organizationId, actor: actingOf(ctx), id: input.id, now }),
          (email) => ({ target: email }),
        );
        return { ok: true as const };
      }),

    changeRole: admin
      .input(ChangeRoleInput)
      .output(Member)
      .mutation(async ({ ctx, input }) => {
        const { member } = await audited(
          ctx,
          'member.role_changed',
          (tx) =>
            changeRole(tx, { organizationId: ctx.user.organizationId, actor: actingOf(ctx), userId: input.user_id, role: input.role }),
          ({ member, previous }) => ({ target: member.email, details: { from: previous, to: member.role } }),
        );
        return member;
      }),

    /** What removing a member leaves behind, for the confirmation dialog. */
    memberApiKeys: admin
      .input(MemberIdInput)
      .output(MemberApiKeys)
      .query(({ ctx, input }) => memberApiKeys(ctx.db, { organizationId: ctx.user.organizationId, userId: input.user_id })),

    /**
     * Removes a member; with `revoke_keys`, the API keys they created in the organisation are revoked
     * in the same transaction, each audited as `api_key.revoked` (reason `member_removed`). The
     * `member.removed` entry lists the key ids revoked or, without `revoke_keys`, kept.
     */
    remove: admin
      .input(RemoveMemberInput)
      .output(RemovedMember)
      .mutation(async ({ ctx, input }) => {
        const removed = await audited(
          ctx,
          'member.removed',
          (tx, now) =>
            removeMember(tx, {
              organizationId: ctx.user.organizationId,
              actor: actingOf(ctx),
              userId: input.user_id,
              revokeKeys: input.revoke_keys,
              now,
            }),
          (removed) => [
            ...removed.revokedKeys.map((key) => ({
              action: 'api_key.revoked' as const,
              target: key.redacted,
              establishmentId: key.establishment_id,
              details: { key_id: key.id, name: key.name, reason: 'member_removed', member: removed.email },
            })),
            {
              target: removed.email,
              details: {
                role: removed.role,
                ...(removed.revokedKeys.length > 0 ? { revoked_key_ids: removed.revokedKeys.map((k) => k.id) } : {}),
                ...(removed.keptKeys.length > 0 ? { kept_key_ids: removed.keptKeys.map((k) => k.id) } : {}),
              },
            },
          ],
        );
        return { ok: true as const, revoked_keys: removed.revokedKeys.length };
      }),
  });
