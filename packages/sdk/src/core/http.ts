import { MAX_IDEMPOTENCY_KEY_LENGTH } from '@merma/schema';
import type { Options } from 'ky';
import { APIPromise, type APIResponse, withRequestId } from './api-promise.js';
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

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * What `fetchOptions` may carry: any `RequestInit` field (`credentials`, `keepalive`, `cache`…) and
 * runtime-specific ones passed on to `fetch` as they are (Node's undici `dispatcher` for a proxy,
 * Bun's `proxy`, Cloudflare's `cf`). The SDK's own fields (method, headers, body, signal) win.
 */
export type FetchOptions = Omit<RequestInit, 'method' | 'headers' | 'body' | 'signal'> & Record<string, unknown>;

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
  /**
   * The API version this call is answered with (`Merma-Version`, a date such as `2026-11-28`),
   * over the client's `apiVersion`. The server refuses a version it does not know (BadRequestError).
   */
  apiVersion?: string | undefined;
  /** Extra options for `fetch` on this call, over the client's `fetchOptions` (see FetchOptions). */
  fetchOptions?: FetchOptions | undefined;
};

/** What a `request` listener receives: one per attempt, retries included, before it is sent. */
export type RequestEvent = {
  method: HttpMethod;
  /** The API path, e.g. `/records` (without the query). */
  path: string;
  /** 0 for the first attempt, n for the n-th retry. */
  attempt: number;
  /** The Idempotency-Key a POST carries (the same on every attempt of a call). */
  idempotencyKey: string | undefined;
  /** `Date.now()` when the attempt started. */
  startedAt: number;
};

/** What a `response` listener receives: one per answer, the retried ones included. */
export type ResponseEvent = RequestEvent & {
  status: number;
  /** `X-Request-Id` of the answer. */
  requestId: string | undefined;
  /** Milliseconds from the start of the attempt to the whole answer. */
  elapsedMs: number;
};

/** The events `client.on()` listens to, with what each listener receives. */
export type ClientEvents = { request: RequestEvent; response: ResponseEvent };

/** The listeners `client.on()` keeps, by event. */
export type Listeners = { [E in keyof ClientEvents]: Set<(event: ClientEvents[E]) => void> };

export type CoreOptions = {
  apiKey: string;
  baseUrl: string;
  timeout: number;
  maxRetries: number;
  maxRetryAfter: number;
  fetch?: typeof fetch | undefined;
  fetchOptions?: FetchOptions | undefined;
  defaultHeaders?: Record<string, string> | undefined;
  /** Sent as `Merma-Version` on every call when set (none: the server's current version). */
  apiVersion?: string | undefined;
  log: ClientLogger;
  listeners?: Listeners | undefined;
};

export type Call = {
  method: HttpMethod;
  path: string;
  query?: Record<string, string | number | boolean | undefined | null> | undefined;
  body?: unknown;
  /** A body sent as it is, not as JSON (a signed agreement's PDF), with its content type. */
  rawBody?: { data: Uint8Array | ArrayBuffer | Blob; contentType: string } | undefined;
};

/**
 * What `send` tells its caller about the attempts before the answer: `unsureAttempts` counts the
 * attempts that may have been carried out without our hearing of it (no answer, a timeout, a 408
 * or a 5xx). A 409 or 429 is a refusal: that attempt changed nothing.
 */
export type SendTrace = {
  unsureAttempts: number;
  /**
   * Set when the call failed without an answer: whether its last attempt may have been carried out
   * (false only when the connection could not be made, see `neverSent`).
   */
  lastAttemptUnsure?: boolean;
};

