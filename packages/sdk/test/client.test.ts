import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIUserAbortError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  InternalServerError,
  Merma,
  MermaError,
  NoNextPageError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  type RequestEvent,
  type ResponseEvent,
  VERSION,
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
  it('sends the key, the JSON body as given and an Idempotency-Key, and unwraps the envelope', async () => {
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
    expect(seen?.headers.get('content-type')).toBe('application/json');
    expect(seen?.headers.get('x-merma-sdk')).toBe(`js/${VERSION}`);
    expect(seen?.headers.get('idempotency-key')).toMatch(/^[0-9a-f-]{36}$/);
    // The server rounds to the gram; the SDK sends what it was given.
    expect(body).toEqual({ ...valid, weight_kg: 1.2345 });
  });

  it('sends the version of package.json (set by changesets) in X-Merma-SDK', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(VERSION).toBe(version);
  });

  it('leaves input checks to the API: a 400 names each field in details', async () => {
    let calls = 0;
    server.use(
      http.post(`${API}/records`, () => {
        calls++;
        return HttpResponse.json(
          errorBody(400, 'validation_error', 'weight_kg: must be greater than 0', {
            details: [{ path: 'weight_kg', message: 'must be greater than 0' }],
          }),
          { status: 400 },
        );
      }),
    );
    const err = await client()
      .records.create({ ...valid, weight_kg: -1 })
      .catch((e) => e);
    expect(err).toBeInstanceOf(BadRequestError);
    expect(err.details).toEqual([{ path: 'weight_kg', message: 'must be greater than 0' }]);
    expect(calls).toBe(1);
  });

  it('percent-encodes ids in paths, so an id cannot reach another endpoint', async () => {
    const paths: string[] = [];
    server.use(
      http.get(`${API}/*`, ({ request }) => {
        paths.push(new URL(request.url).pathname);
        return HttpResponse.json(errorBody(404, 'not_found'), { status: 404 });
      }),
    );
    await client({ maxRetries: 0 })
      .webhooks.get('../records')
      .catch(() => {});
    await client({ maxRetries: 0 })
      .sessions.get('a/b?c#d')
      .catch(() => {});
    expect(paths).toEqual(['/api/v1/webhooks/%2E%2E%2Frecords', '/api/v1/sessions/a%2Fb%3Fc%23d']);
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
    // Given up at once: one call (waiting the hour and retrying would call twice, or time out).
    const err = await client({ maxRetryAfter: 60_000 })
      .causas.list()
      .catch((e) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err.retryAfter).toBe(3600);
    expect(err.resetAt.getTime()).toBeGreaterThan(Date.now() + 3_500_000);
    expect(calls).toBe(1);
  });

  it('maxRetryAfter: Infinity waits whatever the server asks, as a client option and per request', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    for (const [i, [clientOptions, requestOptions]] of [
      [{ maxRetryAfter: Infinity }, {}],
      [{}, { maxRetryAfter: Infinity }],
    ].entries()) {
      let calls = 0;
      server.use(
        http.get(`${API}/causas`, () => {
          calls++;
          if (calls === 1) return HttpResponse.json(errorBody(429, 'rate_limited'), { status: 429, headers: { 'retry-after': '3600' } });
          return HttpResponse.json(envelope([]));
        }),
      );
      const pending = client(clientOptions).causas.list(requestOptions);
      pending.catch(() => {});
      await vi.advanceTimersByTimeAsync(3_599_000);
      expect(calls, `case ${i}`).toBe(1);
      await vi.advanceTimersByTimeAsync(2_000);
      await expect(pending, `case ${i}`).resolves.toEqual([]);
      expect(calls).toBe(2);
    }
  });

  it('a per-request maxRetryAfter overrides the client option', async () => {
    let calls = 0;
    server.use(
      http.get(`${API}/causas`, () => {
        calls++;
        return HttpResponse.json(errorBody(429, 'rate_limited'), { status: 429, headers: { 'retry-after': '5' } });
      }),
    );
    const err = await client()
      .causas.list({ maxRetryAfter: 1_000 })
      .catch((e) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err.retryAfter).toBe(5);
    expect(calls).toBe(1);
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

  it('stops waiting between retries when the AbortSignal fires, with APIUserAbortError', async () => {
    let calls = 0;
    server.use(
      http.get(`${API}/causas`, () => {
        calls++;
        return HttpResponse.json(errorBody(429, 'rate_limited'), { status: 429, headers: { 'retry-after': '30' } });
      }),
    );
    const controller = new AbortController();
    const pending = client()
      .causas.list({ signal: controller.signal })
      .catch((e) => e);
    await vi.waitFor(() => expect(calls).toBe(1));
    controller.abort(new Error('user cancelled'));
    const err = await pending;
    expect(err).toBeInstanceOf(APIUserAbortError);
    expect(err).toBeInstanceOf(MermaError);
    expect(err.cause).toEqual(new Error('user cancelled'));
    expect(calls).toBe(1);
  });

  it('cancels a request in flight with APIUserAbortError, not a timeout or a connection error', async () => {
    let arrived = false;
    server.use(
      http.get(`${API}/products`, async () => {
        arrived = true;
        await new Promise((r) => setTimeout(r, 2_000));
        return HttpResponse.json(envelope([]));
      }),
    );
    const controller = new AbortController();
    const pending = client()
      .products.list({ signal: controller.signal })
      .catch((e) => e);
    await vi.waitFor(() => expect(arrived).toBe(true));
    controller.abort();
    const err = await pending;
    expect(err).toBeInstanceOf(APIUserAbortError);
    expect(err).not.toBeInstanceOf(APIConnectionError);
  });

  it('refuses at once when the signal has already fired', async () => {
    let calls = 0;
    server.use(
      http.get(`${API}/causas`, () => {
        calls++;
        return HttpResponse.json(envelope([]));
      }),
    );
    await expect(client().causas.list({ signal: AbortSignal.abort() })).rejects.toBeInstanceOf(APIUserAbortError);
    expect(calls).toBe(0);
  });
});

