import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { FastifyReply } from 'fastify';
import type { Redis } from 'ioredis';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../src/config.js';
import { createRateLimiter } from '../src/http/rate-limit.js';
import type { LimitOptions } from '../src/limits.js';
import { createInvitationLimiter } from '../src/modules/team/limits.js';
import { createRedis } from '../src/redis.js';
import { attempt, DAY, expectWindowEdges, HOUR, type Limit as LimitOf, MINUTE, other, spend } from './limit-drive.js';

/**
 * The window and the allowance of every limit of the service, on both stores. Every limit is built
 * by one function (limits.ts, createLimit); it is watched here (the real one runs) so that the limits
 * the service's limiters build are listed from the source itself: each must have a row below, which
 * states its allowance and window as the service promises them (README, lockout.ts, team/limits.ts,
 * http/rate-limit.ts). Each row is driven through its limiter's own entry point (the API's `consume`,
 * the invitation limiter). The sign-in guard keeps its counters in the database instead
 * (sign-in-limits.test.ts).
 *
 * In memory the clock is the test's (Date faked): the allowance is spent at T0, the next attempt is
 * refused 1 ms before the window ends and allowed when it ends; a lockout's block is timed the same
 * way. Redis keeps its own clock: there, each counter's key must live exactly the window (PTTL), the
 * block replaces it with the block's length, and once the key is gone a whole new allowance starts.
 */
const built = vi.hoisted(() => [] as { options: LimitOptions; limiter: RateLimiterAbstract }[]);
vi.mock('../src/limits.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../src/limits.js')>();
  return {
    ...real,
    createLimit: (redis: Redis | undefined, options: LimitOptions) => {
      const limiter = real.createLimit(redis, options);
      built.push({ options, limiter });
      return limiter;
    },
  };
});

/** The API's per-key allowances, each its own value (the windows are not settings, but the per-minute length's default). */
const ENV = { RATE_LIMIT_GENERAL_PER_MINUTE: '7', RATE_LIMIT_RECORDS_PER_MINUTE: '13', RATE_LIMIT_ANALYTICS_PER_HOUR: '5' };
const config = loadConfig(ENV);

/** The modules that build limits with createLimit, and how the test builds each one's limiters. */
const FAMILIES = {
  'http/rate-limit.ts': (redis: Redis | undefined) => createRateLimiter(config, redis),
  'modules/team/limits.ts': (redis: Redis | undefined) => createInvitationLimiter(redis),
};
type Families = {
  api: ReturnType<typeof createRateLimiter>;
  invitations: ReturnType<typeof createInvitationLimiter>;
};

const reply = { header: () => reply } as unknown as FastifyReply;
const INVITED = 'new.hire@example.com';

type Limit = LimitOf<Families>;

/** Every limit, by its key prefix (without the window some prefixes end with). */
const LIMITS: Record<string, Limit> = {
  // The API, per key (RATE_LIMIT_*): per minute, per minute, per hour.
  'merma:rl:general': { points: 7, window: MINUTE, drive: (f, key) => f.api.consume('general', key, reply) },
  'merma:rl:records_create': { points: 13, window: MINUTE, drive: (f, key) => f.api.consume('records_create', key, reply) },
  'merma:rl:analytics': { points: 5, window: HOUR, drive: (f, key) => f.api.consume('analytics', key, reply) },
  // The dashboard, per user and procedure.
  'merma:rl:dashboard:heavy': { points: 60, window: MINUTE, drive: (f, key) => f.api.consumeForUser('heavy', key) },
  'merma:rl:dashboard:generate': { points: 20, window: HOUR, drive: (f, key) => f.api.consumeForUser('generate', key) },
  // The integrations' URLs: per integration, and refused requests per address.
  'merma:rl:integration:received': { points: 1200, window: MINUTE, drive: (f, key) => f.api.consumeIntegration('received', key) },
  'merma:rl:integration:refused': { points: 30, window: MINUTE, drive: (f, key) => f.api.consumeIntegration('refused', key) },
  // A social entity's signing link: every request of its door per address, signatures per link.
  'merma:rl:donation-link:address': { points: 60, window: MINUTE, drive: (f, key) => f.api.consumeForLink('address', key) },
  'merma:rl:donation-link:sign': { points: 10, window: 10 * MINUTE, drive: (f, key) => f.api.consumeForLink('sign', key) },
  // Invitations: 20 an hour per inviter, 50 a day per organisation, 3 a day per address in an organisation.
  'merma:invitations:inviter': {
    points: 20,
    window: HOUR,
    drive: (f, key) => f.invitations.take({ inviterId: key, organizationId: other(), email: INVITED }),
  },
  'merma:invitations:organization': {
    points: 50,
    window: DAY,
    drive: (f, key) => f.invitations.take({ inviterId: other(), organizationId: key, email: `${other()}@example.com` }),
  },
  'merma:invitations:address': {
    points: 3,
    window: DAY,
    drive: (f, key) => f.invitations.take({ inviterId: other(), organizationId: key, email: INVITED }),
    storeKey: (key) => `${key}:${INVITED}`,
  },
};

/** A limit's name: its key prefix without the window some prefixes end with. */
const nameOf = (options: LimitOptions) => options.keyPrefix.replace(/:\d+$/, '');

