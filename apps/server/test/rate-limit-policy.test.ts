import type { FastifyReply } from 'fastify';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../src/config.js';
import { AppError } from '../src/errors.js';
import { createRateLimiter, DASHBOARD_LIMITS, INTEGRATION_LIMITS } from '../src/http/rate-limit.js';
import { consumeOrRefuse, giveBack } from '../src/limits.js';

/**
 * What the rate limits tell the caller (http/rate-limit.ts, limits.ts), in memory on a fixed clock:
 * the X-RateLimit-* headers of every API answer, the message of each refusal, and that a failing
 * store is an error, not a refusal. rate-limit-windows.test.ts covers each limit's window and
 * allowance; these are the words and figures around them.
 */
const T0 = Date.parse('2026-03-02T09:00:20.300Z');
const ENV = { RATE_LIMIT_GENERAL_PER_MINUTE: '3', RATE_LIMIT_RECORDS_PER_MINUTE: '4', RATE_LIMIT_ANALYTICS_PER_HOUR: '2' };

/** A reply that keeps the headers set on it. */
function replyKeepingHeaders() {
  const headers: Record<string, string> = {};
  const reply = {
    header(name: string, value: string) {
      headers[name] = value;
      return reply;
    },
  };
  return { reply: reply as unknown as FastifyReply, headers };
}

/** The refusal `attempt` ends with (an AppError rate_limited), or undefined when it passed. */
async function refusal(attempt: Promise<unknown>): Promise<AppError | undefined> {
  try {
    await attempt;
    return undefined;
  } catch (err) {
    if (err instanceof AppError && err.code === 'rate_limited') return err;
    throw err;
  }
}

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe("the API's per-key limits", () => {
  it('state the limit, what is left (never below 0) and the end of the window in Unix seconds on every answer', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: T0 });
    const limiter = createRateLimiter(loadConfig(ENV), undefined);
    const seen: Record<string, string>[] = [];
    for (let i = 0; i < 5; i++) {
      const { reply, headers } = replyKeepingHeaders();
      await refusal(limiter.consume('general', 'key-1', reply));
      seen.push(headers);
    }
    const reset = String(Math.ceil((T0 + 60_000) / 1000));
    expect(seen.map((h) => h['x-ratelimit-remaining'])).toEqual(['2', '1', '0', '0', '0']);
    for (const h of seen)
      expect(h).toEqual({ 'x-ratelimit-limit': '3', 'x-ratelimit-remaining': h['x-ratelimit-remaining'], 'x-ratelimit-reset': reset });
    // Later in the window, the same end.
    vi.setSystemTime(T0 + 30_000);
    const { reply, headers } = replyKeepingHeaders();
    await refusal(limiter.consume('general', 'key-1', reply));
    expect(headers['x-ratelimit-reset']).toBe(reset);
  });

  it('refuse with the limit and its window in words: per minute, per hour, or in seconds for another window', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: T0 });
    const messages = async (env: Record<string, string>, bucket: 'general' | 'records_create' | 'analytics', points: number) => {
      const limiter = createRateLimiter(loadConfig({ ...ENV, ...env }), undefined);
      for (let i = 0; i < points; i++) await limiter.consume(bucket, 'key-2', replyKeepingHeaders().reply);
      return (await refusal(limiter.consume(bucket, 'key-2', replyKeepingHeaders().reply)))?.message;
    };
    expect(await messages({}, 'general', 3)).toBe('Rate limit exceeded: 3 requests per minute for this key');
    expect(await messages({}, 'records_create', 4)).toBe('Rate limit exceeded: 4 requests per minute for this key');
    expect(await messages({}, 'analytics', 2)).toBe('Rate limit exceeded: 2 requests per hour for this key');
    expect(await messages({ RATE_LIMIT_WINDOW_SECONDS: '45' }, 'general', 3)).toBe('Rate limit exceeded: 3 requests per 45 s for this key');
  });

  it('are off with RATE_LIMIT_ENABLED=false: nothing refused, no headers', async () => {
    const limiter = createRateLimiter(loadConfig({ ...ENV, RATE_LIMIT_ENABLED: 'false' }), undefined);
    const { reply, headers } = replyKeepingHeaders();
    for (let i = 0; i < 10; i++) await limiter.consume('general', 'key-3', reply);
    for (let i = 0; i < DASHBOARD_LIMITS.generate.points + 1; i++) await limiter.consumeForUser('generate', 'user-3');
    for (let i = 0; i < INTEGRATION_LIMITS.refused.points + 1; i++) await limiter.consumeIntegration('refused', '192.0.2.3');
    expect(headers).toEqual({});
  });

  it('pass a failing store on as an error, never as a refusal', async () => {
    const limiter = createRateLimiter(loadConfig(ENV), undefined);
    const down = new Error('store down');
    vi.spyOn(RateLimiterMemory.prototype, 'consume').mockRejectedValue(down);
    await expect(limiter.consume('general', 'key-4', replyKeepingHeaders().reply)).rejects.toBe(down);
    await expect(limiter.consumeForUser('heavy', 'user-4')).rejects.toBe(down);
    await expect(limiter.consumeIntegration('received', 'integration-4')).rejects.toBe(down);
  });
});

