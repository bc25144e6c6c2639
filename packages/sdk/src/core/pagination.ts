/** Offset pagination, as `GET /api/v1/records` and `GET /api/v1/sessions` answer it. */
export type PaginationMeta = { limit: number; offset: number; total: number; has_more: boolean };

export class Page<T> {
  constructor(
    readonly data: T[],
    readonly pagination: PaginationMeta,
    private readonly fetchAt: (offset: number) => Promise<Page<T>>,
  ) {}

  hasNextPage(): boolean {
    return this.pagination.has_more && this.data.length > 0;
  }

  getNextPage(): Promise<Page<T>> {
    if (!this.hasNextPage()) return Promise.reject(new Error('No next page: check hasNextPage() first'));
    return this.fetchAt(this.pagination.offset + this.data.length);
  }
}

/**
 * What list methods return: await it for the first page, or iterate it with `for await` to walk
 * every item of every page.
 */
export class PagePromise<T extends { id: string }> implements PromiseLike<Page<T>>, AsyncIterable<T> {
  private first: Promise<Page<T>> | undefined;

  constructor(private readonly fetchAt: (offset: number) => Promise<Page<T>>) {}

  private firstPage(): Promise<Page<T>> {
    this.first ??= this.fetchAt(0);
    return this.first;
  }

  // biome-ignore lint/suspicious/noThenProperty: a PagePromise is awaitable on purpose (await list() → first page)
  then<R1 = Page<T>, R2 = never>(
    onfulfilled?: ((value: Page<T>) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.firstPage().then(onfulfilled, onrejected);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    const seen = new Set<string>(); // offsets can shift under concurrent writes: never yield twice
    let page = await this.firstPage();
    for (;;) {
      for (const item of page.data) {
        if (seen.has(item.id)) continue;
        seen.add(item.id);
        yield item;
      }
      if (!page.hasNextPage()) return;
      page = await page.getNextPage();
    }
  }
}
