import ky, { type KyInstance, TimeoutError } from 'ky';
import type { z } from 'zod';
import { APIConnectionError, APIConnectionTimeoutError, APIError, type ErrorBody, RateLimitError, retryAfterMs } from './errors.js';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** Per-call options, accepted as the last argument of every resource method. */
export type RequestOptions = {
  /** Cancels the request and any wait between retries. */
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
};

export type CoreOptions = {
  apiKey: string;
  baseUrl: string;
  timeout: number;
  maxRetries: number;
  maxRetryAfter: number;
  fetch?: typeof fetch | undefined;
  defaultHeaders?: Record<string, string> | undefined;
};

export type Call = {
  method: HttpMethod;
  path: string;
  query?: Record<string, string | number | boolean | undefined | null> | undefined;
  body?: unknown;
};

export const SDK_VERSION = '0.1.0';
const RETRYABLE_STATUS = new Set([408, 409, 429]);
const BACKOFF_BASE_MS = 500;
const BACKOFF_MAX_MS = 8_000;

/** Waits `ms`, or rejects at once when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Exponential backoff with jitter: 0.5 s, 1 s, 2 s … capped at 8 s, each reduced by up to 25 %. */
export function backoffMs(retry: number): number {
  const base = Math.min(BACKOFF_BASE_MS * 2 ** retry, BACKOFF_MAX_MS);
  return base * (1 - Math.random() * 0.25);
}

function randomKey(): string {
  return globalThis.crypto.randomUUID();
}

/**
 * The one request function under every resource. ky sends the request (timeouts, JSON, custom
 * fetch); retries are done here, explicitly:
 * - retried: 408, 409, 429, 5xx, connection errors and timeouts, up to `maxRetries`; a server
 *   `x-should-retry` header overrides the status rule (the API sends `false` when retrying cannot help);
 * - a POST is retried only with an Idempotency-Key, generated once per call and sent on every
 *   attempt, so a retry can never store a record twice;
 * - 429 (and 503) wait what the server asks (Retry-After in seconds or as a date, else the body's
 *   `resetAt`, else X-RateLimit-Reset); a wait beyond `maxRetryAfter` throws RateLimitError at once;
 * - otherwise exponential backoff with jitter. An AbortSignal cancels the request and any wait.
 */
export class HttpCore {
  private readonly ky: KyInstance;

  constructor(readonly options: CoreOptions) {
    this.ky = ky.create({
      prefixUrl: `${options.baseUrl.replace(/\/+$/, '')}/api/v1`,
      retry: 0,
      throwHttpErrors: false,
      timeout: options.timeout,
      ...(options.fetch ? { fetch: options.fetch } : {}),
      headers: {
        accept: 'application/json',
        authorization: `Bearer ${options.apiKey}`,
        'x-merma-sdk': `js/${SDK_VERSION}`,
        ...options.defaultHeaders,
      },
    });
  }

  /** Sends `call` and returns the parsed envelope (validated by `schema`) and the response. */
  async request<S extends z.ZodType>(call: Call, schema: S, opts: RequestOptions = {}): Promise<z.output<S>> {
    const maxRetries = opts.maxRetries ?? this.options.maxRetries;
    const idempotencyKey = call.method === 'POST' && opts.idempotencyKey !== false ? (opts.idempotencyKey ?? randomKey()) : undefined;
    const searchParams = new URLSearchParams();
    for (const [k, v] of Object.entries(call.query ?? {})) if (v !== undefined && v !== null) searchParams.set(k, String(v));

    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await this.ky(call.path.replace(/^\//, ''), {
          method: call.method,
          ...(searchParams.size ? { searchParams } : {}),
          ...(call.body !== undefined ? { json: call.body } : {}),
          ...(idempotencyKey ? { headers: { 'idempotency-key': idempotencyKey } } : {}),
          ...(opts.timeout !== undefined ? { timeout: opts.timeout } : {}),
          ...(opts.signal ? { signal: opts.signal } : {}),
        });
      } catch (err) {
        if (opts.signal?.aborted) throw err;
        const failure =
          err instanceof TimeoutError
            ? new APIConnectionTimeoutError(undefined, { cause: err })
            : new APIConnectionError(`Connection error: ${(err as Error).message}`, { cause: err });
        if (attempt >= maxRetries) throw failure;
        await sleep(backoffMs(attempt), opts.signal);
        continue;
      }

      if (response.ok) {
        const json = await response.json().catch(() => undefined);
        const parsed = schema.safeParse(json);
        if (!parsed.success) {
          throw new APIError(response.status, undefined, response.headers, `Unexpected response shape from ${call.method} ${call.path}`);
        }
        return parsed.data;
      }

      const body = (await response.json().catch(() => undefined)) as ErrorBody | undefined;
      const error = APIError.from(response.status, body, response.headers);
      const shouldRetryHeader = response.headers.get('x-should-retry');
      const retryable =
        shouldRetryHeader === 'true' ||
        (shouldRetryHeader !== 'false' && (RETRYABLE_STATUS.has(response.status) || response.status >= 500));
      const safe = call.method !== 'POST' || idempotencyKey !== undefined;
      if (!retryable || !safe || attempt >= maxRetries) throw error;

      const asked = response.status === 429 || response.status === 503 ? retryAfterMs(response.headers, body, Date.now()) : undefined;
      if (asked !== undefined && asked > this.options.maxRetryAfter) {
        throw error instanceof RateLimitError
          ? error
          : new RateLimitError(response.status, body, response.headers, `Server asked to wait ${Math.ceil(asked / 1000)} s`);
      }
      await sleep(asked ?? backoffMs(attempt), opts.signal);
    }
  }
}
