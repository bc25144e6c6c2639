// The one error formatter. Every error response of the service, whatever raised it (a procedure,
// zod, Fastify's body parser, auth, the rate limiter, the database), leaves through `sendError`
// with the contract's body (`errorBody`): `{ error, status, timestamp, code, details?, request_id }`,
// or for 429 `{ error, status, resetAt, code, timestamp, request_id }`; what Node refuses before
// Fastify has a request (over-long headers, a timeout, malformed HTTP) through `answerClientError`.
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ErrorBody, ErrorCode, RateLimitErrorBody } from '@merma/schema';
import { TRPCError } from '@trpc/server';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ZodError } from 'zod';
import { AppError, issueDetails } from '../errors.js';

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
function isDatabaseUnavailable(err: unknown): boolean {
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

/** Turns anything thrown into an AppError; unknown errors become `internal` (and are logged). */
export function toAppError(err: unknown): { appError: AppError; unexpected: boolean } {
  if (err instanceof AppError) return { appError: err, unexpected: false };
  if (err instanceof TRPCError) {
    if (err.cause instanceof AppError) return { appError: err.cause, unexpected: false };
    if (err.cause instanceof ZodError && err.code !== 'BAD_REQUEST') {
      // A procedure's answer failed its own output schema: a fault of the service, not of the request.
      return { appError: new AppError('internal', 'Internal server error'), unexpected: true };
    }
    if (err.cause instanceof ZodError) {
      const details = issueDetails(err.cause);
      const summary = details.map((d) => (d.path ? `${d.path}: ${d.message}` : d.message)).join('; ');
      return { appError: new AppError('validation_error', `Invalid input: ${summary}`, details), unexpected: false };
    }
    if (err.code === 'PARSE_ERROR' || err.code === 'BAD_REQUEST') {
      return { appError: new AppError('validation_error', err.message), unexpected: false };
    }
    if (err.code === 'NOT_FOUND') return { appError: new AppError('not_found', err.message), unexpected: false };
    if (err.code === 'METHOD_NOT_SUPPORTED') return { appError: new AppError('method_not_allowed', err.message), unexpected: false };
    return toAppError(err.cause ?? new Error(err.message));
  }
  if (err instanceof ZodError) {
    return { appError: new AppError('validation_error', 'Invalid input', issueDetails(err)), unexpected: false };
  }
  const fastifyError = err as Partial<FastifyError>;
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

/** The body of an error answer: the contract's shape plus `code`, `details` and the request id. */
export function errorBody(error: AppError, requestId: string): ErrorBody | RateLimitErrorBody {
  const timestamp = new Date().toISOString();
  if (error.code === 'rate_limited') {
    return {
      error: error.message,
      status: 429,
      resetAt: (error.extra?.resetAt ?? new Date()).toISOString(),
      code: 'rate_limited',
      timestamp,
      request_id: requestId,
    };
  }
  const body: ErrorBody = { error: error.message, status: error.status, timestamp, code: error.code, request_id: requestId };
  if (error.details?.length) body.details = error.details;
  return body;
}

export function sendError(request: FastifyRequest, reply: FastifyReply, error: AppError): FastifyReply {
  if (error.extra?.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.extra.retryAfterSeconds));
  // A conflict is about the state of things (a deactivated subscription, a completed session, a
  // key reused with another body): sending the same request again cannot help, unless the domain
  // says otherwise (a request with the same key still in progress).
  const shouldRetry = error.extra?.shouldRetry ?? (error.code === 'conflict' ? false : undefined);
  if (shouldRetry !== undefined) reply.header('x-should-retry', String(shouldRetry));
  return reply
    .code(error.status)
    .type('application/json; charset=utf-8')
    .send(JSON.stringify(errorBody(error, request.id)));
}

/**
 * Requests Node refuses before Fastify sees them (Fastify's `clientErrorHandler`): headers over
 * Node's limit (431), a request not complete within the request timeout (408), bytes that are not
 * HTTP (400). There is no request or reply yet, so the answer is written on the socket, with the
 * same body as every other error, the security headers every answer carries, and a request id
 * that the log line shares; then the connection is closed, as Node does. A reset connection gets
 * nothing.
 */
export function answerClientError(this: { log: { debug(obj: object, msg: string): void } }, err: NodeJS.ErrnoException, socket: Duplex) {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const error =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? new AppError('headers_too_large', 'The request headers are larger than the server accepts')
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new AppError('request_timeout', 'The request was not received in time')
        : new AppError('validation_error', 'Malformed HTTP request');
  const requestId = `req_${randomUUID().replaceAll('-', '')}`;
  // Not `err` itself: Node attaches the raw request bytes (`rawPacket`), headers and all — an
  // Authorization header or a session cookie would reach the log.
  this.log.debug(
    { err: { code: err.code, message: err.message }, reqId: requestId, status: error.status },
    'request refused before parsing',
  );
  if (socket.writable) {
    const body = JSON.stringify(errorBody(error, requestId));
    socket.write(
      [
        `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}`,
        'content-type: application/json; charset=utf-8',
        `content-length: ${Buffer.byteLength(body)}`,
        `x-request-id: ${requestId}`,
        'x-content-type-options: nosniff',
        "content-security-policy: default-src 'none'; frame-ancestors 'none'",
        'connection: close',
        '',
        body,
      ].join('\r\n'),
    );
  }
  socket.destroy(err);
}

export function handleError(err: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const { appError, unexpected } = toAppError(err);
  if (unexpected) request.log.error({ err }, 'request failed');
  return sendError(request, reply, appError);
}
