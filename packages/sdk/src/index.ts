import { Merma } from './client.js';

export { type CheckpointKey, type CheckpointKeySet, checkpointMessage, verifyCheckpoint } from './checkpoints.js';
export { DEFAULT_BASE_URL, type GenericRequestOptions, Merma, type MermaOptions } from './client.js';
export { APIPromise, type APIResponse, type WithRequestId } from './core/api-promise.js';
export {
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
} from './core/errors.js';
export type { ClientEvents, FetchOptions, RequestEvent, RequestOptions, ResponseEvent } from './core/http.js';
export type { Logger, LogLevel } from './core/log.js';
export { Page, PagePromise, type PaginationMeta } from './core/pagination.js';
export { VERSION } from './core/version.js';
// Every request, response and event shape, as plain types (generated from the API's schemas).
export type * from './generated/api-types.js';
export type { ProductsQuery } from './resources/catalog.js';
export type { DemandQuery } from './resources/insights.js';
export type { PhotoContentType } from './resources/photos.js';
export type { BatchOptions, BatchProgress, BatchRecord, BatchSummary } from './resources/records.js';
export type { InboundConnector, InboundEvent, InboundPayloads, SalesInput } from './resources/webhooks.js';
export {
  signWebhook,
  type UnknownWebhookEvent,
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookHeaders,
} from './webhooks.js';
export default Merma;
