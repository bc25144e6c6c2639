import { RateLimiterMemory } from 'rate-limiter-flexible';
import { describe, expect, it } from 'vitest';
import { consumeOrRefuse, giveBack } from '../src/limits.js';

/**
 * The counters' refund: an attempt given back after its window ended (or before anything was
 * counted) must not start the next window below zero, which would allow more than the limit in it.
 */
describe('giving a point back', () => {
  it('never takes a counter below zero, so the limit holds in the next window', async () => {
    const limiter = new RateLimiterMemory({ keyPrefix: 'test', points: 2, duration: 60 });
    await giveBack(limiter, 'k'); // nothing consumed yet (a window that just ended)
    await giveBack(limiter, 'k');
    await consumeOrRefuse(limiter, 'k', 'too many');
    await consumeOrRefuse(limiter, 'k', 'too many');
    await expect(consumeOrRefuse(limiter, 'k', 'too many')).rejects.toMatchObject({ code: 'rate_limited', message: 'too many' });
  });

  it('gives back a point that was consumed', async () => {
    const limiter = new RateLimiterMemory({ keyPrefix: 'test', points: 1, duration: 60 });
    await consumeOrRefuse(limiter, 'k', 'too many');
    await giveBack(limiter, 'k');
    await consumeOrRefuse(limiter, 'k', 'too many');
    await expect(consumeOrRefuse(limiter, 'k', 'too many')).rejects.toMatchObject({ code: 'rate_limited' });
  });
});
