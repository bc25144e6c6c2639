import { createHmac, hash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Bearer tokens of the dashboard: session cookies, invitation, password-reset and sign-in links.
 * 32 random bytes, base64url (43 characters). Only their SHA-256 is stored, so a copy of the
 * database holds no usable session or link; a fast hash is right because the token is random and
 * long (a password would need a slow one, accounts/password.ts).
 */
export function newToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashToken(token) };
}

export function hashToken(token: string): string {
  return hash('sha256', token, 'hex');
}

/**
 * The CSRF token of a session: an HMAC of the session token, so it needs no storage, changes with
 * every session and cannot be made without the (httpOnly) session cookie. The page reads it from
 * the CSRF cookie (`merma_csrf`, `__Host-merma_csrf` in production) and sends it back as
 * `x-csrf-token` (a signed double-submit cookie, as OWASP's CSRF cheat sheet describes).
 */
export function csrfTokenFor(sessionToken: string): string {
  return createHmac('sha256', sessionToken).update('merma-csrf-v1').digest('base64url');
}

export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
