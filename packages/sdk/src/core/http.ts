import { APIPromise, type APIResponse } from './api-promise.js';
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  type ErrorBody,
  MermaError,
  RateLimitError,
  retryAfterMs,
} from './errors.js';
import type { ClientLogger } from './log.js';
import { VERSION } from './version.js';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/**
 * Per-call options, accepted as the last argument of every resource method. Each may be given as
 * `undefined`, which means "the client's default" (so they type-check under `exactOptionalPropertyTypes`).
 */
export type RequestOptions = {
  /** Cancels the request and any wait between retries (the call rejects with APIUserAbortError). */
  signal?: AbortSignal | undefined;
  /** Milliseconds before one attempt gives up (default: the client's `timeout`). */
  timeout?: number | undefined;
  /** Retries after the first attempt (default: the client's `maxRetries`). */
  maxRetries?: number | undefined;
  /**
   * Longest wait (ms) accepted when rate limited, for this call (default: the client's
   * `maxRetryAfter`); `Infinity` waits whatever the server asks.
   */
  maxRetryAfter?: number | undefined;
  /**
   * For POSTs: the key that makes retries safe, generated once per call when not given. `false`
   * sends none, and then a failed POST is not retried.
   */
  idempotencyKey?: string | false | undefined;
  /** Extra headers for this call. */
  headers?: Record<string, string> | undefined;
};

export type CoreOptions = {
  apiKey: string;
  baseUrl: string;
  timeout: number;
  maxRetries: number;
  maxRetryAfter: number;
  fetch?: typeof fetch | undefined;
  defaultHeaders?: Record<string, string> | undefined;
  log: ClientLogger;
};

export type Call = {
  method: HttpMethod;
  path: string;
  query?: Record<string, string | number | boolean | undefined | null> | undefined;
  body?: unknown;
};

const RETRYABLE_STATUS = new Set([408, 409, 429]);

/**
 * What `send` tells its caller about the attempts before the answer: `unsureAttempts` counts the
 * attempts that may have been carried out without our hearing of it (no answer, a timeout, a 408
 * or a 5xx). A 409 or 429 is a refusal: that attempt changed nothing.
 */
export type SendTrace = { unsureAttempts: number };
const BACKOFF_BASE_MS = 500;
const BACKOFF_MAX_MS = 8_000;

/** Waits `ms`, or rejects with APIUserAbortError at once when `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new APIUserAbortError(undefined, { cause: signal.reason }));
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.min(ms, MAX_TIMER_MS),
    );
    const onAbort = () => {
      clearTimeout(timer);
      reject(new APIUserAbortError(undefined, { cause: signal?.reason }));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Exponential backoff with jitter: 0.5 s, 1 s, 2 s … capped at 8 s, each reduced by up to 25 %. */
export function backoffMs(retry: number): number {
  const base = Math.min(BACKOFF_BASE_MS * 2 ** retry, BACKOFF_MAX_MS);
  return base * (1 - Math.random() * 0.25);
}

