import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { countOption, durationOption, waitCapOption } from '../src/core/http.js';
import { APIConnectionError, Merma } from '../src/index.js';
import { API, BASE, envelope, HttpResponse, http, KEY, server } from './setup.js';

/**
 * The request layer's small rules (core/http.ts): how options are read, the URL and headers a
 * call is sent with, what an answer without a body or envelope becomes, and that a listener that
 * throws or a lost connection is told as such.
 */
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

type Seen = { url: string; headers: Headers; body: string };
function capture(answer: () => Response = () => HttpResponse.json(envelope([]))) {
  const seen: Seen[] = [];
  server.use(
    http.all(`${API}/*`, async ({ request }) => {
      seen.push({ url: request.url, headers: request.headers, body: await request.text() });
      return answer();
    }),
  );
  return seen;
}
const logger = () => {
  const lines: string[] = [];
  const keep = (...args: unknown[]) => lines.push(args.map(String).join(' '));
  return { lines, logger: { debug: keep, info: keep, warn: keep, error: keep } };
};

describe('options', () => {
  it('counts: whole numbers from 0 up, rounded down; anything else is the default', () => {
    expect(countOption(0, 2)).toBe(0);
    expect(countOption(3.9, 2)).toBe(3);
    for (const wrong of [-1, Number.NaN, Number.POSITIVE_INFINITY, undefined, '3' as unknown as number])
      expect(countOption(wrong, 2)).toBe(2);
  });

  it('caps on waits: 0 and up, Infinity included; anything else is the default', () => {
    expect(waitCapOption(0, 60_000)).toBe(0);
    expect(waitCapOption(Number.POSITIVE_INFINITY, 60_000)).toBe(Number.POSITIVE_INFINITY);
    for (const wrong of [-1, Number.NaN, undefined, '5' as unknown as number]) expect(waitCapOption(wrong, 60_000)).toBe(60_000);
  });

  it('durations: above 0, at most what a timer can wait; anything else is the default', () => {
    expect(durationOption(1, 30_000)).toBe(1);
    expect(durationOption(Number.POSITIVE_INFINITY, 30_000)).toBe(2_147_483_647);
    for (const wrong of [0, -5, Number.NaN, undefined, '5' as unknown as number]) expect(durationOption(wrong, 30_000)).toBe(30_000);
  });
});

describe('what a call sends', () => {
  it('to the base URL without its trailing slashes, the path without a leading one, and the query without empty values', async () => {
    const seen = capture();
    const client = new Merma({ apiKey: KEY, baseUrl: `${BASE}///` });
    await client.destinos.list();
    await client.records.verify({ full: undefined });
    await client.records.list({ food_category: 'bakery', limit: 5, to: null as unknown as undefined });
    expect(seen.map((s) => s.url)).toEqual([
      `${API}/destinos`,
      `${API}/records/verify`,
      `${API}/records?food_category=bakery&limit=5&offset=0`,
    ]);
  });

  it('asks for JSON unless the caller said otherwise, and says its body is JSON only when it has one', async () => {
    const seen = capture();
    const client = new Merma({ apiKey: KEY, baseUrl: BASE });
    await client.destinos.list();
    await client.destinos.list({ headers: { Accept: 'application/problem+json' } });
    await client.shifts.create({ name: 'Noche', start_time: '22:00', end_time: '06:00' });
    expect(seen.map((s) => s.headers.get('accept'))).toEqual(['application/json', 'application/problem+json', 'application/json']);
    expect(seen.map((s) => s.headers.get('content-type'))).toEqual([null, null, 'application/json']);
    expect(seen.map((s) => s.body)).toEqual(['', '', JSON.stringify({ name: 'Noche', start_time: '22:00', end_time: '06:00' })]);
  });
});

describe('what a call gets back', () => {
  it('an empty answer is undefined, a body that is not JSON is its text, and either is said once in the log', async () => {
    const { lines, logger: log } = logger();
    const client = new Merma({ apiKey: KEY, baseUrl: BASE, logger: log, logLevel: 'warn' });
    capture(() => new HttpResponse(null, { status: 200 }));
    expect(await client.destinos.list()).toBeUndefined();
    server.resetHandlers();
    capture(() => new HttpResponse('plain text', { status: 200 }));
    expect(await client.destinos.list()).toBe('plain text');
    expect(lines.filter((l) => l.includes('without the { data } envelope'))).toHaveLength(2);
    server.resetHandlers();
    capture(() => new HttpResponse(null, { status: 204 }));
    await client.destinos.list();
    expect(lines.filter((l) => l.includes('without the { data } envelope'))).toHaveLength(2);
  });

  it('a listener that throws is logged and the call goes on', async () => {
    capture();
    const { lines, logger: log } = logger();
    const client = new Merma({ apiKey: KEY, baseUrl: BASE, logger: log, logLevel: 'warn' });
    client.on('request', () => {
      throw new Error('listener broke');
    });
    expect(await client.destinos.list()).toEqual([]);
    expect(lines.filter((l) => l.endsWith('a request listener threw: listener broke'))).toHaveLength(1);
  });

  it('a lost connection is an APIConnectionError saying so, with its cause', async () => {
    server.use(http.all(`${API}/*`, () => HttpResponse.error()));
    const client = new Merma({ apiKey: KEY, baseUrl: BASE, maxRetries: 0 });
    const error = await client.destinos.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect((error as Error).message).toMatch(/^Connection error: .+/);
    expect((error as Error).cause).toBeDefined();
  });
});
