import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { APIConnectionError, BadRequestError, Merma, MermaError, NotFoundError, RateLimitError } from '../src/index.js';
import { API, BASE, envelope, errorBody, HttpResponse, http, KEY, server } from './setup.js';

/**
 * PUT retried like every idempotent method; the generic `client.get/post/put/patch/delete` for
 * endpoints without a method of their own, with the same key, retries, idempotency keys, errors
 * and envelope handling; and the API-version pin (`Merma-Version`), on the client and per call.
 */
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

type Seen = { method: string; url: string; headers: Headers; body: string };
/** Answers the n-th request (from 0) with `answers[n]`, the last one after that; keeps what was sent. */
function script(...answers: (() => Response)[]) {
  const seen: Seen[] = [];
  server.use(
    http.all(`${API}/*`, async ({ request }) => {
      seen.push({ method: request.method, url: request.url, headers: request.headers, body: await request.text() });
      return (answers[Math.min(seen.length - 1, answers.length - 1)] as () => Response)();
    }),
  );
  return seen;
}
const client = (opts: Partial<ConstructorParameters<typeof Merma>[0]> = {}) => new Merma({ apiKey: KEY, baseUrl: BASE, ...opts });
const settings = { service_level: 0.9 };

describe('PUT is retried (it is idempotent)', () => {
  it('waits out a 429 as the server asks, then succeeds', async () => {
    const seen = script(
      () => HttpResponse.json(errorBody(429, 'rate_limited'), { status: 429, headers: { 'retry-after': '1' } }),
      () => HttpResponse.json(envelope(settings)),
    );
    expect(await client().predict.settings.update(settings)).toEqual(settings);
    expect(seen.map((s) => s.method)).toEqual(['PUT', 'PUT']);
    expect(seen.map((s) => s.body)).toEqual([JSON.stringify(settings), JSON.stringify(settings)]);
    // A PUT needs no Idempotency-Key to be sent again.
    expect(seen[0]?.headers.get('idempotency-key')).toBeNull();
  });

  it('after a 503 and a lost connection', async () => {
    const seen = script(
      () => HttpResponse.json(errorBody(503, 'service_unavailable'), { status: 503, headers: { 'retry-after': '0' } }),
      () => HttpResponse.error(),
      () => HttpResponse.json(envelope({ closed_weekdays: ['monday'], closures: [] })),
    );
    expect(await client().openingCalendar.setClosedWeekdays({ closed_weekdays: ['monday'] })).toMatchObject({
      closed_weekdays: ['monday'],
    });
    expect(seen).toHaveLength(3);
  });

  it('still refuses a wait over maxRetryAfter at once, and stops after maxRetries', async () => {
    const limited = script(() => HttpResponse.json(errorBody(429, 'rate_limited'), { status: 429, headers: { 'retry-after': '60' } }));
    const err = await client({ maxRetryAfter: 1_000 })
      .predict.settings.update(settings)
      .catch((e) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect(limited).toHaveLength(1);
    server.resetHandlers();
    const down = script(() => HttpResponse.error());
    const lost = await client({ maxRetries: 1 })
      .predict.settings.update(settings)
      .catch((e) => e);
    expect(lost).toBeInstanceOf(APIConnectionError);
    expect(down).toHaveLength(2);
  });
});

describe('client.get/post/put/patch/delete', () => {
  it('sends the method, path, query and body with the key, and unwraps the envelope', async () => {
    const seen = script(() => HttpResponse.json(envelope({ ok: true }, { meta: { x: 1 } })));
    const merma = client();
    const got = await merma.get<{ ok: boolean }>('/records/verify', { query: { full: true, skip: undefined } });
    expect(got).toEqual({ ok: true });
    expect(got._request_id).toBeUndefined();
    await merma.post('/sales', { body: { lines: [] } });
    await merma.put('/api/v1/predict/settings', { body: settings });
    await merma.patch('/webhooks/abc?x=1', { body: { active: false }, query: { y: 2 } });
    await merma.delete('/opening-calendar/closures/c1');
    expect(seen.map((s) => `${s.method} ${s.url.replace(BASE, '')}`)).toEqual([
      'GET /api/v1/records/verify?full=true',
      'POST /api/v1/sales',
      'PUT /api/v1/predict/settings',
      'PATCH /api/v1/webhooks/abc?x=1&y=2',
      'DELETE /api/v1/opening-calendar/closures/c1',
    ]);
    expect(seen.map((s) => s.body)).toEqual(['', '{"lines":[]}', JSON.stringify(settings), '{"active":false}', '']);
    for (const s of seen) {
      expect(s.headers.get('authorization')).toBe(`Bearer ${KEY}`);
      expect(s.headers.get('x-merma-sdk')).toMatch(/^js\//);
    }
    // Only the POST carries an Idempotency-Key.
    expect(seen.map((s) => s.headers.get('idempotency-key') !== null)).toEqual([false, true, false, false, false]);
  });

  it('retries a POST with the same generated key, or the one given', async () => {
    const seen = script(
      () => HttpResponse.json(errorBody(500, 'internal'), { status: 500 }),
      () => HttpResponse.json(envelope({ id: 'x' }), { status: 201 }),
    );
    await client().post('/records/verifications', { body: {} });
    const [first, second] = seen.map((s) => s.headers.get('idempotency-key'));
    expect(first).toMatch(/^[0-9a-f-]{36}$/);
    expect(second).toBe(first);
    server.resetHandlers();
    const given = script(() => HttpResponse.json(envelope({})));
    await client().post('/records/verifications', { body: {}, idempotencyKey: 'mine-1' });
    expect(given[0]?.headers.get('idempotency-key')).toBe('mine-1');
    server.resetHandlers();
    const none = script(() => HttpResponse.error());
    const err = await client()
      .post('/records/verifications', { body: {}, idempotencyKey: false })
      .catch((e) => e);
    expect(err).toBeInstanceOf(APIConnectionError);
    expect(none).toHaveLength(1);
  });

  it('throws the typed errors, and returns a 2xx body without the envelope as it came', async () => {
    script(() => HttpResponse.json(errorBody(404, 'not_found', 'No such thing'), { status: 404, headers: { 'x-request-id': 'req_1' } }));
    const err = await client()
      .get('/nothing')
      .catch((e) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err).toMatchObject({ status: 404, code: 'not_found', requestId: 'req_1' });
    server.resetHandlers();
    script(() => HttpResponse.json({ plain: 1 }));
    const { data, response } = await client().get('/odd').withResponse();
    expect(data).toEqual({ plain: 1 });
    expect(response.status).toBe(200);
  });

  it('refuses a path that is not an API path (another host, no leading slash) before sending', async () => {
    const seen = script(() => HttpResponse.json(envelope({})));
    for (const path of ['https://evil.example/api/v1/records', '//evil.example/x', 'records']) {
      const err = (await client()
        .get(path)
        .catch((e: Error) => e)) as Error;
      expect(err, path).toBeInstanceOf(MermaError);
      expect(err.message).toContain('Invalid path');
    }
    expect(seen).toHaveLength(0);
  });
});

describe('apiVersion: Merma-Version on every call', () => {
  it('is not sent unless pinned; the client pins it, a call overrides it', async () => {
    const seen = script(() => HttpResponse.json(envelope([]), { headers: { 'merma-version': '2026-11-28' } }));
    await client().destinos.list();
    await client({ apiVersion: '2026-11-28' }).destinos.list();
    await client({ apiVersion: '2026-11-28' }).get('/destinos', { apiVersion: '2027-01-01' });
    await client().records.create({ food_category: 'meat', weight_kg: 1, destino_id: 'd' }, { apiVersion: '2026-11-28' });
    expect(seen.map((s) => s.headers.get('merma-version'))).toEqual([null, '2026-11-28', '2027-01-01', '2026-11-28']);
    const { response } = await client({ apiVersion: '2026-11-28' }).destinos.list().withResponse();
    expect(response.headers.get('merma-version')).toBe('2026-11-28');
  });

  it('a version the server refuses is a BadRequestError, not retried', async () => {
    const seen = script(() =>
      HttpResponse.json(
        errorBody(400, 'validation_error', 'Unknown API version "1999-01-01"', { details: [{ path: 'Merma-Version', message: 'x' }] }),
        { status: 400 },
      ),
    );
    const err = await client({ apiVersion: '1999-01-01' })
      .destinos.list()
      .catch((e) => e);
    expect(err).toBeInstanceOf(BadRequestError);
    expect(err.message).toContain('Unknown API version');
    expect(seen).toHaveLength(1);
  });
});
