import { MAX_BATCH_RECORDS, MAX_IDEMPOTENCY_KEY_LENGTH } from '@merma/schema';
import type { APIPromise } from '../core/api-promise.js';
import { APIConnectionError, APIError, MermaError } from '../core/errors.js';
import { countOption, type HttpCore, invalidIdempotencyKey, type RequestOptions, type SendTrace, sleep } from '../core/http.js';
import { type PagePromise, paginate } from '../core/pagination.js';
import type {
  BatchInsertedItem,
  BatchItemError,
  ChainCheckpoint,
  ChainVerification,
  ChainVerificationRun,
  CreateRecordInput,
  ListRecordsQuery,
  WasteRecord,
} from '../generated/api-types.js';
import { segment } from './path.js';

export type BatchProgress = { sent: number; total: number; inserted: number; replayed: number; failed: number };

export type BatchOptions = RequestOptions & {
  /** Chunks in flight at once (default 1: sequential). */
  concurrency?: number | undefined;
  /** Called after each chunk. `sent` counts the items whose outcome is known. */
  onProgress?: ((progress: BatchProgress) => void) | undefined;
};

/** A stored item of a batch, with its position in the array you passed. */
export type BatchRecord = BatchInsertedItem & {
  /**
   * true when it was stored by an earlier call with the same idempotency key (not stored again);
   * false when this call stored it, also when a retry of this call was answered with the replay of
   * its own first attempt (whose answer was lost, or a 5xx).
   */
  replayed: boolean;
};

export type BatchSummary = {
  /** Items stored by this call (a chunk whose retry replayed this call's own lost attempt included). */
  inserted: number;
  /**
   * Items already stored by an earlier call with the same `idempotencyKey` (a rerun after a
   * crash): the API replayed its first answer and stored nothing twice. Not counted in `inserted`.
   */
  replayed: number;
  /** Items refused, or whose chunk failed as a whole; each has an entry in `errors`. */
  failed: number;
  /** One entry per failed item; `index` is the position in the array you passed. */
  errors: BatchItemError[];
  /** The stored items (new and replayed), when the API lists them. */
  records: BatchRecord[];
  /** `X-Request-Id` of each chunk's answer, in chunk order (undefined for a chunk with no answer). */
  requestIds: (string | undefined)[];
};

type BatchAnswer = { inserted?: unknown; failed?: unknown; errors?: unknown; records?: unknown };

const count = (v: unknown, fallback: number) => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);
const list = <T>(v: unknown): T[] => (Array.isArray(v) ? (v as T[]) : []);

export class Records {
  constructor(private readonly core: HttpCore) {}

  /** Stores one record (POST /api/v1/records) and returns it with its `record_hash`. */
  create(input: CreateRecordInput, options?: RequestOptions): APIPromise<WasteRecord> {
    return this.core.request({ method: 'POST', path: '/records', body: input }, options);
  }

  /**
   * Lists records newest first. Await it for one page, or `for await` over it for every record of
   * every page (records are never deleted, so new ones only shift later pages; repeats are skipped).
   */
  list(query: ListRecordsQuery = {}, options?: RequestOptions): PagePromise<WasteRecord> {
    return paginate(
      (offset) => this.core.send({ method: 'GET', path: '/records', query: { ...query, offset } }, options),
      query.offset ?? 0,
    );
  }

  /**
   * Recomputes the establishment's hash chain on the server and reports the first broken link:
   * by default the records after the last signed checkpoint (and that the checkpoint's record
   * still has its hash); `{ full: true }` every record. An intact chain comes back with a signed
   * `checkpoint` of its head (check it with `verifyCheckpoint`).
   */
  verify(query: { full?: boolean | undefined } = {}, options?: RequestOptions): APIPromise<ChainVerification> {
    return this.core.request({ method: 'GET', path: '/records/verify', query }, options);
  }

