import { z } from 'zod';
import { ErrorCode, Pagination, Timestamp } from './common.js';
import { DETAIL_CODES } from './constants.js';

/** Success envelope: `{ success: true, data, timestamp }`. */
export function Envelope<T extends z.ZodType>(data: T) {
  return z.object({ success: z.literal(true), data, timestamp: Timestamp });
}

/** Paginated list envelope: `{ success: true, data: [...], meta: { pagination }, timestamp }`. */
export function ListEnvelope<T extends z.ZodType>(item: T) {
  return z.object({
    success: z.literal(true),
    data: z.array(item),
    meta: z.object({ pagination: Pagination }),
    timestamp: Timestamp,
  });
}

export const DetailCode = z.enum(DETAIL_CODES);
export type DetailCode = z.infer<typeof DetailCode>;

export const ErrorDetail = z
  .object({
    path: z.string(),
    message: z.string(),
    code: DetailCode.optional().describe('what the problem is, for clients that word it themselves (see DETAIL_CODES)'),
    params: z
      .record(z.string(), z.union([z.string(), z.number()]))
      .optional()
      .describe("the values the code's sentence needs (`line`, `field`, `value`, `max`…)"),
  })
  .meta({ id: 'ErrorDetail' });
export type ErrorDetail = z.infer<typeof ErrorDetail>;

/**
 * Error body for 400, 401, 403, 404, 405, 408, 409, 413, 415, 431, 500 and 503: the contract's
 * `{ error, status, timestamp }` plus a machine-readable `code`, validation `details` and the request id.
 */
export const ErrorBody = z
  .object({
    error: z.string(),
    status: z.number().int(),
    timestamp: Timestamp,
    code: ErrorCode,
    details: z.array(ErrorDetail).optional(),
    request_id: z.string().optional(),
  })
  .meta({ id: 'Error' });
export type ErrorBody = z.infer<typeof ErrorBody>;

/** 429 body: the contract's `{ error, status, resetAt }` plus `code`, `timestamp` and the request id. */
export const RateLimitErrorBody = z
  .object({
    error: z.string(),
    status: z.literal(429),
    resetAt: Timestamp,
    code: z.literal('rate_limited'),
    timestamp: Timestamp,
    request_id: z.string().optional(),
  })
  .meta({ id: 'RateLimitError' });
export type RateLimitErrorBody = z.infer<typeof RateLimitErrorBody>;
