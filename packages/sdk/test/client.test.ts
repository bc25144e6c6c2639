import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  InternalServerError,
  Merma,
  MermaError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  ValidationError,
} from '../src/index.js';
import { API, BASE, DESTINO, envelope, errorBody, HttpResponse, http, KEY, record, server } from './setup.js';

beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterEach(() => {
  server.resetHandlers();
  vi.useRealTimers();
});
afterAll(() => server.close());

const client = (opts: Partial<ConstructorParameters<typeof Merma>[0]> = {}) => new Merma({ apiKey: KEY, baseUrl: BASE, ...opts });
const valid = { food_category: 'meat' as const, weight_kg: 1.5, destino_id: DESTINO };

describe('construction', () => {
  it('needs a key with a live or test prefix', () => {
    const saved = process.env.MERMA_API_KEY;
    delete process.env.MERMA_API_KEY;
    try {
      expect(() => new Merma({ baseUrl: BASE })).toThrow(/Missing API key/);
      expect(() => new Merma({ apiKey: 'sk_live_123', baseUrl: BASE })).toThrow(/svc_live_ or svc_test_/);
      process.env.MERMA_API_KEY = `svc_live_${'B'.repeat(32)}`;
      expect(new Merma({ baseUrl: BASE }).livemode).toBe(true);
    } finally {
      if (saved === undefined) delete process.env.MERMA_API_KEY;
      else process.env.MERMA_API_KEY = saved;
    }
  });

  it('refuses a browser-like runtime unless told otherwise', () => {
    const g = globalThis as { window?: unknown };
    g.window = { document: {} };
    try {
      expect(() => client()).toThrow(MermaError);
      expect(() => client()).toThrow(/browser/);
      expect(() => client({ dangerouslyAllowBrowser: true })).not.toThrow();
    } finally {
      delete g.window;
    }
  });
});

describe('requests', () => {
  it('sends the key, the JSON body and an Idempotency-Key, and unwraps the envelope', async () => {
    let seen: Request | undefined;
    let body: unknown;
    server.use(
      http.post(`${API}/records`, async ({ request }) => {
        seen = request;
        body = await request.json();
        return HttpResponse.json(envelope(record(1, { weight_kg: 1.235 })), { status: 201 });
      }),
    );
    const created = await client().records.create({ ...valid, weight_kg: 1.2345 });
    expect(created.weight_kg).toBe(1.235);
    expect(seen?.headers.get('authorization')).toBe(`Bearer ${KEY}`);
    expect(seen?.headers.get('idempotency-key')).toMatch(/^[0-9a-f-]{36}$/);
    expect(body).toEqual({ ...valid, weight_kg: 1.235 });
  });

  it('refuses invalid input with a ValidationError naming the field, before any request', async () => {
    let calls = 0;
    server.use(
      http.post(`${API}/records`, () => {
        calls++;
        return HttpResponse.json(envelope(record(1)), { status: 201 });
      }),
    );
    const err = await client()
      .records.create({ ...valid, weight_kg: -1 })
      .catch((e) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.issues[0].path).toBe('weight_kg');
    await expect(client().records.create({ ...valid, notes: 'x'.repeat(501) })).rejects.toThrow(/notes/);
    expect(calls).toBe(0);
  });

  it.each([
    [400, BadRequestError, 'validation_error'],
    [401, AuthenticationError, 'unauthorized'],
    [403, PermissionDeniedError, 'forbidden'],
    [404, NotFoundError, 'not_found'],
    [409, ConflictError, 'conflict'],
    [429, RateLimitError, 'rate_limited'],
    [500, InternalServerError, 'internal'],
  ] as const)('turns a %d into %s with status, code, request id and body', async (status, Class, code) => {
    server.use(
      http.get(`${API}/causas`, () =>
        HttpResponse.json(errorBody(status, code, 'explained', { details: [{ path: 'x', message: 'bad' }] }), {
          status,
          headers: { 'x-request-id': 'req_123', 'x-should-retry': 'false', 'retry-after': '1' },
        }),
      ),
    );
    const err = await client({ maxRetries: 0 })
      .causas.list()
      .catch((e) => e);
    expect(err).toBeInstanceOf(Class);
    expect(err).toMatchObject({ status, code, requestId: 'req_123', message: 'explained' });
    expect(err.body.details).toEqual([{ path: 'x', message: 'bad' }]);
    expect(err.headers.get('x-request-id')).toBe('req_123');
  });
});

