import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Merma, signWebhook, verifyWebhook } from '../src/index.js';
import { DESTINO, KEY, uuid } from './setup.js';

/**
 * A scripted HTTP server that answers exactly the contract's minimal shapes (SPEC.md), plus values
 * the SDK has never heard of: a new food category and extra fields. An older server, or a newer
 * one with additive changes, answers like this; the SDK must report every acknowledged write as
 * stored and return what came.
 */
const NEW_CATEGORY = 'insects';
const now = '2026-11-23T10:00:00.000Z';
const stored: unknown[] = [];
let server: Server;
let baseUrl: string;

function reply(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': `req_${stored.length}` });
  res.end(JSON.stringify(body));
}

async function read(req: IncomingMessage): Promise<unknown> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text ? JSON.parse(text) : undefined;
}

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const body = (await read(req)) as { records?: { weight_kg: number }[] } | Record<string, unknown> | undefined;
    const route = `${req.method} ${url.pathname}`;
    if (route === 'POST /api/v1/records') {
      stored.push(body);
      // Contract: id, establishment_id, food_category, weight_kg, record_hash, created_at.
      return reply(res, 201, {
        success: true,
        data: {
          id: uuid(stored.length),
          establishment_id: uuid(0),
          food_category: NEW_CATEGORY,
          weight_kg: 2,
          record_hash: 'c'.repeat(64),
          created_at: now,
        },
        timestamp: now,
      });
    }
    if (route === 'POST /api/v1/records/batch') {
      const items = (body as { records: { weight_kg: number }[] }).records;
      const errors = items.flatMap((r, index) => (r.weight_kg <= 0 ? [{ index, error: 'weight_kg must be > 0' }] : []));
      stored.push(...items.filter((r) => r.weight_kg > 0));
      return reply(res, 200, {
        success: true,
        data: { inserted: items.length - errors.length, failed: errors.length, errors },
        timestamp: now,
      });
    }
    if (route === 'GET /api/v1/records') {
      const offset = Number(url.searchParams.get('offset') ?? 0);
      const limit = Number(url.searchParams.get('limit') ?? 50);
      const total = 5;
      const data = Array.from({ length: Math.max(0, Math.min(limit, total - offset)) }, (_, i) => ({
        id: uuid(offset + i + 1),
        food_category: i === 0 ? NEW_CATEGORY : 'meat',
        weight_kg: 1,
        product_name: null,
        created_at: now,
        allergen_codes: ['A1'],
      }));
      return reply(res, 200, { success: true, data, meta: { pagination: { limit, offset, total } }, timestamp: now });
    }
    if (route === 'GET /api/v1/analytics') {
      return reply(res, 200, {
        success: true,
        data: {
          total_kg: 3,
          total_records: 2,
          by_category: { [NEW_CATEGORY]: 2, meat: 1 },
          by_destino: { donation: 3 },
          trend: [{ period: '2026-W47', total_kg: 3 }],
        },
        timestamp: now,
      });
    }
    if (route === 'GET /api/v1/records/verify') {
      return reply(res, 200, { success: true, data: { valid: true, checked: 7, method: 'sha256-chain-v2' }, timestamp: now });
    }
    reply(res, 404, { error: 'Not found', status: 404, timestamp: now });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("the SDK against a server answering only the contract's minimal shapes", () => {
  const merma = () => new Merma({ apiKey: KEY, baseUrl, maxRetries: 0 });

  it('create: the acknowledged write is reported as stored, with a category the SDK does not know', async () => {
    const before = stored.length;
    const { data, requestId } = await merma().records.create({ food_category: 'meat', weight_kg: 2, destino_id: DESTINO }).withResponse();
    expect(stored.length).toBe(before + 1);
    expect(data).toEqual({
      id: uuid(before + 1),
      establishment_id: uuid(0),
      food_category: NEW_CATEGORY,
      weight_kg: 2,
      record_hash: 'c'.repeat(64),
      created_at: now,
    });
    expect(requestId).toBe(`req_${before + 1}`);
  });

  it('list: list items of five fields (plus one added later) come back as sent, and every page is walked', async () => {
    const page = await merma().records.list({ limit: 2 });
    expect(page.data[0]).toEqual({
      id: uuid(1),
      food_category: NEW_CATEGORY,
      weight_kg: 1,
      product_name: null,
      created_at: now,
      allergen_codes: ['A1'],
    });
    expect(page.pagination).toEqual({ limit: 2, offset: 0, total: 5, has_more: true });
    const ids: string[] = [];
    for await (const r of merma().records.list({ limit: 2 })) ids.push(r.id);
    expect(ids).toEqual([1, 2, 3, 4, 5].map(uuid));
  });

  it('batch: {inserted, failed, errors} counts every stored item as stored, across chunks', async () => {
    const before = stored.length;
    const items = Array.from({ length: 1_200 }, (_, i) => ({
      food_category: 'meat' as const,
      weight_kg: i === 700 ? -1 : 1,
      destino_id: DESTINO,
    }));
    const result = await merma().records.batch(items);
    expect(stored.length - before).toBe(1_199);
    expect(result).toMatchObject({ inserted: 1_199, replayed: 0, failed: 1 });
    expect(result.errors).toEqual([{ index: 700, error: 'weight_kg must be > 0' }]);
  });

  it("analytics: the contract's five fields, keyed by a new category", async () => {
    const analytics = await merma().analytics.get({ group_by: 'week' });
    expect(analytics.by_category).toEqual({ [NEW_CATEGORY]: 2, meat: 1 });
    expect(analytics.total_kg).toBe(3);
  });

  it('records.verify: fields renamed or added later pass through', async () => {
    expect(await merma().records.verify()).toEqual({ valid: true, checked: 7, method: 'sha256-chain-v2' });
  });

  it('verifyWebhook: a new event type with fields of its own is returned, not refused', async () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const payload = JSON.stringify({ event: 'stock.counted', timestamp: now, data: { items: 12 } });
    const headers = await signWebhook({ payload, secret });
    expect(await verifyWebhook({ payload, headers, secret })).toEqual(JSON.parse(payload));
  });
});
