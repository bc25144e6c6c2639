import type { ErrorCode, ErrorDetail } from '@merma/schema';
import { TRPCError } from '@trpc/server';
import { ZodError } from 'zod';

/** HTTP status of each error code: the one table that decides it. */
export const STATUS_BY_CODE: Record<ErrorCode, number> = {
  validation_error: 400,
  unauthorized: 401,
  forbidden: 403,
  plan_required: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  gone: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  headers_too_large: 431,
  rate_limited: 429,
  service_unavailable: 503,
  internal: 500,
};

/**
 * The only error domain code throws. `toAppError` below turns anything else thrown into one, and
 * both surfaces answer from it: REST through http/errors.ts, the dashboard through
 * trpc/dashboard-base.ts (same code, status, message and retry headers).
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetail[] | undefined;
  /**
   * Extra fields of the body (the 429 body's `resetAt`) and headers (`Retry-After`, and
   * `x-should-retry` telling clients whether retrying the same request can succeed).
   */
  readonly extra: { resetAt?: Date; retryAfterSeconds?: number; shouldRetry?: boolean } | undefined;

  constructor(code: ErrorCode, message: string, details?: ErrorDetail[], extra?: AppError['extra']) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.details = details;
    this.extra = extra;
  }

  get status(): number {
    return STATUS_BY_CODE[this.code];
  }
}

export const validationError = (message: string, details?: ErrorDetail[]) => new AppError('validation_error', message, details);

/**
 * A service's validation error with its details' paths turned into where the caller's request has
 * those fields (`name`: `shift_id` → `payload.shift_id` for an inbound event); any other error as it is.
 */
export function renamedValidationError(err: unknown, name: (details: ErrorDetail[]) => ErrorDetail[]): unknown {
  if (!(err instanceof AppError) || err.code !== 'validation_error' || !err.details) return err;
  const details = name(err.details);
  return validationError(details.map((d) => `${d.path}: ${d.message}`).join('; '), details);
}

/**
 * A zod error's issues as the error body's `details`: one `{ path, message }` per issue, the path
 * dotted (`records.3.weight_kg`), under `prefix` when the checked value sits inside a larger body.
 */
export function issueDetails(
  error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] },
  prefix?: string,
): ErrorDetail[] {
  return error.issues.map((i) => ({
    path: [...(prefix === undefined ? [] : [prefix]), ...i.path.map(String)].join('.'),
    message: i.message,
  }));
}

/**
 * The retry headers of an error answer, the same on both surfaces: `Retry-After` when the error
 * says when, and `x-should-retry` (openai-node's and Stripe's SDKs read it) when retrying the same
 * request can or cannot help. A conflict is about the state of things (a deactivated subscription,
 * a completed session, a key reused with another body): sending the same request again cannot
 * help, unless the error says otherwise (a deadlock, a request with the same key still in progress).
 */
export function retryHeaders(error: AppError): [name: string, value: string][] {
  const headers: [string, string][] = [];
  if (error.extra?.retryAfterSeconds !== undefined) headers.push(['retry-after', String(error.extra.retryAfterSeconds)]);
  const shouldRetry = error.extra?.shouldRetry ?? (error.code === 'conflict' ? false : undefined);
  if (shouldRetry !== undefined) headers.push(['x-should-retry', String(shouldRetry)]);
  return headers;
}

const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'validation_error',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'validation_error',
  FST_ERR_CTP_INVALID_JSON_BODY: 'validation_error',
};

const PG_UNAVAILABLE = /^(08|53|57P0[1-3])/; // connection exceptions, insufficient resources, shutdown
const NODE_UNAVAILABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND']);
// Prisma's own codes for the same: can't reach, timed out reaching, the server closed the
// connection (a terminated backend under a transaction), no pool connection in time.
const PRISMA_UNAVAILABLE = new Set(['P1001', 'P1002', 'P1017', 'P2024']);

// A deadlock or serialisation failure between concurrent transactions (PostgreSQL's, or Prisma's
// code for it): nothing was written, and the same request sent again succeeds.
const PG_CONFLICT = new Set(['40P01', '40001', 'P2034']);