describe('retries', () => {
  it('waits Retry-After seconds on 429 and resends the same Idempotency-Key', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const keys: (string | null)[] = [];
    server.use(
      http.post(`${API}/records`, ({ request }) => {
        keys.push(request.headers.get('idempotency-key'));
        if (keys.length === 1) return HttpResponse.json(errorBody(429, 'rate_limited'), { status: 429, headers: { 'retry-after': '3' } });
        return HttpResponse.json(envelope(record(1)), { status: 201 });
      }),
    );
    const pending = client().records.create(valid);
    await vi.advanceTimersByTimeAsync(2_900);
    expect(keys).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(200);
    await expect(pending).resolves.toMatchObject({ id: record(1).id });
    expect(keys).toHaveLength(2);
    expect(keys[0]).toBe(keys[1]);
  });

  it('understands Retry-After as an HTTP date, then resetAt, then X-RateLimit-Reset', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    vi.setSystemTime(new Date('2026-11-23T10:00:00.000Z'));
    const forms: Record<string, string>[] = [
      { 'retry-after': new Date('2026-11-23T10:00:05.000Z').toUTCString() },
      {},
      { 'x-ratelimit-reset': String(Date.parse('2026-11-23T10:00:05.000Z') / 1000 + 5) },
    ];
    for (const [i, headers] of forms.entries()) {
      let calls = 0;
      server.use(
        http.get(`${API}/destinos`, () => {
          calls++;
          if (calls === 1) {
            return HttpResponse.json(errorBody(429, 'rate_limited', 'slow down', { resetAt: new Date(Date.now() + 5_000).toISOString() }), {
              status: 429,
              headers,
            });
          }
          return HttpResponse.json(envelope([]));
        }),
      );
      const pending = client().destinos.list();
      await vi.advanceTimersByTimeAsync(4_500);
      expect(calls, `form ${i}`).toBe(1);
      await vi.advanceTimersByTimeAsync(6_000);
      await expect(pending).resolves.toEqual([]);
      expect(calls).toBe(2);
    }
  });

  it('throws RateLimitError at once when the wait exceeds maxRetryAfter', async () => {
    let calls = 0;
    server.use(
      http.get(`${API}/causas`, () => {
        calls++;
        return HttpResponse.json(errorBody(429, 'rate_limited'), { status: 429, headers: { 'retry-after': '3600' } });
      }),
    );
    const started = Date.now();
    const err = await client({ maxRetryAfter: 60_000 })
      .causas.list()
      .catch((e) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err.retryAfter).toBe(3600);
    expect(err.resetAt.getTime()).toBeGreaterThan(Date.now() + 3_500_000);
    expect(calls).toBe(1);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('backs off exponentially on 5xx and gives up after maxRetries', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const times: number[] = [];
    server.use(
      http.get(`${API}/causas`, () => {
        times.push(performance.now());
        return HttpResponse.json(errorBody(503, 'service_unavailable'), { status: 503 });
      }),
    );
    const pending = client({ maxRetries: 3 })
      .causas.list()
      .catch((e) => e);
    await vi.advanceTimersByTimeAsync(20_000);
    const err = await pending;
    expect(err).toBeInstanceOf(InternalServerError);
    expect(times).toHaveLength(4);
  });

  it('does not retry a POST sent without an Idempotency-Key', async () => {
    let calls = 0;
    server.use(
      http.post(`${API}/shifts`, ({ request }) => {
        calls++;
        expect(request.headers.get('idempotency-key')).toBeNull();
        return HttpResponse.json(errorBody(500, 'internal'), { status: 500 });
      }),
    );
    await expect(
      client().shifts.create({ name: 'Noche', start_time: '22:00', end_time: '06:00' }, { idempotencyKey: false }),
    ).rejects.toBeInstanceOf(InternalServerError);
    expect(calls).toBe(1);
  });

  it('obeys x-should-retry: false (a 409 for a reused key with another body)', async () => {
    let calls = 0;
    server.use(
      http.post(`${API}/records`, () => {
        calls++;
        return HttpResponse.json(errorBody(409, 'conflict'), { status: 409, headers: { 'x-should-retry': 'false' } });
      }),
    );
    await expect(client().records.create(valid, { idempotencyKey: 'k1' })).rejects.toBeInstanceOf(ConflictError);
    expect(calls).toBe(1);
  });

  it('retries connection errors and reports APIConnectionError', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let calls = 0;
    server.use(
      http.get(`${API}/shifts`, () => {
        calls++;
        return HttpResponse.error();
      }),
    );
    const pending = client({ maxRetries: 2 })
      .shifts.list()
      .catch((e) => e);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(await pending).toBeInstanceOf(APIConnectionError);
    expect(calls).toBe(3);
  });

  it('times out a slow answer with APIConnectionTimeoutError', async () => {
    server.use(
      http.get(`${API}/products`, async () => {
        await new Promise((r) => setTimeout(r, 500));
        return HttpResponse.json(envelope([]));
      }),
    );
    await expect(client({ timeout: 50, maxRetries: 0 }).products.list()).rejects.toBeInstanceOf(APIConnectionTimeoutError);
  });

  it('stops waiting when the AbortSignal fires', async () => {
    server.use(
      http.get(`${API}/causas`, () => HttpResponse.json(errorBody(429, 'rate_limited'), { status: 429, headers: { 'retry-after': '30' } })),
    );
    const controller = new AbortController();
    const pending = client().causas.list({ signal: controller.signal });
    setTimeout(() => controller.abort(new Error('user cancelled')), 50);
    const started = Date.now();
    await expect(pending).rejects.toThrow('user cancelled');
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
