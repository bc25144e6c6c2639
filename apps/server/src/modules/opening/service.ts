import { randomUUID } from 'node:crypto';
import {
  addDays,
  type Closure,
  type CreateClosureInput,
  type OpeningCalendar,
  type SetClosedWeekdaysInput,
  WEEKDAYS,
  type Weekday,
} from '@merma/schema';
import { isoSql } from '../../calendar.js';
import type { DataScope } from '../../context.js';
import type { Sql } from '../../db/sql.js';
import { AppError } from '../../errors.js';

/**
 * The opening calendar of an establishment, per mode as its shifts are: the weekdays it is closed
 * every week (`weekly_closed_days`) and its closures, ranges of local days with both ends included
 * (`closures`). Closures may overlap (a holiday inside a winter break): a day is closed when any
 * says so. The demand forecast reads it through `closedDays` (modules/predict/demand.ts).
 */

type ClosureRow = { id: string; starts_on: string; ends_on: string; reason: string | null; created_at: string };

const CLOSURE_COLUMNS = `id::text, to_char(starts_on, 'YYYY-MM-DD') AS starts_on, to_char(ends_on, 'YYYY-MM-DD') AS ends_on, reason,
  ${isoSql('created_at')} AS created_at`;

const toClosure = (r: ClosureRow): Closure => ({
  id: r.id,
  starts_on: r.starts_on,
  ends_on: r.ends_on,
  reason: r.reason,
  created_at: r.created_at,
});

/** ISO weekday numbers (1 Monday … 7 Sunday) as the tables store them, to names and back. */
const weekdayName = (n: number): Weekday => WEEKDAYS[n - 1] as Weekday;
const weekdayNumber = (day: Weekday): number => WEEKDAYS.indexOf(day) + 1;

async function closedWeekdays(sql: Sql, scope: DataScope): Promise<Weekday[]> {
  const { rows } = await sql.query<{ weekday: number }>(
    'SELECT weekday FROM weekly_closed_days WHERE establishment_id = $1::uuid AND livemode = $2 ORDER BY weekday',
    [scope.establishmentId, scope.livemode],
  );
  return rows.map((r) => weekdayName(Number(r.weekday)));
}

/** The whole calendar: the closed weekdays, Monday first, and every closure, the earliest first. */
export async function getOpeningCalendar(sql: Sql, scope: DataScope): Promise<OpeningCalendar> {
  const [weekdays, closures] = await Promise.all([
    closedWeekdays(sql, scope),
    sql.query<ClosureRow>(
      `SELECT ${CLOSURE_COLUMNS} FROM closures WHERE establishment_id = $1::uuid AND livemode = $2 ORDER BY starts_on, ends_on, id`,
      [scope.establishmentId, scope.livemode],
    ),
  ]);
  return { closed_weekdays: weekdays, closures: closures.rows.map(toClosure) };
}

/**
 * Replaces the closed weekdays with `input.closed_weekdays`, in one statement (the days no longer
 * closed are deleted, the new ones inserted); returns them before and after, Monday first.
 */
export async function setClosedWeekdays(
  sql: Sql,
  scope: DataScope,
  input: SetClosedWeekdaysInput,
): Promise<{ before: Weekday[]; after: Weekday[] }> {
  const before = await closedWeekdays(sql, scope);
  const numbers = input.closed_weekdays.map(weekdayNumber);
  await sql.query(
    `WITH gone AS (
       DELETE FROM weekly_closed_days WHERE establishment_id = $1::uuid AND livemode = $2 AND NOT (weekday = ANY($3::smallint[]))
     )
     INSERT INTO weekly_closed_days (establishment_id, livemode, weekday)
     SELECT $1::uuid, $2, d FROM unnest($3::smallint[]) AS d
     ON CONFLICT DO NOTHING`,
    [scope.establishmentId, scope.livemode, numbers],
  );
  return { before, after: [...numbers].sort((a, b) => a - b).map(weekdayName) };
}

