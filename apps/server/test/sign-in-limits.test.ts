import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { migrate } from '../src/db/migrate.js';
import { createSignInGuard, type SignInGuard } from '../src/modules/accounts/lockout.js';
import { createTestDatabase, type TestDatabase } from './helpers.js';
import { attempt, DAY, expectWindowEdges, HOUR, type Limit, MINUTE, other, otherIp, spend } from './limit-drive.js';

/**
 * The sign-in guard's limits (lockout.ts), whose counters are in the database (`sign_in_limits`),
 * so that a lockout outlives a restart of Redis and of every replica. The clock is the test's (Date
 * faked; the library computes every expiry from it): the allowance is spent at T0, the next
 * attempt is refused 1 ms before the window (or the block that refusal started) ends and allowed
 * when it ends. Then a guard started afresh on the same database, as a restarted replica would,
 * finds the lockouts where they were.
 */
type Guard = { guard: SignInGuard };

/** Every limit of the guard, by its key prefix: the allowances README.md and lockout.ts promise. */
const LIMITS: Record<string, Limit<Guard>> = {
  // 10 wrong passwords an hour lock the account 15 minutes; 100 a day block the address a day.
  'merma:signin:account': { points: 10, window: HOUR, block: 15 * MINUTE, drive: (f, key) => f.guard.attempt(key, otherIp()) },
  'merma:signin:ip': { points: 100, window: DAY, block: DAY, drive: (f, key) => f.guard.attempt(`${other()}@example.com`, key) },
  // Password-reset e-mails: 3 an hour per address, 20 an hour per IP.
  'merma:signin:resetByEmail': { points: 3, window: HOUR, drive: (f, key) => f.guard.resetRequested(key, otherIp()) },
  'merma:signin:resetByIp': { points: 20, window: HOUR, drive: (f, key) => f.guard.resetRequested(`${other()}@example.com`, key) },
  // Bad links (invitation, reset, sign-in link) from one IP: 30 an hour.
  'merma:signin:linkByIp': { points: 30, window: HOUR, drive: (f, key) => f.guard.linkAttempt(key) },
};

let database: TestDatabase;
let pool: pg.Pool;
let f: Guard;
const T0 = Date.parse('2026-03-02T09:00:00.000Z');

beforeAll(async () => {
  database = await createTestDatabase({ migrated: true });
  await migrate(database.url);
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
  f = { guard: createSignInGuard(pool) };
});
afterAll(async () => {
  await pool?.end();
  await database?.drop();
});
afterEach(() => vi.useRealTimers());

describe('the sign-in limits, in the database, on a fixed clock', () => {
  it.each(Object.entries(LIMITS))('%s: its allowance, refused until its window (or block) ends to the millisecond', (_name, limit) =>
    expectWindowEdges(limit, f, T0),
  );

  it('a lockout outlives the process: a guard started afresh on the same database still refuses, until the block ends', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: T0 });
    const account = LIMITS['merma:signin:account'] as Limit<Guard>;
    const address = LIMITS['merma:signin:ip'] as Limit<Guard>;
    const email = `${other()}@example.com`;
    const ip = otherIp();
    await spend(account, f, email, account.points);
    expect(await attempt(account, f, email)).toMatchObject({ allowed: false }); // locked at T0, for 15 minutes
    await spend(address, f, ip, address.points);
    expect(await attempt(address, f, ip)).toMatchObject({ allowed: false }); // blocked at T0, for a day

    // Every replica restarted, Redis emptied: nothing of the guard was in either. Each lock holds
    // to the millisecond its block ends, and no longer.
    const restarted: Guard = { guard: createSignInGuard(pool) };
    vi.setSystemTime(T0 + 15 * MINUTE * 1000 - 1);
    expect(await attempt(account, restarted, email)).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    vi.setSystemTime(T0 + 15 * MINUTE * 1000);
    expect(await attempt(account, restarted, email)).toEqual({ allowed: true });
    vi.setSystemTime(T0 + DAY * 1000 - 1);
    expect(await attempt(address, restarted, ip)).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    vi.setSystemTime(T0 + DAY * 1000);
    expect(await attempt(address, restarted, ip)).toEqual({ allowed: true });
  });

  it('a right password gives the account a whole allowance again, and the address its attempt back', async () => {
    const account = LIMITS['merma:signin:account'] as Limit<Guard>;
    const email = `${other()}@example.com`;
    const ip = otherIp();
    await spend(account, f, email, account.points - 1);
    await f.guard.succeeded(email, ip);
    await spend(account, f, email, account.points);
    expect(await attempt(account, f, email)).toMatchObject({ allowed: false });
    const { rows } = await pool.query<{ points: number }>('SELECT points FROM sign_in_limits WHERE key = $1', [`merma:signin:ip:${ip}`]);
    expect(rows).toEqual([]); // the only attempt from that address was given back: nothing counted (or stored) against it
  });
});
