/** How the signing page writes figures and dates, in the reader's locale. */

export const formatNumber = (locale: string, value: number): string =>
  new Intl.NumberFormat(locale, { maximumFractionDigits: 3 }).format(value);

/** A calendar day (`2026-12-20`) as written in `locale`, the same day wherever the browser is. */
export function formatDay(locale: string, day: string): string {
  const date = new Date(`${day}T00:00:00Z`);
  if (Number.isNaN(date.getTime())) return day;
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' }).format(date);
}

/** A moment (`2026-12-03T10:00:00.000Z`) in the browser's own time, as written in `locale`. */
export function formatMoment(locale: string, timestamp: string): string {
  const date = new Date(timestamp);
  if (Number.isNaN(date.getTime())) return timestamp;
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(date);
}

/** An amount of euros, as written in `locale` (`1.234,56 €`, `€1,234.56`). */
export const formatEuros = (locale: string, value: number): string =>
  new Intl.NumberFormat(locale, { style: 'currency', currency: 'EUR' }).format(value);

/** A calendar day without its year (`12 mar`), where the year is said once for all (a year's certificate). */
export function formatDayOfYear(locale: string, day: string): string {
  const date = new Date(`${day}T00:00:00Z`);
  if (Number.isNaN(date.getTime())) return day;
  return new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'short', timeZone: 'UTC' }).format(date);
}
