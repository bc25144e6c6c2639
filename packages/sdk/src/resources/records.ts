import {
  type BatchInsertedItem,
  type BatchItemError,
  BatchRecordsResponse,
  type ChainVerification,
  CreateRecordInput,
  type CreateRecordParsed,
  CreateRecordResponse,
  ListRecordsQuery,
  ListRecordsResponse,
  MAX_BATCH_RECORDS,
  VerifyRecordsResponse,
  type WasteRecord,
} from '@merma/schema';
import { APIError } from '../core/errors.js';
import type { HttpCore, RequestOptions } from '../core/http.js';
import { Page, PagePromise } from '../core/pagination.js';
import { validate } from '../core/validate.js';

export type BatchProgress = { sent: number; total: number; inserted: number; failed: number };

export type BatchOptions = RequestOptions & {
  /** Chunks in flight at once (default 1: sequential). */
  concurrency?: number;
  /** Called after each chunk. `sent` counts the items whose outcome is known. */
  onProgress?: (progress: BatchProgress) => void;
};

export type BatchSummary = {
  inserted: number;
  failed: number;
  /** One entry per refused item; `index` is the position in the array you passed. */
  errors: BatchItemError[];
  /** The stored items, with their position in the array you passed. */
  records: BatchInsertedItem[];
};

export class Records {
  constructor(private readonly core: HttpCore) {}

  /** Stores one record (POST /api/v1/records) and returns it with its `record_hash`. */
  async create(input: CreateRecordInput, options?: RequestOptions): Promise<WasteRecord> {
    const body = validate(CreateRecordInput, input);
    return (await this.core.request({ method: 'POST', path: '/records', body }, CreateRecordResponse, options)).data;
  }

  /**
   * Lists records newest first. Await it for one page, or `for await` over it for every record of
   * every page (records are never deleted, so new ones only shift later pages; repeats are skipped).
   */
  list(query: ListRecordsQuery = {}, options?: RequestOptions): PagePromise<WasteRecord> {
    const q = validate(ListRecordsQuery, query);
    const fetchAt = async (offset: number): Promise<Page<WasteRecord>> => {
      const res = await this.core.request({ method: 'GET', path: '/records', query: { ...q, offset } }, ListRecordsResponse, options);
      return new Page(res.data, res.meta.pagination, fetchAt);
    };
    return new PagePromise(fetchAt);
  }

  /** Recomputes the establishment's hash chain on the server and reports the first broken link. */
  async verify(options?: RequestOptions): Promise<ChainVerification> {
    return (await this.core.request({ method: 'GET', path: '/records/verify' }, VerifyRecordsResponse, options)).data;
  }

  /**
   * Stores any number of records: checks each item locally (invalid ones are reported without
   * being sent), sends the rest in chunks of at most 500, sequentially or `concurrency` at a time,
   * and merges the answers. Every `index` in the result refers to your array. A chunk that fails as
   * a whole after retries is reported item by item, never dropped. With `idempotencyKey`, chunk n
   * uses `${key}:${n}`, so rerunning the same import after a crash stores nothing twice.
   */
  async batch(items: readonly CreateRecordInput[], options: BatchOptions = {}): Promise<BatchSummary> {
    const { concurrency = 1, onProgress, idempotencyKey, ...request } = options;
    const summary: BatchSummary = { inserted: 0, failed: 0, errors: [], records: [] };
    const valid: { index: number; body: CreateRecordParsed }[] = [];
    items.forEach((item, index) => {
      const parsed = CreateRecordInput.safeParse(item);
      if (parsed.success) valid.push({ index, body: parsed.data });
      else {
        const details = parsed.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message }));
        summary.errors.push({
          index,
          code: 'validation_error',
          error: details.map((d) => `${d.path || '(item)'}: ${d.message}`).join('; '),
          details,
        });
      }
    });
    summary.failed = summary.errors.length;
    let sent = summary.errors.length;

    const chunks: (typeof valid)[] = [];
    for (let i = 0; i < valid.length; i += MAX_BATCH_RECORDS) chunks.push(valid.slice(i, i + MAX_BATCH_RECORDS));

    let next = 0;
    const worker = async () => {
      while (next < chunks.length) {
        const n = next++;
        const chunk = chunks[n] as typeof valid;
        const key = typeof idempotencyKey === 'string' ? `${idempotencyKey}:${n}` : idempotencyKey;
        try {
          const res = await this.core.request(
            { method: 'POST', path: '/records/batch', body: { records: chunk.map((c) => c.body) } },
            BatchRecordsResponse,
            { ...request, ...(key !== undefined ? { idempotencyKey: key } : {}) },
          );
          for (const e of res.data.errors) summary.errors.push({ ...e, index: (chunk[e.index] as (typeof valid)[number]).index });
          for (const r of res.data.records) summary.records.push({ ...r, index: (chunk[r.index] as (typeof valid)[number]).index });
          summary.inserted += res.data.inserted;
          summary.failed += res.data.failed;
        } catch (err) {
          if (request.signal?.aborted) throw err;
          const code = err instanceof APIError ? (err.code ?? `http_${err.status}`) : 'connection_error';
          const message = err instanceof Error ? err.message : String(err);
          for (const c of chunk) summary.errors.push({ index: c.index, code, error: `chunk ${n} failed: ${message}` });
          summary.failed += chunk.length;
        }
        sent += chunk.length;
        onProgress?.({ sent, total: items.length, inserted: summary.inserted, failed: summary.failed });
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, chunks.length)) }, worker));
    if (chunks.length === 0) onProgress?.({ sent, total: items.length, inserted: 0, failed: summary.failed });
    summary.errors.sort((a, b) => a.index - b.index);
    summary.records.sort((a, b) => a.index - b.index);
    return summary;
  }
}
