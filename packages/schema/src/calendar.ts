/**
 * Calendar dates (`YYYY-MM-DD`), the one JavaScript definition, used by the server and the
 * dashboard alike. A waste record's day is the calendar date of its `occurred_at` in its
 * establishment's time zone (IANA name), never the server's or the browser's. The SQL side has its
 * own one definition (`localDaySql`, apps/server/src/calendar.ts); a test checks that the two agree
 * across both daylight-saving changes, in Madrid and in the Canaries.
 */

const dateFormats = new Map<string, Intl.DateTimeFormat>();

function formatOf(timeZone: string): Intl.DateTimeFormat {
  let format = dateFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    dateFormats.set(timeZone, format);
  }
  return format;
}

/** A quarter of an hour: every UTC offset in use is a whole number of them, and so is every local midnight. */
const SLOT_MS = 15 * 60_000;
/** Slots remembered per zone before that zone's are forgotten (a month of quarter-hours, ~3,000). */
const SLOTS_KEPT = 31 * 96;
/** Per zone, the local date of each quarter-hour of UTC whose start and end fall on the same date. */
const slotDates = new Map<string, Map<number, string>>();

/**
 * The calendar date of an instant in a time zone. Formatting a date is costly (a record's day is
 * one on every write, 500 for a batch), so the date is kept per zone for the quarter-hour of UTC
 * the instant falls in, when the quarter-hour's first and last millisecond have the same local
 * date; a quarter-hour that a midnight or a clock change would split (none in today's zones, but a
 * zone's rules may change) is formatted for each instant, never guessed.
 */
export function localDate(instant: Date, timeZone: string): string {
  const time = instant.getTime();
  const slot = Math.floor(time / SLOT_MS);
  let slots = slotDates.get(timeZone);
  const kept = slots?.get(slot);
  if (kept !== undefined) return kept;
  const format = formatOf(timeZone); // throws RangeError for an unknown zone, as Intl does
  if (!Number.isFinite(time)) return format.format(instant); // and for an invalid date
  const start = slot * SLOT_MS;
  const first = format.format(start);
  if (first !== format.format(start + SLOT_MS - 1)) return format.format(instant);
  if (!slots || slots.size >= SLOTS_KEPT) {
    slots = new Map();
    slotDates.set(timeZone, slots);
  }
  slots.set(slot, first);
  return first;
}

/** A calendar date `days` later (earlier when negative): pure date arithmetic, no time zone involved. */
export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}
