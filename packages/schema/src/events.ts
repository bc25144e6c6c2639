import { z } from 'zod';
import { EventType, FoodCategory, Timestamp, Uuid } from './common.js';

/** `data` of a `record.created` event. */
export const RecordCreatedEventData = z.object({
  id: Uuid,
  establishment_id: Uuid,
  food_category: FoodCategory,
  weight_kg: z.number(),
  created_at: Timestamp,
  cause: z.string().nullable(),
  destination: z.string(),
});
export type RecordCreatedEventData = z.infer<typeof RecordCreatedEventData>;

/** Body of every outbound webhook delivery. */
export const WebhookEvent = z.object({
  event: EventType,
  timestamp: Timestamp,
  data: z.record(z.string(), z.unknown()),
});
export type WebhookEvent = z.infer<typeof WebhookEvent>;
