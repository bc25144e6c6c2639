import { addDays, DEFAULT_RANGE_DAYS, localDate } from '@merma/schema';
import { type Sql, type SqlParams, sqlParams } from './db/sql.js';
import { validationError } from './errors.js';

/**
 * Which local day: the server's calendar. A record's day is the calendar date of its `occurred_at`
 * in its establishment's time zone. JavaScript computes it with `localDate` (@merma/schema, shared
 * with the dashboard); SQL with `localDaySql` and, for the instant a local day starts,
 * `dayStartSql` — one definition each, and test/calendar.test.ts checks that Node and PostgreSQL
 * agree across both daylight-saving changes (Europe/Madrid, Atlantic/Canary).
 *
 * Date ranges of queries are read in the establishment's time zone: a date (`YYYY-MM-DD`) covers
 * that whole local day (`to` included); a full ISO date-time is taken as it is.
 */
export const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
export const MAX_RANGE_DAYS = 3 * 366;

/**
 * SQL: the instant `instant` (an SQL timestamptz expression) as ISO 8601 text in UTC to the
 * millisecond, exactly as `Date.prototype.toISOString()` writes it, so that an answer can carry the
 * database's text without a JavaScript Date in between.
 */
export const isoSql = (instant: string): string => `to_char((${instant}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** SQL: the local calendar date of the instant `instant` (an SQL expression) in the zone `timezone` (an SQL expression). */
export const localDaySql = (instant: string, timezone: string): string => `((${instant}) AT TIME ZONE ${timezone})::date`;

/** SQL: the instant the local day `date` (an SQL date expression) starts in the zone `timezone`. */
export const dayStartSql = (date: string, timezone: string): string => `((${date})::timestamp AT TIME ZONE ${timezone})`;

/** SQL for a `from` bound: a date is midnight in the establishment's zone; a date-time is itself. */
export function lowerBoundSql(value: string, timezone: string, p: SqlParams): string {
  return DATE_ONLY.test(value) ? dayStartSql(`${p.add(value)}::date`, p.add(timezone)) : `${p.add(value)}::timestamptz`;
}

/** SQL for the exclusive end of a `to` bound: a date includes that whole day in the establishment's zone. */
export function upperBoundSql(value: string, timezone: string, p: SqlParams): string {
  return DATE_ONLY.test(value) ? dayStartSql(`${p.add(value)}::date + 1`, p.add(timezone)) : `${p.add(value)}::timestamptz`;
}

/** `from`/`to` with the defaults (the last 30 days up to today, local), checked for order and length. */
export async function resolveRange(
  sql: Sql,
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
    const { rows } = await sql.query<{ days: number }>(
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
