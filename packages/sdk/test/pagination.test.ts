import { describe, expect, it } from 'vitest';
import type { APIResponse } from '../src/core/api-promise.js';
import { paginate } from '../src/core/pagination.js';
import { MermaError, NoNextPageError } from '../src/index.js';

/**
 * Offset pagination on its own (core/pagination.ts), fed answers directly: what a page reads from
 * `meta.pagination` and what it infers when a server sends less, when there is a next page, and how
 * iteration walks pages without yielding an item twice or looping on a server that does not move on.
 */
type Item = { id?: string; n: number };
const answer = (data: unknown, pagination?: Record<string, unknown>, body?: unknown): APIResponse<unknown> => ({
  data,
  body: body ?? (pagination ? { data, meta: { pagination } } : { data }),
  response: new Response(null),
  requestId: 'req_1',
});
const items = (from: number, count: number): Item[] => Array.from({ length: count }, (_, i) => ({ id: `id-${from + i}`, n: from + i }));

/** A list of `total` items served `size` at a time, with whatever `meta` says of each page; the offsets asked. */
function server(total: number, size: number, meta: (offset: number, count: number) => Record<string, unknown> | undefined) {
  const asked: number[] = [];
  const send = async (offset: number) => {
    asked.push(offset);
    const count = Math.max(0, Math.min(size, total - offset));
    return answer(items(offset, count), meta(offset, count));
  };
  return { send, asked };
}

describe('a page', () => {
  it('reads limit, offset, total and has_more as sent', async () => {
    const page = await paginate<Item>(async () => answer(items(0, 2), { limit: 2, offset: 40, total: 45, has_more: false }), 40);
    expect(page.pagination).toEqual({ limit: 2, offset: 40, total: 45, has_more: false });
    expect(page.requestId).toBe('req_1');
    expect(page.hasNextPage()).toBe(false);
    await expect(page.getNextPage()).rejects.toBeInstanceOf(NoNextPageError);
  });

  it('infers has_more from the total, else from a full page, and the rest from what it asked and got', async () => {
    const fromTotal = await paginate<Item>(async () => answer(items(10, 5), { total: 16 }), 10);
    expect(fromTotal.pagination).toEqual({ limit: 5, offset: 10, total: 16, has_more: true });
    const atTotal = await paginate<Item>(async () => answer(items(10, 5), { total: 15, offset: 10 }), 10);
    expect(atTotal.pagination.has_more).toBe(false);
    const full = await paginate<Item>(async () => answer(items(0, 3), { limit: 3 }));
    expect(full.pagination).toEqual({ limit: 3, offset: 0, total: undefined, has_more: true });
    const short = await paginate<Item>(async () => answer(items(0, 2), { limit: 3 }));
    expect(short.pagination.has_more).toBe(false);
    // Nothing said at all (no meta, or figures that are not numbers): no next page, the offset asked.
    const bare = await paginate<Item>(async () => answer(items(0, 3), undefined, null), 6);
    expect(bare.pagination).toEqual({ limit: 3, offset: 6, total: undefined, has_more: false });
    const junk = await paginate<Item>(
      async () => answer(items(0, 3), { limit: '3', offset: Number.NaN, total: Infinity, has_more: 'yes' }),
      6,
    );
    expect(junk.pagination).toEqual({ limit: 3, offset: 6, total: undefined, has_more: false });
    // has_more wins over the total; and an offset of 0 sent is 0.
    const said = await paginate<Item>(async () => answer(items(0, 3), { offset: 0, total: 3, has_more: true }), 9);
    expect(said.pagination).toMatchObject({ offset: 0, has_more: true });
  });

  it('has no next page when it is empty, whatever it says, and data that is not a list is no items', async () => {
    const empty = await paginate<Item>(async () => answer([], { has_more: true }));
    expect(empty.hasNextPage()).toBe(false);
    const odd = await paginate<Item>(async () => answer({ not: 'a list' }, { has_more: true }));
    expect(odd.data).toEqual([]);
  });
});

describe('walking the pages', () => {
  it('asks each next offset once, in order, and yields every item', async () => {
    const s = server(7, 3, (offset, count) => ({ limit: 3, offset, total: 7, has_more: offset + count < 7 }));
    const seen: number[] = [];
    for await (const item of paginate<Item>(s.send)) seen.push(item.n);
    expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(s.asked).toEqual([0, 3, 6]);
  });

  it('yields an item that comes back on the next page once, and items without an id every time', async () => {
    // A write between two pages shifts the offsets: the last item of page 1 is the first of page 2.
    const pages: Item[][] = [
      [{ id: 'a', n: 1 }, { id: 'b', n: 2 }, { n: 3 }],
      [{ id: 'b', n: 2 }, { n: 3 }, { id: 'c', n: 4 }],
    ];
    const send = async (offset: number) => answer(pages[offset / 3] ?? [], { limit: 3, has_more: offset === 0 });
    const seen: number[] = [];
    for await (const item of paginate<Item>(send)) seen.push(item.n);
    expect(seen).toEqual([1, 2, 3, 3, 4]);
  });

  it('stops when a page brings nothing new rather than ask for ever', async () => {
    const asked: number[] = [];
    const send = async (offset: number) => {
      asked.push(offset);
      return answer([{ id: 'same', n: 1 }], { limit: 1, has_more: true });
    };
    const seen: number[] = [];
    for await (const item of paginate<Item>(send)) seen.push(item.n);
    expect(seen).toEqual([1]);
    expect(asked).toEqual([0, 1]);
  });

  it('toArray takes at most `limit` items, asking no page beyond them, and wants a whole limit of at least 1', async () => {
    const s = server(100, 10, (offset, count) => ({ limit: 10, offset, has_more: offset + count < 100 }));
    const list = paginate<Item>(s.send);
    expect((await list.toArray({ limit: 15 })).map((i) => i.n)).toEqual(items(0, 15).map((i) => i.n));
    expect(s.asked).toEqual([0, 10]);
    expect((await paginate<Item>(s.send).toArray({ limit: 1 })).map((i) => i.n)).toEqual([0]);
    for (const limit of [0, -1, 1.5, Number.NaN, '5' as unknown as number, undefined as unknown as number]) {
      await expect(paginate<Item>(s.send).toArray({ limit }), String(limit)).rejects.toThrow(
        new MermaError(`toArray needs { limit }: a whole number of items ≥ 1 (got ${String(limit)})`),
      );
    }
    await expect(paginate<Item>(s.send).toArray(undefined as unknown as { limit: number })).rejects.toThrow(/toArray needs \{ limit \}/);
  });
});
