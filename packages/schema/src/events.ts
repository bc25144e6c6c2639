import { z } from 'zod';
import { EdiblePart, FoodCategory, HierarchyReason, IsoDate, MeasurementMethod, Plan, Timestamp, Uuid, WasteStage } from './common.js';
import { DonationEventData } from './donation-handover.js';

/**
 * `data` of `record.created` and `record.updated`: the stored record's fields an ERP files it with
 * (ids of its destination, cause, product and shift, notes, mode) plus the names of its cause and
 * destination, rendered from the record when each delivery is sent.
 */
export const RecordEventData = z.object({
  id: Uuid,
  establishment_id: Uuid,
  food_category: FoodCategory,
  weight_kg: z.number(),
  livemode: z.boolean().describe('true for live data (svc_live_ keys), false for test data'),
  created_at: Timestamp,
  occurred_at: Timestamp.optional().describe('when the waste happened (absent in events sent before it existed)'),
  destino_id: Uuid.describe('id of the destination (GET /api/v1/destinos)'),
  causa_id: Uuid.nullable().describe('id of the cause (GET /api/v1/causas)'),
  cause: z.string().nullable().describe('name of the cause'),
  destination: z.string().describe('name of the destination'),
  product_id: Uuid.nullable().describe('the product of the catalogue the record is of, when it named one'),
  product_name: z.string().nullable().describe("the record's free-text product name, as stored (GET /api/v1/records)"),
  shift_id: Uuid.nullable(),
  notes: z.string().nullable(),
  waste_stage: WasteStage.nullable().optional(),
  record_hash: z.string().optional(),
  supersedes_id: Uuid.nullable().optional().describe('record.updated: the record this version corrects'),
  voided: z.literal(true).optional().describe('record.updated: present when this correction voids the record it supersedes (an undo)'),
  measurement_method: MeasurementMethod.optional().describe('how the weight was obtained, when the record said'),
  scale_id: z.string().optional().describe('the scale that weighed it, when named'),
  estimated: z.boolean().optional().describe('whether the weight is an estimate, when the record or its method said'),
  edible: EdiblePart.optional(),
  tare_kg: z.number().optional().describe('the packaging left out of `weight_kg`, when weighed with it'),
  hierarchy_reason: HierarchyReason.optional().describe('why it went to a lower step of the hierarchy, when said'),
  hierarchy_note: z.string().optional(),
  transfer_document_ref: z.string().optional().describe('the waste transfer document it was handed over with, when said'),
});
export type RecordEventData = z.infer<typeof RecordEventData>;
/** Kept for readability at call sites: record.created carries RecordEventData. */
export const RecordCreatedEventData = RecordEventData;
export type RecordCreatedEventData = RecordEventData;

export const SessionCompletedEventData = z.object({
  id: Uuid,
  establishment_id: Uuid,
  name: z.string(),
  record_count: z.number().int(),
  total_kg: z.number(),
  started_at: Timestamp,
  completed_at: Timestamp,
});

export const SubscriptionEventData = z.object({
  organization_id: Uuid,
  plan: Plan.nullable(),
  previous_plan: Plan.nullable(),
  status: z.enum(['active', 'canceled']),
});

export const AlertEventData = z.object({
  establishment_id: Uuid,
  food_category: FoodCategory,
  date: z.string(),
  total_kg: z.number(),
  baseline_kg: z.number(),
  threshold_kg: z.number(),
  z_score: z.number().nullable(),
});

export const PlanGeneratedEventData = z.object({
  establishment_id: Uuid,
  plan_id: Uuid,
  period: z.string(),
  generated_at: Timestamp,
});

/** One line an integration could not store, as kept for the Integrations page (`IntegrationRefusedLine`). */
export const RefusedLineEventItem = z.object({
  id: Uuid,
  order_ref: z.string().nullable().describe("the vendor's order id (Square order, Odoo pos.order)"),
  line_ref: z.string().describe("the vendor's line id (Square `order:uid`, Odoo `pos.order.line:<id>`)"),
  item_ref: z.string().nullable().describe("the vendor's item id (Square catalog variation, Odoo product id); null for a custom amount"),
  item_name: z.string().nullable(),
  reason: z.string(),
  mappable: z.boolean().describe('mapping the item to a product in the dashboard stores it'),
});

/**
 * `data` of `integration.lines_refused`: lines a Square or Odoo integration received and could not
 * store (an item no product maps to, a custom amount, an order without its state), sent once per
 * read of the vendor that refused new ones; `lines` holds the first 50 of them.
 */
export const IntegrationLinesRefusedEventData = z.object({
  establishment_id: Uuid,
  integration_id: Uuid,
  kind: z.enum(['square', 'odoo']),
  refused: z.number().int().describe('lines newly refused by this read'),
  open_refused: z.number().int().describe('lines of the integration kept unresolved, these included'),
  lines: z.array(RefusedLineEventItem),
});

/**
 * `data` of `agreement.expiring`: a donation agreement without automatic renewal whose last day in
 * force is 30 days away or less, sent once per agreement and `valid_until` to each establishment it
 * covers (live mode: agreements are legal facts, not test data).
 */
export const AgreementExpiringEventData = z.object({
  establishment_id: Uuid,
  agreement_id: Uuid,
  entity_id: Uuid,
  entity_name: z.string(),
  valid_until: IsoDate.describe('last day in force'),
  days_left: z.number().int().describe('days from today (Europe/Madrid) to valid_until'),
});

/** `data` of `webhook.test`, sent by `POST /api/v1/webhooks/{id}/test`. */
export const TestEventData = z.object({
  subscription_id: Uuid,
  establishment_id: Uuid,
  message: z.string(),
});

const event = <N extends string, D extends z.ZodType>(name: N, data: D) => z.object({ event: z.literal(name), timestamp: Timestamp, data });

/** Body of every outbound webhook delivery: `{ event, timestamp, data }`, typed by event name. */
export const WebhookEvent = z.discriminatedUnion('event', [
  event('record.created', RecordEventData),
  event('record.updated', RecordEventData),
  event('session.completed', SessionCompletedEventData),
  event('subscription.changed', SubscriptionEventData),
  event('subscription.canceled', SubscriptionEventData),
  event('alert.spike_detected', AlertEventData),
  event('alert.triggered', AlertEventData),
  event('plan.generated', PlanGeneratedEventData),
  event('integration.lines_refused', IntegrationLinesRefusedEventData),
  event('agreement.expiring', AgreementExpiringEventData),
  event('donation.offered', DonationEventData),
  event('donation.accepted', DonationEventData),
  event('donation.refused', DonationEventData),
  event('donation.received', DonationEventData),
  event('webhook.test', TestEventData),
]);
export type WebhookEvent = z.infer<typeof WebhookEvent>;
