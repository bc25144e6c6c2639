import { Merma } from './client.js';

export type {
  AnalyticsQuery,
  AnalyticsResult,
  BatchItemError,
  BenchmarkingQuery,
  BenchmarkResult,
  Cause,
  ChainVerification,
  CreateRecordInput,
  CreateSessionInput,
  CreateShiftInput,
  CreateWebhookInput,
  Destination,
  Establishment,
  FoodCategory,
  InboundEventInput,
  InboundEventResult,
  ListRecordsQuery,
  ListSessionsQuery,
  Prediction,
  PredictQuery,
  PreventionPlan,
  Product,
  Session,
  Shift,
  UpdateWebhookInput,
  WasteRecord,
  WasteStage,
  WebhookDelivery,
  WebhookEvent,
  WebhookSubscription,
  WebhookSubscriptionWithSecret,
} from '@merma/schema';
export { DEFAULT_BASE_URL, Merma, type MermaOptions } from './client.js';
export {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  InternalServerError,
  MermaError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  ValidationError,
  WebhookVerificationError,
} from './core/errors.js';
export type { RequestOptions } from './core/http.js';
export { Page, PagePromise, type PaginationMeta } from './core/pagination.js';
export type { BatchOptions, BatchProgress, BatchSummary } from './resources/records.js';
export { signWebhook, type VerifyWebhookOptions, verifyWebhook, type WebhookHeaders } from './webhooks.js';
export default Merma;
