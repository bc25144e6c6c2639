import { randomUUID } from 'node:crypto';
import type { Log } from '../context.js';
import type { Db } from '../db/client.js';
import type { Mailer } from '../mail.js';
import { createUserToken, dashboardLink, SIGN_IN_LINK_TTL_MS } from '../modules/accounts/service.js';
import { sendInvitation } from '../modules/team/invite.js';

/**
 * The operator's side of dashboard accounts: the first owner of a new organisation is invited
 * (`org create --admin-email`) the way the team page invites (modules/team/invite.ts): by e-mail,
 * withdrawn with a 503 when the e-mail cannot be sent; without `mailer` the invitation link is
 * returned instead. The quickstart's demo owner gets a one-time sign-in link.
 */
export async function inviteFirstOwner(
  db: Db,
  input: {
    organizationId: string;
    organizationName: string;
    email: string;
    mailer: Mailer | undefined;
    publicUrl: string;
    log: Pick<Log, 'warn'>;
  },
) {
  // The operator acts as an owner: sent again, it replaces the pending invitation (audited).
  const { invitation, link } = await sendInvitation(
    { db, clock: () => new Date(), log: input.log, mailer: input.mailer, publicUrl: input.publicUrl },
    {
      organizationId: input.organizationId,
      organizationName: input.organizationName,
      actor: { userId: null, role: 'owner' },
      by: { userId: null, email: 'merma-admin', ip: null },
      invitedBy: 'Merma',
      email: input.email,
      role: 'owner',
      // Organisations have no language of their own: an operator's invitation is in Spanish.
      language: 'es',
    },
  );
  const made = { email: invitation.email, role: invitation.role, expires_at: invitation.expires_at };
  // Without a mail server the link is the operator's to hand over: it is returned (printed once on
  // stdout by the CLI, like a new key), never written to a log.
  return link ? { ...made, link } : made;
}

export const DEMO_OWNER_EMAIL = 'owner@demo.merma.local';

/**
 * The quickstart's demo owner (created once, shared by every demo organisation of this database)
 * and a sign-in link to the dashboard, valid for an hour and usable once.
 */
export async function demoOwnerLink(db: Db, input: { organizationId: string; publicUrl: string }) {
  const now = new Date();
  const user = await db.user.upsert({
    where: { email: DEMO_OWNER_EMAIL },
    create: { id: randomUUID(), email: DEMO_OWNER_EMAIL, name: 'Demo owner', created_at: now },
    update: {},
  });
  await db.membership.upsert({
    where: { organization_id_user_id: { organization_id: input.organizationId, user_id: user.id } },
    create: { organization_id: input.organizationId, user_id: user.id, role: 'owner', created_at: now },
    update: {},
  });
  const token = await createUserToken(db, {
    userId: user.id,
    purpose: 'sign_in',
    organizationId: input.organizationId,
    ttlMs: SIGN_IN_LINK_TTL_MS,
    now,
  });
  return {
    email: user.email,
    sign_in_link: dashboardLink(input.publicUrl, 'link', token),
    expires_at: new Date(now.getTime() + SIGN_IN_LINK_TTL_MS).toISOString(),
  };
}
