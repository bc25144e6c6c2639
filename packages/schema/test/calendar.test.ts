import { describe, expect, it } from 'vitest';
import { addDays, localDate } from '../src/calendar.js';

/**
 * The calendar the server and the dashboard share: the local date of an instant in a time zone,
 * and whole-day arithmetic on dates. (That PostgreSQL's local day agrees with this one is checked
 * on a database: apps/server/test/calendar.test.ts.)
 */
describe('calendar dates', () => {
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

  it("give each instant its zone's own date on both sides of every midnight and clock change, however the dates are kept", () => {
    // The reference: Intl's own formatting of each instant, nothing kept between calls.
    const formats = new Map<string, Intl.DateTimeFormat>();
    const reference = (at: number, timeZone: string) => {
      let format = formats.get(timeZone);
      if (!format) {
        format = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
        formats.set(timeZone, format);
      }
      return format.format(at);
    };
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
            expect(localDate(new Date(at), timeZone), `${new Date(at).toISOString()} in ${timeZone}`).toBe(reference(at, timeZone));
            checked++;
          }
        }
      }
    }
    expect(checked).toBe(zones.length * days.length * 3 * 96 * 5);
  });

  it('refuse an invalid date and an unknown zone, as Intl does', () => {
    expect(() => localDate(new Date(Number.NaN), 'Europe/Madrid')).toThrow(RangeError);
    expect(() => localDate(new Date('2026-02-05T12:00:00Z'), 'Europe/Atlantis')).toThrow(RangeError);
  });
});