describe('responses and request ids', () => {
  it('withResponse() gives the data with status, headers and request id, in one request', async () => {
    let calls = 0;
    server.use(
      http.post(`${API}/records`, () => {
        calls++;
        return HttpResponse.json(envelope(record(3)), { status: 201, headers: { 'x-request-id': 'req_abc' } });
      }),
    );
    const promise = client().records.create(valid);
    const { data, response, requestId, body } = await promise.withResponse();
    expect(data.id).toBe(record(3).id);
    expect(response.status).toBe(201);
    expect(requestId).toBe('req_abc');
    expect(body).toMatchObject({ success: true, data: { id: record(3).id } });
    expect((await promise).id).toBe(record(3).id);
    expect((await promise.asResponse()).headers.get('x-request-id')).toBe('req_abc');
    expect(calls).toBe(1);
  });

  it('asResponse() and withResponse() give a Response whose body can still be read', async () => {
    server.use(http.get(`${API}/causas`, () => HttpResponse.json(envelope([{ id: 'c1' }]), { headers: { 'x-request-id': 'req_raw' } })));
    const raw = await client().causas.list().asResponse();
    expect(raw.bodyUsed).toBe(false);
    expect(await raw.json()).toMatchObject({ success: true, data: [{ id: 'c1' }] });
    expect(raw.headers.get('x-request-id')).toBe('req_raw');
    const { response, data } = await client().causas.list().withResponse();
    expect(data).toEqual([{ id: 'c1' }]);
    expect(await response.text()).toContain('"c1"');
  });

  it('pages carry their request id; list().withResponse() gives the first page', async () => {
    server.use(
      http.get(`${API}/records`, () =>
        HttpResponse.json(envelope([record(1)], { meta: { pagination: { limit: 50, offset: 0, total: 1 } } }), {
          headers: { 'x-request-id': 'req_page' },
        }),
      ),
    );
    const { data: page, requestId } = await client().records.list().withResponse();
    expect(requestId).toBe('req_page');
    expect(page.requestId).toBe('req_page');
    expect(page.data).toHaveLength(1);
  });

  it('never turns a 2xx into an error: a body without the envelope is returned as it came, with a warning', async () => {
    const lines: string[] = [];
    const logger = { error: vi.fn(), warn: (m: string) => lines.push(m), info: vi.fn(), debug: vi.fn() };
    server.use(http.post(`${API}/shifts`, () => HttpResponse.json({ id: 'x', name: 'Noche' }, { status: 201 })));
    const shift = await client({ logger, logLevel: 'warn' }).shifts.create({ name: 'Noche', start_time: '22:00', end_time: '06:00' });
    expect(shift).toEqual({ id: 'x', name: 'Noche' });
    expect(lines).toEqual([expect.stringContaining('without the { data } envelope')]);
  });
});

