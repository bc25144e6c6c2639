import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Merma } from '../src/index.js';
import { API, BASE, DESTINO, envelope, errorBody, HttpResponse, http, KEY, server, uuid } from './setup.js';

/**
 * records.batch when chunks fail or answer oddly (resources.test.ts covers the chunking, replays and
 * retries): each failed item says which chunk failed, why, and whether what was stored is unknown;
 * an answer that is not the API's is reported item by item; the summary is in your order whatever
 * order the chunks came back in.
 */
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const client = () => new Merma({ apiKey: KEY, baseUrl: BASE, maxRetries: 0 });
const items = (count: number, refused: number[] = []) =>
  Array.from({ length: count }, (_, i) => ({
    food_category: 'bakery' as const,
    weight_kg: refused.includes(i) ? 13 : 1,
    destino_id: DESTINO,
  }));

/** Answers each chunk as `answer` says (by chunk number), else stores it, refusing items of 13 kg; keeps the keys it got. */
function batchServer(answer: (n: number) => Response | undefined, delayMs: (n: number) => number = () => 0) {
  const keys: (string | null)[] = [];
  server.use(
    http.post(`${API}/records/batch`, async ({ request }) => {
      const body = (await request.json()) as { records: { weight_kg: number }[] };
      const n = keys.length;
      keys.push(request.headers.get('idempotency-key'));
      await new Promise((r) => setTimeout(r, delayMs(n)));
      const special = answer(n);
      if (special) return special;
      const errors = body.records.flatMap((r, index) =>
        r.weight_kg === 13 ? [{ index, code: 'validation_error', error: 'unlucky' }] : [],
      );
      const records = body.records.flatMap((r, index) =>
        r.weight_kg === 13
          ? []
          : [{ index, id: uuid(n * 1000 + index), record_hash: 'b'.repeat(64), created_at: '2026-11-23T10:00:00.000Z' }],
      );
      return HttpResponse.json(envelope({ inserted: records.length, failed: errors.length, errors, records }));
    }),
  );
  return keys;
}

const unknownHint = ' (outcome unknown: rerun with the same idempotencyKey to store exactly once)';

describe('records.batch, a chunk failing as a whole', () => {
  it('reports each of its items with the code and message of the failure; only a 5xx or a lost connection leaves the outcome unknown', async () => {
    const cases: [Response, string, string][] = [
      [HttpResponse.json(errorBody(400, 'validation_error', 'bad chunk'), { status: 400 }), 'validation_error', 'bad chunk'],
      [HttpResponse.json(errorBody(499, 'conflict', 'odd'), { status: 499 }), 'conflict', `odd`],
      [HttpResponse.json(errorBody(500, 'internal', 'boom'), { status: 500 }), 'internal', `boom${unknownHint}`],
      [new HttpResponse('Bad gateway', { status: 502 }), 'http_502', `Request failed with status 502${unknownHint}`],
    ];
    for (const [response, code, message] of cases) {
      batchServer((n) => (n === 1 ? response.clone() : undefined));
      const result = await client().records.batch(items(503));
      expect(result.errors.map((e) => e.index)).toEqual([500, 501, 502]);
      expect(result.errors[0]).toEqual({ index: 500, code, error: `chunk 1 failed: ${message}` });
      expect(result).toMatchObject({ inserted: 500, failed: 3 });
      server.resetHandlers();
    }
    batchServer((n) => (n === 0 ? HttpResponse.error() : undefined));
    const lost = await client().records.batch(items(2));
    // A failed fetch that does not say the connection could not be made may have been carried out.
    expect(lost.errors.map((e) => e.code)).toEqual(['unknown_outcome', 'unknown_outcome']);
    expect(lost.errors[0]?.error).toMatch(
      /^chunk 0 failed: .+ \(outcome unknown: rerun with the same idempotencyKey to store exactly once\)$/,
    );
    expect(lost).toMatchObject({ inserted: 0, failed: 2 });
  });

  it("reports a 2xx that is not the API's answer item by item, as unknown, and counts it as sent", async () => {
    batchServer((n) => (n === 1 ? HttpResponse.json({ data: ['not', 'a', 'summary'] }) : undefined));
    const progress: number[] = [];
    const result = await client().records.batch(items(502), { onProgress: (p) => progress.push(p.sent) });
    expect(result.errors).toHaveLength(2);
    expect(result.errors[1]).toEqual({
      index: 501,
      code: 'unknown_outcome',
      error:
        "chunk 1: the 200 answer was not the API's, so what was stored is unknown; rerun with the same idempotencyKey to store exactly once",
    });
    expect(result).toMatchObject({ inserted: 500, failed: 2 });
    expect(progress).toEqual([500, 502]);
  });

  it('counts as stored what an answer without `inserted` did not refuse', async () => {
    batchServer(() =>
      HttpResponse.json(envelope({ failed: 1, errors: [{ index: 1, code: 'validation_error', error: 'no' }], records: [] })),
    );
    expect(await client().records.batch(items(4))).toMatchObject({ inserted: 3, failed: 1 });
  });
});

describe('records.batch, the summary', () => {
  it('lists errors and records in your order when a later chunk is answered first', async () => {
    batchServer(
      () => undefined,
      (n) => (n === 0 ? 80 : 0),
    );
    const result = await client().records.batch(items(1_000, [3, 700, 999]), { concurrency: 2 });
    expect(result.errors.map((e) => e.index)).toEqual([3, 700, 999]);
    const indexes = result.records.map((r) => r.index);
    expect(indexes).toEqual([...indexes].sort((a, b) => a - b));
    expect(indexes).toHaveLength(997);
  });

  it('sends each chunk with a key of its own: "key:n" when given, a new one when not, none with idempotencyKey: false', async () => {
    const keys = batchServer(() => undefined);
    await client().records.batch(items(600));
    expect(keys).toHaveLength(2);
    for (const key of keys) expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(keys[0]).not.toBe(keys[1]);
    server.resetHandlers();
    const none = batchServer(() => undefined);
    await client().records.batch(items(600), { idempotencyKey: false });
    expect(none).toEqual([null, null]);
  });
});