/** Finds a concurrency failure (deadlock, serialisation) anywhere in an error's cause chain. */
function isConcurrencyConflict(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 6; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && PG_CONFLICT.has(code)) return true;
    const message = (e as { message?: unknown }).message;
    if (typeof message === 'string' && /Code: `40(P01|001)`|deadlock detected|could not serialize access/.test(message)) return true;
  }
  return false;
}

/** Finds a database-availability failure anywhere in an error's cause chain. */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 6; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (PG_UNAVAILABLE.test(code) || NODE_UNAVAILABLE.has(code) || PRISMA_UNAVAILABLE.has(code))) {
      return true;
    }
    const message = (e as { message?: unknown }).message;
    if (
      typeof message === 'string' &&
      /Connection terminated|not queryable|terminating connection|Server has closed the connection|Code: `(08|53)\w{3}`|Code: `57P0[1-3]`|timeout exceeded when trying to connect|Can't reach database/i.test(
        message,
      )
    ) {
      return true;
    }
  }
  return false;
}

/** A request that failed its schema: 400, every problem in the message (`Invalid input: path: message; …`) and in the details. */
export function invalidInput(error: ZodError): AppError {
  const details = issueDetails(error);
  const summary = details.map((d) => (d.path ? `${d.path}: ${d.message}` : d.message)).join('; ');
  return new AppError('validation_error', `Invalid input: ${summary}`, details);
}

/**
 * Turns anything thrown into an AppError: the one mapping from what failed to what the caller is
 * told, for the REST API and the dashboard alike. `unexpected` errors (internal, and the database's
 * outages and concurrency conflicts) are logged by the surface that answers.
 */
export function toAppError(err: unknown): { appError: AppError; unexpected: boolean } {
  if (err instanceof AppError) return { appError: err, unexpected: false };
  if (err instanceof TRPCError) {
    if (err.cause instanceof AppError) return { appError: err.cause, unexpected: false };
    if (err.cause instanceof ZodError && err.code !== 'BAD_REQUEST') {
      // A procedure's answer failed its own output schema: a fault of the service, not of the request.
      return { appError: new AppError('internal', 'Internal server error'), unexpected: true };
    }
    if (err.cause instanceof ZodError) return { appError: invalidInput(err.cause), unexpected: false };
    if (err.code === 'PARSE_ERROR' || err.code === 'BAD_REQUEST') {
      return { appError: new AppError('validation_error', err.message), unexpected: false };
    }
    if (err.code === 'NOT_FOUND') return { appError: new AppError('not_found', err.message), unexpected: false };
    if (err.code === 'METHOD_NOT_SUPPORTED') return { appError: new AppError('method_not_allowed', err.message), unexpected: false };
    return toAppError(err.cause ?? new Error(err.message));
  }
  if (err instanceof ZodError) return { appError: invalidInput(err), unexpected: false };
  const fastifyError = err as { code?: string; message?: string; statusCode?: number };
  if (fastifyError.code && FASTIFY_CODES[fastifyError.code]) {
    const code = FASTIFY_CODES[fastifyError.code] as ErrorCode;
    return { appError: new AppError(code, fastifyError.message ?? 'Invalid request'), unexpected: false };
  }
  if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    // Other client errors raised by Fastify (malformed JSON, prototype poisoning, bad headers).
    return { appError: new AppError('validation_error', fastifyError.message ?? 'Invalid request'), unexpected: false };
  }
  if (isConcurrencyConflict(err)) {
    return {
      appError: new AppError('conflict', 'The request collided with a concurrent one and was not applied; send it again', undefined, {
        shouldRetry: true,
      }),
      unexpected: true,
    };
  }
  if (isDatabaseUnavailable(err)) {
    return {
      appError: new AppError('service_unavailable', 'The database is unavailable; retry shortly', undefined, {
        retryAfterSeconds: 1,
        shouldRetry: true,
      }),
      unexpected: true,
    };
  }
  return { appError: new AppError('internal', 'Internal server error'), unexpected: true };
}
