import { randomUUID } from 'node:crypto';
import { expect, vi } from 'vitest';
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

/**
 * A limit's edges on the test's clock (Date faked from `t0`): its allowance spent at `t0` is still
 * spent 1 ms before its window ends, the refusal then starts its block (when it has one), and a
 * whole new allowance starts when the window, or that block, ends, to the millisecond. Without a
 * refusal inside it, the window alone ends the count. The caller restores the real timers.
 */
export async function expectWindowEdges<F>(limit: Limit<F>, f: F, t0: number) {
  vi.useFakeTimers({ toFake: ['Date'], now: t0 });
  const W = limit.window * 1000;
  const key = other();
  await spend(limit, f, key, limit.points);

  vi.setSystemTime(t0 + W - 1);
  expect(await attempt(limit, f, key)).toEqual({
    allowed: false,
    resetAt: limit.block ? t0 + W - 1 + limit.block * 1000 : t0 + W,
    retryAfterSeconds: limit.block ?? 1,
  });

  const free = limit.block ? t0 + W - 1 + limit.block * 1000 : t0 + W;
  if (limit.block) {
    vi.setSystemTime(free - 1);
    expect((await attempt(limit, f, key)).allowed).toBe(false);
  }
  vi.setSystemTime(free);
  await spend(limit, f, key, limit.points);
  expect(await attempt(limit, f, key)).toMatchObject({ allowed: false });

  if (limit.block) {
    const fresh = other();
    vi.setSystemTime(t0);
    await spend(limit, f, fresh, limit.points);
    vi.setSystemTime(t0 + W);
    await spend(limit, f, fresh, limit.points);
  }
}
