import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { Merma, RateLimitError } from '../src/index.js';
import { API, BASE, envelope, errorBody, HttpResponse, http, KEY, server } from './setup.js';

/**
 * How long the client waits before each retry, measured: the clock is faked (timers and Date), so
 * the time between two attempts, as the server sees it, is exactly the wait the client chose. Each
 * hint of a 429/503 is given alone (Retry-After in seconds, Retry-After as an HTTP date,
 * X-RateLimit-Reset, the body's resetAt), then together to fix their precedence; then the cap
 * (maxRetryAfter), and the exponential backoff with its jitter when the server names no wait.
 */

const T0 = new Date('2026-11-23T10:00:00.000Z');
const unix = (ms: number) => String(Math.floor(ms / 1000));

beforeAll(async () => {
  server.listen({ onUnhandledFrame: 'error' });
  // ky is loaded on the first request: done here, on the real clock.
  server.use(http.get(`${API}/destinos`, () => HttpResponse.json(envelope([]))));
  await new Merma({ apiKey: KEY, baseUrl: BASE }).destinos.list();
  server.resetHandlers();
});
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: T0 });
});
afterEach(() => {
  server.resetHandlers();
  vi.useRealTimers();
  vi.restoreAllMocks();
});
afterAll(() => server.close());

type Answer = { status: number; headers?: Record<string, string>; body?: Record<string, unknown> };