/** Builds every family's limiters on `redis` (memory when undefined) and the limits they created. */
function buildAll(redis: Redis | undefined) {
  const start = built.length;
  const families: Families = {
    api: FAMILIES['http/rate-limit.ts'](redis),
    invitations: FAMILIES['modules/team/limits.ts'](redis),
  };
  return { families, made: built.slice(start) };
}

describe('the limits built', () => {
  it('are built by the modules listed here only (a module building limits elsewhere needs its rows)', () => {
    const src = join(__dirname, '../src');
    const users = readdirSync(src, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts') && !f.startsWith('generated'))
      .filter((f) => /\bcreateLimit\(/.test(readFileSync(join(src, f), 'utf8')))
      .map((f) => relative(src, join(src, f)).replaceAll('\\', '/'))
      .filter((f) => f !== 'limits.ts');
    expect(users.sort()).toEqual(Object.keys(FAMILIES).sort());
  });

  it('each have a row, under a prefix of their own', () => {
    const { made } = buildAll(undefined);
    const names = made.map((m) => nameOf(m.options));
    expect(new Set(names).size).toBe(names.length);
    expect([...names].sort()).toEqual(Object.keys(LIMITS).sort());
  });
});

describe('in memory, on a fixed clock', () => {
  let families: Families;
  const T0 = Date.parse('2026-03-02T09:00:00.000Z');
  beforeAll(() => {
    families = buildAll(undefined).families;
  });
  afterEach(() => vi.useRealTimers());

  it.each(Object.entries(LIMITS))('%s: its allowance, refused until its window (or block) ends to the millisecond', (_name, limit) =>
    expectWindowEdges(limit, families, T0),
  );

  it('RATE_LIMIT_WINDOW_SECONDS sets the length of the per-minute windows, and of them only', async () => {
    const f = { api: createRateLimiter(loadConfig({ ...ENV, RATE_LIMIT_WINDOW_SECONDS: '45' }), undefined) } as Families;
    vi.useFakeTimers({ toFake: ['Date'], now: T0 });
    const row = (name: string) => ({ limit: LIMITS[name] as Limit, key: other() });
    const perMinute = [row('merma:rl:general'), row('merma:rl:records_create')];
    const analytics = row('merma:rl:analytics');
    for (const { limit, key } of [...perMinute, analytics]) await spend(limit, f, key, limit.points);
    vi.setSystemTime(T0 + 45_000 - 1);
    for (const { limit, key } of [...perMinute, analytics]) expect(await attempt(limit, f, key)).toMatchObject({ allowed: false });
    vi.setSystemTime(T0 + 45_000);
    for (const { limit, key } of perMinute) expect(await attempt(limit, f, key)).toEqual({ allowed: true });
    expect(await attempt(analytics.limit, f, analytics.key)).toMatchObject({ allowed: false, resetAt: T0 + HOUR * 1000 });
  });
});

// Needs a Redis server: CI runs the suite with REDIS_URL set (see .ci/run); without one, only memory is checked.
describe.skipIf(!process.env.REDIS_URL)('in Redis, by the life of each counter', () => {
  let redis: Redis;
  let families: Families;
  let made: ReturnType<typeof buildAll>['made'];
  const keys: string[] = [];
  beforeAll(async () => {
    redis = createRedis(process.env.REDIS_URL) as Redis;
    // The service's connection queues nothing while it connects: wait until it is ready.
    if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
    ({ families, made } = buildAll(redis));
  });
  afterAll(async () => {
    if (keys.length > 0) await redis?.del(...keys);
    redis?.disconnect();
  });

  it('builds the same limits on Redis', () => {
    expect(made.map((m) => nameOf(m.options)).sort()).toEqual(Object.keys(LIMITS).sort());
  });

  it.each(Object.entries(LIMITS))(
    '%s: its allowance, its key lives its window (or block), and a new window starts when it goes',
    async (name, limit) => {
      const prefix = made.find((m) => nameOf(m.options) === name)?.options.keyPrefix;
      const key = other();
      const stored = `${prefix}:${limit.storeKey ? limit.storeKey(key) : key}`;
      keys.push(stored);
      const W = limit.window * 1000;
      /** The key's remaining life, between its expected length less the time spent since `since` and that length. */
      const expectLife = async (ms: number, since: number) => {
        const pttl = await redis.pttl(stored);
        expect(pttl, stored).toBeLessThanOrEqual(ms);
        expect(pttl, stored).toBeGreaterThanOrEqual(ms - (performance.now() - since) - 50);
      };

      const started = performance.now();
      await spend(limit, families, key, limit.points);
      await expectLife(W, started);
      const refusedAt = performance.now();
      const refused = await attempt(limit, families, key);
      expect(refused).toMatchObject({ allowed: false });
      if (refused.allowed) throw new Error('unreachable');
      const expected = (limit.block ?? limit.window) * 1000;
      await expectLife(limit.block ? expected : W, limit.block ? refusedAt : started);
      expect(refused.retryAfterSeconds * 1000).toBeLessThanOrEqual(expected);
      expect(refused.retryAfterSeconds * 1000).toBeGreaterThan(expected - (performance.now() - started) - 1000);

      // The counter is that key alone: once it expires, a whole new allowance, in a window of the same length.
      await redis.pexpire(stored, 1);
      while ((await redis.exists(stored)) === 1) await new Promise((r) => setTimeout(r, 2));
      const again = performance.now();
      await spend(limit, families, key, limit.points);
      await expectLife(W, again);
      expect(await attempt(limit, families, key)).toMatchObject({ allowed: false });
    },
  );
});
