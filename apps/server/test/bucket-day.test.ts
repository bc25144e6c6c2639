import { localDate } from '@merma/schema';
import { describe, expect, it } from 'vitest';
import { bucketDay } from '../src/modules/records/rollup.js';

/**
 * A record's bucket day is `localDate` of its instant in its zone, kept per zone and quarter-hour
 * of UTC (rollup.ts): the kept dates must be `localDate`'s, on both sides of every midnight and
 * clock change, whatever was asked before. (That the SQL side agrees with `localDate` is
 * test/calendar.test.ts.)
 */
describe('a record’s bucket day', () => {
  it("gives each instant its zone's own date on both sides of every midnight and clock change, however the dates are kept", () => {
    // The reference: the one definition, which keeps nothing between calls.
    const reference = (at: number, timeZone: string) => localDate(new Date(at), timeZone);
    const zones = [
      'Europe/Madrid',
      'Atlantic/Canary',
      'America/Santiago', // clocks go back at midnight: 23:59 twice
      'America/St_Johns', // UTC−3:30
      'Asia/Kathmandu', // UTC+5:45
      'Australia/Lord_Howe', // a half-hour daylight-saving change
      'Pacific/Chatham', // UTC+12:45 / +13:45
      'Pacific/Kiritimati', // UTC+14
      'Europe/Amsterdam', // UTC+0:19:32 until 1937: midnight in the middle of a quarter-hour
    ];
    // The days around each zone's clock changes of 2026, and a day of 1936.
    const days = [
      '2026-03-08',
      '2026-03-29',
      '2026-04-05',
      '2026-09-06',
      '2026-09-27',
      '2026-10-04',
      '2026-10-25',
      '2026-11-01',
      '1936-06-01',
    ];
    const SLOT = 15 * 60_000;
    let checked = 0;
    for (const timeZone of zones) {
      for (const day of days) {
        const from = Date.parse(`${day}T00:00:00Z`) - 86_400_000;
        for (let start = from; start < from + 3 * 86_400_000; start += SLOT) {
          // Each quarter-hour's first and last millisecond, its middle, and the seconds around a
          // local midnight that falls inside it (1936 Amsterdam's, at 23:40:28 UTC).
          for (const at of [start, start + SLOT - 1, start + SLOT / 2, start + 9 * 60_000 + 27_999, start + 9 * 60_000 + 28_000]) {
            expect(bucketDay(new Date(at).toISOString(), timeZone), `${new Date(at).toISOString()} in ${timeZone}`).toBe(
              reference(at, timeZone),
            );
            checked++;
          }
        }
      }
    }
    expect(checked).toBe(zones.length * days.length * 3 * 96 * 5);
  });

  it('refuses an invalid instant and an unknown zone, as localDate does', () => {
    expect(() => bucketDay('not a date', 'Europe/Madrid')).toThrow(RangeError);
    expect(() => bucketDay('2026-02-05T12:00:00.000Z', 'Europe/Atlantis')).toThrow(RangeError);
  });
});
