import type pg from 'pg';
import { type RateLimiterAbstract, RateLimiterPostgres } from 'rate-limiter-flexible';
import { consumeOrRefuse, giveBack } from '../../limits.js';

/**
 * Brute-force protection of the dashboard's sign-in and e-mail links, after rate-limiter-flexible's
 * "login endpoint protection" recipe.
 *
 * Its counters are in the database (`sign_in_limits`, rate-limiter-flexible's RateLimiterPostgres),
 * not in Redis with the API's rate limits: a lockout must outlive a restart of Redis (which keeps
 * nothing on disk) and of every replica, or emptying the counters would hand a password guesser
 * ten more tries per account and a hundred per address. Shared by every replica through the
 * database, as the accounts themselves are; a sign-in needs the database anyway, so this adds no
 * way for it to fail. Sign-ins are few: a few small statements each cost nothing that matters.
 *
 * Every attempt is counted *before* it is evaluated and given back when it succeeds (consume, then
 * reward/delete), and an account locks whatever address the guesses come from. Why both:
 * docs/decisions/0004-count-sign-in-attempts-before-checking.md.
 *
 * - An account is locked for 15 minutes after 10 consecutive wrong passwords (a right one resets
 *   the count).
 * - An IP address is blocked for a day after 100 wrong passwords in a day, whatever the accounts.
 * - Password-reset e-mails: 3 an hour per address, 20 an hour per IP (no mail bombing).
 * - Link tokens (invitation, reset, sign-in link) tried from one IP: 30 wrong ones an hour.
 */
export const MAX_CONSECUTIVE_FAILURES = 10;
export const MAX_FAILURES_PER_IP = 100;
export const MAX_LINK_ATTEMPTS_PER_HOUR = 30;
// An attempt is consumed before it is evaluated: the (N + 1)th attempt within the window is the
// first refused, and refusing it blocks the key for blockDuration.
const LIMITS = {
  account: { points: MAX_CONSECUTIVE_FAILURES, duration: 3600, blockDuration: 15 * 60 },
  ip: { points: MAX_FAILURES_PER_IP, duration: 86_400, blockDuration: 86_400 },
  resetByEmail: { points: 3, duration: 3600 },
  resetByIp: { points: 20, duration: 3600 },
  linkByIp: { points: MAX_LINK_ATTEMPTS_PER_HOUR, duration: 3600 },
} as const;

type Name = keyof typeof LIMITS;

export type SignInGuard = {
  /**
   * Counts a sign-in attempt against the account and the IP before the password is checked;
   * throws 429 rate_limited when either is used up.
   */
  attempt(email: string, ip: string): Promise<void>;
  /** The password was right: the IP's attempt is given back and the account's count starts again. */
  succeeded(email: string, ip: string): Promise<void>;
  /** A password was set through a reset link: the account's count starts again. */
  unlocked(email: string): Promise<void>;
  /** A password-reset e-mail is about to be sent (throws 429 past the limit). */
  resetRequested(email: string, ip: string): Promise<void>;
  /** Counts a link token's use against the IP before the token is looked up (throws 429 past the limit). */
  linkAttempt(ip: string): Promise<void>;
  /** The token matched: its attempt is given back. */
  linkSucceeded(ip: string): Promise<void>;
};

export function createSignInGuard(pool: pg.Pool, { namedStatements = false }: { namedStatements?: boolean } = {}): SignInGuard {
  // The library names its statements: kept where the pool may prepare them, dropped on the embedded
  // database, whose connections share one session (db/sql.ts).
  const storeClient = {
    query: (q: pg.QueryConfig) => pool.query(namedStatements ? q : { text: q.text, values: q.values ?? [] }),
  };
  const limiters = Object.fromEntries(
    (Object.keys(LIMITS) as Name[]).map((name) => [
      name,
      new RateLimiterPostgres({
        ...LIMITS[name],
        keyPrefix: `merma:signin:${name}`,
        storeClient,
        storeType: 'pool',
        tableName: 'sign_in_limits',
        tableCreated: true,
        // One limiter deletes the rows expired an hour ago, every 5 minutes, for the whole table.
        clearExpiredByTimeout: name === 'account',
      }),
    ]),
  ) as unknown as Record<Name, RateLimiterAbstract>;
  const consume = (message: string, name: Name, key: string) => consumeOrRefuse(limiters[name], key, message);
  const TOO_MANY = 'Too many failed sign-in attempts: try again later or reset the password';

  return {
    // The account first: attempts on an account already locked are refused without being charged
    // to the IP's daily allowance (a burst at one account costs the IP at most the account's limit).
    async attempt(email, ip) {
      await consume(TOO_MANY, 'account', email);
      try {
        await consume(TOO_MANY, 'ip', ip);
      } catch (err) {
        // A blocked IP must not lock accounts either: the account's attempt was never evaluated.
        await giveBack(limiters.account, email);
        throw err;
      }
    },
    async succeeded(email, ip) {
      await Promise.all([limiters.account.delete(email), giveBack(limiters.ip, ip)]);
    },
    async unlocked(email) {
      await limiters.account.delete(email);
    },
    async resetRequested(email, ip) {
      await consume('Too many password-reset requests from this address: try again later', 'resetByIp', ip);
      await consume('Too many password-reset requests for this e-mail: try again later', 'resetByEmail', email);
    },
    linkAttempt: (ip) => consume('Too many invalid links from this address: try again later', 'linkByIp', ip),
    linkSucceeded: (ip) => giveBack(limiters.linkByIp, ip),
  };
}