describe("the dashboard's and the integrations' limits", () => {
  const spend = async (take: () => Promise<void>, points: number) => {
    for (let i = 0; i < points; i++) await take();
    return refusal(take());
  };

  it('refuse with their allowance and window in words, and Retry-After', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: T0 });
    const limiter = createRateLimiter(loadConfig(ENV), undefined);
    const heavy = await spend(() => limiter.consumeForUser('heavy', 'user-5'), DASHBOARD_LIMITS.heavy.points);
    expect(heavy).toMatchObject({
      message: 'Too many requests: at most 60 of these per minute for each user; try again shortly',
      extra: { retryAfterSeconds: 60, resetAt: new Date(T0 + 60_000) },
    });
    const generate = await spend(() => limiter.consumeForUser('generate', 'user-5'), DASHBOARD_LIMITS.generate.points);
    expect(generate?.message).toBe('Too many requests: at most 20 of these per hour for each user; try again shortly');
    const received = await spend(() => limiter.consumeIntegration('received', 'integration-5'), INTEGRATION_LIMITS.received.points);
    expect(received?.message).toBe('Too many requests: at most 1200 per minute for each integration');
    const refused = await spend(() => limiter.consumeIntegration('refused', '192.0.2.5'), INTEGRATION_LIMITS.refused.points);
    expect(refused?.message).toBe('Too many refused requests from this address: at most 30 per minute; try again shortly');
  });
});

describe('the counters (limits.ts)', () => {
  it('give back nothing more once a counter is at zero', async () => {
    const limiter = new RateLimiterMemory({ keyPrefix: 'policy', points: 2, duration: 60 });
    await consumeOrRefuse(limiter, 'k', 'too many');
    await giveBack(limiter, 'k');
    await giveBack(limiter, 'k'); // at zero already: a second refund would let a third attempt through
    expect((await limiter.get('k'))?.consumedPoints).toBe(0);
    await consumeOrRefuse(limiter, 'k', 'too many');
    await consumeOrRefuse(limiter, 'k', 'too many');
    await expect(consumeOrRefuse(limiter, 'k', 'too many')).rejects.toMatchObject({ code: 'rate_limited' });
  });

  it('pass a failing store on as an error, never as a refusal', async () => {
    const limiter = new RateLimiterMemory({ keyPrefix: 'policy', points: 2, duration: 60 });
    const down = new Error('store down');
    vi.spyOn(limiter, 'consume').mockRejectedValue(down);
    await expect(consumeOrRefuse(limiter, 'k', 'too many')).rejects.toBe(down);
  });
});
