import { z } from 'zod';
import { IsoDate, text, Uuid } from './common.js';
import { Envelope } from './envelope.js';

/**
 * The opening calendar of an establishment (per mode, as its shifts): the weekdays it is closed
 * every week and its closures (holidays, a winter break, works). The demand forecast leaves closed
 * days out of what it learns from, advises nothing for them, and flags the first days after a
 * closure as uncertain.
 */
export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export const Weekday = z.enum(WEEKDAYS);
export type Weekday = z.infer<typeof Weekday>;

/** Longest closure, in days (both ends included): a closure longer than a year is not a closure. */
export const MAX_CLOSURE_DAYS = 366;
export const MAX_CLOSURE_REASON_LENGTH = 200;

export const Closure = z
  .object({
    id: Uuid,
    starts_on: IsoDate.describe('first closed day (local date)'),
    ends_on: IsoDate.describe('last closed day (local date; the same as `starts_on` for a single day)'),
    reason: z.string().nullable().describe('what the closure is for (a holiday, a winter break); shown in the dashboard'),
    created_at: z.string(),
  })
  .meta({ id: 'Closure' });
export type Closure = z.infer<typeof Closure>;

export const OpeningCalendar = z
  .object({
    closed_weekdays: z.array(Weekday).describe('the weekdays the establishment is closed every week, Monday first'),
    closures: z.array(Closure).describe('closures, the earliest first'),
  })
  .meta({ id: 'OpeningCalendar' });
export type OpeningCalendar = z.infer<typeof OpeningCalendar>;
export const OpeningCalendarResponse = Envelope(OpeningCalendar);

export const SetClosedWeekdaysInput = z
  .strictObject({
    closed_weekdays: z
      .array(Weekday)
      .max(6, 'an establishment closed every day of the week is closed: add a closure instead')
      .refine((days) => new Set(days).size === days.length, 'each weekday once'),
  })
  .meta({ id: 'SetClosedWeekdaysInput' });
export type SetClosedWeekdaysInput = z.input<typeof SetClosedWeekdaysInput>;

const dayNumber = (day: string) => Date.parse(`${day}T00:00:00Z`) / 86_400_000;

export const CreateClosureInput = z
  .strictObject({
    starts_on: IsoDate,
    ends_on: IsoDate,
    reason: text(MAX_CLOSURE_REASON_LENGTH)
      .trim()
      .transform((s) => (s === '' ? null : s))
      .nullable()
      .optional(),
  })
  .refine((c) => c.ends_on >= c.starts_on, { message: 'must not be before starts_on', path: ['ends_on'] })
  .refine((c) => dayNumber(c.ends_on) - dayNumber(c.starts_on) < MAX_CLOSURE_DAYS, {
    message: `a closure lasts at most ${MAX_CLOSURE_DAYS} days`,
    path: ['ends_on'],
  })
  .meta({ id: 'CreateClosureInput' });
export type CreateClosureInput = z.input<typeof CreateClosureInput>;
export const ClosureResponse = Envelope(Closure);

export const ClosureIdParams = z.strictObject({ id: Uuid });
export const DeletedClosureResponse = Envelope(z.object({ id: Uuid, deleted: z.literal(true) }));
