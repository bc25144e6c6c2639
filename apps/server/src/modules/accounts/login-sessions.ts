import { randomUUID } from 'node:crypto';
import { API_PLANS, type Plan } from '@merma/schema';
import type { Me, Role } from '@merma/schema/dashboard';
import { csrfTokenFor, hashToken, newToken } from '../../auth/tokens.js';
import type { DbTx } from '../../db/client.js';
import { AppError } from '../../errors.js';
import { Prisma } from '../../generated/prisma/client.ts';

/**
 * Login sessions (a dashboard sign-in; not the registration sessions of modules/sessions, which
 * the API calls `sessions`), kept server-side in `user_sessions` (only the token's SHA-256 is stored).
 * A session ends after 7 days without use and 30 days after sign-in at the latest, when its user
 * signs out (everywhere), changes the password, or leaves the organisation it works in. Its use is
 * written at most every 5 minutes, so that a busy page does not write on every call.
 */
export const LOGIN_SESSION_IDLE_MS = 7 * 86_400_000;
export const LOGIN_SESSION_MAX_MS = 30 * 86_400_000;
const TOUCH_EVERY_MS = 5 * 60_000;

/** The signed-in user, as every dashboard procedure sees them. */
export type SignedInUser = {
  sessionId: string;
  userId: string;
  email: string;
  name: string;
  organizationId: string;
  organizationName: string;
  plan: Plan;
  canceled: boolean;
  role: Role;
  expiresAt: Date;
  /** Its expiry moved on with this use: the cookies are sent again with the new one. */
  renewed: boolean;
};

export type OpenedLoginSession = { token: string; expiresAt: Date; csrfToken: string };

export async function openLoginSession(
  db: DbTx,
  input: { userId: string; organizationId: string; ip: string | null; userAgent: string | null; now: Date },
): Promise<OpenedLoginSession> {
  const { token, hash } = newToken();
  const expiresAt = new Date(input.now.getTime() + LOGIN_SESSION_IDLE_MS);
  await db.userSession.create({
    data: {
      id: randomUUID(),
      token_hash: hash,
      user_id: input.userId,
      organization_id: input.organizationId,
      created_at: input.now,
      last_seen_at: input.now,
      expires_at: expiresAt,
      ip: input.ip,
      user_agent: input.userAgent?.slice(0, 300) ?? null,
    },
  });
  return { token, expiresAt, csrfToken: csrfTokenFor(token) };
}

type Row = {
  id: string;
  user_id: string;
  email: string;
  name: string;
  organization_id: string;
  organization_name: string;
  plan: string;
  canceled: boolean;
  role: string;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
};

/**
 * The session of a cookie's token, or null when there is none: unknown, expired, or its user is no
 * longer a member of the organisation it works in.
 */
export function findLoginSession(db: DbTx, token: string, now: Date): Promise<SignedInUser | null> {
  return querySession(db, Prisma.sql`s.token_hash = ${hashToken(token)}`, now);
}

/** The session `id` as it is now (after it moved to another organisation). */
export function reloadLoginSession(db: DbTx, sessionId: string, now: Date): Promise<SignedInUser | null> {
  return querySession(db, Prisma.sql`s.id = ${sessionId}::uuid`, now);
}

async function querySession(db: DbTx, which: Prisma.Sql, now: Date): Promise<SignedInUser | null> {
  const [row] = await db.$queryRaw<Row[]>`
    SELECT s.id::text, s.user_id::text, u.email, u.name, s.organization_id::text, o.name AS organization_name, o.plan,
      o.canceled_at IS NOT NULL AS canceled, m.role, s.created_at, s.last_seen_at, s.expires_at
    FROM user_sessions s
    JOIN users u ON u.id = s.user_id
    JOIN memberships m ON m.organization_id = s.organization_id AND m.user_id = s.user_id
    JOIN organizations o ON o.id = s.organization_id
    WHERE ${which} AND s.expires_at > ${now}`;
  if (!row) return null;
  let expiresAt = row.expires_at;
  let renewed = false;
  if (now.getTime() - row.last_seen_at.getTime() >= TOUCH_EVERY_MS) {
    expiresAt = new Date(Math.min(row.created_at.getTime() + LOGIN_SESSION_MAX_MS, now.getTime() + LOGIN_SESSION_IDLE_MS));
    renewed = expiresAt.getTime() !== row.expires_at.getTime();
    await db.userSession.update({ where: { id: row.id }, data: { last_seen_at: now, expires_at: expiresAt } });
  }
  return {
    sessionId: row.id,
    userId: row.user_id,
    email: row.email,
    name: row.name,
    organizationId: row.organization_id,
    organizationName: row.organization_name,
    plan: row.plan as Plan,
    canceled: row.canceled,
    role: row.role as Role,
    expiresAt,
    renewed,
  };
}

export async function closeLoginSession(db: DbTx, sessionId: string): Promise<void> {
  await db.userSession.deleteMany({ where: { id: sessionId } });
}

export async function closeAllLoginSessions(db: DbTx, userId: string): Promise<number> {
  const { count } = await db.userSession.deleteMany({ where: { user_id: userId } });
  return count;
}

/** Moves a session to another organisation of its user (404 when they are not a member of it). */
export async function moveLoginSession(db: DbTx, session: SignedInUser, organizationId: string): Promise<void> {
  const member = await db.membership.findUnique({
    where: { organization_id_user_id: { organization_id: organizationId, user_id: session.userId } },
  });
  if (!member) throw new AppError('not_found', `You are not a member of organisation ${organizationId}`);
  await db.userSession.update({ where: { id: session.sessionId }, data: { organization_id: organizationId } });
}

/** What the dashboard shows of the signed-in user: their organisations, establishments and role. */
export async function describeLoginSession(db: DbTx, session: SignedInUser, csrfToken: string, publicUrl: string): Promise<Me> {
  const [memberships, establishments] = await Promise.all([
    db.membership.findMany({
      where: { user_id: session.userId },
      include: { organization: { select: { name: true } } },
      orderBy: { created_at: 'asc' },
    }),
    db.establishment.findMany({
      where: { organization_id: session.organizationId },
      select: { id: true, name: true, cif: true, timezone: true },
      orderBy: [{ name: 'asc' }, { id: 'asc' }],
    }),
  ]);
  return {
    user: { id: session.userId, email: session.email, name: session.name },
    organization: {
      id: session.organizationId,
      name: session.organizationName,
      plan: session.plan,
      api_enabled: !session.canceled && (API_PLANS as readonly string[]).includes(session.plan),
    },
    role: session.role,
    organizations: memberships.map((m) => ({ id: m.organization_id, name: m.organization.name, role: m.role as Role })),
    establishments,
    csrf_token: csrfToken,
    public_url: publicUrl.replace(/\/+$/, ''),
  };
}
