import type { Tenant } from '../../context.js';
import type { Sql } from '../../db/sql.js';
import { dayClosesAt } from '../shifts/service.js';

/**
 * When the establishment's day of sales is over, so that the evening's advice for tomorrow knows
 * what today sold. Sales are counted by local calendar day, so what matters is when the day's last
 * sale is made:
 *
 * - **`shifts`**: the latest end of its shifts, when none runs past midnight (a bakery whose last
 *   shift ends at 14:30 has its day's sales complete from 14:30).
 * - **`sales`**: with a shift that runs past midnight (a night bake, 22:00–06:00) or with no shifts
 *   at all, the shifts cannot say it — a night bake sells nothing, a bar open until 02:00 sells until
 *   midnight on the day's date. The day then ends one minute after the latest time of day of a sale
 *   over the last 4 weeks (its sales by local date), and never before the end of the shifts that end
 *   the same day they start: a bakery whose shop shifts end at 20:00 and whose last sales are at
 *   19:55 has its day complete at 20:00, however long its night bake runs; a bar whose sales run
 *   to 23:59 never has it before midnight, and its advice is made from yesterday's.
 * - **`none`**: no shift that says it, and no sales in the last 4 weeks to learn it from.
 *
 * `closesAt` is `24:00` when the day's sales run to midnight (no local time reaches it).
 */
export type DayEnd = { closesAt: string | null; basis: 'shifts' | 'sales' | 'none' };

export const LEARNT_FROM_DAYS = 28;

export async function businessDayEnd(
  sql: Sql,
  auth: Pick<Tenant, 'establishmentId' | 'livemode' | 'timezone'>,
  today: string,
  shifts: readonly { start_time: string; end_time: string }[],
): Promise<DayEnd> {
  const fromShifts = dayClosesAt(shifts);
  if (fromShifts !== null) return { closesAt: fromShifts, basis: 'shifts' };
  const { rows } = await sql.query<{ last: string | null }>(
    `SELECT to_char(max((sold_at AT TIME ZONE $3)::time), 'HH24:MI') AS last FROM sales
     WHERE establishment_id = $1::uuid AND livemode = $2 AND day >= ($4::date - $5::int) AND day < $4::date`,
    [auth.establishmentId, auth.livemode, auth.timezone, today, LEARNT_FROM_DAYS],
  );
  const last = rows[0]?.last ?? null;
  if (last === null) return { closesAt: null, basis: 'none' };
  const sameDay = shifts
    .filter((s) => s.end_time > s.start_time)
    .map((s) => s.end_time)
    .sort()
    .at(-1);
  const afterLastSale = minuteAfter(last);
  return { closesAt: sameDay !== undefined && sameDay > afterLastSale ? sameDay : afterLastSale, basis: 'sales' };
}

/** HH:MM one minute later; 23:59 → 24:00 (no local time reaches it). */
export function minuteAfter(hhmm: string): string {
  const minutes = Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5)) + 1;
  return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}