/** Parses a body as JSON when it is JSON; `undefined` for an empty body; the text otherwise. */
function parseBody(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Longest delay setTimeout keeps (a larger one fires at once). */
const MAX_TIMER_MS = 2_147_483_647;

/** A count option: a whole number ≥ 0, else `fallback` (NaN or a negative number is a mistake, not "forever"). */
export function countOption(value: number | undefined, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.floor(value) : fallback;
}

/**
 * A cap on waits in ms: a number ≥ 0, `Infinity` included (no cap), else `fallback` (NaN or a
 * negative number is a mistake).
 */
export function waitCapOption(value: number | undefined, fallback: number): number {
  return typeof value === 'number' && value >= 0 ? value : fallback;
}

/** A duration option in ms: > 0, at most what a timer can wait (Infinity means that long), else `fallback`. */
export function durationOption(value: number | undefined, fallback: number): number {
  return typeof value === 'number' && value > 0 ? Math.min(value, MAX_TIMER_MS) : fallback;
}
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** A random UUID v4, also outside secure contexts (an http:// page has no crypto.randomUUID). */
export function uuid4(): string {
  if (typeof globalThis.crypto.randomUUID === 'function') return globalThis.crypto.randomUUID();
  const b = globalThis.crypto.getRandomValues(new Uint8Array(16));
  b[6] = ((b[6] as number) & 0x0f) | 0x40;
  b[8] = ((b[8] as number) & 0x3f) | 0x80;
  const hex = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Thrown inside `attempt` when an attempt's own timeout fires (not the caller's signal). */
class AttemptTimeout extends Error {}

/**
 * The one request function under every resource, on the runtime's `fetch` and nothing else.
 * (It used ky before 1.0: ky is ESM-only, which broke the CommonJS build, and its module-level
 * feature detection cannot be tree-shaken out of a bundle that only verifies webhooks; retries,
 * timeouts and JSON are the few lines below.) Retries are explicit:
 * - retried: 408, 409, 429, 5xx, connection errors and timeouts, up to `maxRetries`; a server
 *   `x-should-retry` header overrides the status rule (the API sends `false` when retrying cannot help);
 * - a POST is retried only with an Idempotency-Key, generated once per call and sent on every
 *   attempt, so a retry can never store a record twice;
 * - 429 (and 503) wait what the server asks (Retry-After in seconds or as a date, else the body's
 *   `resetAt`, else X-RateLimit-Reset); a wait beyond `maxRetryAfter` throws RateLimitError at once;
 * - otherwise exponential backoff with jitter. An AbortSignal cancels the request and any wait.
 *
 * A 2xx is never turned into an error: the body is returned as the server sent it, without
 * checking its shape (fields added later pass through; a missing optional field is tolerated), so
 * a write the server acknowledged is always reported as stored. The types say what the contract
 * promises; they are not enforced at run time.
 */
export class HttpCore {
  private readonly prefix: string;

  constructor(readonly options: CoreOptions) {
    this.prefix = `${options.baseUrl.replace(/\/+$/, '')}/api/v1`;
  }

  /**
   * One HTTP exchange, body included, under the attempt's timeout and the caller's signal: the
   * response and its text, or a rejection (AttemptTimeout, a network error, the caller's abort).
   */
  private async attempt(
    url: string,
    init: RequestInit,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<{ response: Response; text: string }> {
    const controller = new AbortController();
    let timedOut = false;
    let expire: (reason: unknown) => void = () => {};
    // Raced against the exchange, so a custom fetch that ignores its signal still stops in time.
    const expired = new Promise<never>((_, reject) => {
      expire = reject;
    });
    const onAbort = () => {
      controller.abort(signal?.reason);
      expire(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
      expire(new AttemptTimeout(`Request timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    const exchange = (async () => {
      const response = await (this.options.fetch ?? globalThis.fetch)(url, { ...init, signal: controller.signal });
      // The caller gets a copy with its body unread (`asResponse()`, `withResponse().response`).
      const copy = response.clone();
      return { response: copy, text: await response.text() };
    })();
    try {
      return await Promise.race([exchange, expired]);
    } catch (err) {
      throw timedOut && !(err instanceof AttemptTimeout)
        ? new AttemptTimeout(`Request timed out after ${timeoutMs} ms`, { cause: err })
        : err;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      exchange.catch(() => {}); // the loser of the race must not surface as an unhandled rejection
    }
  }

  /** Sends `call`; the promise's value is the envelope's `data` (see APIPromise for the rest). */
  request<T>(call: Call, opts: RequestOptions = {}): APIPromise<T> {
    return new APIPromise<T>(this.send(call, opts));
  }

  /** Sends `call` with retries and resolves with the parsed 2xx body and its response. */
  async send(call: Call, opts: RequestOptions = {}, trace?: SendTrace): Promise<APIResponse<unknown>> {
    const { log } = this.options;
    const maxRetries = countOption(opts.maxRetries, this.options.maxRetries);
    const timeout = durationOption(opts.timeout, this.options.timeout);
    const maxRetryAfter = waitCapOption(opts.maxRetryAfter, this.options.maxRetryAfter);
    const headers = this.headersFor(call, opts);
    const idempotencyKey = headers.get('idempotency-key') ?? undefined;
    // Only a POST carrying an Idempotency-Key may be sent twice: the API stores it once.
    const safe = call.method !== 'POST' || idempotencyKey !== undefined;
    const searchParams = new URLSearchParams();
    for (const [k, v] of Object.entries(call.query ?? {})) if (v !== undefined && v !== null) searchParams.set(k, String(v));
    const query = searchParams.toString();
    const target = `${call.method} ${call.path}${query ? `?${query}` : ''}`;
    const url = `${this.prefix}/${call.path.replace(/^\//, '')}${query ? `?${query}` : ''}`;
    const init: RequestInit = { method: call.method, headers, ...(call.body !== undefined ? { body: JSON.stringify(call.body) } : {}) };

    for (let attempt = 0; ; attempt++) {
      if (opts.signal?.aborted) throw new APIUserAbortError(undefined, { cause: opts.signal.reason });
      const started = Date.now();
      log.debug(`→ ${target}${attempt ? ` (retry ${attempt})` : ''}`);
      let exchange: { response: Response; text: string };
      try {
        exchange = await this.attempt(url, init, timeout, opts.signal);
      } catch (err) {
        if (opts.signal?.aborted) throw new APIUserAbortError(undefined, { cause: opts.signal.reason });
        const failure =
          err instanceof AttemptTimeout
            ? new APIConnectionTimeoutError(err.message, { cause: err })
            : new APIConnectionError(`Connection error: ${(err as Error).message}`, { cause: err });
        if (!safe || attempt >= maxRetries) {
          log.error(`✗ ${target}: ${failure.message}${safe ? '' : ' (a POST without an Idempotency-Key is not retried)'}`);
          throw failure;
        }
        if (trace) trace.unsureAttempts++;
        const wait = backoffMs(attempt);
        log.info(`${target}: ${failure.message}; retrying in ${Math.round(wait)} ms`);
        await sleep(wait, opts.signal);
        continue;
      }

      const { response } = exchange;
      const requestId = response.headers.get('x-request-id') ?? undefined;
      const body = parseBody(exchange.text);
      log.debug(`← ${response.status} ${target} in ${Date.now() - started} ms (request ${requestId ?? 'without id'})`);

      if (response.ok) {
        const isEnvelope = typeof body === 'object' && body !== null && 'data' in body;
        if (!isEnvelope && response.status !== 204) {
          log.warn(`${target} answered ${response.status} without the { data } envelope; returning the body as it came`);
        }
        return { data: isEnvelope ? (body as { data: unknown }).data : body, body, response, requestId };
      }

      const errorBody = typeof body === 'object' && body !== null ? (body as ErrorBody) : undefined;
      const error = APIError.from(response.status, errorBody, response.headers);
      const shouldRetryHeader = response.headers.get('x-should-retry');
      const retryable =
        shouldRetryHeader === 'true' ||
        (shouldRetryHeader !== 'false' && (RETRYABLE_STATUS.has(response.status) || response.status >= 500));
      if (!retryable || !safe || attempt >= maxRetries) {
        log.warn(`✗ ${target}: ${response.status} ${error.message} (request ${requestId ?? 'without id'})`);
        throw error;
      }

      const asked = response.status === 429 || response.status === 503 ? retryAfterMs(response.headers, errorBody, Date.now()) : undefined;
      if (asked !== undefined && asked > maxRetryAfter) {
        log.warn(
          `✗ ${target}: ${response.status} ${error.message} (request ${requestId ?? 'without id'}); ` +
            `the server asks to wait ${Math.ceil(asked / 1000)} s, over maxRetryAfter (${maxRetryAfter} ms)`,
        );
        throw error instanceof RateLimitError
          ? error
          : new RateLimitError(response.status, errorBody, response.headers, `Server asked to wait ${Math.ceil(asked / 1000)} s`);
      }
      if (trace && (response.status === 408 || response.status >= 500)) trace.unsureAttempts++;
      const wait = asked ?? backoffMs(attempt);
      log.info(`${target}: ${response.status}; retrying in ${Math.round(wait)} ms (request ${requestId ?? 'without id'})`);
      await sleep(wait, opts.signal);
    }
  }

  /**
   * The headers of a call, names compared without regard to case: the client's defaults, then the
   * call's own, then what the SDK decides. `Authorization` is always the client's key. A POST's
   * Idempotency-Key is `idempotencyKey` when given, else an `Idempotency-Key` header the caller
   * set, else a new UUID (none with `idempotencyKey: false`). A key must be 1 to 255 visible ASCII
   * characters, as the API requires; another is refused here, before anything is sent.
   */
  private headersFor(call: Call, opts: RequestOptions): Headers {
    let headers: Headers;
    try {
      headers = new Headers(this.options.defaultHeaders);
      new Headers(opts.headers).forEach((value, name) => {
        headers.set(name, value);
      });
    } catch (err) {
      throw new MermaError(`Invalid header: ${(err as Error).message}`, { cause: err });
    }
    if (!headers.has('accept')) headers.set('accept', 'application/json');
    if (call.body !== undefined) headers.set('content-type', 'application/json');
    headers.set('x-merma-sdk', `js/${VERSION}`);
    headers.set('authorization', `Bearer ${this.options.apiKey}`);
    if (call.method !== 'POST' || opts.idempotencyKey === false) {
      headers.delete('idempotency-key');
      return headers;
    }
    const key = opts.idempotencyKey || headers.get('idempotency-key') || uuid4();
    if (!IDEMPOTENCY_KEY.test(key)) {
      throw new MermaError(`Invalid idempotency key ${JSON.stringify(key)}: use 1 to 255 visible ASCII characters (no spaces)`);
    }
    headers.set('idempotency-key', key);
    return headers;
  }
}