describe('logging', () => {
  function capture() {
    const lines: { level: string; message: string }[] = [];
    const at = (level: string) => (message: string) => lines.push({ level, message });
    return { lines, logger: { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') } };
  }

  it('is silent by default', async () => {
    const { lines, logger } = capture();
    server.use(http.get(`${API}/causas`, () => HttpResponse.json(envelope([]))));
    await client({ logger }).causas.list();
    expect(lines).toEqual([]);
  });

  it('at debug, logs each request and answer with its request id, never the key', async () => {
    const { lines, logger } = capture();
    server.use(http.get(`${API}/causas`, () => HttpResponse.json(envelope([]), { headers: { 'x-request-id': 'req_log' } })));
    await client({ logger, logLevel: 'debug' }).causas.list();
    expect(lines.map((l) => l.level)).toEqual(['debug', 'debug']);
    expect(lines[0]?.message).toBe('[merma] → GET /causas');
    expect(lines[1]?.message).toMatch(/^\[merma\] ← 200 GET \/causas in \d+ ms \(request req_log\)$/);
    expect(JSON.stringify(lines)).not.toContain(KEY);
  });

  it('logs a 429 thrown at once because its wait is over maxRetryAfter', async () => {
    const { lines, logger } = capture();
    server.use(
      http.get(`${API}/causas`, () =>
        HttpResponse.json(errorBody(429, 'rate_limited', 'slow down'), {
          status: 429,
          headers: { 'retry-after': '3600', 'x-request-id': 'req_429' },
        }),
      ),
    );
    const err = await client({ logger, logLevel: 'warn' })
      .causas.list()
      .catch((e) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect(lines).toEqual([
      {
        level: 'warn',
        message: '[merma] ✗ GET /causas: 429 slow down (request req_429); the server asks to wait 3600 s, over maxRetryAfter (60000 ms)',
      },
    ]);
  });

  it('at info, logs retries; MERMA_LOG sets the level', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { lines, logger } = capture();
    let calls = 0;
    server.use(
      http.get(`${API}/causas`, () => {
        calls++;
        return calls === 1 ? HttpResponse.json(errorBody(503, 'service_unavailable'), { status: 503 }) : HttpResponse.json(envelope([]));
      }),
    );
    process.env.MERMA_LOG = 'info';
    try {
      const pending = client({ logger }).causas.list();
      await vi.advanceTimersByTimeAsync(5_000);
      await pending;
    } finally {
      delete process.env.MERMA_LOG;
    }
    expect(lines).toEqual([{ level: 'info', message: expect.stringMatching(/^\[merma\] GET \/causas: 503; retrying in \d+ ms/) }]);
  });
});

describe('what openai-node and stripe-node users expect', () => {
  it('returned objects carry _request_id, not enumerable (left out of JSON, spreads and equality); arrays do not', async () => {
    server.use(
      http.post(`${API}/records`, () => HttpResponse.json(envelope(record(1)), { status: 201, headers: { 'x-request-id': 'req_rid' } })),
      http.get(`${API}/causas`, () => HttpResponse.json(envelope([{ id: 'c1' }]), { headers: { 'x-request-id': 'req_list' } })),
    );
    const created = await client().records.create(valid);
    expect(created._request_id).toBe('req_rid');
    expect(Object.keys(created)).not.toContain('_request_id');
    expect(JSON.stringify(created)).not.toContain('req_rid');
    expect({ ...created }).toEqual(record(1));
    const causas = await client().causas.list();
    expect(causas).toEqual([{ id: 'c1' }]);
    expect(Object.getOwnPropertyNames(causas)).not.toContain('_request_id');
  });

  it("on('request') and on('response') see every attempt, retries included; off() stops them; a listener that throws changes nothing", async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let calls = 0;
    server.use(
      http.post(`${API}/records`, () => {
        calls++;
        return calls === 1
          ? HttpResponse.json(errorBody(503, 'service_unavailable'), { status: 503, headers: { 'x-request-id': 'req_1' } })
          : HttpResponse.json(envelope(record(1)), { status: 201, headers: { 'x-request-id': 'req_2' } });
      }),
    );
    const requests: RequestEvent[] = [];
    const responses: ResponseEvent[] = [];
    const merma = client()
      .on('request', (e) => requests.push(e))
      .on('request', () => {
        throw new Error('broken metrics');
      })
      .on('response', (e) => responses.push(e));
    const pending = merma.records.create(valid, { idempotencyKey: 'evt-1' });
    await vi.advanceTimersByTimeAsync(2_000);
    await expect(pending).resolves.toMatchObject({ id: record(1).id });
    expect(requests.map(({ method, path, attempt, idempotencyKey }) => ({ method, path, attempt, idempotencyKey }))).toEqual([
      { method: 'POST', path: '/records', attempt: 0, idempotencyKey: 'evt-1' },
      { method: 'POST', path: '/records', attempt: 1, idempotencyKey: 'evt-1' },
    ]);
    expect(responses.map(({ status, requestId, attempt }) => ({ status, requestId, attempt }))).toEqual([
      { status: 503, requestId: 'req_1', attempt: 0 },
      { status: 201, requestId: 'req_2', attempt: 1 },
    ]);
    for (const e of responses) expect(e.elapsedMs).toBeGreaterThanOrEqual(0);

    const listener = (e: ResponseEvent) => responses.push(e);
    merma.off('response', listener).on('response', listener).off('response', listener);
    server.use(http.get(`${API}/causas`, () => HttpResponse.json(envelope([]))));
    await merma.causas.list();
    expect(responses).toHaveLength(3); // the first listener only
  });

  it('per-call timeout and maxRetries override the client options', async () => {
    let calls = 0;
    server.use(
      http.get(`${API}/products`, async () => {
        calls++;
        await new Promise((r) => setTimeout(r, 300));
        return HttpResponse.json(envelope([]));
      }),
    );
    const merma = client({ timeout: 10_000, maxRetries: 0 });
    const err = await merma.products.list({ timeout: 50, maxRetries: 1 }).catch((e) => e);
    expect(err).toBeInstanceOf(APIConnectionTimeoutError);
    expect(calls).toBe(2);
  });

  it('fetchOptions reach fetch: RequestInit fields on the Request, the others (an undici dispatcher) in init; a call overrides the client', async () => {
    const seen: { keepalive: boolean; init: Record<string, unknown> | undefined }[] = [];
    const recording: typeof fetch = async (input, init) => {
      seen.push({ keepalive: (input as Request).keepalive, init: init as Record<string, unknown> | undefined });
      return Response.json(envelope([]));
    };
    const merma = client({ fetch: recording, fetchOptions: { dispatcher: 'client-agent', keepalive: true } });
    await merma.causas.list();
    await merma.causas.list({ fetchOptions: { dispatcher: 'call-agent' } });
    expect(seen.map((s) => [s.keepalive, s.init?.dispatcher])).toEqual([
      [true, 'client-agent'],
      [true, 'call-agent'],
    ]);
  });

  it('toArray({ limit }) collects across pages and stops fetching at the limit; the limit is required', async () => {
    const all = Array.from({ length: 5 }, (_, i) => record(i + 1));
    const offsets: number[] = [];
    server.use(
      http.get(`${API}/records`, ({ request }) => {
        const offset = Number(new URL(request.url).searchParams.get('offset'));
        offsets.push(offset);
        return HttpResponse.json(
          envelope(all.slice(offset, offset + 2), { meta: { pagination: { limit: 2, offset, total: all.length } } }),
        );
      }),
    );
    const three = await client().records.list({ limit: 2 }).toArray({ limit: 3 });
    expect(three.map((r) => r.id)).toEqual(all.slice(0, 3).map((r) => r.id));
    expect(offsets).toEqual([0, 2]);
    offsets.length = 0;
    expect((await client().records.list({ limit: 2 }).toArray({ limit: 100 })).map((r) => r.id)).toEqual(all.map((r) => r.id));
    expect(offsets).toEqual([0, 2, 4]);
    offsets.length = 0;
    for (const limit of [0, -1, 1.5, Number.NaN, undefined]) {
      const err = await client()
        .records.list()
        .toArray({ limit: limit as number })
        .catch((e) => e);
      expect(err, String(limit)).toBeInstanceOf(MermaError);
    }
    expect(offsets).toEqual([]);
  });

  it('getNextPage() on the last page rejects with NoNextPageError, a MermaError', async () => {
    server.use(
      http.get(`${API}/records`, () =>
        HttpResponse.json(envelope([record(1)], { meta: { pagination: { limit: 50, offset: 0, total: 1 } } })),
      ),
    );
    const page = await client().records.list();
    expect(page.hasNextPage()).toBe(false);
    const err = await page.getNextPage().catch((e) => e);
    expect(err).toBeInstanceOf(NoNextPageError);
    expect(err).toBeInstanceOf(MermaError);
    expect(NoNextPageError.is(err)).toBe(true);
    expect(err.message).toMatch(/hasNextPage\(\)/);
  });
});