  /**
   * Queues a full verification for the server's worker: the same check as `verify({ full: true })`,
   * for chains too long to re-hash within one request (several million records). Returns the run —
   * while one of this chain is queued or running, that one. Follow it with `getVerification`, or
   * use `verifyInBackground`, which does both.
   */
  startVerification(options?: RequestOptions): APIPromise<ChainVerificationRun> {
    return this.core.request({ method: 'POST', path: '/records/verifications', body: {} }, options);
  }

  /** A background verification: its `progress`, and its `result` once `status` is `completed`. */
  getVerification(id: string, options?: RequestOptions): APIPromise<ChainVerificationRun> {
    return this.core.request({ method: 'GET', path: `/records/verifications/${segment(id)}` }, options);
  }

  /**
   * Starts a background verification and waits for it, polling every `pollIntervalMs` (default
   * 2 s) and calling `onProgress` with each state. Resolves with the finished run: `completed`
   * (its `result` says whether the chain is intact) or `failed` (`error`). `signal` stops waiting
   * (the run goes on on the server).
   */
  async verifyInBackground(
    options: RequestOptions & {
      pollIntervalMs?: number | undefined;
      onProgress?: ((run: ChainVerificationRun) => void) | undefined;
    } = {},
  ): Promise<ChainVerificationRun> {
    const { pollIntervalMs = 2_000, onProgress, ...requestOptions } = options;
    let run = await this.startVerification(requestOptions);
    onProgress?.(run);
    while (run.status === 'queued' || run.status === 'running') {
      await sleep(pollIntervalMs, requestOptions.signal);
      run = await this.getVerification(run.id, requestOptions);
      onProgress?.(run);
    }
    return run;
  }

  /** The chain's signed checkpoints, newest first (`limit`: 20 by default, at most 100). */
  checkpoints(query: { limit?: number | undefined } = {}, options?: RequestOptions): APIPromise<ChainCheckpoint[]> {
    return this.core.request({ method: 'GET', path: '/records/checkpoints', query }, options);
  }