/** Statuses retried (ky's `statusCodes`): 408, 409 (a key still in flight), 429 and every 5xx. */
const RETRY_STATUS = [408, 409, 429, ...Array.from({ length: 100 }, (_, i) => 500 + i)];
/** Statuses whose wait the server names (ky's `afterStatusCodes`). */
const WAIT_STATUS = [429, 503];
const BACKOFF_BASE_MS = 500;
/**
 * The headers ky 1.14 reads a wait from, in its order. ky reads headers only (not the body's
 * `resetAt`), and an unreadable Retry-After ("soon") makes it wait `maxRetryAfter` (with
 * `Infinity`, the longest timer: 24 days) instead of going on to another hint. So a 429/503 reaches
 * ky with these removed and, when the SDK reads a wait (`retryAfterMs`: Retry-After, else resetAt,
 * else X-RateLimit-Reset), that wait alone as Retry-After in seconds, fractions kept: the wait ky
 * takes is the one logged and held against `maxRetryAfter`; with no readable hint, ky backs off.
 */
const KY_WAIT_HEADERS = ['retry-after', 'ratelimit-reset', 'x-ratelimit-retry-after', 'x-ratelimit-reset', 'x-rate-limit-reset'];
const BACKOFF_MAX_MS = 8_000;

/** ky, loaded on the first request: a receiver that only verifies webhooks never loads (or bundles) it. */
let kyModule: Promise<KyModule> | undefined;
const loadKy = () => {
  kyModule ??= import('./ky.js');
  return kyModule;
};
type KyModule = typeof import('./ky.js');

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

/** Parses a body as JSON when it is JSON; `undefined` for an empty body; the text otherwise. */
function parseBody(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Longest delay setTimeout keeps (a larger one fires at once); also ky's largest timeout. */
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
/** Visible ASCII, no spaces: what the API accepts in Idempotency-Key (up to MAX_IDEMPOTENCY_KEY_LENGTH). */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]+$/;

/**
 * Why `key` is not an Idempotency-Key the API accepts (1 to MAX_IDEMPOTENCY_KEY_LENGTH visible
 * ASCII characters, the server's own limit), or undefined when it is one.
 */
export function invalidIdempotencyKey(key: string, maxLength = MAX_IDEMPOTENCY_KEY_LENGTH): string | undefined {
  if (key.length === 0 || key.length > maxLength)
    return `it has ${key.length} characters, and the API accepts 1 to ${maxLength} visible ASCII characters`;
  if (!IDEMPOTENCY_KEY.test(key)) return 'the API accepts visible ASCII characters only (no spaces)';
  return undefined;
}

/**
 * Error codes of a connection that failed before the request could be sent (the host was not
 * found, refused or was unreachable): nothing reached the server. Node (undici), Bun and Deno put
 * these on the fetch error's `cause`.
 */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_NONAME',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'ConnectionRefused',
]);

/**
 * true when a failed exchange certainly never reached the server: the connection itself could not
 * be made (see NOT_SENT_CODES, looked for along the error's causes). Anything else — a connection
 * lost after the request was sent, a timeout, a browser's bare "Failed to fetch", which says
 * nothing — may have been carried out.
 */
export function neverSent(error: unknown): boolean {
  const seen = new Set<unknown>();
  const stack: unknown[] = [error];
  while (stack.length > 0) {
    const e = stack.pop();
    if (typeof e !== 'object' || e === null || seen.has(e)) continue;
    seen.add(e);
    const { code, cause, errors } = e as { code?: unknown; cause?: unknown; errors?: unknown };
    if (typeof code === 'string' && NOT_SENT_CODES.has(code)) return true;
    stack.push(cause);
    if (Array.isArray(errors)) stack.push(...errors);
  }
  return false;
}