export async function createClosure(sql: Sql, scope: DataScope, input: CreateClosureInput, now: Date): Promise<Closure> {
  const { rows } = await sql.query<ClosureRow>(
    `INSERT INTO closures (id, establishment_id, livemode, starts_on, ends_on, reason, created_at)
     VALUES ($1::uuid, $2::uuid, $3, $4::date, $5::date, $6, $7::timestamptz)
     RETURNING ${CLOSURE_COLUMNS}`,
    [randomUUID(), scope.establishmentId, scope.livemode, input.starts_on, input.ends_on, input.reason ?? null, now.toISOString()],
  );
  return toClosure(rows[0] as ClosureRow);
}

/** Deletes a closure of the establishment and mode; a 404 when there is none with that id. */
export async function deleteClosure(sql: Sql, scope: DataScope, id: string): Promise<Closure> {
  const { rows } = await sql.query<ClosureRow>(
    `DELETE FROM closures WHERE id = $1::uuid AND establishment_id = $2::uuid AND livemode = $3 RETURNING ${CLOSURE_COLUMNS}`,
    [id, scope.establishmentId, scope.livemode],
  );
  if (rows.length === 0) throw new AppError('not_found', `No closure ${id} in this establishment`);
  return toClosure(rows[0] as ClosureRow);
}

/** How many open days after a closure the forecast calls uncertain. */
export const REOPENING_DAYS = 3;

/** The calendar as the forecast reads it over a range of days. */
export type ClosedDays = {
  /** Whether the establishment is closed on `day` (YYYY-MM-DD). */
  closedOn(day: string): boolean;
  /** The first `REOPENING_DAYS` open days after each closure (a weekly closed day is no closure). */
  reopening: ReadonlySet<string>;
};

/**
 * The closed days between `from` and `to` (both YYYY-MM-DD, `to` excluded), from the weekly closed
 * days and the closures that overlap the range, in one query.
 */
export async function closedDays(sql: Sql, scope: DataScope, from: string, to: string): Promise<ClosedDays> {
  const { rows } = await sql.query<{ weekday: number | null; starts_on: string | null; ends_on: string | null }>(
    `SELECT weekday, NULL AS starts_on, NULL AS ends_on FROM weekly_closed_days WHERE establishment_id = $1::uuid AND livemode = $2
     UNION ALL
     SELECT NULL, to_char(starts_on, 'YYYY-MM-DD'), to_char(ends_on, 'YYYY-MM-DD') FROM closures
     WHERE establishment_id = $1::uuid AND livemode = $2 AND ends_on >= $3::date AND starts_on < $4::date`,
    [scope.establishmentId, scope.livemode, from, to],
  );
  return closedDaysOf(
    rows.filter((r) => r.weekday !== null).map((r) => weekdayName(Number(r.weekday))),
    rows.filter((r) => r.starts_on !== null).map((r) => ({ starts_on: r.starts_on as string, ends_on: r.ends_on as string })),
  );
}

/** `closedDays` from the calendar itself (also how `pnpm bench:forecast` declares a data set's closures). */
export function closedDaysOf(weekdays: readonly Weekday[], closures: readonly { starts_on: string; ends_on: string }[]): ClosedDays {
  const weekly = new Set(weekdays.map(weekdayNumber));
  const inClosure = (day: string) => closures.some((c) => c.starts_on <= day && day <= c.ends_on);
  const closedOn = (day: string) => weekly.has(isoWeekday(day)) || inClosure(day);
  const reopening = new Set<string>();
  for (const c of closures) {
    let day = addDays(c.ends_on, 1);
    // Stepping over weekly closed days and other closures; a year at most.
    for (let found = 0, steps = 0; found < REOPENING_DAYS && steps < 366; steps++, day = addDays(day, 1)) {
      if (closedOn(day)) continue;
      reopening.add(day);
      found++;
    }
  }
  return { closedOn, reopening };
}

/** ISO weekday of a local date: 1 Monday … 7 Sunday. */
const isoWeekday = (day: string): number => {
  const d = new Date(`${day}T12:00:00Z`).getUTCDay();
  return d === 0 ? 7 : d;
};
