import {
  AcceptInvitationInput,
  InvitationPreview,
  LinkTokenInput,
  MaybeMe,
  Me,
  OkResponse,
  RequestPasswordResetInput,
  ResetPasswordInput,
  SetLanguageInput,
  SignInInput,
  SwitchOrganizationInput,
} from '@merma/schema/dashboard';
import { AppError } from '../../errors.js';
import { type DashboardContext, dashboardRouter, memberProcedure, publicProcedure } from '../../trpc/dashboard-base.js';
import {
  closeLoginSession,
  describeLoginSession,
  findLoginSession,
  moveLoginSession,
  type OpenedLoginSession,
  reloadLoginSession,
} from './login-sessions.js';
import {
  acceptInvitation,
  previewInvitation,
  requestPasswordReset,
  resetPassword,
  signIn,
  signInWithLink,
  signOutEverywhere,
} from './service.js';

/**
 * Sets the cookies of a newly opened session and answers what `accounts.me` would. The session this
 * browser had until now (signing in again, as someone else, or through a link) is ended, so that
 * no session outlives the cookie that carried it.
 */
async function opened(ctx: DashboardContext, session: OpenedLoginSession): Promise<Me> {
  if (ctx.user) await closeLoginSession(ctx.db, ctx.user.sessionId);
  ctx.cookies.open(session);
  const user = await findLoginSession(ctx.db, session.token, ctx.clock());
  if (!user) throw new AppError('internal', 'The new session was not found');
  return describeLoginSession(ctx.db, user, session.csrfToken, ctx.accounts.publicUrl);
}

/** Signing in and out, links, invitations and the organisation the session works in. */
export const accountsDashboardRouter = dashboardRouter({
  /** Who is signed in: `null` without a session (a 200, not a 401: the sign-in page asks it on every visit). */
  me: publicProcedure
    .output(MaybeMe)
    .query(({ ctx }) => (ctx.user ? describeLoginSession(ctx.db, ctx.user, ctx.csrfToken as string, ctx.accounts.publicUrl) : null)),

  signIn: publicProcedure
    .input(SignInInput)
    .output(Me)
    .mutation(async ({ ctx, input }) => opened(ctx, await signIn(ctx.accounts, { ...input, ...ctx.client }))),

  signOut: publicProcedure.output(OkResponse).mutation(async ({ ctx }) => {
    if (ctx.user) await closeLoginSession(ctx.db, ctx.user.sessionId);
    ctx.cookies.clear();
    return { ok: true as const };
  }),

  signOutEverywhere: memberProcedure.output(OkResponse).mutation(async ({ ctx }) => {
    await signOutEverywhere(ctx.db, ctx.user, ctx.client, ctx.clock());
    ctx.cookies.clear();
    return { ok: true as const };
  }),

  signInWithLink: publicProcedure
    .input(LinkTokenInput)
    .output(Me)
    .mutation(async ({ ctx, input }) => opened(ctx, await signInWithLink(ctx.accounts, { token: input.token, ...ctx.client }))),

  invitation: publicProcedure
    .input(LinkTokenInput)
    .output(InvitationPreview)
    .query(({ ctx, input }) => previewInvitation(ctx.accounts, { token: input.token, ip: ctx.client.ip })),

  acceptInvitation: publicProcedure
    .input(AcceptInvitationInput)
    .output(Me)
    .mutation(async ({ ctx, input }) =>
      opened(ctx, await acceptInvitation(ctx.accounts, { ...input, signedInAs: ctx.user?.userId ?? null, ...ctx.client })),
    ),

  requestPasswordReset: publicProcedure
    .input(RequestPasswordResetInput)
    .output(OkResponse)
    .mutation(async ({ ctx, input }) => {
      await requestPasswordReset(ctx.accounts, { email: input.email, ...ctx.client });
      return { ok: true as const };
    }),

  resetPassword: publicProcedure
    .input(ResetPasswordInput)
    .output(Me)
    .mutation(async ({ ctx, input }) => opened(ctx, await resetPassword(ctx.accounts, { ...input, ...ctx.client }))),

  switchOrganization: memberProcedure
    .input(SwitchOrganizationInput)
    .output(Me)
    .mutation(async ({ ctx, input }) => {
      await moveLoginSession(ctx.db, ctx.user, input.organization_id);
      const moved = await reloadLoginSession(ctx.db, ctx.user.sessionId, ctx.clock());
      if (!moved) throw new AppError('unauthorized', 'The session ended');
      return describeLoginSession(ctx.db, moved, ctx.csrfToken as string, ctx.accounts.publicUrl);
    }),

  /**
   * Keeps the dashboard language the user chose (the language switcher calls it) as the language
   * of their e-mails: password resets and webhook notices (mail.ts, `mailLanguage`).
   */
  setLanguage: memberProcedure
    .input(SetLanguageInput)
    .output(OkResponse)
    .mutation(async ({ ctx, input }) => {
      await ctx.db.user.update({ where: { id: ctx.user.userId }, data: { language: input.language } });
      return { ok: true as const };
    }),
});
