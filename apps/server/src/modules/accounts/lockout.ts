import type { Redis } from 'ioredis';
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { AppError } from '../../errors.js';

/**
 * Brute-force protection of the dashboard's sign-in and e-mail links, after rate-limiter-flexible's
 * "login endpoint protection" recipe. Counters live in Redis when REDIS_URL is set (shared by every
 * replica, an in-memory limiter standing in while Redis is down), in memory otherwise.
 *
 * - An account is locked for 15 minutes after 10 consecutive wrong passwords (a right one resets
 *   the count). Locking by account alone lets someone lock another person out for 15 minutes; it
 *   is the price of stopping a slow guess spread over many addresses, and the sign-in link of a
 *   password reset still works meanwhile.
 * - An IP address is blocked for a day after 100 wrong passwords in a day, whatever the accounts.
 * - Password-reset e-mails: 3 an hour per address, 20 an hour per IP (no mail bombing).
 * - Link tokens (invitation, reset, sign-in link) tried from one IP: 30 wrong ones an hour.
 */
export const MAX_CONSECUTIVE_FAILURES = 10;
const MAX_FAILURES_PER_IP = 100;
// A consume past `points` is refused and blocks the key for blockDuration: the Nth failure is the
// first one past N - 1 points.
const LIMITS = {
  account: { points: MAX_CONSECUTIVE_FAILURES - 1, duration: 3600, blockDuration: 15 * 60 },
  ip: { points: MAX_FAILURES_PER_IP - 1, duration: 86_400, blockDuration: 86_400 },
  resetByEmail: { points: 3, duration: 3600 },
  resetByIp: { points: 20, duration: 3600 },
  linkByIp: { points: 30, duration: 3600 },
} as const;

type Name = keyof typeof LIMITS;

export type SignInGuard = {
  /** Throws 429 rate_limited when the account or the IP is locked. */
  check(email: string, ip: string): Promise<void>;
  /** A wrong password: counts against the account and the IP. */
  failed(email: string, ip: string): Promise<void>;
  /** A right password: the account's count starts again. */
  succeeded(email: string): Promise<void>;
  /** A password-reset e-mail is about to be sent (throws 429 past the limit). */
  resetRequested(email: string, ip: string): Promise<void>;
  /** A link token that matched nothing (throws 429 past the limit). */
  badLink(ip: string): Promise<void>;
  /** Throws 429 when the IP tried too many bad links. */
  checkLink(ip: string): Promise<void>;
};

export function createSignInGuard(redis: Redis | undefined): SignInGuard {
  const limiters = Object.fromEntries(
    (Object.keys(LIMITS) as Name[]).map((name) => {
      const opts = { ...LIMITS[name], keyPrefix: `merma:signin:${name}` };
      const limiter: RateLimiterAbstract = redis
        ? new RateLimiterRedis({ ...opts, storeClient: redis, insuranceLimiter: new RateLimiterMemory(opts) })
        : new RateLimiterMemory(opts);
      return [name, limiter];
    }),
  ) as Record<Name, RateLimiterAbstract>;

  const refuse = (res: RateLimiterRes, message: string) => {
    const seconds = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
    return new AppError('rate_limited', message, undefined, {
      retryAfterSeconds: seconds,
      resetAt: new Date(Date.now() + res.msBeforeNext),
    });
  };
  const blocked = async (name: Name, key: string) => {
    const res = await limiters[name].get(key);
    return res && res.consumedPoints > LIMITS[name].points ? res : undefined;
  };
  const consume = async (name: Name, key: string, message: string) => {
    try {
      await limiters[name].consume(key);
    } catch (err) {
      if (err instanceof RateLimiterRes) throw refuse(err, message);
      throw err;
    }
  };
  const TOO_MANY = 'Too many failed sign-in attempts: try again later or reset the password';

  return {
    async check(email, ip) {
      const res = (await blocked('ip', ip)) ?? (await blocked('account', email));
      if (res) throw refuse(res, TOO_MANY);
    },
    async failed(email, ip) {
      await Promise.allSettled([limiters.ip.consume(ip), limiters.account.consume(email)]);
    },
    async succeeded(email) {
      await limiters.account.delete(email);
    },
    async resetRequested(email, ip) {
      await consume('resetByIp', ip, 'Too many password-reset requests from this address: try again later');
      await consume('resetByEmail', email, 'Too many password-reset requests for this e-mail: try again later');
    },
    async checkLink(ip) {
      const res = await blocked('linkByIp', ip);
      if (res) throw refuse(res, 'Too many invalid links from this address: try again later');
    },
    async badLink(ip) {
      await limiters.linkByIp.consume(ip).catch(() => {});
    },
  };
}
