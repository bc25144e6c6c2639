import { randomUUID } from 'node:crypto';
import type { CreateShiftInput, Shift } from '@merma/schema';
import type { DashboardShift } from '@merma/schema/dashboard';
import type { Tenant } from '../../context.js';
import type { DbTx } from '../../db/client.js';
import { AppError } from '../../errors.js';

/**
 * Work shifts. A shift can be renamed or given new hours (from then on new records fall in the new
 * hours; records keep the shift they were given), archived and restored, and deleted while nothing
 * names it. A record's `shift_id` is part of its hash (records/hash.ts), so a shift that records or
 * sessions name is never deleted nor unlinked: deleting it is a 409 and archiving is the way to retire
 * it — an archived shift is not assigned to new records and leaves `GET /api/v1/shifts`, while the
 * records, sessions, exports and plans that name it keep showing its name.
 */

const toShift = (s: { id: string; name: string; start_time: string; end_time: string }): Shift => ({
  id: s.id,
  name: s.name,
  start_time: s.start_time,
  end_time: s.end_time,
});

/** The active shifts (what the API lists and new records are assigned to). */
export async function listShifts(db: DbTx, auth: Tenant): Promise<Shift[]> {
  const rows = await db.shift.findMany({
    where: { establishment_id: auth.establishmentId, livemode: auth.livemode, archived_at: null },
    orderBy: [{ start_time: 'asc' }, { name: 'asc' }, { id: 'asc' }],
  });
  return rows.map(toShift);
}

/** Every shift, archived ones last: the dashboard's list and the names of an export. */
export async function listAllShifts(db: DbTx, auth: Tenant): Promise<DashboardShift[]> {
  const rows = await db.shift.findMany({
    where: { establishment_id: auth.establishmentId, livemode: auth.livemode },
    orderBy: [{ start_time: 'asc' }, { name: 'asc' }, { id: 'asc' }],
  });
  const shifts = rows.map((s) => ({ ...toShift(s), archived: s.archived_at !== null }));
  return [...shifts.filter((s) => !s.archived), ...shifts.filter((s) => s.archived)];
}

async function findShift(db: DbTx, auth: Tenant, id: string) {
  const row = await db.shift.findFirst({ where: { id, establishment_id: auth.establishmentId, livemode: auth.livemode } });
  if (!row) throw new AppError('not_found', `No shift ${id} in this establishment`);
  return row;
}

/** New name and hours; returns the shift before and after (for the audit log). */
export async function updateShift(
  db: DbTx,
  auth: Tenant,
  id: string,
  input: CreateShiftInput,
): Promise<{ before: DashboardShift; after: DashboardShift }> {
  const row = await findShift(db, auth, id);
  const updated = await db.shift.update({
    where: { id: row.id },
    data: { name: input.name, start_time: input.start_time, end_time: input.end_time },
  });
  forgetShifts(auth);
  return {
    before: { ...toShift(row), archived: row.archived_at !== null },
    after: { ...toShift(updated), archived: updated.archived_at !== null },
  };
}

/** Archives (`archived: true`, from `now`) or restores a shift; doing what is already so changes nothing. */
export async function archiveShift(db: DbTx, auth: Tenant, id: string, archived: boolean, now: Date): Promise<DashboardShift> {
  const row = await findShift(db, auth, id);
  const updated =
    archived === (row.archived_at !== null)
      ? row
      : await db.shift.update({ where: { id: row.id }, data: { archived_at: archived ? now : null } });
  forgetShifts(auth);
  return { ...toShift(updated), archived: updated.archived_at !== null };
}

/**
 * Deletes a shift no record (corrections and replaced records included) and no session names;
 * otherwise a 409 that says how many do and to archive it instead.
 */
export async function deleteShift(db: DbTx, auth: Tenant, id: string): Promise<DashboardShift> {
  const row = await findShift(db, auth, id);
  const scope = { shift_id: row.id, establishment_id: auth.establishmentId, livemode: auth.livemode };
  // Each look-up stops at the first row: whether any names it is all the answer needs. One after the
  // other: inside a transaction they share its one connection.
  const records = await db.record.findFirst({ where: scope, select: { id: true } });
  const sessions = await db.session.findFirst({ where: scope, select: { id: true } });
  if (records || sessions) {
    const named = [records && 'records', sessions && 'sessions'].filter(Boolean).join(' and ');
    throw new AppError(
      'conflict',
      `Shift ${row.name} is named by ${named}; archive it instead (records keep their shift)`,
      [{ path: 'id', message: `shift in use by ${named}` }],
      { shouldRetry: false },
    );
  }
  await db.shift.delete({ where: { id: row.id } });
  forgetShifts(auth);
  return { ...toShift(row), archived: row.archived_at !== null };
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

/** The wall-clock time (HH:MM, 24 h) of `at` in `timezone`. */
export function localTime(at: Date, timezone: string): string {
  let format = timeFormats.get(timezone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-GB', { timeZone: timezone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    timeFormats.set(timezone, format);
  }
  return format.format(at);
}

/**
 * When the establishment's working day is over: the latest end of its shifts (a bakery whose last
 * shift ends at 14:30 has its day's sales complete from 14:30), or null when it has no shift or one
 * that runs past midnight (22:00–06:00: that day ends the next morning, and is then yesterday).
 */
export function dayClosesAt(shifts: readonly Pick<Shift, 'start_time' | 'end_time'>[]): string | null {
  if (shifts.length === 0 || shifts.some((s) => s.end_time <= s.start_time)) return null;
  // HH:MM sorts as text.
  return (
    shifts
      .map((s) => s.end_time)
      .sort()
      .at(-1) ?? null
  );
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
