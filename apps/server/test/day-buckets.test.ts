import { addDays, localDate } from '@merma/schema';
import { describe, expect, it } from 'vitest';
import { bucketDay } from '../src/modules/records/rollup.js';

/**
 * The day a record counts on in record_day_totals (records/rollup.ts): the local date of when it
 * happened, in the establishment's zone, around midnight and the clock changes; and the calendar
 * arithmetic of the ranges (@merma/schema's calendar.ts).
 */
describe('day buckets', () => {
  it("put a record on the local date of occurred_at in the establishment's zone", () => {
    // 23:30 UTC is already the next day in Madrid (UTC+1 in winter, +2 in summer), not in the Canaries (UTC+0/+1) in winter.
    expect(bucketDay('2026-01-14T23:30:00.000Z', 'Europe/Madrid')).toBe('2026-01-15');
    expect(bucketDay('2026-01-14T23:30:00.000Z', 'Atlantic/Canary')).toBe('2026-01-14');
    expect(bucketDay('2026-07-14T22:30:00.000Z', 'Europe/Madrid')).toBe('2026-07-15');
    expect(bucketDay('2026-07-14T22:30:00.000Z', 'Atlantic/Canary')).toBe('2026-07-14');
    // The night the clocks go forward (29 March 2026, 02:00 → 03:00 in Madrid) and back (25 October).
    expect(bucketDay('2026-03-28T22:59:59.999Z', 'Europe/Madrid')).toBe('2026-03-28');
    expect(bucketDay('2026-03-28T23:00:00.000Z', 'Europe/Madrid')).toBe('2026-03-29');
    expect(bucketDay('2026-10-24T21:59:59.999Z', 'Europe/Madrid')).toBe('2026-10-24');
    expect(bucketDay('2026-10-24T22:00:00.000Z', 'Europe/Madrid')).toBe('2026-10-25');
    // West of UTC the local date is the day before.
    expect(bucketDay('2026-01-15T03:00:00.000Z', 'America/Mexico_City')).toBe('2026-01-14');
  });

  it('write dates as YYYY-MM-DD, whichever zone was asked first', () => {
    const at = new Date('2026-02-05T12:00:00.000Z');
    expect(localDate(at, 'Asia/Tokyo')).toBe('2026-02-05');
    expect(localDate(at, 'Pacific/Kiritimati')).toBe('2026-02-06');
    expect(localDate(at, 'Pacific/Pago_Pago')).toBe('2026-02-05');
    expect(localDate(new Date('2026-02-05T11:00:00.000Z'), 'Pacific/Pago_Pago')).toBe('2026-02-05');
    expect(localDate(new Date('2026-02-05T10:59:59.000Z'), 'Pacific/Kiritimati')).toBe('2026-02-06');
    expect(localDate(new Date('2026-02-05T09:59:59.000Z'), 'Pacific/Kiritimati')).toBe('2026-02-05');
  });

  it('move calendar dates by whole days across months, years, leap days and clock changes', () => {
    expect(addDays('2026-03-28', 1)).toBe('2026-03-29');
    expect(addDays('2026-03-29', 1)).toBe('2026-03-30');
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(addDays('2026-03-01', -1)).toBe('2026-02-28');
    expect(addDays('2028-03-01', -1)).toBe('2028-02-29');
    expect(addDays('2026-01-31', 30)).toBe('2026-03-02');
    expect(addDays('2026-06-15', -365)).toBe('2025-06-15');
    expect(addDays('2026-06-15', 0)).toBe('2026-06-15');
  });
});
