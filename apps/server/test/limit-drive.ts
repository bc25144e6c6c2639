import { randomUUID } from 'node:crypto';
import { AppError } from '../src/errors.js';

/**
 * Driving one limit through its limiter's own entry point, for the tests of every limit's window
 * and allowance (rate-limit-windows.test.ts, sign-in-limits.test.ts).
 */
export type Limit<F> = {
  points: number;
  /** Seconds. */
  window: number;
  /** Seconds a key stays refused once it went over (counted from that refusal). */
  block?: number;
  /** One attempt counted against `key` only (every other key it touches is fresh). */
  drive(f: F, key: string): Promise<unknown>;
  /** The counter's key in the store, when it is not `key` itself. */
  storeKey?(key: string): string;
};

export const MINUTE = 60;
export const HOUR = 3600;
export const DAY = 86_400;
export const other = () => randomUUID();
export const otherIp = () =>
  `10.${Math.floor(Math.random() * 256)}.${Math.floor(Math.random() * 256)}.${1 + Math.floor(Math.random() * 254)}`;

export type Outcome = { allowed: true } | { allowed: false; retryAfterSeconds: number; resetAt: number };

/** One attempt: allowed, or refused with its Retry-After and reset time (any other error is thrown). */
export async function attempt<F>(limit: Limit<F>, f: F, key: string): Promise<Outcome> {
  try {
    await limit.drive(f, key);
    return { allowed: true };
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== 'rate_limited') throw err;
    return { allowed: false, retryAfterSeconds: err.extra?.retryAfterSeconds ?? -1, resetAt: err.extra?.resetAt?.getTime() ?? -1 };
  }
}

/** `n` attempts in a row, all allowed. */
export async function spend<F>(limit: Limit<F>, f: F, key: string, n: number) {
  for (let i = 0; i < n; i++) {
    const outcome = await attempt(limit, f, key);
    if (!outcome.allowed) throw new Error(`attempt ${i + 1} of ${n} was refused`);
  }
}
