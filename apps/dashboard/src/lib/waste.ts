import { addDays, FOOD_CATEGORIES, type FoodCategory, localDate } from '@merma/schema';
import type { RecordsPageInput } from '@merma/schema/dashboard';
import { type DateProblem, dateProblem, type OverviewRange, type RecordsSearch } from './search.ts';

/** Today's date (`YYYY-MM-DD`) in a time zone: the establishment's day, whatever the browser's zone (`localDate`, as the server counts days). */
export function todayIn(timeZone: string, now = new Date()): string {
  return localDate(now, timeZone);
}

/** The analytics query of an overview range, ending today in the establishment's zone. */
export function overviewQuery(range: OverviewRange, today: string) {
  if (range === '90d') return { from: addDays(today, -89), to: today, group_by: 'week' as const };
  if (range === '12m') {
    const d = new Date(`${today.slice(0, 7)}-01T12:00:00Z`);
    d.setUTCMonth(d.getUTCMonth() - 11);
    return { from: d.toISOString().slice(0, 10), to: today, group_by: 'month' as const };
  }
  return { from: addDays(today, -29), to: today, group_by: 'day' as const };
}

export const CATEGORIES = FOOD_CATEGORIES;
export function isCategory(value: string | undefined): value is FoodCategory {
  return value !== undefined && (FOOD_CATEGORIES as readonly string[]).includes(value);
}

/** Map entries sorted by kg, largest first. */
export const byKg = (map: Record<string, number>) => Object.entries(map).sort((a, b) => b[1] - a[1]);

export const RECORDS_PAGE_SIZE = 50;

/**
 * The dates the records table asks for, from the URL's `from` and `to`, and what is wrong with
 * them. A date the API would refuse (not a whole date, before 1900) is left out, and so is a range
 * whose `from` is after its `to`: the page says why beside the field, and never sends it. Without
 * `to`, today (or `from`, when that is later); without `from`, the 30 days up to `to`.
 */
export function recordsDates(search: Pick<RecordsSearch, 'from' | 'to'>, today: string) {
  const problems: { from?: DateProblem | 'afterTo'; to?: DateProblem } = {};
  const usable = (key: 'from' | 'to') => {
    const value = search[key];
    if (value === undefined) return undefined;
    const problem = dateProblem(value);
    if (problem) problems[key] = problem;
    return problem ? undefined : value;
  };
  let from = usable('from');
  let to = usable('to');
  if (from && to && from > to) {
    problems.from = 'afterTo';
    from = undefined;
    to = undefined;
  }
  const end = to ?? (from && from > today ? from : today);
  return { from: from ?? addDays(end, -29), to: end, problems };
}

/** The records table's query from the URL's filters: by default the last 30 days up to today. */
/** A registration session's records (all of them, whatever their day), a page of RECORDS_PAGE_SIZE. */
export function sessionRecordsQuery(scope: { establishment_id: string; livemode: boolean }, sessionId: string) {
  return { ...scope, session_id: sessionId, limit: RECORDS_PAGE_SIZE } satisfies RecordsPageInput;
}

export function recordsQuery(
  scope: { establishment_id: string; livemode: boolean },
  search: RecordsSearch,
  timezone: string,
): RecordsPageInput {
  const { from, to } = recordsDates(search, todayIn(timezone));
  return {
    ...scope,
    from,
    to,
    ...(isCategory(search.category) ? { food_category: search.category } : {}),
    ...(search.destination ? { destino_id: search.destination } : {}),
    ...(search.cause ? { causa_id: search.cause } : {}),
    ...(search.shift ? { shift_id: search.shift } : {}),
    ...(search.corrected ? { include_superseded: true } : {}),
    limit: RECORDS_PAGE_SIZE,
  };
}

const pad = (n: number) => String(n).padStart(2, '0');

/** How many minutes `timeZone`'s clock is ahead of UTC at `instant`. */
function offsetMinutes(instant: Date, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(instant);
  const part = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const wall = Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second'));
  return Math.round((wall - (instant.getTime() - instant.getMilliseconds())) / 60_000);
}

/**
 * A wall-clock time typed in the establishment's zone (`YYYY-MM-DDTHH:mm`, what a datetime-local
 * field holds) as the ISO date-time with that zone's offset the API takes
 * (`2026-11-23T21:40:00+01:00`), whatever the browser's own zone is. Null when it is not such a time.
 */
export function zonedDateTime(local: string, timeZone: string): string | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(local);
  if (!m) return null;
  const [, y, mo, d, h, mi] = m.map(Number) as [number, number, number, number, number, number];
  const wall = Date.UTC(y, mo - 1, d, h, mi);
  if (new Date(wall).getUTCDate() !== d) return null;
  // The offset at the instant the wall time means (twice: the first guess may sit across a DST change).
  let offset = offsetMinutes(new Date(wall), timeZone);
  offset = offsetMinutes(new Date(wall - offset * 60_000), timeZone);
  const abs = Math.abs(offset);
  return `${local}:00${offset < 0 ? '-' : '+'}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/** An instant as the establishment's wall clock, `YYYY-MM-DDTHH:mm` (for a datetime-local field). */
export function zonedInput(instant: string | Date, timeZone: string): string {
  const at = new Date(instant);
  const shifted = new Date(at.getTime() + offsetMinutes(at, timeZone) * 60_000);
  return shifted.toISOString().slice(0, 16);
}