function capture() {
  const lines: { level: string; message: string }[] = [];
  const at = (level: string) => (message: string) => lines.push({ level, message });
  return { lines, logger: { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') } };
}

/** The real timer, taken before any test fakes it: real time for msw to answer in. */
const realSetTimeout = globalThis.setTimeout;
const realTick = () => new Promise((resolve) => realSetTimeout(resolve, 1));

/**
 * Answers GET /destinos with `answers` in turn (each built when its request arrives, so a
 * date in it is relative to that moment), then 200. Returns the waits between attempts (ms of
 * the faked clock), the outcome, and what the client logged at info.
 *
 * The clock only moves while no attempt is in flight (every `request` event has had its
 * `response`), and then straight to the next timer, which is the wait before the retry: a timer
 * that fires early or late would show in the waits. The attempt timeout is an hour, so it never
 * stands in for a wait unnoticed.
 */
async function waitsFor(answers: ((now: number) => Answer)[], options: { maxRetries?: number; maxRetryAfter?: number } = {}) {
  const at: number[] = [];
  server.use(
    http.get(`${API}/destinos`, () => {
      const now = Date.now();
      at.push(now);
      const answer = answers[at.length - 1]?.(now);
      if (!answer) return HttpResponse.json(envelope([]));
      const body = errorBody(answer.status, answer.status === 429 ? 'rate_limited' : 'service_unavailable', 'slow down', answer.body);
      return HttpResponse.json(body, { status: answer.status, headers: answer.headers ?? {} });
    }),
  );
  const { lines, logger } = capture();
  const client = new Merma({
    apiKey: KEY,
    baseUrl: BASE,
    logger,
    logLevel: 'info',
    timeout: 3_600_000,
    maxRetries: options.maxRetries ?? answers.length,
    ...(options.maxRetryAfter !== undefined ? { maxRetryAfter: options.maxRetryAfter } : {}),
  });
  let sent = 0;
  let answered = 0;
  client.on('request', () => sent++).on('response', () => answered++);
  const started = Date.now();
  let done = false;
  const outcome = client.destinos.list().then(
    (value) => ({ value, error: undefined }),
    (error: unknown) => ({ value: undefined, error }),
  );
  void outcome.finally(() => {
    done = true;
  });
  for (let steps = 0; !done; steps++) {
    if (steps > 1_000) throw new Error('the call neither ended nor waited');
    await realTick();
    if (!done && sent > 0 && sent === answered && vi.getTimerCount() > 0) await vi.advanceTimersToNextTimerAsync();
  }
  const result = await outcome;
  const waits = at.slice(1).map((t, i) => t - (at[i] as number));
  return { waits, calls: at.length, elapsed: Date.now() - started, ...result, lines };
}

const rateLimited =
  (headers: (now: number) => Record<string, string>, body?: (now: number) => Record<string, unknown>) =>
  (now: number): Answer => ({ status: 429, headers: headers(now), ...(body ? { body: body(now) } : {}) });

describe('each hint of a 429 alone', () => {
  it('Retry-After in seconds: waits exactly that many seconds, and says so', async () => {
    const r = await waitsFor([rateLimited(() => ({ 'retry-after': '7' }))]);
    expect(r.error).toBeUndefined();
    expect(r.waits).toEqual([7_000]);
    expect(r.lines).toEqual([{ level: 'info', message: expect.stringMatching(/GET \/destinos: 429; retrying in 7000 ms/) }]);
  });

  it('Retry-After as an HTTP date: waits until that date', async () => {
    const r = await waitsFor([rateLimited((now) => ({ 'retry-after': new Date(now + 9_000).toUTCString() }))]);
    expect(r.error).toBeUndefined();
    expect(r.waits).toEqual([9_000]);
    expect(r.lines[0]?.message).toMatch(/retrying in 9000 ms/);
  });

  it('X-RateLimit-Reset (Unix seconds): waits until the reset', async () => {
    const r = await waitsFor([rateLimited((now) => ({ 'x-ratelimit-reset': unix(now + 12_000) }))]);
    expect(r.error).toBeUndefined();
    expect(r.waits).toEqual([12_000]);
    expect(r.lines[0]?.message).toMatch(/retrying in 12000 ms/);
  });

  it("the body's resetAt: waits until it, to the millisecond", async () => {
    const whole = await waitsFor([
      rateLimited(
        () => ({}),
        (now) => ({ resetAt: new Date(now + 4_000).toISOString() }),
      ),
    ]);
    expect(whole.error).toBeUndefined();
    expect(whole.waits).toEqual([4_000]);
    const part = await waitsFor([
      rateLimited(
        () => ({}),
        (now) => ({ resetAt: new Date(now + 4_250).toISOString() }),
      ),
    ]);
    expect(part.waits).toEqual([4_250]);
    expect(part.lines[0]?.message).toMatch(/retrying in 4250 ms/);
  });

  it('a 503 with Retry-After waits it too; a 500 with one backs off instead', async () => {
    const unavailable = await waitsFor([() => ({ status: 503, headers: { 'retry-after': '6' } })]);
    expect(unavailable.waits).toEqual([6_000]);
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const failed = await waitsFor([() => ({ status: 500, headers: { 'retry-after': '6' } })]);
    expect(failed.waits).toEqual([500]);
  });

  it('no hint at all: the backoff of a first retry, 375 to 500 ms', async () => {
    const r = await waitsFor([rateLimited(() => ({}))]);
    expect(r.error).toBeUndefined();
    expect(r.waits).toHaveLength(1);
    expect(r.waits[0]).toBeGreaterThanOrEqual(375);
    expect(r.waits[0]).toBeLessThanOrEqual(500);
  });
});

describe('precedence: Retry-After, then the body, then X-RateLimit-Reset', () => {
  it('Retry-After (seconds or a date) wins over both others', async () => {
    const seconds = await waitsFor([
      rateLimited(
        (now) => ({ 'retry-after': '3', 'x-ratelimit-reset': unix(now + 9_000) }),
        (now) => ({ resetAt: new Date(now + 6_000).toISOString() }),
      ),
    ]);
    expect(seconds.waits).toEqual([3_000]);
    const date = await waitsFor([
      rateLimited(
        (now) => ({ 'retry-after': new Date(now + 2_000).toUTCString(), 'x-ratelimit-reset': unix(now + 9_000) }),
        (now) => ({ resetAt: new Date(now + 6_000).toISOString() }),
      ),
    ]);
    expect(date.waits).toEqual([2_000]);
  });

  it("the body's resetAt wins over X-RateLimit-Reset, whichever is sooner", async () => {
    for (const [body, reset] of [
      [6_000, 9_000],
      [9_000, 6_000],
    ] as const) {
      const r = await waitsFor([
        rateLimited(
          (now) => ({ 'x-ratelimit-reset': unix(now + reset) }),
          (now) => ({ resetAt: new Date(now + body).toISOString() }),
        ),
      ]);
      expect(r.waits, `resetAt in ${body} ms, X-RateLimit-Reset in ${reset} ms`).toEqual([body]);
    }
  });

  it('an unreadable Retry-After is passed over for the next hint, or for the backoff when there is none', async () => {
    const r = await waitsFor([
      rateLimited(
        () => ({ 'retry-after': 'soon' }),
        (now) => ({ resetAt: new Date(now + 5_000).toISOString() }),
      ),
    ]);
    expect(r.error).toBeUndefined();
    expect(r.waits).toEqual([5_000]);
    const header = await waitsFor([rateLimited((now) => ({ 'retry-after': 'soon', 'x-ratelimit-reset': unix(now + 8_000) }))]);
    expect(header.waits).toEqual([8_000]);
    vi.spyOn(Math, 'random').mockReturnValue(0);
    for (const maxRetryAfter of [60_000, Number.POSITIVE_INFINITY]) {
      const none = await waitsFor([rateLimited(() => ({ 'retry-after': 'soon' }))], { maxRetryAfter });
      expect(none.error, String(none.error)).toBeUndefined();
      expect(none.waits, `maxRetryAfter ${maxRetryAfter}`).toEqual([500]);
    }
  });

  it('each retry reads its own answer: successive 429s with different hints', async () => {
    const r = await waitsFor([
      rateLimited(() => ({ 'retry-after': '2' })),
      rateLimited((now) => ({ 'x-ratelimit-reset': unix(now + 5_000) })),
      rateLimited(
        () => ({}),
        (now) => ({ resetAt: new Date(now + 1_000).toISOString() }),
      ),
    ]);
    expect(r.error).toBeUndefined();
    expect(r.waits).toEqual([2_000, 5_000, 1_000]);
  });
});

describe('the cap on server-named waits (maxRetryAfter)', () => {
  const CAP = 10_000;
  const over: [string, (now: number) => Answer, number][] = [
    ['Retry-After in seconds', rateLimited(() => ({ 'retry-after': '11' })), 11],
    ['Retry-After as a date', rateLimited((now) => ({ 'retry-after': new Date(now + 11_000).toUTCString() })), 11],
    ['X-RateLimit-Reset', rateLimited((now) => ({ 'x-ratelimit-reset': unix(now + 11_000) })), 11],
    [
      'resetAt',
      rateLimited(
        () => ({}),
        (now) => ({ resetAt: new Date(now + 11_000).toISOString() }),
      ),
      11,
    ],
  ];

  it.each(over)(
    '%s over the cap: RateLimitError at once, naming the wait, after one attempt and no wait',
    async (_name, answer, seconds) => {
      const r = await waitsFor([answer], { maxRetryAfter: CAP });
      expect(r.error).toBeInstanceOf(RateLimitError);
      expect((r.error as RateLimitError).retryAfter).toBe(seconds);
      expect(r.calls).toBe(1);
      expect(r.elapsed).toBe(0);
    },
  );

  it('each hint at the cap exactly: waited, then retried', async () => {
    const at: [string, (now: number) => Answer][] = [
      ['Retry-After in seconds', rateLimited(() => ({ 'retry-after': String(CAP / 1000) }))],
      ['Retry-After as a date', rateLimited((now) => ({ 'retry-after': new Date(now + CAP).toUTCString() }))],
      ['X-RateLimit-Reset', rateLimited((now) => ({ 'x-ratelimit-reset': unix(now + CAP) }))],
      [
        'resetAt',
        rateLimited(
          () => ({}),
          (now) => ({ resetAt: new Date(now + CAP).toISOString() }),
        ),
      ],
    ];
    for (const [name, answer] of at) {
      const r = await waitsFor([answer], { maxRetryAfter: CAP });
      expect(r.error, name).toBeUndefined();
      expect(r.waits, name).toEqual([CAP]);
    }
  });

  it('a wait over the cap refuses even after earlier retries, without sleeping the last one', async () => {
    const r = await waitsFor([rateLimited(() => ({ 'retry-after': '1' })), rateLimited(() => ({ 'retry-after': '3600' }))], {
      maxRetryAfter: 60_000,
    });
    expect(r.error).toBeInstanceOf(RateLimitError);
    expect(r.waits).toEqual([1_000]);
    expect(r.calls).toBe(2);
  });
});

describe('exponential backoff with jitter, when the server names no wait', () => {
  const unhinted = (n: number) => Array.from({ length: n }, () => () => ({ status: 503 }));

  it('each wait is 0.5 s × 2^(n-1), up to 25 % less by Math.random, never over 8 s', async () => {
    for (const random of [0, 0.5, 0.999]) {
      vi.spyOn(Math, 'random').mockReturnValue(random);
      const r = await waitsFor(unhinted(7));
      expect(r.error).toBeUndefined();
      const expected = [500, 1_000, 2_000, 4_000, 8_000, 16_000, 32_000].map((nominal) =>
        Math.floor(Math.min(8_000, nominal * (1 - random * 0.25))),
      );
      expect(r.waits, `Math.random() = ${random}`).toEqual(expected);
      vi.restoreAllMocks();
    }
  });

  it('with real jitter, each wait lies in its band and the waits grow: attempt 1 < 2 < 3 < 4', async () => {
    for (let run = 0; run < 5; run++) {
      const r = await waitsFor(unhinted(4));
      expect(r.error).toBeUndefined();
      const [a, b, c, d] = r.waits as [number, number, number, number];
      expect(a).toBeGreaterThanOrEqual(375);
      expect(a).toBeLessThanOrEqual(500);
      expect(b).toBeGreaterThanOrEqual(750);
      expect(b).toBeLessThanOrEqual(1_000);
      expect(c).toBeGreaterThanOrEqual(1_500);
      expect(c).toBeLessThanOrEqual(2_000);
      expect(d).toBeGreaterThanOrEqual(3_000);
      expect(d).toBeLessThanOrEqual(4_000);
      expect(a < b && b < c && c < d).toBe(true);
    }
  });

  it('the jitter varies: two calls do not wait the same', async () => {
    const first = await waitsFor(unhinted(3));
    const second = await waitsFor(unhinted(3));
    expect(first.waits).not.toEqual(second.waits);
  });

  it('gives up after maxRetries, having waited each backoff', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const r = await waitsFor(unhinted(10), { maxRetries: 3 });
    expect(r.error).toMatchObject({ status: 503 });
    expect(r.waits).toEqual([500, 1_000, 2_000]);
  });
});
