import { DETAIL_CODES, ERROR_CODES, type ErrorCode, type ErrorDetail as ServerDetail } from '@merma/schema';
import { TRPCClientError } from '@trpc/client';
import type { i18n as I18n } from 'i18next';
import { codeFromStatus } from './status-code.ts';

/**
 * A field problem reported by the server (`details` of a validation error): its English `message`,
 * and when the server gives one a `code` with its `params` (@merma/schema's DETAIL_CODES), which
 * `detailText` words in the reader's language.
 */
export type ErrorDetail = ServerDetail;

/** The contract's error codes (`app_code`): each has its words in the message files. */
const KNOWN_CODES = ERROR_CODES;
export type KnownCode = ErrorCode;

export type ErrorInfo = {
  /** The server's `app_code`, `network` when no answer came, `unknown` otherwise. */
  code: KnownCode | 'network' | 'unknown';
  httpStatus: number | undefined;
  /** The server's own (English) message. */
  serverMessage: string | undefined;
  details: ErrorDetail[];
};

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function isDetailCode(value: unknown): value is NonNullable<ErrorDetail['code']> {
  return typeof value === 'string' && (DETAIL_CODES as readonly string[]).includes(value);
}

/**
 * A detail in the reader's language: its code's sentence with its values (on a CSV line, "Line 3:
 * …"), or, for a detail without a code, the field and the server's English message.
 */
export function detailText(i18n: Pick<I18n, 't'>, detail: ErrorDetail): string {
  if (!detail.code) return detail.path ? `${detail.path}: ${detail.message}` : detail.message;
  const params = detail.params ?? {};
  const key = detail.code === 'internal_address' && params.setting ? 'internal_address_setting' : detail.code;
  const text = i18n.t(`errors.details.${key}`, { field: detail.path, ...params });
  return params.line === undefined ? text : i18n.t('errors.details.atLine', { line: params.line, text });
}

function isKnownCode(value: unknown): value is KnownCode {
  return typeof value === 'string' && (KNOWN_CODES as readonly string[]).includes(value);
}

/**
 * A failed call to one of the server's plain HTTP routes outside /trpc (a donation agreement's PDF):
 * its status (none when no answer came) and the error body every route answers with
 * (`{ error, code, details? }`).
 */
export class HttpError extends Error {
  constructor(
    readonly status: number | undefined,
    readonly body: unknown,
  ) {
    super(isRecord(body) && typeof body.error === 'string' ? body.error : `HTTP ${status ?? 'error'}`);
  }
}

/** The field problems of an error body, those this build can read. */
function detailsOf(raw: unknown): ErrorDetail[] {
  if (!Array.isArray(raw)) return [];
  return raw
    .filter((d): d is ErrorDetail => isRecord(d) && typeof d.path === 'string' && typeof d.message === 'string')
    .map(({ path, message, code, params }) => ({
      path,
      message,
      // A code this build does not know (a newer server) is said by its English message.
      ...(isDetailCode(code) ? { code } : {}),
      ...(isRecord(params) ? { params: params as ErrorDetail['params'] } : {}),
    }));
}

/** Reads what a failed call says: a tRPC call's `data.app_code`, `data.httpStatus`, `data.details`, or an `HttpError`'s body. */
export function errorInfo(error: unknown): ErrorInfo {
  if (error instanceof TRPCClientError) {
    const data: unknown = error.data;
    if (!isRecord(data)) return { code: 'network', httpStatus: undefined, serverMessage: undefined, details: [] };
    const httpStatus = typeof data.httpStatus === 'number' ? data.httpStatus : undefined;
    const code = isKnownCode(data.app_code) ? data.app_code : codeFromStatus(httpStatus);
    return { code, httpStatus, serverMessage: error.message || undefined, details: detailsOf(data.details) };
  }
  if (error instanceof HttpError) {
    if (error.status === undefined) return { code: 'network', httpStatus: undefined, serverMessage: undefined, details: [] };
    const body = isRecord(error.body) ? error.body : {};
    const code = isKnownCode(body.code) ? body.code : codeFromStatus(error.status);
    return { code, httpStatus: error.status, serverMessage: error.message, details: detailsOf(body.details) };
  }
  return { code: 'unknown', httpStatus: undefined, serverMessage: undefined, details: [] };
}

export function isUnauthorized(error: unknown): boolean {
  return errorInfo(error).code === 'unauthorized';
}

/** Whether a failed call is worth repeating by itself: no answer, or a server-side failure. */
export function isTransient(error: unknown): boolean {
  const { code, httpStatus } = errorInfo(error);
  return code === 'network' || (httpStatus !== undefined && httpStatus >= 500);
}

/** The translated sentence for an error (the server's details are listed apart). */
export function errorText(i18n: Pick<I18n, 't'>, error: unknown): string {
  return i18n.t(`errors.codes.${errorInfo(error).code}`);
}

/**
 * Thrown by `useMe` when `accounts.me` answers null inside the app (the session ended while a page was
 * open). The query cache sends the browser to sign-in meanwhile (trpc.ts), so the error page shows
 * only the loader, not an error.
 */
export class SignedOutError extends Error {
  constructor() {
    super('The session has ended');
  }
}
