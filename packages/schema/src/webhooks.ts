import { z } from 'zod';
import { EventType, InboundEventType, PaginationQuery, Timestamp, text, Uuid, WebhookEventName } from './common.js';
import { Envelope, ListEnvelope } from './envelope.js';

/** An outbound webhook subscription. The secret is returned once, when it is created. */
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
  })
  .meta({ id: 'WebhookSubscription' });
export type WebhookSubscription = z.infer<typeof WebhookSubscription>;

export const WebhookSubscriptionWithSecret = WebhookSubscription.extend({
  secret: z.string().describe('signing secret; shown only in this response'),
}).meta({ id: 'WebhookSubscriptionWithSecret' });
export type WebhookSubscriptionWithSecret = z.infer<typeof WebhookSubscriptionWithSecret>;

const WebhookUrl = z.url({ protocol: /^https?$/ }).max(2048);

export const CreateWebhookInput = z
  .strictObject({
    url: WebhookUrl,
    events: z.array(EventType).min(1),
    secret: z.string().min(24).max(256).optional().describe('your own signing secret (at least 24 characters); generated when omitted'),
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
    attempts: z.array(WebhookDeliveryAttempt),
  })
  .meta({ id: 'WebhookDelivery' });
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

export const ListDeliveriesQuery = z.strictObject({ id: Uuid, ...PaginationQuery });
export const WebhookResponse = Envelope(WebhookSubscription);
export const WebhookCreatedResponse = Envelope(WebhookSubscriptionWithSecret);
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
  .object({ event_id: Uuid, status: z.enum(['processed', 'duplicate']), record_id: Uuid.nullable() })
  .meta({ id: 'InboundEventResult' });
export type InboundEventResult = z.infer<typeof InboundEventResult>;
export const InboundEventResponse = Envelope(InboundEventResult);
