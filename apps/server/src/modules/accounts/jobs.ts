import type { DbTx } from '../../db/client.js';

/**
 * The accounts' durable jobs (graphile-worker, registered by jobs/worker.ts), queued by SQL on the
 * caller's connection or transaction:
 *
 * - `accounts.password_reset_mail` {email}: queued for every password-reset request, known address
 *   or not, so that the request does the same work either way; the job looks the address up and
 *   mails a link (service.ts, sendPasswordResetMail). A link lives an hour, so a mail server that
 *   stays down is given up after 5 attempts (about 4 minutes of graphile-worker's backoff).
 * - `accounts.sign_in_failed` {email, ip, at}: queued for every wrong password, known address or
 *   not; the job writes the audit entry of a known account (service.ts, auditFailedSignIn).
 */
export const PASSWORD_RESET_MAIL_TASK = 'accounts.password_reset_mail';
export const SIGN_IN_FAILED_TASK = 'accounts.sign_in_failed';

export type PasswordResetMail = { email: string };
export type FailedSignIn = { email: string; ip: string; at: string };

export async function enqueuePasswordResetMail(db: DbTx, payload: PasswordResetMail): Promise<void> {
  await db.$executeRaw`SELECT graphile_worker.add_job(${PASSWORD_RESET_MAIL_TASK}::text, ${JSON.stringify(payload)}::json, max_attempts := 5)`;
}

export async function enqueueFailedSignIn(db: DbTx, input: { email: string; ip: string; at: Date }): Promise<void> {
  const payload: FailedSignIn = { email: input.email, ip: input.ip, at: input.at.toISOString() };
  await db.$executeRaw`SELECT graphile_worker.add_job(${SIGN_IN_FAILED_TASK}::text, ${JSON.stringify(payload)}::json, max_attempts := 10)`;
}
