import { z } from 'zod';
import {
  DEFAULT_PAGE_LIMIT,
  EDIBLE_PARTS,
  ERROR_CODES,
  EVENT_TYPES,
  FOOD_CATEGORIES,
  HIERARCHY_REASONS,
  INBOUND_EVENT_TYPES,
  MAX_PAGE_LIMIT,
  MAX_PAGE_OFFSET,
  MEASUREMENT_METHODS,
  PERMISSIONS,
  PLANS,
  SECTORS,
  TEST_EVENT_TYPE,
  WASTE_STAGES,
} from './constants.js';

export const FoodCategory = z.enum(FOOD_CATEGORIES).meta({ id: 'FoodCategory' });
export type FoodCategory = z.infer<typeof FoodCategory>;
export const WasteStage = z.enum(WASTE_STAGES).meta({ id: 'WasteStage' });
export type WasteStage = z.infer<typeof WasteStage>;
export const MeasurementMethod = z.enum(MEASUREMENT_METHODS).meta({ id: 'MeasurementMethod' });
export type MeasurementMethod = z.infer<typeof MeasurementMethod>;
export const EdiblePart = z.enum(EDIBLE_PARTS).meta({ id: 'EdiblePart' });
export type EdiblePart = z.infer<typeof EdiblePart>;
export const HierarchyReason = z.enum(HIERARCHY_REASONS).meta({ id: 'HierarchyReason' });
export type HierarchyReason = z.infer<typeof HierarchyReason>;
export const Sector = z.enum(SECTORS).meta({ id: 'Sector' });
export type Sector = z.infer<typeof Sector>;
export const Plan = z.enum(PLANS);
export type Plan = z.infer<typeof Plan>;
export const EventType = z.enum(EVENT_TYPES);
export type EventType = z.infer<typeof EventType>;
/** Every name a delivery can carry: the subscribable events and the test event. */
export const WebhookEventName = z.enum([...EVENT_TYPES, TEST_EVENT_TYPE]);
export type WebhookEventName = z.infer<typeof WebhookEventName>;
export const InboundEventType = z.enum(INBOUND_EVENT_TYPES);
export type InboundEventType = z.infer<typeof InboundEventType>;
export const Permission = z.enum(PERMISSIONS);
export type Permission = z.infer<typeof Permission>;
export const ErrorCode = z.enum(ERROR_CODES);
export type ErrorCode = z.infer<typeof ErrorCode>;

export const Uuid = z.uuid();
/** ISO 8601 UTC timestamp with milliseconds, e.g. `2026-11-23T10:15:30.123Z`. */
export const Timestamp = z.iso.datetime({ precision: 3 });

const NUL = '\u0000';
/**
 * Text that PostgreSQL can store: no NUL characters. Used for every free-text input so that such
 * input is a clear 400, never a database error.
 */
export function text(max: number) {
  return z
    .string()
    .max(max)
    .refine((s) => !s.includes(NUL), { message: 'must not contain NUL characters' });
}

/** A calendar date `YYYY-MM-DD` that exists (2026-02-30 is refused). */
export const IsoDate = z.iso.date();

/** A date (`YYYY-MM-DD`, read in the establishment's time zone) or a full ISO 8601 date-time. */
export const DateOrDateTime = z
  .union([IsoDate, z.iso.datetime({ offset: true })])
  // Year 0000 is valid ISO 8601 but not a PostgreSQL date; nothing before 1900 is a record anyway.
  .refine((v) => Number(v.slice(0, 4)) >= 1900, { message: 'the year must be 1900 or later' });

/** `HH:MM`, 24-hour clock. */
export const TimeOfDay = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be HH:MM (00:00-23:59)');

/** Query-string integer within bounds (query values arrive as strings). */
export function queryInt(min: number, max: number) {
  return z.coerce.number().int().min(min).max(max);
}

export const PaginationQuery = {
  limit: queryInt(1, MAX_PAGE_LIMIT).default(DEFAULT_PAGE_LIMIT),
  offset: queryInt(0, MAX_PAGE_OFFSET).default(0),
};

export const Pagination = z
  .object({
    limit: z.number().int(),
    offset: z.number().int(),
    total: z.number().int(),
    has_more: z.boolean(),
  })
  .meta({ id: 'Pagination' });
export type Pagination = z.infer<typeof Pagination>;