  /**
   * Stores any number of records: sends them in chunks of at most 500, sequentially or
   * `concurrency` at a time, and merges the answers. Every `index` in the result refers to your
   * array. The API checks each item and reports the invalid ones by index; the others are stored.
   *
   * With `idempotencyKey`, chunk n is sent with `${key}:${n}`, so rerunning the same import after
   * a crash stores nothing twice; the chunks stored by the first run come back as `replayed`. The
   * API accepts keys of at most 255 characters, suffix included: the key may have 255 minus the
   * length of `:${last chunk}` (253 for up to 5,000 items); a longer one is refused before
   * anything is sent.
   * A chunk that fails as a whole after its retries (connection lost, 5xx, 429 beyond
   * `maxRetryAfter`) is reported item by item, never dropped: `connection_error` only when the
   * connection could not even be made (nothing was sent), `unknown_outcome` when the request may
   * have been carried out (the connection lost after it was sent, a timeout, a 5xx); then rerun with
   * the same `idempotencyKey` to store exactly once.
   * An abort (`signal`) stops the batch and throws APIUserAbortError: chunks already answered
   * are stored, so give an `idempotencyKey` to make the rerun safe.
   */
  async batch(items: readonly CreateRecordInput[], options: BatchOptions = {}): Promise<BatchSummary> {
    const { onProgress, idempotencyKey, ...request } = options;
    const concurrency = Math.max(1, countOption(options.concurrency, 1));
    const summary: BatchSummary = { inserted: 0, replayed: 0, failed: 0, errors: [], records: [], requestIds: [] };
    const chunks: number[] = [];
    for (let start = 0; start < items.length; start += MAX_BATCH_RECORDS) chunks.push(start);
    if (typeof idempotencyKey === 'string') {
      // The longest key sent is the last chunk's: check it here, before any chunk is sent.
      const suffix = `:${Math.max(0, chunks.length - 1)}`;
      const problem = invalidIdempotencyKey(idempotencyKey, MAX_IDEMPOTENCY_KEY_LENGTH - suffix.length);
      if (problem) {
        throw new MermaError(
          `Invalid idempotency key for records.batch: ${problem} here, because chunk n is sent as \`<key>:<n>\` ` +
            `(up to "${suffix}" for ${items.length} items) and the API's limit is ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`,
        );
      }
    }
    let sent = 0;
    const report = () =>
      onProgress?.({ sent, total: items.length, inserted: summary.inserted, replayed: summary.replayed, failed: summary.failed });

    let next = 0;
    const worker = async () => {
      while (next < chunks.length) {
        const n = next++;
        const start = chunks[n] as number;
        const chunk = items.slice(start, start + MAX_BATCH_RECORDS);
        const key = typeof idempotencyKey === 'string' ? `${idempotencyKey}:${n}` : idempotencyKey;
        const trace: SendTrace = { unsureAttempts: 0 };
        try {
          const res = await this.core.send(
            { method: 'POST', path: '/records/batch', body: { records: chunk } },
            { ...request, ...(key !== undefined ? { idempotencyKey: key } : {}) },
            trace,
          );
          summary.requestIds[n] = res.requestId;
          if (typeof res.data !== 'object' || res.data === null || Array.isArray(res.data)) {
            // A 2xx that is not the API's answer (a proxy's page?): nothing says what was stored.
            const error = `chunk ${n}: the ${res.response.status} answer was not the API's, so what was stored is unknown; rerun with the same idempotencyKey to store exactly once`;
            for (let i = 0; i < chunk.length; i++) summary.errors.push({ index: start + i, code: 'unknown_outcome', error });
            summary.failed += chunk.length;
            sent += chunk.length;
            report();
            continue;
          }
          const answer = res.data as BatchAnswer;
          const errors = list<BatchItemError>(answer.errors);
          const stored = count(answer.inserted, chunk.length - errors.length);
          // A replay answered to a retry of this call, after an attempt that may have been stored
          // without our hearing of it (no answer, a 5xx), is that attempt's answer: stored by this
          // call. Only a replay with no such attempt before it is an earlier call's work. (When both
          // an earlier run and this call's lost attempt could be the writer, this call is counted:
          // the key makes them the same import, and the records are stored once either way.)
          const replayed = res.response.headers.get('idempotent-replayed') === 'true' && trace.unsureAttempts === 0;
          for (const e of errors) summary.errors.push({ ...e, index: start + e.index });
          for (const r of list<BatchInsertedItem>(answer.records)) summary.records.push({ ...r, index: start + r.index, replayed });
          if (replayed) summary.replayed += stored;
          else summary.inserted += stored;
          summary.failed += count(answer.failed, errors.length);
        } catch (err) {
          // A cancelled call, or a mistake of the caller (an invalid key), stops the whole batch.
          if (!(err instanceof APIError) && !(err instanceof APIConnectionError)) throw err;
          summary.requestIds[n] = err instanceof APIError ? err.requestId : undefined;
          // Possibly stored: an attempt that may have been carried out without our hearing of it (a
          // connection lost after the body was sent, a timeout, a 5xx), now or on an earlier try.
          const unknown =
            trace.unsureAttempts > 0 ||
            (err instanceof APIError ? err.status >= 500 || err.status === 408 : trace.lastAttemptUnsure !== false);
          // The code says what to do: `unknown_outcome` (rerun with the same key) whenever an attempt
          // may have stored the chunk, except a last answer that names the failure itself (a 5xx
          // with nothing unsure before it keeps its code, with the hint below).
          const code =
            err instanceof APIError && trace.unsureAttempts === 0
              ? (err.code ?? `http_${err.status}`)
              : unknown
                ? 'unknown_outcome'
                : 'connection_error';
          const message = err instanceof Error ? err.message : String(err);
          const hint = unknown ? ' (outcome unknown: rerun with the same idempotencyKey to store exactly once)' : '';
          for (let i = 0; i < chunk.length; i++)
            summary.errors.push({ index: start + i, code, error: `chunk ${n} failed: ${message}${hint}` });
          summary.failed += chunk.length;
        }
        sent += chunk.length;
        report();
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(1, chunks.length)) }, worker));
    if (chunks.length === 0) report();
    summary.errors.sort((a, b) => a.index - b.index);
    summary.records.sort((a, b) => a.index - b.index);
    return summary;
  }
}
