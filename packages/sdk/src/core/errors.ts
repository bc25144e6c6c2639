/**
 * Errors thrown by the SDK. Every error is a MermaError; API answers other than 2xx are APIError
 * subclasses chosen by status, so callers can `catch (e) { if (e instanceof RateLimitError) … }`.
 * A 2xx answer is never an error, whatever its body. Input is not checked before sending: the API
 * checks it once and answers 400 (BadRequestError) naming each field in `details`.
 */
import type { ErrorCode } from '../generated/api-types.js';

/**
 * The classes an SDK error is an instance of, by name, under a symbol shared by every copy of the
 * SDK in a process (`Symbol.for`): the ESM and the CommonJS build each have their own classes, so
 * `instanceof` fails across them when both are loaded, but this brand does not.
 */
const KINDS = Symbol.for('@merma/sdk.errorKinds');

/**
 * The base of every error the SDK throws. Each class has a static `is(value)` that recognises its
 * errors from any copy of the SDK (its ESM or CommonJS build, another version): prefer it (or
 * `isMermaError`) to `instanceof` in code that may see both builds.
 */
export class MermaError extends Error {
  override name = 'MermaError';
  /** This class's name in the brand (each subclass sets its own). */
  static readonly kind: string = 'MermaError';

  constructor(message?: string, options?: { cause?: unknown }) {
    super(message, options);
    const kinds: string[] = [];
    for (let c: { kind?: unknown } | null = new.target; c; c = Object.getPrototypeOf(c)) {
      if (Object.hasOwn(c, 'kind') && typeof c.kind === 'string') kinds.push(c.kind);
    }
    Object.defineProperty(this, KINDS, { value: Object.freeze(kinds) });
  }

  /** true when `value` is an error of this class (or a subclass) from any build of the SDK. */
  static is<T extends abstract new (...args: never[]) => MermaError>(this: T & { kind: string }, value: unknown): value is InstanceType<T> {
    if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
    const kinds = (value as { [KINDS]?: unknown })[KINDS];
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class it is called on (APIError.is, RateLimitError.is…), not MermaError
    return Array.isArray(kinds) && kinds.includes(this.kind);
  }
}

/** true when `value` is an error thrown by the SDK, from its ESM or CommonJS build alike. */
export function isMermaError(value: unknown): value is MermaError {
  return MermaError.is(value);
}

export type ErrorBody = {
  error?: string;
  status?: number;
  code?: ErrorCode;
  details?: { path: string; message: string }[];
  request_id?: string;
  resetAt?: string;
  [key: string]: unknown;
};

export class APIError extends MermaError {
  override name = 'APIError';
  static override readonly kind: string = 'APIError';
  readonly status: number;
  /**
   * Machine-readable code from the body (`validation_error`, `rate_limited`, …): one of the API's
   * `ErrorCode`s (a server newer than this SDK may send one added later; keep a `default:` branch).
   */
  readonly code: ErrorCode | undefined;
  /** `X-Request-Id` of the failed request: quote it when asking for support. */
  readonly requestId: string | undefined;
  readonly body: ErrorBody | undefined;
  readonly headers: Headers;
  /** Validation problems, one per field, when the API sent them. */
  readonly details: { path: string; message: string }[];

  constructor(status: number, body: ErrorBody | undefined, headers: Headers, message?: string) {
    super(message ?? body?.error ?? `Request failed with status ${status}`);
    this.status = status;
    this.body = body;
    this.headers = headers;
    this.code = body?.code;
    this.requestId = headers.get('x-request-id') ?? body?.request_id ?? undefined;
    this.details = Array.isArray(body?.details) ? body.details : [];
  }

  static from(status: number, body: ErrorBody | undefined, headers: Headers): APIError {
    // Written outside the class: a class body naming its own class makes esbuild rename it
    // (`class _APIError`), and then console.log would print `_APIError`.
    return errorForStatus(status, body, headers);
  }
}

/** The error class of a status (APIError.from). */
function errorForStatus(status: number, body: ErrorBody | undefined, headers: Headers): APIError {
  if (status === 400 || status === 413 || status === 415 || status === 422) return new BadRequestError(status, body, headers);
  if (status === 401) return new AuthenticationError(status, body, headers);
  if (status === 403) return new PermissionDeniedError(status, body, headers);
  if (status === 404) return new NotFoundError(status, body, headers);
  if (status === 409) return new ConflictError(status, body, headers);
  if (status === 429) return new RateLimitError(status, body, headers);
  if (status >= 500) return new InternalServerError(status, body, headers);
  return new APIError(status, body, headers);
}

