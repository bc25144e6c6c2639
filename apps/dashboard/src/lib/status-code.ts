import type { ErrorCode } from '@merma/schema';

/**
 * The contract's error code an HTTP status stands for, when an answer names none (a proxy's 502, a
 * body that is not the contract's). Apart from errors.ts so that the sign-in page, which ships no
 * tRPC client, reads its answers the same way.
 */
export function codeFromStatus(status: number | undefined): ErrorCode | 'unknown' {
  switch (status) {
    case 400:
      return 'validation_error';
    case 401:
      return 'unauthorized';
    case 403:
      return 'forbidden';
    case 404:
      return 'not_found';
    case 409:
      return 'conflict';
    case 429:
      return 'rate_limited';
    default:
      return status !== undefined && status >= 500 ? 'internal' : 'unknown';
  }
}
