import { DEFAULT_RANGE_DAYS } from '@merma/schema';
import type { Sql } from '../../db/sql.js';
import { validationError } from '../../errors.js';

/**
 * Date ranges of queries, read in the establishment's time zone. A date (`YYYY-MM-DD`) covers that
 * whole local day (`to` included); a full ISO date-time is taken as it is. Shared by the record list
 * and the analytics so that both read dates the same way.
 */
export const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
export const MAX_RANGE_DAYS = 3 * 366;

/** Positional parameters for hand-written SQL: `add(value)` returns its placeholder. */
export function sqlParams() {
  const values: unknown[] = [];
  return { values, add: (value: unknown) => `$${values.push(value)}` };
}
export type SqlParams = ReturnType<typeof sqlParams>;

/** SQL for a `from` bound: a date is midnight in the establishment's zone; a date-time is itself. */
export function lowerBoundSql(value: string, timezone: string, p: SqlParams): string {
  return DATE_ONLY.test(value) ? `((${p.add(value)}::date)::timestamp AT TIME ZONE ${p.add(timezone)})` : `${p.add(value)}::timestamptz`;
}

/** SQL for the exclusive end of a `to` bound: a date includes that whole day in the establishment's zone. */
export function upperBoundSql(value: string, timezone: string, p: SqlParams): string {
  return DATE_ONLY.test(value)
    ? `((${p.add(value)}::date + 1)::timestamp AT TIME ZONE ${p.add(timezone)})`
    : `${p.add(value)}::timestamptz`;
}

const dateFormats = new Map<string, Intl.DateTimeFormat>();

/** Local calendar date of `now` in a time zone, `YYYY-MM-DD` (formatters are costly: one per zone). */
export function localDate(now: Date, timezone: string): string {
  let format = dateFormats.get(timezone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', { timeZone: timezone, year: 'numeric', month: '2-digit', day: '2-digit' });
    dateFormats.set(timezone, format);
  }
  return format.format(now);
}

export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** `from`/`to` with the defaults (the last 30 days up to today, local), checked for order and length. */
export async function resolveRange(
  pool: Sql,
  query: { from?: string | undefined; to?: string | undefined },
  now: Date,
  timezone: string,
  maxDays?: number,
): Promise<{ from: string; to: string }> {
  const today = localDate(now, timezone);
  const to = query.to ?? today;
  const from = query.from ?? addDays(DATE_ONLY.test(to) ? to : today, -DEFAULT_RANGE_DAYS);
  const p = sqlParams();
  let spanDays: number;
  let ordered: boolean;
  if (DATE_ONLY.test(from) && DATE_ONLY.test(to)) {
    ordered = from <= to;
    spanDays = (Date.parse(to) - Date.parse(from)) / 86_400_000 + 1;
  } else if (!DATE_ONLY.test(from) && !DATE_ONLY.test(to)) {
    ordered = Date.parse(from) < Date.parse(to);
    spanDays = (Date.parse(to) - Date.parse(from)) / 86_400_000;
  } else {
    const { rows } = await pool.query<{ days: number }>(
      `SELECT extract(epoch FROM ${upperBoundSql(to, timezone, p)} - ${lowerBoundSql(from, timezone, p)})::float8 / 86400 AS days`,
      p.values,
    );
    spanDays = rows[0]?.days ?? 0;
    ordered = spanDays > 0;
  }
  if (!ordered) throw validationError('`from` must be before `to`', [{ path: 'from', message: 'must be before `to`' }]);
  if (maxDays !== undefined && spanDays > maxDays) {
    throw validationError(`The range may cover at most ${maxDays} days`, [{ path: 'from', message: `range longer than ${maxDays} days` }]);
  }
  return { from, to };
}

const offsetFormats = new Map<string, Intl.DateTimeFormat>();

/** Noon of a calendar date in a time zone, as an ISO date-time with that zone's offset then. */
export function localNoon(date: string, timezone: string): string {
  let format = offsetFormats.get(timezone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-GB', { timeZone: timezone, timeZoneName: 'longOffset' });
    offsetFormats.set(timezone, format);
  }
  const name = format.formatToParts(new Date(`${date}T12:00:00Z`)).find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
  const offset = name === 'GMT' ? 'Z' : name.slice(3);
  return `${date}T12:00:00${offset}`;
}
