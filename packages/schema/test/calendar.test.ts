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

  it('refuse an invalid date and an unknown zone, as Intl does', () => {
    expect(() => localDate(new Date(Number.NaN), 'Europe/Madrid')).toThrow(RangeError);
    expect(() => localDate(new Date('2026-02-05T12:00:00Z'), 'Europe/Atlantis')).toThrow(RangeError);
  });
});
