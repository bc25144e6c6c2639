import type { FastifyReply } from 'fastify';
import type { Redis } from 'ioredis';
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import type { RateBucket } from '../trpc/trpc.js';

/**
 * Per-key rate limits (rate-limiter-flexible). Buckets, from the contract's first stated set:
 * `general` 10/min, `records_create` (POST /records) 30/min, `analytics` 10/hour; all configurable.
 * With REDIS_URL the counters live in Redis and are shared by every replica; if Redis fails, an
 * in-memory limiter with the same limits stands in (per replica) until it is back, so requests are
 * neither refused nor left unlimited.
 *
 * Every API response carries X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset (Unix
 * seconds); a 429 also carries Retry-After (seconds).
 */
export type RateLimiter = {
  consume(bucket: RateBucket, keyId: string, reply: FastifyReply): Promise<void>;
};

function points(config: Config['rateLimits'], bucket: RateBucket): number {
  if (bucket === 'records_create') return config.recordsPerMinute;
  if (bucket === 'analytics') return config.analyticsPerHour;
  return config.generalPerMinute;
}

/** `redis` (redis.ts) holds the counters when given; it is closed by its owner, services.ts. */
export function createRateLimiter(config: Pick<Config, 'rateLimits'>, redis: Redis | undefined): RateLimiter {
  if (!config.rateLimits.enabled) {
    return { consume: async () => {} };
  }

  const window = config.rateLimits.windowSeconds;
  const durations: Record<RateBucket, number> = { general: window, records_create: window, analytics: 3600 };
  const limiters = new Map<RateBucket, RateLimiterAbstract>();
  for (const bucket of Object.keys(durations) as RateBucket[]) {
    const opts = {
      points: points(config.rateLimits, bucket),
      duration: durations[bucket],
      keyPrefix: `merma:rl:${bucket}:${durations[bucket]}`,
    };
    limiters.set(
      bucket,
      redis
        ? new RateLimiterRedis({ ...opts, storeClient: redis, insuranceLimiter: new RateLimiterMemory(opts) })
        : new RateLimiterMemory(opts),
    );
  }

  return {
    async consume(bucket, keyId, reply) {
      const limiter = limiters.get(bucket) as RateLimiterAbstract;
      const limit = limiter.points;
      let res: RateLimiterRes;
      let limited = false;
      try {
        res = await limiter.consume(keyId, 1);
      } catch (err) {
        if (!(err instanceof RateLimiterRes)) throw err;
        res = err;
        limited = true;
      }
      const resetMs = Date.now() + res.msBeforeNext;
      reply.header('x-ratelimit-limit', String(limit));
      reply.header('x-ratelimit-remaining', String(Math.max(0, res.remainingPoints)));
      reply.header('x-ratelimit-reset', String(Math.ceil(resetMs / 1000)));
      if (limited) {
        const retryAfter = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
        const per = durations[bucket] === 60 ? 'minute' : durations[bucket] === 3600 ? 'hour' : `${durations[bucket]} s`;
        throw new AppError('rate_limited', `Rate limit exceeded: ${limit} requests per ${per} for this key`, undefined, {
          resetAt: new Date(resetMs),
          retryAfterSeconds: retryAfter,
        });
      }
    },
  };
}
