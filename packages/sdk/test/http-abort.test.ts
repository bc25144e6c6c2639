import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { sleep, uuid4 } from '../src/core/http.js';
import { APIUserAbortError, Merma } from '../src/index.js';
import { API, BASE, envelope, HttpResponse, http, KEY, server } from './setup.js';

/**
 * Cancelling (core/http.ts): a caller's AbortSignal stops a call before it is sent, during a wait
 * between attempts and during `sleep` (records.waitForVerification), always as APIUserAbortError
 * carrying the signal's reason; and the idempotency keys the client makes are UUIDs v4 also where
 * `crypto.randomUUID` is missing (a page served over http://).
 */
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterEach(() => {
  server.resetHandlers();
  vi.useRealTimers();
  vi.unstubAllGlobals();
});
afterAll(() => server.close());

describe('sleep', () => {
  it('waits the time asked, and then no longer listens to the signal', async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const removed = vi.spyOn(controller.signal, 'removeEventListener');
    let done = false;
    const slept = sleep(1000, controller.signal).then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await slept;
    expect(done).toBe(true);
    expect(removed).toHaveBeenCalledWith('abort', expect.any(Function));
  });

  it('rejects at once, with the reason, when the signal is already aborted', async () => {
    const reason = new Error('user left');
    const error = await sleep(60_000, AbortSignal.abort(reason)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect((error as APIUserAbortError).cause).toBe(reason);
  });

  it('rejects as soon as the signal aborts during the wait, with the reason', async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const reason = new Error('closed the tab');
    const outcome = sleep(60_000, controller.signal).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(10);
    controller.abort(reason);
    const error = await outcome;
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect((error as APIUserAbortError).cause).toBe(reason);
    expect(vi.getTimerCount()).toBe(0); // its timer cleared, not left to fire
  });
});

describe('a call and its signal', () => {
  it('an already aborted signal: nothing is sent, APIUserAbortError with the reason', async () => {
    let calls = 0;
    server.use(
      http.all(`${API}/*`, () => {
        calls++;
        return HttpResponse.json(envelope([]));
      }),
    );
    const reason = new Error('cancelled');
    const error = await new Merma({ apiKey: KEY, baseUrl: BASE }).destinos
      .list({ signal: AbortSignal.abort(reason) })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect((error as APIUserAbortError).cause).toBe(reason);
    expect(calls).toBe(0);
  });

  it('aborted while waiting to retry a 503: APIUserAbortError, no further attempt', async () => {
    let calls = 0;
    server.use(
      http.all(`${API}/*`, () => {
        calls++;
        return HttpResponse.json({ error: { code: 'unavailable', message: 'down' } }, { status: 503, headers: { 'retry-after': '30' } });
      }),
    );
    const controller = new AbortController();
    const client = new Merma({ apiKey: KEY, baseUrl: BASE, maxRetries: 3 });
    const outcome = client.destinos.list({ signal: controller.signal }).catch((e: unknown) => e);
    await vi.waitFor(() => expect(calls).toBe(1));
    await new Promise((r) => setTimeout(r, 50));
    controller.abort(new Error('gave up'));
    const error = await outcome;
    expect(error).toBeInstanceOf(APIUserAbortError);
    await new Promise((r) => setTimeout(r, 50));
    expect(calls).toBe(1);
  });
});

describe('uuid4', () => {
  const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

  it('is crypto.randomUUID where there is one', () => {
    vi.stubGlobal('crypto', { randomUUID: () => 'from-crypto', getRandomValues: () => new Uint8Array(16) });
    expect(uuid4()).toBe('from-crypto');
  });

  it('without crypto.randomUUID: 16 random bytes with the version and variant bits, in the 8-4-4-4-12 form', () => {
    const real = globalThis.crypto;
    vi.stubGlobal('crypto', { getRandomValues: (a: Uint8Array) => a.fill(0xff) });
    expect(uuid4()).toBe('ffffffff-ffff-4fff-bfff-ffffffffffff');
    vi.stubGlobal('crypto', { getRandomValues: (a: Uint8Array) => a.map((_, i) => i * 17) });
    expect(uuid4()).toBe('00112233-4455-4677-8899-aabbccddeeff');
    vi.stubGlobal('crypto', { getRandomValues: (a: Uint8Array) => real.getRandomValues(a) });
    const keys = new Set(Array.from({ length: 200 }, () => uuid4()));
    expect(keys.size).toBe(200);
    for (const key of keys) expect(key).toMatch(V4);
  });
});
