import { Redis } from 'ioredis';

/**
 * The process's one Redis connection (REDIS_URL), shared by the API's and the dashboard's rate
 * limits (the sign-in lockout is in the database: accounts/lockout.ts). It fails fast instead of queueing while Redis is down, so that the
 * in-memory insurance limiters stand in at once; it reconnects by itself.
 */
export function createRedis(url: string | undefined): Redis | undefined {
  if (!url) return undefined;
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    lazyConnect: false,
  });
  redis.on('error', () => {}); // reconnects by itself; the insurance limiters cover the gap
  return redis;
}
