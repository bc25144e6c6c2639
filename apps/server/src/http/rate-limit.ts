import type { FastifyReply } from 'fastify';
import type { Redis } from 'ioredis';
import { type RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import type { Config } from '../config.js';
import { consumeOrRefuse, createLimit, limitReached } from '../limits.js';
import type { DashboardRateLimit } from '../trpc/dashboard-base.js';
import type { RateBucket } from '../trpc/trpc.js';

/**
 * Rate limits (rate-limiter-flexible), one implementation for both doors:
 *
 * - The API, per key. Buckets, from the contract's first stated set: `general` 10/min,
 *   `records_create` (POST /records) 30/min, `analytics` 10/hour; all configurable. Every API
 *   response carries X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset (Unix
 *   seconds); a 429 also carries Retry-After (seconds).
 * - The dashboard, per signed-in user and procedure, for the procedures whose meta names a limit
 *   (`rateLimit` in trpc/dashboard-base.ts) and the CSV export: DASHBOARD_LIMITS. A 429 carries
 *   Retry-After.
 *
 * The counters are the service's one construction (limits.ts): with REDIS_URL they live in Redis and
 * are shared by every replica; if Redis fails, an in-memory limiter with the same limits stands in
 * (per replica) until it is back, so requests are neither refused nor left unlimited.
 * RATE_LIMIT_ENABLED=false turns these limits off.
 */
export type RateLimiter = {
  consume(bucket: RateBucket, keyId: string, reply: FastifyReply): Promise<void>;
  /**
   * The integrations' URLs (http/surfaces/vendors.ts): `received` counts one request of an
   * authenticated integration; `refused` one refused request from a client address.
   */
  consumeIntegration(limit: IntegrationRateLimit, key: string): Promise<void>;
  /**
   * Counts one call of a dashboard user (`key`: the user and what they call) against `limit`;
   * throws a `rate_limited` AppError (with Retry-After) once it is spent.
   */
  consumeForUser(limit: DashboardRateLimit, key: string): Promise<void>;
  /** A social entity's signing link (http/surfaces/donation-link.ts): DONATION_LINK_LIMITS. */
  consumeForLink(limit: DonationLinkRateLimit, key: string): Promise<void>;
};

/**
 * The dashboard's limits, per user and procedure. Set so that a person never meets them — the
 * overview page makes one call of each insight per load, a filter change one more, and nobody
 * reloads a page once a second for a minute — while a script looping over a procedure is stopped
 * within its first minute. `heavy`: reads that aggregate over many records (analytics, periods,
 * benchmark, alerts, forecasts, chain verification, the CSV export). `generate`: writing a
 * prevention plan (an aggregate plus an audited write). Constants, not settings: they guard the
 * database, and an operator needing others has RATE_LIMIT_ENABLED to turn limits off.
 */
export const DASHBOARD_LIMITS: Record<DashboardRateLimit, { points: number; seconds: number }> = {
  heavy: { points: 60, seconds: 60 },
  generate: { points: 20, seconds: 3600 },
};

/**
 * The integrations' limits. `received`, per integration: Odoo's webhook action sends each record
 * once, after its transaction, with a 1-second timeout, and never again — a refused request is a
 * record lost — so the limit is far above what a busy shop sends (a rule per sold line: hundreds a
 * minute at the rush) while still stopping a loop. Square retries what it is refused, for a day.
 * `refused`, per client address: requests that fail authentication (an unknown URL, a wrong
 * signature or token): past it they are answered 429, so that guessing is slow; requests that
 * authenticate are never counted there, and unsigned ones never spend an integration's own limit.
 * Constants, like the dashboard's.
 */
/**
 * The signing links' limits. `address`, per client address, every request of the door: a volunteer's
 * page makes a handful per donation, so 60 a minute never meets a person while it slows a script
 * trying tokens (which are 256 random bits anyway). `sign`, per link: a signature is taken once,
 * and a page whose signature is refused (a missing reason) sends it again — a few times, not 10.
 */
export type DonationLinkRateLimit = 'address' | 'sign';
export const DONATION_LINK_LIMITS: Record<DonationLinkRateLimit, { points: number; seconds: number }> = {
  address: { points: 60, seconds: 60 },
  sign: { points: 10, seconds: 600 },
};

export type IntegrationRateLimit = 'received' | 'refused';
export const INTEGRATION_LIMITS: Record<IntegrationRateLimit, { points: number; seconds: number }> = {
  received: { points: 1200, seconds: 60 },
  refused: { points: 30, seconds: 60 },
};

function points(config: Config['rateLimits'], bucket: RateBucket): number {
  if (bucket === 'records_create') return config.recordsPerMinute;
  if (bucket === 'analytics') return config.analyticsPerHour;
  return config.generalPerMinute;
}

function perWindow(seconds: number): string {
  return seconds === 60 ? 'minute' : seconds === 3600 ? 'hour' : `${seconds} s`;
}

/** Consumes a point; a spent limiter answers with its state (RateLimiterRes) rather than throwing. */
async function take(limiter: RateLimiterAbstract, key: string): Promise<{ res: RateLimiterRes; limited: boolean }> {
  try {
    return { res: await limiter.consume(key, 1), limited: false };
  } catch (err) {
    if (!(err instanceof RateLimiterRes)) throw err;
    return { res: err, limited: true };
  }
}

/** `redis` (redis.ts) holds the counters when given; it is closed by its owner, services.ts. */
export function createRateLimiter(config: Pick<Config, 'rateLimits'>, redis: Redis | undefined): RateLimiter {
  if (!config.rateLimits.enabled) {
    return {
      consume: async () => {},
      consumeForUser: async () => {},
      consumeIntegration: async () => {},
      consumeForLink: async () => {},
    };
  }

  const build = (points: number, duration: number, keyPrefix: string) => createLimit(redis, { points, duration, keyPrefix });

  const window = config.rateLimits.windowSeconds;
  const durations: Record<RateBucket, number> = { general: window, records_create: window, analytics: 3600 };
  const limiters = new Map<RateBucket, RateLimiterAbstract>();
  for (const bucket of Object.keys(durations) as RateBucket[]) {
    limiters.set(bucket, build(points(config.rateLimits, bucket), durations[bucket], `merma:rl:${bucket}:${durations[bucket]}`));
  }
  const dashboardLimiters = new Map<DashboardRateLimit, RateLimiterAbstract>();
  for (const [limit, { points, seconds }] of Object.entries(DASHBOARD_LIMITS) as [
    DashboardRateLimit,
    { points: number; seconds: number },
  ][]) {
    dashboardLimiters.set(limit, build(points, seconds, `merma:rl:dashboard:${limit}:${seconds}`));
  }

  const integrationLimiters = new Map<IntegrationRateLimit, RateLimiterAbstract>();
  for (const [limit, { points, seconds }] of Object.entries(INTEGRATION_LIMITS) as [
    IntegrationRateLimit,
    { points: number; seconds: number },
  ][]) {
    integrationLimiters.set(limit, build(points, seconds, `merma:rl:integration:${limit}:${seconds}`));
  }

  const linkLimiters = new Map<DonationLinkRateLimit, RateLimiterAbstract>();
  for (const [limit, { points, seconds }] of Object.entries(DONATION_LINK_LIMITS) as [
    DonationLinkRateLimit,
    { points: number; seconds: number },
  ][]) {
    linkLimiters.set(limit, build(points, seconds, `merma:rl:donation-link:${limit}:${seconds}`));
  }

  return {
    async consumeForLink(limit, key) {
      const { points, seconds } = DONATION_LINK_LIMITS[limit];
      await consumeOrRefuse(
        linkLimiters.get(limit) as RateLimiterAbstract,
        key,
        limit === 'address'
          ? `Too many requests from this address: at most ${points} per ${perWindow(seconds)}; try again shortly`
          : `Too many signatures sent through this link: at most ${points} per ${perWindow(seconds)}`,
      );
    },

    async consumeIntegration(limit, key) {
      const { points, seconds } = INTEGRATION_LIMITS[limit];
      await consumeOrRefuse(
        integrationLimiters.get(limit) as RateLimiterAbstract,
        key,
        limit === 'received'
          ? `Too many requests: at most ${points} per ${perWindow(seconds)} for each integration`
          : `Too many refused requests from this address: at most ${points} per ${perWindow(seconds)}; try again shortly`,
      );
    },

    async consume(bucket, keyId, reply) {
      const limiter = limiters.get(bucket) as RateLimiterAbstract;
      const limit = limiter.points;
      const { res, limited } = await take(limiter, keyId);
      const resetMs = Date.now() + res.msBeforeNext;
      reply.header('x-ratelimit-limit', String(limit));
      reply.header('x-ratelimit-remaining', String(Math.max(0, res.remainingPoints)));
      reply.header('x-ratelimit-reset', String(Math.ceil(resetMs / 1000)));
      if (limited) {
        throw limitReached(res, `Rate limit exceeded: ${limit} requests per ${perWindow(durations[bucket])} for this key`);
      }
    },

    async consumeForUser(limit, key) {
      const { points, seconds } = DASHBOARD_LIMITS[limit];
      await consumeOrRefuse(
        dashboardLimiters.get(limit) as RateLimiterAbstract,
        key,
        `Too many requests: at most ${points} of these per ${perWindow(seconds)} for each user; try again shortly`,
      );
    },
  };
}