export class BadRequestError extends APIError {
  override name = 'BadRequestError';
  static override readonly kind: string = 'BadRequestError';
}
export class AuthenticationError extends APIError {
  override name = 'AuthenticationError';
  static override readonly kind: string = 'AuthenticationError';
}
export class PermissionDeniedError extends APIError {
  override name = 'PermissionDeniedError';
  static override readonly kind: string = 'PermissionDeniedError';
}
export class NotFoundError extends APIError {
  override name = 'NotFoundError';
  static override readonly kind: string = 'NotFoundError';
}
export class ConflictError extends APIError {
  override name = 'ConflictError';
  static override readonly kind: string = 'ConflictError';
}
export class InternalServerError extends APIError {
  override name = 'InternalServerError';
  static override readonly kind: string = 'InternalServerError';
}

export class RateLimitError extends APIError {
  override name = 'RateLimitError';
  static override readonly kind: string = 'RateLimitError';
  /** When the limit resets (from Retry-After, the body's resetAt, or X-RateLimit-Reset). */
  readonly resetAt: Date | undefined;
  /** Seconds until the reset, when known. */
  readonly retryAfter: number | undefined;

  constructor(status: number, body: ErrorBody | undefined, headers: Headers, message?: string) {
    super(status, body, headers, message);
    const waitMs = retryAfterMs(headers, body, Date.now());
    this.resetAt = waitMs === undefined ? undefined : new Date(Date.now() + waitMs);
    this.retryAfter = waitMs === undefined ? undefined : Math.ceil(waitMs / 1000);
  }
}

/** The request never got an answer (network, DNS, connection reset). Retried automatically. */
export class APIConnectionError extends MermaError {
  override name = 'APIConnectionError';
  static override readonly kind: string = 'APIConnectionError';
  constructor(message = 'Connection error', options?: { cause?: unknown }) {
    super(message, options);
  }
}

export class APIConnectionTimeoutError extends APIConnectionError {
  override name = 'APIConnectionTimeoutError';
  static override readonly kind: string = 'APIConnectionTimeoutError';
  constructor(message = 'Request timed out', options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** The call was cancelled through its `signal` (during the request or a wait between retries). */
export class APIUserAbortError extends MermaError {
  override name = 'APIUserAbortError';
  static override readonly kind: string = 'APIUserAbortError';
  constructor(message = 'Request was aborted', options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * `getNextPage()` on the last page: check `hasNextPage()` first (or iterate the list with
 * `for await`, or `toArray({ limit })`, which stop by themselves).
 */
export class NoNextPageError extends MermaError {
  override name = 'NoNextPageError';
  static override readonly kind: string = 'NoNextPageError';
  constructor(message = 'No next page: check hasNextPage() before calling getNextPage()') {
    super(message);
  }
}

/** A webhook delivery that is unsigned, badly signed, outside the time tolerance or not JSON. */
export class WebhookVerificationError extends MermaError {
  override name = 'WebhookVerificationError';
  static override readonly kind: string = 'WebhookVerificationError';
}

/**
 * How long a 429/503 asks us to wait, in ms: `Retry-After` (seconds or an HTTP date), else the
 * body's `resetAt`, else `X-RateLimit-Reset` (Unix seconds). Undefined when none is usable.
 */
export function retryAfterMs(headers: Headers, body: ErrorBody | undefined, now: number): number | undefined {
  const retryAfter = headers.get('retry-after');
  if (retryAfter) {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
    // An HTTP date names its day and month in letters. A number that is no wait ("-5") is
    // unreadable, not a date: Date.parse would read it as the year -5, a wait of zero.
    const date = /[a-z]/i.test(retryAfter) ? Date.parse(retryAfter) : Number.NaN;
    if (Number.isFinite(date)) return Math.max(0, date - now);
  }
  if (typeof body?.resetAt === 'string') {
    const reset = Date.parse(body.resetAt);
    if (Number.isFinite(reset)) return Math.max(0, reset - now);
  }
  const resetHeader = headers.get('x-ratelimit-reset');
  if (resetHeader) {
    const unix = Number(resetHeader);
    if (Number.isFinite(unix)) return Math.max(0, unix * 1000 - now);
  }
  return undefined;
}
