import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { deadline } from '@merma/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { APIConnectionError, APIConnectionTimeoutError, APIUserAbortError, Merma, MermaError } from '../src/index.js';
import { DESTINO, KEY, record, uuid } from './setup.js';

/**
 * Failure modes found in review, each against a real HTTP server scripted per test: what a client
 * does when the body stalls or breaks, how headers are merged, when a POST may be sent twice, and
 * that nothing loops forever on a misbehaving server.
 */
type Seen = { method: string; url: string; headers: Record<string, string | string[] | undefined>; body: string };
let handle: (req: Seen, res: ServerResponse) => void = (_req, res) => res.end();
const seen: Seen[] = [];
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      const entry = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      seen.push(entry);
      handle(entry, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(() => {
  seen.length = 0;
  server.closeAllConnections();
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const client = (opts: Partial<ConstructorParameters<typeof Merma>[0]> = {}) => new Merma({ apiKey: KEY, baseUrl, ...opts });
const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};
const envelope = (data: unknown, extra: object = {}) => ({ success: true, data, timestamp: '2026-11-23T10:00:00.000Z', ...extra });
const valid = { food_category: 'meat' as const, weight_kg: 1, destino_id: DESTINO };

describe('a POST is sent twice only with an Idempotency-Key', () => {
  it('is not retried after a connection error when sent without a key', async () => {
    handle = (_req, res) => res.socket?.destroy();
    const err = await client({ maxRetries: 3 })
      .records.create(valid, { idempotencyKey: false })
      .catch((e) => e);
    expect(err).toBeInstanceOf(APIConnectionError);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.headers['idempotency-key']).toBeUndefined();
  });

  it('is retried after a connection error with its key, the same on every attempt', async () => {
    handle = (_req, res) => (seen.length < 3 ? res.socket?.destroy() : json(res, 201, envelope(record(1))));
    const created = await client({ maxRetries: 3 }).records.create(valid);
    expect(created.id).toBe(record(1).id);
    expect(seen).toHaveLength(3);
    expect(new Set(seen.map((s) => s.headers['idempotency-key'])).size).toBe(1);
  });

  it('treats an empty idempotencyKey as not given: a key is generated, never an empty header', async () => {
    handle = (_req, res) => json(res, 201, envelope(record(1)));
    await client().records.create(valid, { idempotencyKey: '' });
    expect(seen[0]?.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('refuses a key the API would refuse, before sending anything', async () => {
    for (const key of ['pedido-€-42', 'two words', 'k'.repeat(256)]) {
      const err = await client()
        .records.create(valid, { idempotencyKey: key })
        .catch((e) => e);
      expect(err).toBeInstanceOf(MermaError);
      expect(err.message).toMatch(/Invalid idempotency key/);
    }
    expect(seen).toHaveLength(0);
  });
});

describe('headers', () => {
  it('honours an Idempotency-Key header set by the caller, in any case, and never lets Authorization be replaced', async () => {
    handle = (_req, res) => json(res, 201, envelope(record(1)));
    const merma = client({ defaultHeaders: { Authorization: 'Bearer someone-else', 'X-Erp': 'madrid' } });
    await merma.records.create(valid, { headers: { 'Idempotency-Key': 'ticket-42' } });
    await merma.records.create(valid, { headers: { 'idempotency-key': 'ticket-43' }, idempotencyKey: 'ticket-44' });
    expect(seen.map((s) => s.headers['idempotency-key'])).toEqual(['ticket-42', 'ticket-44']);
    expect(seen.map((s) => s.headers.authorization)).toEqual([`Bearer ${KEY}`, `Bearer ${KEY}`]);
    expect(seen[0]?.headers['x-erp']).toBe('madrid');
  });

  it('sends no Idempotency-Key on a GET even when one is among the default headers', async () => {
    handle = (_req, res) => json(res, 200, envelope([]));
    await client({ defaultHeaders: { 'Idempotency-Key': 'nope' } }).causas.list();
    expect(seen[0]?.headers['idempotency-key']).toBeUndefined();
  });
});

describe('the timeout and the signal cover the whole answer, body included', () => {
  it('times out a server that sends its headers and then stalls', async () => {
    handle = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"success":true,');
    };
    // The body never ends: only the 200 ms timeout can end the call (were it ignored, the test
    // would time out instead).
    const err = await client({ timeout: 200, maxRetries: 0 })
      .causas.list()
      .catch((e) => e);
    expect(err).toBeInstanceOf(APIConnectionTimeoutError);
  });

  it('aborts while the body is being read', async () => {
    handle = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"success":true,');
    };
    const controller = new AbortController();
    const pending = client()
      .causas.list({ signal: controller.signal })
      .catch((e) => e);
    while (seen.length === 0) await new Promise((r) => setTimeout(r, 10));
    controller.abort(new Error('closing'));
    const err = await pending;
    expect(err).toBeInstanceOf(APIUserAbortError);
    expect(err.cause).toEqual(new Error('closing'));
  });

  it('retries, with the same key, a 2xx whose body breaks off: the API replays the stored answer', async () => {
    handle = (_req, res) => {
      if (seen.length === 1) {
        res.writeHead(201, { 'content-type': 'application/json', 'content-length': '500' });
        res.write('{"success":true,"data":{"id"');
        res.socket?.destroy();
      } else json(res, 201, envelope(record(7)));
    };
    const created = await client({ maxRetries: 2 }).records.create(valid);
    expect(created.id).toBe(record(7).id);
    expect(seen).toHaveLength(2);
    expect(seen[0]?.headers['idempotency-key']).toBe(seen[1]?.headers['idempotency-key']);
  });
});

describe('options and servers that misbehave', () => {
  it(
    'reads NaN, negative and infinite options as mistakes, not as "forever"',
    async () => {
      handle = (_req, res) => json(res, 503, { error: 'down', status: 503, code: 'service_unavailable' });
      const err = await client({ maxRetries: Number.NaN, timeout: Number.POSITIVE_INFINITY })
        .causas.list({ maxRetries: -1 })
        .catch((e) => e);
      expect(err.status).toBe(503);
      expect(seen).toHaveLength(3); // the default: 2 retries
    },
    deadline(20_000),
  );

  it('stops iterating when a page brings nothing new, instead of asking forever', async () => {
    handle = (_req, res) =>
      json(res, 200, envelope([record(1), record(2)], { meta: { pagination: { limit: 2, offset: 0, has_more: true } } }));
    const ids: string[] = [];
    for await (const r of client().records.list({ limit: 2 })) ids.push(r.id);
    expect(ids).toEqual([uuid(1), uuid(2)]);
    expect(seen).toHaveLength(2);
  });

  it('walks pages when the server sends neither has_more nor total, until a short page', async () => {
    const all = Array.from({ length: 5 }, (_, i) => record(i + 1));
    handle = (req, res) => {
      const offset = Number(new URL(req.url, 'http://x').searchParams.get('offset'));
      json(res, 200, envelope(all.slice(offset, offset + 2), { meta: { pagination: { limit: 2, offset } } }));
    };
    const ids: string[] = [];
    for await (const r of client().records.list({ limit: 2 })) ids.push(r.id);
    expect(ids).toEqual(all.map((r) => r.id));
  });

  it('reports a batch chunk answered 2xx by something that is not the API as of unknown outcome, not as stored', async () => {
    handle = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>proxy</html>');
    };
    const result = await client().records.batch([valid, valid]);
    expect(result).toMatchObject({ inserted: 0, replayed: 0, failed: 2 });
    expect(result.errors.map((e) => e.code)).toEqual(['unknown_outcome', 'unknown_outcome']);
  });

  it('stops a batch on a mistake of the caller instead of reporting it as a connection failure', async () => {
    handle = (_req, res) => json(res, 200, envelope({ inserted: 1, failed: 0, errors: [] }));
    const err = await client()
      .records.batch([valid], { idempotencyKey: 'k'.repeat(254) })
      .catch((e) => e);
    expect(err).toBeInstanceOf(MermaError);
    expect(err.message).toMatch(/Invalid idempotency key/);
    expect(seen).toHaveLength(0);
  });

  it('checks a batch key against the API limit less the chunk suffix, before sending, and says so', async () => {
    handle = (req, res) => {
      const n = JSON.parse(req.body).records.length;
      json(res, 200, envelope({ inserted: n, failed: 0, errors: [], records: [] }));
    };
    // One chunk: sent as `<key>:0`, so 253 characters is the longest key the API takes.
    const longest = 'k'.repeat(253);
    expect(await client().records.batch([valid], { idempotencyKey: longest })).toMatchObject({ inserted: 1, failed: 0 });
    expect(seen.map((s) => s.headers['idempotency-key'])).toEqual([`${longest}:0`]);
    expect(String(seen[0]?.headers['idempotency-key']).length).toBe(255);
    seen.length = 0;
    const err = await client()
      .records.batch([valid], { idempotencyKey: 'k'.repeat(254) })
      .catch((e) => e);
    expect(err).toBeInstanceOf(MermaError);
    expect(err.message).toBe(
      'Invalid idempotency key for records.batch: it has 254 characters, and the API accepts 1 to 253 visible ASCII characters here, ' +
        'because chunk n is sent as `<key>:<n>` (up to ":0" for 1 items) and the API\'s limit is 255 characters',
    );
    // 11 chunks: `:10` leaves 252.
    const many = Array.from({ length: 5_001 }, () => valid);
    const eleven = await client()
      .records.batch(many, { idempotencyKey: 'k'.repeat(253) })
      .catch((e) => e);
    expect(eleven.message).toContain('1 to 252 visible ASCII characters here');
    expect(seen).toHaveLength(0);
    // A single call's key: the API's own limit, 255.
    const single = await client()
      .records.create(valid, { idempotencyKey: 'k'.repeat(256) })
      .catch((e) => e);
    expect(single.message).toBe(
      `Invalid idempotency key "${'k'.repeat(60)}…": it has 256 characters, and the API accepts 1 to 255 visible ASCII characters`,
    );
    expect(seen).toHaveLength(0);
  });

  it('starts where environment variables cannot be read (Deno without --allow-env)', () => {
    const saved = process.env;
    process.env = new Proxy({} as NodeJS.ProcessEnv, {
      get() {
        throw new Error('NotCapable: Requires env access');
      },
    });
    try {
      expect(client().livemode).toBe(false);
    } finally {
      process.env = saved;
    }
  });
});

describe('a custom fetch that ignores its signal', () => {
  const deaf: typeof fetch = () => new Promise<Response>(() => {});

  it('still times out', async () => {
    const err = await new Merma({ apiKey: KEY, baseUrl, fetch: deaf, timeout: 100, maxRetries: 0 }).causas.list().catch((e) => e);
    expect(err).toBeInstanceOf(APIConnectionTimeoutError);
  });

  it('still stops when the caller aborts', async () => {
    const controller = new AbortController();
    const pending = new Merma({ apiKey: KEY, baseUrl, fetch: deaf }).causas.list({ signal: controller.signal }).catch((e) => e);
    setTimeout(() => controller.abort(new Error('enough')), 20);
    const err = await pending;
    expect(err).toBeInstanceOf(APIUserAbortError);
    expect(err.cause).toEqual(new Error('enough'));
  });
});

describe('records.batch: a chunk whose answer is lost', () => {
  const many = (n: number) => Array.from({ length: n }, () => valid);

  it('after its body was sent is unknown_outcome (it may be stored), never connection_error', async () => {
    // The server reads each whole chunk (it could have stored it), then the connection breaks.
    handle = (_req, res) => res.socket?.destroy();
    const result = await client({ maxRetries: 0 }).records.batch(many(503), { idempotencyKey: 'lost-answer' });
    expect(seen.map((s) => JSON.parse(s.body).records.length)).toEqual([500, 3]);
    expect(result).toMatchObject({ inserted: 0, replayed: 0, failed: 503 });
    expect(new Set(result.errors.map((e) => e.code))).toEqual(new Set(['unknown_outcome']));
    expect(result.errors[0]?.error).toMatch(
      /^chunk 0 failed: Connection error: .+ \(outcome unknown: rerun with the same idempotencyKey to store exactly once\)$/,
    );
  });

  it('after a retry whose first attempt was lost is unknown_outcome, whatever the last attempt met', async () => {
    // Attempt 1 is read and cut off; attempt 2 finds the key still in flight (409), attempt 3 too.
    handle = (_req, res) =>
      seen.length === 1 ? res.socket?.destroy() : json(res, 409, { error: 'in progress', status: 409, code: 'conflict' });
    const result = await client({ maxRetries: 2 }).records.batch(many(2), { idempotencyKey: 'in-flight', maxRetryAfter: 0 });
    expect(seen).toHaveLength(3);
    expect(result.errors.map((e) => e.code)).toEqual(['unknown_outcome', 'unknown_outcome']);
  });

  it('is connection_error only when the connection could not be made (nothing was sent)', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const result = await new Merma({ apiKey: KEY, baseUrl: `http://127.0.0.1:${port}`, maxRetries: 0 }).records.batch(many(2), {
      idempotencyKey: 'refused',
    });
    expect(result.errors.map((e) => e.code)).toEqual(['connection_error', 'connection_error']);
    expect(result.errors[0]?.error).not.toContain('outcome unknown');
  });
});
