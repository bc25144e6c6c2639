import { randomUUID } from 'node:crypto';
import type { CreateShiftInput, Shift } from '@merma/schema';
import type { Tenant } from '../../context.js';
import type { DbTx } from '../../db/client.js';

const toShift = (s: { id: string; name: string; start_time: string; end_time: string }): Shift => ({
  id: s.id,
  name: s.name,
  start_time: s.start_time,
  end_time: s.end_time,
});

export async function listShifts(db: DbTx, auth: Tenant): Promise<Shift[]> {
  const rows = await db.shift.findMany({
    where: { establishment_id: auth.establishmentId, livemode: auth.livemode },
    orderBy: [{ start_time: 'asc' }, { name: 'asc' }, { id: 'asc' }],
  });
  return rows.map(toShift);
}

/** Creates a shift. Overnight shifts (end before start, e.g. 22:00-06:00) are allowed. */
export async function createShift(db: DbTx, auth: Tenant, input: CreateShiftInput): Promise<Shift> {
  const row = await db.shift.create({
    data: {
      id: randomUUID(),
      establishment_id: auth.establishmentId,
      livemode: auth.livemode,
      name: input.name,
      start_time: input.start_time,
      end_time: input.end_time,
    },
  });
  forgetShifts(auth);
  return toShift(row);
}

type CachedShifts = { shifts: Shift[]; expires: number };
const SHIFT_CACHE_MS = 5_000;
const shiftCache = new Map<string, CachedShifts>();
const timeFormats = new Map<string, Intl.DateTimeFormat>();

function localTime(at: Date, timezone: string): string {
  let format = timeFormats.get(timezone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-GB', { timeZone: timezone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    timeFormats.set(timezone, format);
  }
  return format.format(at);
}

/** Whether `time` (HH:MM) falls in a shift; an overnight shift (22:00–06:00) wraps past midnight. */
export function shiftCovers(shift: Pick<Shift, 'start_time' | 'end_time'>, time: string): boolean {
  return shift.start_time < shift.end_time
    ? time >= shift.start_time && time < shift.end_time
    : time >= shift.start_time || time < shift.end_time;
}

/**
 * The shift active at `at` in the establishment's time zone (the first by start time when several
 * overlap), or null. Shift lists are cached per process for 5 s (and dropped when this process
 * creates a shift), so a record without `shift_id` costs no extra query; a shift created on another
 * replica is used within those 5 s.
 */
export async function activeShiftAt(db: DbTx, auth: Tenant, at: Date): Promise<string | null> {
  const key = `${auth.establishmentId}:${auth.livemode}`;
  let cached = shiftCache.get(key);
  if (!cached || cached.expires < Date.now()) {
    cached = { shifts: await listShifts(db, auth), expires: Date.now() + SHIFT_CACHE_MS };
    shiftCache.set(key, cached);
  }
  if (cached.shifts.length === 0) return null;
  const time = localTime(at, auth.timezone);
  return cached.shifts.find((s) => shiftCovers(s, time))?.id ?? null;
}

export function forgetShifts(auth: Tenant): void {
  shiftCache.delete(`${auth.establishmentId}:${auth.livemode}`);
}
