// The one error formatter. Every error response of the service, whatever raised it (a procedure,
// zod, Fastify's body parser, auth, the rate limiter, the database), leaves through `sendError`
// with the contract's body (`errorBody`): `{ error, status, timestamp, code, details?, request_id }`,
// or for 429 `{ error, status, resetAt, code, timestamp, request_id }`; what Node refuses before
// Fastify has a request (over-long headers, a timeout, malformed HTTP) through `answerClientError`.
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ErrorBody, RateLimitErrorBody } from '@merma/schema';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, retryHeaders, toAppError } from '../errors.js';

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
  for (const [name, value] of retryHeaders(error)) reply.header(name, value);
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
 * that the log line shares; then the connection is closed (`lingerThenClose`). A reset connection
 * gets nothing.
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
  if (!socket.writable) {
    socket.destroy(err);
    return;
  }
  const body = JSON.stringify(errorBody(error, requestId));
  socket.end(
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
  lingerThenClose(socket);
}

/** How long a refused connection is read and dropped, after its answer, before it is closed. */
const LINGER_MS = 2_000;

/**
 * A lingering close, as nginx and Apache do it: the client may still be sending (a trickled
 * header, the rest of a body). Closing at once with its bytes unread makes the kernel answer with
 * a reset, which can reach the client before the answer and erase it. So the answer has gone with
 * a FIN (`end`); what still arrives is read and dropped, never parsed; and the connection is
 * destroyed when the client closes it, or after LINGER_MS.
 */
function lingerThenClose(socket: Duplex) {
  socket.removeAllListeners('data');
  socket.on('data', () => {});
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}

export function handleError(err: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const { appError, unexpected } = toAppError(err);
  if (unexpected) request.log.error({ err }, 'request failed');
  return sendError(request, reply, appError);
}
