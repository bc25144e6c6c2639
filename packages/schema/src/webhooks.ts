import { secretProblem } from '@merma/signing';
import { z } from 'zod';
import { EventType, InboundEventType, PaginationQuery, Timestamp, text, Uuid, WebhookEventName } from './common.js';
import { DEFAULT_SECRET_GRACE_PERIOD_SECONDS, MAX_SECRET_GRACE_PERIOD_SECONDS, WEBHOOK_RESPONSE_BODY_MAX_BYTES } from './constants.js';
import { Envelope, ListEnvelope } from './envelope.js';
import { SalesSummary } from './sales.js';

/**
 * An outbound webhook subscription. Its secret is returned only when it is created and when the
 * secret is rotated.
 */
export const WebhookSubscription = z
  .object({
    id: Uuid,
    url: z.string(),
    events: z.array(EventType),
    status: z.enum(['active', 'deactivated']),
    description: z.string().nullable(),
    consecutive_failures: z.number().int(),
    created_at: Timestamp,
    deactivated_at: Timestamp.nullable(),
    deactivation_reason: z
      .enum(['gone', 'failures'])
      .nullable()
      .describe(
        'why it was deactivated (at `deactivated_at`): `gone`, the receiver answered 410 Gone (one answer is enough, as Standard Webhooks asks); `failures`, 5 deliveries in a row failed after all their retries. Null while active, and for one deactivated before the reason was kept',
      ),
    previous_secret_expires_at: Timestamp.nullable().describe(
      'while a rotated-out secret still signs deliveries (alongside the current one), when it stops; null when none does',
    ),
  })
  .meta({ id: 'WebhookSubscription' });
export type WebhookSubscription = z.infer<typeof WebhookSubscription>;

export const WebhookSubscriptionWithSecret = WebhookSubscription.extend({
  secret: z.string().describe('signing secret; shown only in this response'),
}).meta({ id: 'WebhookSubscriptionWithSecret' });
export type WebhookSubscriptionWithSecret = z.infer<typeof WebhookSubscriptionWithSecret>;

const WebhookUrl = z.url({ protocol: /^https?$/ }).max(2048);

/**
 * A signing secret the customer brings. Only secrets every Standard Webhooks library decodes the
 * same way are accepted (`secretProblem` in @merma/signing says why another is not); secrets stored
 * before this rule keep signing as they did.
 */
