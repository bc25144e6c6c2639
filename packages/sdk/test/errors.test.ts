import { afterEach, describe, expect, it, vi } from 'vitest';
import { retryAfterMs } from '../src/core/errors.js';
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  InternalServerError,
  isMermaError,
  MermaError,
  NoNextPageError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  WebhookVerificationError,
} from '../src/index.js';

/**
 * The error classes on their own: their names, which `is` recognises what (also across copies of the
 * SDK, which share no classes), what an API error reads from the answer, the class each status
 * becomes, and how long a 429 says to wait.
 */
const headers = (h: Record<string, string> = {}) => new Headers(h);

afterEach(() => vi.useRealTimers());

describe('error classes', () => {
  const make = {
    MermaError: () => new MermaError('x'),
    APIError: () => new APIError(418, undefined, headers()),
    BadRequestError: () => new BadRequestError(400, undefined, headers()),
    AuthenticationError: () => new AuthenticationError(401, undefined, headers()),
    PermissionDeniedError: () => new PermissionDeniedError(403, undefined, headers()),
    NotFoundError: () => new NotFoundError(404, undefined, headers()),
    ConflictError: () => new ConflictError(409, undefined, headers()),
    RateLimitError: () => new RateLimitError(429, undefined, headers()),
    InternalServerError: () => new InternalServerError(500, undefined, headers()),
    APIConnectionError: () => new APIConnectionError(),
    APIConnectionTimeoutError: () => new APIConnectionTimeoutError(),
    APIUserAbortError: () => new APIUserAbortError(),
    NoNextPageError: () => new NoNextPageError(),
    WebhookVerificationError: () => new WebhookVerificationError('bad'),
  };
  const classes = {
    MermaError,
    APIError,
    BadRequestError,
    AuthenticationError,
    PermissionDeniedError,
    NotFoundError,
    ConflictError,
    RateLimitError,
    InternalServerError,
    APIConnectionError,
    APIConnectionTimeoutError,
    APIUserAbortError,
    NoNextPageError,
    WebhookVerificationError,
  };
  const parents: Record<string, string[]> = {
    MermaError: [],
    APIError: ['MermaError'],
    APIConnectionError: ['MermaError'],
    APIConnectionTimeoutError: ['APIConnectionError', 'MermaError'],
    APIUserAbortError: ['MermaError'],
    NoNextPageError: ['MermaError'],
    WebhookVerificationError: ['MermaError'],
  };
  const ancestors = (name: string) => parents[name] ?? ['APIError', 'MermaError'];

  it('are named as their class, and recognised by their own `is` and their ancestors’ only', () => {
    for (const [name, build] of Object.entries(make)) {
      const error = build();
      expect(error.name).toBe(name);
      expect(classes[name as keyof typeof classes].kind).toBe(name);
      for (const [other, cls] of Object.entries(classes)) {
        const expected = other === name || ancestors(name).includes(other);
        expect((cls as typeof MermaError).is(error), `${other}.is(${name})`).toBe(expected);
      }
      expect(isMermaError(error)).toBe(true);
    }
  });

  it('recognise an error of another copy of the SDK by the kinds it carries, and nothing else', () => {
    const kinds = Symbol.for('@merma/sdk.errorKinds');
    const foreign = Object.assign(new Error('from another bundle'), { [kinds]: ['RateLimitError', 'APIError', 'MermaError'] });
    expect(RateLimitError.is(foreign)).toBe(true);
    expect(APIError.is(foreign)).toBe(true);
    expect(NotFoundError.is(foreign)).toBe(false);
    const callable = Object.assign(() => undefined, { [kinds]: ['MermaError'] });
    expect(isMermaError(callable)).toBe(true);
    for (const value of [null, undefined, 'APIError', 404, {}, new Error('plain'), () => undefined, { [kinds]: 'APIError' }]) {
      expect(isMermaError(value), String(value)).toBe(false);
      expect(APIError.is(value), String(value)).toBe(false);
    }
  });

  it('say what happened by default', () => {
    expect(new APIConnectionError().message).toBe('Connection error');
    expect(new APIConnectionTimeoutError().message).toBe('Request timed out');
    expect(new APIUserAbortError().message).toBe('Request was aborted');
    expect(new NoNextPageError().message).toBe('No next page: check hasNextPage() before calling getNextPage()');
    const cause = new Error('socket hang up');
    expect(new APIConnectionError('lost', { cause })).toMatchObject({ message: 'lost', cause });
  });
});

