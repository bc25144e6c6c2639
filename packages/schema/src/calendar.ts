/**
 * Calendar dates (`YYYY-MM-DD`), the one JavaScript definition, used by the server and the
 * dashboard alike. A waste record's day is the calendar date of its `occurred_at` in its
 * establishment's time zone (IANA name), never the server's or the browser's. The SQL side has its
 * own one definition (`localDaySql`, apps/server/src/calendar.ts); a test checks that the two agree
 * across both daylight-saving changes, in Madrid and in the Canaries.
 */

const dateFormats = new Map<string, Intl.DateTimeFormat>();

/** The calendar date of an instant in a time zone (formatters are costly: one per zone, kept). */
export function localDate(instant: Date, timeZone: string): string {
  let format = dateFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    dateFormats.set(timeZone, format);
  }
  return format.format(instant);
}

/** A calendar date `days` later (earlier when negative): pure date arithmetic, no time zone involved. */
export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}