/** A random UUID v4, also outside secure contexts (an http:// page has no crypto.randomUUID). */
export function uuid4(): string {
  if (typeof globalThis.crypto.randomUUID === 'function') return globalThis.crypto.randomUUID();
  const b = globalThis.crypto.getRandomValues(new Uint8Array(16));
  b[6] = ((b[6] as number) & 0x0f) | 0x40;
  b[8] = ((b[8] as number) & 0x3f) | 0x80;
  const hex = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Rejects with `signal`'s reason when it aborts: raced against work that may not listen to it. */
function whenAborted(signal: AbortSignal): { promise: Promise<never>; done: () => void } {
  let onAbort = () => {};
  const promise = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  return { promise, done: () => signal.removeEventListener('abort', onAbort) };
}

/** One attempt's answer, as it came: the response (its body unread) and its text. */
type Exchange = { response: Response; text: string };

/** A call as every attempt sends it (`HttpCore.prepare`). */
type PreparedCall = {
  call: Call;
  headers: Headers;
  idempotencyKey: string | undefined;
  /** May be sent more than once: not a POST, or a POST with its Idempotency-Key. */
  safe: boolean;
  /** `POST /records?…`, for the log lines. */
  target: string;
  url: string;
  signal: AbortSignal | undefined;
  timeout: number;
  maxRetries: number;
  maxRetryAfter: number;
};

/** What one call's attempts and hooks share: the attempt, its start, its answer, and why it is retried. */
type CallState = {
  attempt: number;
  startedAt: number;
  last: Exchange | undefined;
  /** Why the next retry happens (a status, or the failure's message), for the log line. */
  reason: string;
  /** The request id of the answer retried, for the log line ('' after a failed exchange). */
  about: string;
  /** The retry's wait was logged (by decideRetry for a server-named wait, or by backoff). */
  announced: boolean;
  /** The wait the server asked for when it was over maxRetryAfter. */
  refused: number | undefined;
};

function newCallState(): CallState {
  return { attempt: 0, startedAt: 0, last: undefined, reason: '', about: '', announced: false, refused: undefined };
}

const requestIdOf = (response: Response | undefined) => response?.headers.get('x-request-id') ?? undefined;
const about = (response: Response | undefined) => ` (request ${requestIdOf(response) ?? 'without id'})`;

/**
 * Whether an attempt about to be retried may have been carried out without our hearing of it (see
 * SendTrace): no answer and not certainly unsent, a 408 or a 5xx.
 */
function mayHaveBeenCarriedOut(error: Error, { HTTPError }: KyModule): boolean {
  const unanswered = !(error instanceof HTTPError);
  return (unanswered && !neverSent(error)) || (!unanswered && (error.response.status === 408 || error.response.status >= 500));
}

/**
 * The one request function under every resource. HTTP, retries, backoff and timeouts are ky's
 * (ky 1.14, pinned; bundled into both builds, so `require('@merma/sdk')` works although ky is
 * ESM-only, and loaded on the first request, so a bundle that only verifies webhooks carries none
 * of it). ky 2 needs 3.9 kB more gzipped for what the SDK does not use (total timeouts, schema
 * validation, error-body reads), which would break the SDK's 15 kB budget.
 * - retried (ky's `retry`): 408, 409, 429, 5xx, connection errors and timeouts, up to
 *   `maxRetries`; a server `x-should-retry` header overrides the status rule (the API sends
 *   `false` when retrying cannot help), through `shouldRetry`;
 * - a POST is retried only with an Idempotency-Key, generated once per call and set on every
 *   attempt by a `beforeRequest` hook, so a retry can never store a record twice (without a key,
 *   `limit` is 0);
 * - 429 and 503 wait what the server asks (ky's `afterStatusCodes`: Retry-After in seconds or as
 *   a date, else X-RateLimit-Reset); otherwise exponential backoff (`delay`, `backoffLimit`) with
 *   `jitter`: 0.5 s, 1 s, 2 s … each up to 25 % less, never over 8 s. An AbortSignal cancels the
 *   request and any wait. Logging and the `request`/`response` events are ky hooks.
 *
 * What ky does not do, and this file does on top of it:
 * - a wait beyond `maxRetryAfter` throws RateLimitError at once (ky would wait `maxRetryAfter`
 *   and retry anyway);
 * - the body's `resetAt` is a wait too, when the answer has no usable Retry-After (ky reads
 *   headers only), and an unreadable Retry-After is passed over for the next hint (ky would wait
 *   `maxRetryAfter`): an `afterResponse` hook hands ky the SDK's reading as the only Retry-After;
 * - the attempt's timeout and the caller's signal cover the whole answer, body included, and a
 *   body that breaks off is retried like a lost connection (ky's timeout covers the headers only):
 *   the `fetch` ky calls resolves once the whole body is in;
 * - a custom `fetch` that ignores its signal still stops when the caller aborts (ky's timeout
 *   already races it);
 * - ky's errors become the SDK's (APIError by status, APIConnectionError…), and the 2xx body is
 *   unwrapped from the `{ data }` envelope.
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

  /** Sends `call`; the promise's value is the envelope's `data` (see APIPromise for the rest). */
  request<T>(call: Call, opts: RequestOptions = {}): APIPromise<T> {
    return new APIPromise<T>(this.send(call, opts));
  }

  /** Calls the `event` listeners; one that throws is logged and does not stop the request. */
  private emit<E extends keyof ClientEvents>(event: E, payload: ClientEvents[E]): void {
    const listeners = this.options.listeners?.[event] as Set<(event: ClientEvents[E]) => void> | undefined;
    for (const listener of listeners ?? []) {
      try {
        listener(payload);
      } catch (err) {
        this.options.log.warn(`a ${event} listener threw: ${(err as Error)?.message ?? String(err)}`);
      }
    }
  }

  /**
   * Sends `call` with retries and resolves with the parsed 2xx body and its response. The steps, in
   * order: `prepare` the call once; ky runs the attempts (`kyOptions`: each attempt through
   * `attempt`, its retry decided by `decideRetry` and waited by `backoff` or by what the server
   * asks, `afterAnswer`); then `failure` turns what ky gave up with into the SDK's error, or
   * `answer` unwraps the 2xx.
   */
  async send(call: Call, opts: RequestOptions = {}, trace?: SendTrace): Promise<APIResponse<unknown>> {
    const prepared = this.prepare(call, opts);
    const { signal } = prepared;
    if (signal?.aborted) throw new APIUserAbortError(undefined, { cause: signal.reason });

    const kyModule = await loadKy();
    const state = newCallState();
    let response: Response;
    try {
      response = await kyModule.ky(prepared.url, this.kyOptions(prepared, opts, state, kyModule, trace));
    } catch (err) {
      throw this.failure(err, prepared, state, kyModule, trace);
    }
    return this.answer(prepared, response, state.last?.text ?? '');
  }

  /**
   * The call as every attempt sends it, settled before the first: the options (the call's over the
   * client's), the headers, the Idempotency-Key, whether it may be sent twice, and its URL. Throws
   * MermaError for a header or a key the API would refuse, before anything is sent.
   */
  private prepare(call: Call, opts: RequestOptions): PreparedCall {
    const maxRetries = countOption(opts.maxRetries, this.options.maxRetries);
    const timeout = durationOption(opts.timeout, this.options.timeout);
    const maxRetryAfter = waitCapOption(opts.maxRetryAfter, this.options.maxRetryAfter);
    const headers = this.headersFor(call, opts);
    const idempotencyKey = this.idempotencyKeyFor(call, opts, headers);
    const searchParams = new URLSearchParams();
    for (const [k, v] of Object.entries(call.query ?? {})) if (v !== undefined && v !== null) searchParams.set(k, String(v));
    const query = searchParams.toString();
    return {
      call,
      headers,
      idempotencyKey,
      // Only a POST carrying an Idempotency-Key may be sent twice: the API stores it once.
      safe: call.method !== 'POST' || idempotencyKey !== undefined,
      target: `${call.method} ${call.path}${query ? `?${query}` : ''}`,
      url: `${this.prefix}/${call.path.replace(/^\//, '')}${query ? `?${query}` : ''}`,
      signal: opts.signal,
      timeout,
      maxRetries,
      maxRetryAfter,
    };
  }

  /** What ky is asked to do for this call: the request, the retry policy and the hooks (see the class's comment). */
  private kyOptions(prepared: PreparedCall, opts: RequestOptions, state: CallState, kyModule: KyModule, trace?: SendTrace): Options {
    const { call, headers, idempotencyKey, signal, timeout } = prepared;
    return {
      ...this.options.fetchOptions,
      ...opts.fetchOptions,
      method: call.method,
      headers,
      ...(call.rawBody !== undefined
        ? { body: call.rawBody.data as BodyInit }
        : call.body !== undefined
          ? { body: JSON.stringify(call.body) }
          : {}),
      signal,
      timeout,
      throwHttpErrors: true,
      fetch: this.attempt(state) as typeof fetch,
      retry: {
        limit: prepared.safe ? prepared.maxRetries : 0,
        // Every method the API has; a POST is retried only with its Idempotency-Key (`safe`).
        methods: ['get', 'put', 'post', 'patch', 'delete'],
        statusCodes: RETRY_STATUS,
        afterStatusCodes: WAIT_STATUS,
        maxRetryAfter: prepared.maxRetryAfter,
        backoffLimit: BACKOFF_MAX_MS,
        delay: (attemptCount) => BACKOFF_BASE_MS * 2 ** (attemptCount - 1),
        jitter: (delay) => this.backoff(prepared, state, delay),
        retryOnTimeout: true,
        shouldRetry: ({ error }) => this.decideRetry(prepared, state, error, kyModule),
      },
      hooks: {
        beforeRequest: [
          (request, _options, { retryCount }) => {
            // The same key on every attempt: it is what makes sending a POST again safe.
            if (idempotencyKey !== undefined) request.headers.set('idempotency-key', idempotencyKey);
            this.started(prepared, state, retryCount);
          },
        ],
        beforeRetry: [
          ({ error }) => {
            if (trace && mayHaveBeenCarriedOut(error, kyModule)) trace.unsureAttempts++;
          },
        ],
        afterResponse: [(_request, _options, answer) => this.afterAnswer(prepared, state, answer)],
      },
    };
  }

  /** An attempt starts: its number and start are noted, logged and told to the `request` listeners. */
  private started(prepared: PreparedCall, state: CallState, attempt: number): void {
    const { call, idempotencyKey, target } = prepared;
    state.attempt = attempt;
    state.startedAt = Date.now();
    state.announced = false;
    this.options.log.debug(`→ ${target}${attempt ? ` (retry ${attempt})` : ''}`);
    this.emit('request', { method: call.method, path: call.path, attempt, idempotencyKey, startedAt: state.startedAt });
  }

  /**
   * The fetch ky calls for each attempt: the runtime's (or the client's) fetch, resolving with the
   * whole answer read, and stopping when the attempt's signal aborts even if that fetch does not
   * listen to it.
   */
  private attempt(state: CallState): (input: Request, init?: RequestInit) => Promise<Response> {
    const fetchImpl = this.options.fetch;
    return async (input, init) => {
      const aborted = whenAborted(input.signal);
      const read = (async () => {
        const response = await (fetchImpl ?? globalThis.fetch)(input, init);
        const text = await response.clone().text();
        state.last = { response, text };
        return response;
      })();
      try {
        return await Promise.race([read, aborted.promise]);
      } finally {
        aborted.done();
        read.catch(() => {}); // the loser of the race must not surface as an unhandled rejection
      }
    };
  }

  /**
   * Whether ky retries after `error` (ky's `shouldRetry`): `false` stops, `true` forces a retry (with
   * backoff), `undefined` leaves it to ky's status rule and wait. A wait the server asks for beyond
   * `maxRetryAfter` stops at once (`state.refused`, which `failure` reports); a `x-should-retry`
   * header overrides the status rule.
   */
  private decideRetry(prepared: PreparedCall, state: CallState, error: Error, { HTTPError, TimeoutError }: KyModule): boolean | undefined {
    if (prepared.signal?.aborted) return false;
    if (!(error instanceof HTTPError)) {
      state.reason =
        error instanceof TimeoutError ? `Request timed out after ${prepared.timeout} ms` : `Connection error: ${error.message}`;
      state.about = '';
      return undefined; // ky retries timeouts (retryOnTimeout) and any failed exchange
    }
    const { status } = error.response;
    const hint = error.response.headers.get('x-should-retry');
    state.reason = String(status);
    state.about = about(state.last?.response);
    if (hint === 'false') return false;
    const last = state.last?.response;
    if (WAIT_STATUS.includes(status) && last) {
      const asked = retryAfterMs(last.headers, errorBodyOf(state.last?.text), Date.now());
      if (asked !== undefined && asked > prepared.maxRetryAfter) {
        state.refused = asked;
        return false;
      }
      if (asked !== undefined) this.announce(prepared, state, asked);
    }
    // `true` forces ky's retry (with backoff); otherwise ky's status rule and wait apply.
    return hint === 'true' && !RETRY_STATUS.includes(status) ? true : undefined;
  }

  /** The backoff's wait (ky's `jitter` over its exponential `delay`): up to 25 % less, logged. */
  private backoff(prepared: PreparedCall, state: CallState, delay: number): number {
    const wait = delay * (1 - Math.random() * 0.25);
    this.announce(prepared, state, Math.min(wait, BACKOFF_MAX_MS));
    return wait;
  }

  /** Logs the coming retry and its wait, once per attempt (a server-named wait or the backoff's). */
  private announce(prepared: PreparedCall, state: CallState, wait: number): void {
    if (state.announced) return;
    state.announced = true;
    this.options.log.info(`${prepared.target}: ${state.reason}; retrying in ${Math.round(wait)} ms${state.about}`);
  }

  /**
   * Each answer, retried ones included: logged and told to the `response` listeners. A 429 or 503
   * goes on to ky with the wait the SDK reads (retryAfterMs) as its only hint: see KY_WAIT_HEADERS.
   */
  private afterAnswer(prepared: PreparedCall, state: CallState, answer: Response): Response | undefined {
    const { call, idempotencyKey, target } = prepared;
    const requestId = requestIdOf(answer);
    const elapsedMs = Date.now() - state.startedAt;
    this.options.log.debug(`← ${answer.status} ${target} in ${elapsedMs} ms${about(answer)}`);
    this.emit('response', {
      method: call.method,
      path: call.path,
      attempt: state.attempt,
      idempotencyKey,
      startedAt: state.startedAt,
      status: answer.status,
      requestId,
      elapsedMs,
    });
    // ky waits what the SDK reads (retryAfterMs), handed to it as the only hint: see KY_WAIT_HEADERS.
    if (!WAIT_STATUS.includes(answer.status)) return undefined;
    const asked = retryAfterMs(answer.headers, errorBodyOf(state.last?.text), Date.now());
    const rewritten = new Headers(answer.headers);
    for (const name of KY_WAIT_HEADERS) rewritten.delete(name);
    if (asked !== undefined) rewritten.set('retry-after', String(asked / 1000));
    return new Response(state.last?.text ?? null, { status: answer.status, statusText: answer.statusText, headers: rewritten });
  }

  /**
   * What ky gave up with, as the SDK's error (logged): APIUserAbortError after an abort; for an
   * answer, APIError by status (RateLimitError when the wait asked for was over `maxRetryAfter`);
   * without one, APIConnectionTimeoutError or APIConnectionError, noting in `trace` whether the
   * last attempt may have been carried out.
   */
  private failure(
    err: unknown,
    prepared: PreparedCall,
    state: CallState,
    { HTTPError, TimeoutError }: KyModule,
    trace?: SendTrace,
  ): MermaError {
    const { log } = this.options;
    const { signal, target, timeout, maxRetryAfter } = prepared;
    if (signal?.aborted) return new APIUserAbortError(undefined, { cause: signal.reason });
    if (err instanceof MermaError) return err;
    const last = state.last;
    if (err instanceof HTTPError && last) {
      const { response: answer } = last;
      const errorBody = errorBodyOf(last.text);
      const error = APIError.from(answer.status, errorBody, answer.headers);
      if (state.refused !== undefined) {
        const asked = state.refused;
        log.warn(
          `✗ ${target}: ${answer.status} ${error.message}${about(answer)}; ` +
            `the server asks to wait ${Math.ceil(asked / 1000)} s, over maxRetryAfter (${maxRetryAfter} ms)`,
        );
        return error instanceof RateLimitError
          ? error
          : new RateLimitError(answer.status, errorBody, answer.headers, `Server asked to wait ${Math.ceil(asked / 1000)} s`);
      }
      log.warn(`✗ ${target}: ${answer.status} ${error.message}${about(answer)}`);
      return error;
    }
    if (trace) trace.lastAttemptUnsure = err instanceof TimeoutError || !neverSent(err);
    const failure =
      err instanceof TimeoutError
        ? new APIConnectionTimeoutError(`Request timed out after ${timeout} ms`, { cause: err })
        : new APIConnectionError(`Connection error: ${(err as Error)?.message ?? String(err)}`, { cause: err });
    log.error(`✗ ${target}: ${failure.message}${prepared.safe ? '' : ' (a POST without an Idempotency-Key is not retried)'}`);
    return failure;
  }

  /**
   * A 2xx's body, parsed and unwrapped from the `{ data }` envelope (never checked against a shape).
   * A file asked for by its type (a PDF, a CSV: `accept` without JSON) is not JSON: its caller reads
   * the response's bytes, and the body here stays null.
   */
  private answer(prepared: PreparedCall, response: Response, text: string): APIResponse<unknown> {
    const requestId = requestIdOf(response);
    if (!/json/i.test(prepared.headers.get('accept') ?? '')) return { data: null, body: null, response, requestId };
    const body = parseBody(text);
    const isEnvelope = typeof body === 'object' && body !== null && 'data' in body;
    if (!isEnvelope && response.status !== 204) {
      this.options.log.warn(`${prepared.target} answered ${response.status} without the { data } envelope; returning the body as it came`);
    }
    const data = isEnvelope ? (body as { data: unknown }).data : body;
    return { data: withRequestId(data, requestId), body, response, requestId };
  }

  /**
   * The headers of a call, names compared without regard to case: the client's defaults, then the
   * call's own, then what the SDK decides. `Authorization` is always the client's key. The
   * Idempotency-Key is left to `idempotencyKeyFor` (ky's `beforeRequest` hook sets it).
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
    if (call.rawBody !== undefined) headers.set('content-type', call.rawBody.contentType);
    else if (call.body !== undefined) headers.set('content-type', 'application/json');
    headers.set('x-merma-sdk', `js/${VERSION}`);
    const apiVersion = opts.apiVersion ?? this.options.apiVersion;
    if (apiVersion !== undefined) headers.set('merma-version', apiVersion);
    headers.set('authorization', `Bearer ${this.options.apiKey}`);
    return headers;
  }

  /**
   * A POST's Idempotency-Key: `idempotencyKey` when given, else an `Idempotency-Key` header the
   * caller set, else a new UUID (none with `idempotencyKey: false`, nor on other methods). A key
   * must be 1 to MAX_IDEMPOTENCY_KEY_LENGTH (255) visible ASCII characters, the API's limit; another is refused here,
   * before anything is sent. Removes the header from `headers` (the hook sets the key chosen).
   */
  private idempotencyKeyFor(call: Call, opts: RequestOptions, headers: Headers): string | undefined {
    const given = headers.get('idempotency-key');
    headers.delete('idempotency-key');
    if (call.method !== 'POST' || opts.idempotencyKey === false) return undefined;
    const key = opts.idempotencyKey || given || uuid4();
    const problem = invalidIdempotencyKey(key);
    if (problem) {
      throw new MermaError(`Invalid idempotency key ${JSON.stringify(key.length > 60 ? `${key.slice(0, 60)}…` : key)}: ${problem}`);
    }
    return key;
  }
}

/** The error body of an answer's text, when it is a JSON object. */
function errorBodyOf(text: string | undefined): ErrorBody | undefined {
  const body = parseBody(text ?? '');
  return typeof body === 'object' && body !== null ? (body as ErrorBody) : undefined;
}
