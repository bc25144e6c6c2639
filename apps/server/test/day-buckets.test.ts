import { describe, expect, it } from 'vitest';
import { bucketDay } from '../src/modules/records/rollup.js';

/**
 * The day a record counts on in record_day_totals (records/rollup.ts): the local date of when it
 * happened, in the establishment's zone, around midnight and the clock changes (the calendar
 * itself: packages/schema/test/calendar.test.ts).
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
});
