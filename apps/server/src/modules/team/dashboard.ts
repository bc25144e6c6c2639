import {
  ChangeRoleInput,
  InvitationIdInput,
  InviteMemberInput,
  Member,
  PendingInvitation,
  RemoveMemberInput,
  Team,
} from '@merma/schema/dashboard';
import { z } from 'zod';
import { ADMINS, actorOf, dashboardRouter, memberProcedure } from '../../trpc/dashboard-base.js';
import { dashboardLink } from '../accounts/service.js';
import { recordAudit } from '../audit/service.js';
import { invitationMail } from './mail.js';
import { changeRole, getTeam, inviteMember, removeMember, revokeInvitation } from './service.js';

const Ok = z.object({ ok: z.literal(true) });
const admin = memberProcedure.meta({ roles: ADMINS });

/** The team page: every member sees it; owners and admins invite, change roles and remove. */
export const teamDashboardRouter = dashboardRouter({
  get: memberProcedure.output(Team).query(({ ctx }) => getTeam(ctx.db, ctx.session.organizationId, ctx.clock())),

  invite: admin
    .input(InviteMemberInput)
    .output(PendingInvitation)
    .mutation(async ({ ctx, input }) => {
      const acting = { userId: ctx.session.userId, role: ctx.session.role };
      const { invitation, token } = await ctx.db.$transaction(async (tx) => {
        const now = ctx.clock();
        const made = await inviteMember(tx, {
          organizationId: ctx.session.organizationId,
          actor: acting,
          email: input.email,
          role: input.role,
          now,
        });
        await recordAudit(tx, {
          organizationId: ctx.session.organizationId,
          actor: actorOf(ctx),
          action: 'member.invited',
          target: input.email,
          details: { role: input.role, invitation_id: made.invitation.id },
          now,
        });
        return made;
      });
      await ctx.accounts.mailer.send(
        invitationMail({
          to: invitation.email,
          organization: ctx.session.organizationName,
          role: invitation.role,
          invitedBy: ctx.session.name || ctx.session.email,
          link: dashboardLink(ctx.accounts.publicUrl, 'invitation', token),
        }),
      );
      return { ...invitation, invited_by: ctx.session.email };
    }),

  revokeInvitation: admin
    .input(InvitationIdInput)
    .output(Ok)
    .mutation(({ ctx, input }) =>
      ctx.db.$transaction(async (tx) => {
        const now = ctx.clock();
        const acting = { userId: ctx.session.userId, role: ctx.session.role };
        const email = await revokeInvitation(tx, { organizationId: ctx.session.organizationId, actor: acting, id: input.id, now });
        await recordAudit(tx, {
          organizationId: ctx.session.organizationId,
          actor: actorOf(ctx),
          action: 'invitation.revoked',
          target: email,
          now,
        });
        return { ok: true as const };
      }),
    ),

  changeRole: admin
    .input(ChangeRoleInput)
    .output(Member)
    .mutation(({ ctx, input }) =>
      ctx.db.$transaction(async (tx) => {
        const now = ctx.clock();
        const acting = { userId: ctx.session.userId, role: ctx.session.role };
        const { member, previous } = await changeRole(tx, {
          organizationId: ctx.session.organizationId,
          actor: acting,
          userId: input.user_id,
          role: input.role,
        });
        await recordAudit(tx, {
          organizationId: ctx.session.organizationId,
          actor: actorOf(ctx),
          action: 'member.role_changed',
          target: member.email,
          details: { from: previous, to: member.role },
          now,
        });
        return member;
      }),
    ),

  remove: admin
    .input(RemoveMemberInput)
    .output(Ok)
    .mutation(({ ctx, input }) =>
      ctx.db.$transaction(async (tx) => {
        const now = ctx.clock();
        const acting = { userId: ctx.session.userId, role: ctx.session.role };
        const removed = await removeMember(tx, { organizationId: ctx.session.organizationId, actor: acting, userId: input.user_id });
        await recordAudit(tx, {
          organizationId: ctx.session.organizationId,
          actor: actorOf(ctx),
          action: 'member.removed',
          target: removed.email,
          details: { role: removed.role },
          now,
        });
        return { ok: true as const };
      }),
    ),
});