describe('an API error', () => {
  it('reads the message, code, details and request id of the answer', () => {
    const body = {
      error: 'Invalid record',
      code: 'validation_error' as const,
      details: [{ path: 'weight_kg', message: 'must be positive' }],
      request_id: 'req_body',
    };
    const error = APIError.from(400, body, headers({ 'x-request-id': 'req_header' }));
    expect(error).toMatchObject({ status: 400, message: 'Invalid record', code: 'validation_error', requestId: 'req_header', body });
    expect(error.details).toEqual(body.details);
    expect(APIError.from(400, body, headers()).requestId).toBe('req_body');
    expect(new APIError(400, body, headers(), 'said otherwise').message).toBe('said otherwise');
  });

  it('copes with an answer that is not the API’s: no body, or details that are not a list', () => {
    const bare = APIError.from(502, undefined, headers());
    expect(bare).toMatchObject({ status: 502, message: 'Request failed with status 502', code: undefined, requestId: undefined });
    expect(bare.details).toEqual([]);
    expect(APIError.from(400, { details: 'oops' as never }, headers()).details).toEqual([]);
  });

  it('is of the class its status says', () => {
    const expected: [number, typeof APIError][] = [
      [400, BadRequestError],
      [413, BadRequestError],
      [415, BadRequestError],
      [422, BadRequestError],
      [401, AuthenticationError],
      [403, PermissionDeniedError],
      [404, NotFoundError],
      [409, ConflictError],
      [429, RateLimitError],
      [500, InternalServerError],
      [502, InternalServerError],
      [503, InternalServerError],
    ];
    for (const [status, cls] of expected) {
      const error = APIError.from(status, undefined, headers());
      expect(error.constructor, String(status)).toBe(cls);
      expect(error.status).toBe(status);
    }
    for (const status of [402, 405, 410, 418, 499])
      expect(APIError.from(status, undefined, headers()).constructor, String(status)).toBe(APIError);
  });
});

describe('how long a 429 says to wait', () => {
  const NOW = Date.parse('2026-11-23T10:00:00.000Z');

  it('Retry-After in seconds (0 included), or as an HTTP date, never below zero', () => {
    expect(retryAfterMs(headers({ 'retry-after': '2' }), undefined, NOW)).toBe(2000);
    expect(retryAfterMs(headers({ 'retry-after': '0' }), undefined, NOW)).toBe(0);
    expect(retryAfterMs(headers({ 'retry-after': 'Mon, 23 Nov 2026 10:00:30 GMT' }), undefined, NOW)).toBe(30_000);
    expect(retryAfterMs(headers({ 'retry-after': 'Mon, 23 Nov 2026 09:59:00 GMT' }), undefined, NOW)).toBe(0);
  });

  it('else the body’s resetAt, else X-RateLimit-Reset in Unix seconds, else nothing', () => {
    const reset = { resetAt: '2026-11-23T10:00:05.000Z' };
    expect(retryAfterMs(headers(), reset, NOW)).toBe(5000);
    expect(retryAfterMs(headers(), { resetAt: '2026-11-23T09:00:00.000Z' }, NOW)).toBe(0);
    expect(retryAfterMs(headers({ 'retry-after': 'soon' }), reset, NOW)).toBe(5000);
    // A number that is no wait is unreadable too (Date.parse reads "-5" as a year: no wait at all).
    expect(retryAfterMs(headers({ 'retry-after': '-5' }), reset, NOW)).toBe(5000);
    expect(retryAfterMs(headers({ 'retry-after': '-5' }), undefined, NOW)).toBeUndefined();
    expect(retryAfterMs(headers({ 'x-ratelimit-reset': String(NOW / 1000 + 7) }), undefined, NOW)).toBe(7000);
    expect(retryAfterMs(headers({ 'x-ratelimit-reset': String(NOW / 1000 - 7) }), undefined, NOW)).toBe(0);
    expect(retryAfterMs(headers({ 'x-ratelimit-reset': String(NOW / 1000 + 7) }), { resetAt: 'never' }, NOW)).toBe(7000);
    expect(retryAfterMs(headers({ 'x-ratelimit-reset': 'later' }), { resetAt: 'never' }, NOW)).toBeUndefined();
    expect(retryAfterMs(headers(), undefined, NOW)).toBeUndefined();
  });

  it('a RateLimitError carries it as retryAfter (whole seconds, rounded up) and resetAt', () => {
    vi.useFakeTimers({ toFake: ['Date'], now: NOW });
    expect(new RateLimitError(429, undefined, headers({ 'retry-after': '1.2' }))).toMatchObject({
      retryAfter: 2,
      resetAt: new Date(NOW + 1200),
    });
    expect(new RateLimitError(429, undefined, headers())).toMatchObject({ retryAfter: undefined, resetAt: undefined });
  });
});