export const WebhookSecret = z
  .string()
  .superRefine((secret, ctx) => {
    const problem = secretProblem(secret);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .describe(
    'your own signing secret: `whsec_` followed by standard, padded base64 of 24 to 64 random bytes (e.g. `whsec_` + base64 of 32 bytes from a CSPRNG), so that every Standard Webhooks library derives the same key; generated when omitted. Anything else is refused with 400',
  );

export const CreateWebhookInput = z
  .strictObject({
    url: WebhookUrl,
    events: z.array(EventType).min(1),
    secret: WebhookSecret.optional(),
    description: text(200).nullish(),
  })
  .meta({ id: 'CreateWebhookInput' });
export type CreateWebhookInput = z.input<typeof CreateWebhookInput>;

export const UpdateWebhookInput = z
  .strictObject({
    id: Uuid,
    url: WebhookUrl.optional(),
    events: z.array(EventType).min(1).optional(),
    description: text(200).nullish(),
  })
  .meta({ id: 'UpdateWebhookInput' });
export type UpdateWebhookInput = z.input<typeof UpdateWebhookInput>;

export const WebhookIdParams = z.strictObject({ id: Uuid });
export const WebhookDeliveryParams = z.strictObject({ id: Uuid, delivery_id: Uuid });

/** One HTTP attempt of a delivery. */
export const WebhookDeliveryAttempt = z
  .object({
    attempt: z.number().int().describe('1 for the first attempt'),
    attempted_at: Timestamp,
    response_status: z
      .number()
      .int()
      .nullable()
      .describe('HTTP status of the answer; null when none came (timeout, connection error, refused address)'),
    duration_ms: z.number().int(),
    error: z.string().nullable(),
    next_attempt_at: Timestamp.nullable().describe('when the next automatic attempt is due; null when none will follow'),
    response_body: z
      .string()
      .nullable()
      .describe(
        `the start of the receiver's answer, as text: at most ${WEBHOOK_RESPONSE_BODY_MAX_BYTES} bytes (longer answers are cut, and \`response_body_truncated\` says so), with the values of our own signature headers replaced by \`[redacted]\`; null when no answer came, and for attempts made before answers were kept`,
      ),
    response_body_truncated: z.boolean().describe('whether the answer was longer than what `response_body` keeps'),
  })
  .meta({ id: 'WebhookDeliveryAttempt' });
export type WebhookDeliveryAttempt = z.infer<typeof WebhookDeliveryAttempt>;

/**
 * An event sent (or to be sent) to a subscription, with every attempt. `attempt`, `response_status`,
 * `duration_ms` and `error` repeat the latest attempt; `attempts` lists them all, oldest first.
 */
export const WebhookDelivery = z
  .object({
    id: Uuid,
    event_id: Uuid,
    event: WebhookEventName,
    attempt: z.number().int().describe('attempts made so far'),
    status: z.enum(['pending', 'succeeded', 'failed']),
    response_status: z.number().int().nullable(),
    duration_ms: z.number().int().nullable(),
    error: z.string().nullable(),
    created_at: Timestamp,
    next_attempt_at: Timestamp.nullable(),
    payload: z
      .record(z.string(), z.unknown())
      .describe('the body sent (or to be sent): `{ event, timestamp, data }`, as the receiver gets it'),
    attempts: z.array(WebhookDeliveryAttempt),
  })
  .meta({ id: 'WebhookDelivery' });
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

export const ListDeliveriesQuery = z.strictObject({ id: Uuid, ...PaginationQuery });

/**
 * Body of `POST /api/v1/webhooks/{id}/rotate-secret` (Standard Webhooks rotation). The new secret
 * signs at once; the one it replaces keeps signing beside it for `grace_period_seconds`, so a
 * receiver can switch secrets without dropping a delivery. Only one previous secret is kept:
 * rotating again within the grace period drops the oldest one.
 */
export const RotateWebhookSecretInput = z
  .strictObject({
    id: Uuid,
    secret: WebhookSecret.optional(),
    grace_period_seconds: z
      .number()
      .int()
      .min(0)
      .max(MAX_SECRET_GRACE_PERIOD_SECONDS)
      .default(DEFAULT_SECRET_GRACE_PERIOD_SECONDS)
      .describe(
        'how long the secret being replaced keeps signing deliveries beside the new one (seconds, up to 7 days; default 1 day). 0 drops it at once. Only one previous secret is kept: rotating again within this period drops the older one',
      ),
  })
  .meta({ id: 'RotateWebhookSecretInput' });
export type RotateWebhookSecretInput = z.input<typeof RotateWebhookSecretInput>;

/** A date-time in a body; PostgreSQL has no year 0, and nothing was delivered before 1900. */
const Instant = z.iso
  .datetime({ offset: true })
  .refine((v) => Number(v.slice(0, 4)) >= 1900, { message: 'the year must be 1900 or later' });

/**
 * Body of `POST /api/v1/webhooks/{id}/recover` (as Svix's recover): resends every failed delivery
 * created in [since, until).
 */
export const RecoverWebhookInput = z
  .strictObject({
    id: Uuid,
    since: Instant.describe('resend failed deliveries created at or after this moment (ISO 8601 date-time)'),
    until: Instant.optional().describe('… and before this moment; default now. Must be after `since`'),
  })
  .meta({ id: 'RecoverWebhookInput' });
export type RecoverWebhookInput = z.input<typeof RecoverWebhookInput>;

export const RecoverWebhookResult = z
  .object({
    recovered: z.number().int().describe('failed deliveries set to be sent again'),
    since: Timestamp,
    until: Timestamp,
  })
  .meta({ id: 'RecoverWebhookResult' });
export type RecoverWebhookResult = z.infer<typeof RecoverWebhookResult>;

export const WebhookResponse = Envelope(WebhookSubscription);
export const WebhookCreatedResponse = Envelope(WebhookSubscriptionWithSecret);
/** The subscription with its new secret, shown only in this response. */
export const WebhookSecretRotatedResponse = Envelope(WebhookSubscriptionWithSecret);
export const RecoverWebhookResponse = Envelope(RecoverWebhookResult);
export const ListWebhooksResponse = Envelope(z.array(WebhookSubscription));
export const ListDeliveriesResponse = ListEnvelope(WebhookDelivery);
export const WebhookDeliveryResponse = Envelope(WebhookDelivery);
export const DeletedResponse = Envelope(z.object({ id: Uuid, deleted: z.literal(true) }));

/** Body of `POST /api/v1/webhooks/inbound`. The payload is checked per event and connector. */
export const InboundEventInput = z
  .strictObject({
    event: InboundEventType,
    payload: z.record(z.string(), z.unknown()),
    connector: z.string().max(50).optional(),
  })
  .meta({ id: 'InboundEventInput' });
export type InboundEventInput = z.input<typeof InboundEventInput>;

export const InboundEventResult = z
  .object({
    event_id: Uuid,
    status: z.enum(['processed', 'duplicate']).describe('`duplicate`: already received, nothing new stored'),
    record_id: Uuid.nullable().describe('the record a waste event created or corrected; null for sales'),
    sales: SalesSummary.optional().describe('`sales.recorded`: what was stored'),
  })
  .meta({ id: 'InboundEventResult' });
export type InboundEventResult = z.infer<typeof InboundEventResult>;
export const InboundEventResponse = Envelope(InboundEventResult);
