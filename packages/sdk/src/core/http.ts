import { APIPromise, type APIResponse } from './api-promise.js';
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  type ErrorBody,
  RateLimitError,
  retryAfterMs,
} from './errors.js';
import type { ClientLogger } from './log.js';
import { VERSION } from './version.js';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** Per-call options, accepted as the last argument of every resource method. */
export type RequestOptions = {
  /** Cancels the request and any wait between retries (the call rejects with APIUserAbortError). */
  signal?: AbortSignal;
  /** Milliseconds before one attempt gives up (default: the client's `timeout`). */
  timeout?: number;
  /** Retries after the first attempt (default: the client's `maxRetries`). */
  maxRetries?: number;
  /**
   * For POSTs: the key that makes retries safe, generated once per call when not given. `false`
   * sends none, and then a failed POST is not retried.
   */
  idempotencyKey?: string | false;
  /** Extra headers for this call. */
  headers?: Record<string, string>;
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
const BACKOFF_BASE_MS = 500;
const BACKOFF_MAX_MS = 8_000;

/** Waits `ms`, or rejects with APIUserAbortError at once when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new APIUserAbortError(undefined, { cause: signal.reason }));
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
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

/** Reads a body as JSON when it is JSON; `undefined` for an empty body; the text otherwise. */
async function readBody(response: Response): Promise<unknown> {
  const text = await response.text().catch(() => '');
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
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

  /** One HTTP exchange: the response, or a rejection (AttemptTimeout, a network error, the caller's abort). */
  private async attempt(url: string, init: RequestInit, timeoutMs: number, signal: AbortSignal | undefined): Promise<Response> {
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    try {
      return await (this.options.fetch ?? globalThis.fetch)(url, { ...init, signal: controller.signal });
    } catch (err) {
      throw timedOut ? new AttemptTimeout(`Request timed out after ${timeoutMs} ms`, { cause: err }) : err;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Sends `call`; the promise's value is the envelope's `data` (see APIPromise for the rest). */
  request<T>(call: Call, opts: RequestOptions = {}): APIPromise<T> {
    return new APIPromise<T>(this.send(call, opts));
  }

  /** Sends `call` with retries and resolves with the parsed 2xx body and its response. */
  async send(call: Call, opts: RequestOptions = {}): Promise<APIResponse<unknown>> {
    const { log } = this.options;
    const maxRetries = opts.maxRetries ?? this.options.maxRetries;
    const idempotencyKey =
      call.method === 'POST' && opts.idempotencyKey !== false ? (opts.idempotencyKey ?? globalThis.crypto.randomUUID()) : undefined;
    const searchParams = new URLSearchParams();
    for (const [k, v] of Object.entries(call.query ?? {})) if (v !== undefined && v !== null) searchParams.set(k, String(v));
    const target = `${call.method} ${call.path}${searchParams.size ? `?${searchParams}` : ''}`;
    const url = `${this.prefix}/${call.path.replace(/^\//, '')}${searchParams.size ? `?${searchParams}` : ''}`;
    const init: RequestInit = {
      method: call.method,
      headers: {
        accept: 'application/json',
        ...(call.body !== undefined ? { 'content-type': 'application/json' } : {}),
        'x-merma-sdk': `js/${VERSION}`,
        ...this.options.defaultHeaders,
        ...opts.headers,
        ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
        authorization: `Bearer ${this.options.apiKey}`,
      },
      ...(call.body !== undefined ? { body: JSON.stringify(call.body) } : {}),
    };

    for (let attempt = 0; ; attempt++) {
      if (opts.signal?.aborted) throw new APIUserAbortError(undefined, { cause: opts.signal.reason });
      const started = Date.now();
      log.debug(`→ ${target}${attempt ? ` (retry ${attempt})` : ''}`);
      let response: Response;
      try {
        response = await this.attempt(url, init, opts.timeout ?? this.options.timeout, opts.signal);
      } catch (err) {
        if (opts.signal?.aborted) throw new APIUserAbortError(undefined, { cause: err });
        const failure =
          err instanceof AttemptTimeout
            ? new APIConnectionTimeoutError(err.message, { cause: err })
            : new APIConnectionError(`Connection error: ${(err as Error).message}`, { cause: err });
        if (attempt >= maxRetries) {
          log.error(`✗ ${target}: ${failure.message}`);
          throw failure;
        }
        const wait = backoffMs(attempt);
        log.info(`${target}: ${failure.message}; retrying in ${Math.round(wait)} ms`);
        await sleep(wait, opts.signal);
        continue;
      }

      const requestId = response.headers.get('x-request-id') ?? undefined;
      const body = await readBody(response);
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
      const safe = call.method !== 'POST' || idempotencyKey !== undefined;
      if (!retryable || !safe || attempt >= maxRetries) {
        log.warn(`✗ ${target}: ${response.status} ${error.message} (request ${requestId ?? 'without id'})`);
        throw error;
      }

      const asked = response.status === 429 || response.status === 503 ? retryAfterMs(response.headers, errorBody, Date.now()) : undefined;
      if (asked !== undefined && asked > this.options.maxRetryAfter) {
        throw error instanceof RateLimitError
          ? error
          : new RateLimitError(response.status, errorBody, response.headers, `Server asked to wait ${Math.ceil(asked / 1000)} s`);
      }
      const wait = asked ?? backoffMs(attempt);
      log.info(`${target}: ${response.status}; retrying in ${Math.round(wait)} ms (request ${requestId ?? 'without id'})`);
      await sleep(wait, opts.signal);
    }
  }
}
