import type { APIResponse } from './api-promise.js';
import { MermaError, NoNextPageError } from './errors.js';

/**
 * Offset pagination, as `GET /api/v1/records` answers it (`meta.pagination`). `has_more` is
 * computed from `offset + data.length < total` when the server does not send it (the contract's
 * shape is `{ limit, offset, total }`), and from a full page when it sends neither; `total` is
 * undefined when the server sends none.
 */
export type PaginationMeta = { limit: number; offset: number; total: number | undefined; has_more: boolean };

function paginationOf(body: unknown, offset: number, count: number): PaginationMeta {
  const raw = (body as { meta?: { pagination?: Partial<Record<keyof PaginationMeta, unknown>> } } | undefined)?.meta?.pagination;
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  const total = num(raw?.total);
  const at = num(raw?.offset) ?? offset;
  const limit = num(raw?.limit);
  // has_more when sent; else from total; else a full page suggests more (a short one ends the list).
  const hasMore =
    typeof raw?.has_more === 'boolean' ? raw.has_more : total !== undefined ? at + count < total : limit !== undefined && count >= limit;
  return { limit: limit ?? count, offset: at, total, has_more: hasMore };
}

/** One page of a list. */
export class Page<T> {
  readonly data: T[];
  readonly pagination: PaginationMeta;
  /** `X-Request-Id` of the response that carried this page. */
  readonly requestId: string | undefined;
  readonly response: Response;

  constructor(
    raw: APIResponse<unknown>,
    offset: number,
    private readonly fetchAt: (offset: number) => Promise<Page<T>>,
  ) {
    this.data = Array.isArray(raw.data) ? (raw.data as T[]) : [];
    this.pagination = paginationOf(raw.body, offset, this.data.length);
    this.requestId = raw.requestId;
    this.response = raw.response;
  }

  hasNextPage(): boolean {
    return this.pagination.has_more && this.data.length > 0;
  }

  /** The next page; on the last page the promise rejects with NoNextPageError (check `hasNextPage()`). */
  getNextPage(): Promise<Page<T>> {
    if (!this.hasNextPage()) return Promise.reject(new NoNextPageError());
    return this.fetchAt(this.pagination.offset + this.data.length);
  }
}

/**
 * What list methods return: await it for the first page, or iterate it with `for await` to walk
 * every item of every page.
 */
export class PagePromise<T> implements PromiseLike<Page<T>>, AsyncIterable<T> {
  private first: Promise<Page<T>> | undefined;

  constructor(
    private readonly fetchAt: (offset: number) => Promise<Page<T>>,
    private readonly startOffset = 0,
  ) {}

  private firstPage(): Promise<Page<T>> {
    this.first ??= this.fetchAt(this.startOffset);
    return this.first;
  }

  /** The first page with its response and request id. */
  async withResponse(): Promise<{ data: Page<T>; response: Response; requestId: string | undefined }> {
    const page = await this.firstPage();
    return { data: page, response: page.response, requestId: page.requestId };
  }

  // biome-ignore lint/suspicious/noThenProperty: a PagePromise is awaitable on purpose (await list() → first page)
  then<R1 = Page<T>, R2 = never>(
    onfulfilled?: ((value: Page<T>) => R1 | PromiseLike<R1>) | null,
    // biome-ignore lint/suspicious/noExplicitAny: the same signature as Promise.prototype.then
    onrejected?: ((reason: any) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.firstPage().then(onfulfilled, onrejected);
  }

  /**
   * Every item of every page, walked as `for await` does, up to `limit` items: pages are fetched
   * only while fewer than `limit` items are collected (as stripe-node's `autoPagingToArray`). The
   * limit is required, so a list that grows without end cannot fill the memory; it must be a whole
   * number ≥ 1 (else MermaError, before anything is sent).
   */
  async toArray(options: { limit: number }): Promise<T[]> {
    const limit = options?.limit;
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1) {
      throw new MermaError(`toArray needs { limit }: a whole number of items ≥ 1 (got ${String(limit)})`);
    }
    const items: T[] = [];
    for await (const item of this) {
      items.push(item);
      if (items.length >= limit) break;
    }
    return items;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    const seen = new Set<unknown>(); // offsets can shift under concurrent writes: never yield twice
    let page = await this.firstPage();
    for (;;) {
      let fresh = 0;
      for (const item of page.data) {
        const id = (item as { id?: unknown } | null)?.id;
        if (id !== undefined) {
          if (seen.has(id)) continue;
          seen.add(id);
        }
        fresh++;
        yield item;
      }
      // A page with nothing new means the server is not moving forward: stop rather than loop.
      if (fresh === 0 || !page.hasNextPage()) return;
      page = await page.getNextPage();
    }
  }
}

/** A list method's PagePromise: `send(offset)` performs one page's request; the first is at `start`. */
export function paginate<T>(send: (offset: number) => Promise<APIResponse<unknown>>, start = 0): PagePromise<T> {
  const fetchAt = async (offset: number): Promise<Page<T>> => new Page<T>(await send(offset), offset, fetchAt);
  return new PagePromise<T>(fetchAt, start);
}
