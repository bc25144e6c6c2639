/**
 * When a failed webhook delivery is tried again: 1 min, 5 min, 30 min, 2 h and 12 h after the
 * attempt that failed (six attempts over about 15 hours), each delay stretched by up to 10 % at
 * random so that receivers coming back from an outage are not hit by every retry at once.
 */
export const RETRY_DELAYS_MS = [60_000, 300_000, 1_800_000, 7_200_000, 43_200_000] as const;
export const RETRY_JITTER = 0.1;

/** Failed deliveries in a row (each after all its retries) that deactivate a subscription (in @merma/schema: the dashboard says it). */
export { DEACTIVATE_AFTER_FAILED_DELIVERIES } from '@merma/schema';

/** The time of the retry after failed attempt number `attempt` (1-based), or null when none is left. */
export function nextAttemptAt(attempt: number, now: Date, random: () => number = Math.random): Date | null {
  const delay = RETRY_DELAYS_MS[attempt - 1];
  if (delay === undefined) return null;
  return new Date(now.getTime() + Math.round(delay * (1 + RETRY_JITTER * random())));
}
