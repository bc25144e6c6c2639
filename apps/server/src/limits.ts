import type { Redis } from 'ioredis';
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { AppError } from './errors.js';

/**
 * The counters every limit of the service is built on (rate-limiter-flexible): in Redis when
 * REDIS_URL is set, shared by every replica, with an in-memory limiter standing in while Redis is
 * down; in memory otherwise. The API's per-key limits, the invitation limits and the dashboard's
 * per-user limits use it; the sign-in lockout counts in the database instead (accounts/lockout.ts).
 * All answer a refusal with `limitReached`.
 */
export type LimitOptions = { keyPrefix: string; points: number; duration: number; blockDuration?: number };

export function createLimit(redis: Redis | undefined, options: LimitOptions): RateLimiterAbstract {
  return redis
    ? new RateLimiterRedis({ ...options, storeClient: redis, insuranceLimiter: new RateLimiterMemory(options) })
    : new RateLimiterMemory(options);
}

/** The 429 of a refused `consume` (rate_limited, Retry-After in whole seconds, at least 1). */
export function limitReached(res: RateLimiterRes, message: string): AppError {
  return new AppError('rate_limited', message, undefined, {
    retryAfterSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
    resetAt: new Date(Date.now() + res.msBeforeNext),
  });
}

/**
 * Gives back one point of `key` (an attempt that turned out fine). Only while the key has points
 * consumed: a refund after its window ended would start the next window below zero, and so allow
 * more than the limit in it.
 */
export async function giveBack(limiter: RateLimiterAbstract, key: string): Promise<void> {
  const res = await limiter.get(key);
  if (res && res.consumedPoints > 0) await limiter.reward(key);
}

/** Consumes one point of `key`; a refusal becomes `limitReached(…, message)`, other errors pass through. */
export async function consumeOrRefuse(limiter: RateLimiterAbstract, key: string, message: string): Promise<void> {
  try {
    await limiter.consume(key);
  } catch (err) {
    if (err instanceof RateLimiterRes) throw limitReached(err, message);
    throw err;
  }
}
