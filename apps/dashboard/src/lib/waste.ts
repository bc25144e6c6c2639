import { FOOD_CATEGORIES, type FoodCategory } from '@merma/schema';
import type { RecordsPageInput } from '@merma/schema/dashboard';
import type { OverviewRange, RecordsSearch } from './search.ts';

/** Today's date (`YYYY-MM-DD`) in a time zone: the establishment's day, whatever the browser's zone. */
export function todayIn(timeZone: string, now = new Date()): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
}

export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T12:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
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

/** The records table's query from the URL's filters: by default the last 30 days up to today. */
export function recordsQuery(
  scope: { establishment_id: string; livemode: boolean },
  search: RecordsSearch,
  timezone: string,
): RecordsPageInput {
  const today = todayIn(timezone);
  return {
    ...scope,
    from: search.from ?? addDays(today, -29),
    to: search.to ?? today,
    ...(isCategory(search.category) ? { food_category: search.category } : {}),
    ...(search.destination ? { destino_id: search.destination } : {}),
    ...(search.cause ? { causa_id: search.cause } : {}),
    ...(search.shift ? { shift_id: search.shift } : {}),
    limit: RECORDS_PAGE_SIZE,
  };
}
