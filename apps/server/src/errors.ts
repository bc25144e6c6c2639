import type { ErrorCode, ErrorDetail } from '@merma/schema';

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
  payload_too_large: 413,
  unsupported_media_type: 415,
  headers_too_large: 431,
  rate_limited: 429,
  service_unavailable: 503,
  internal: 500,
};

/** The only error domain code throws. One formatter (http/errors.ts) turns it into a response. */
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
