import { randomUUID } from 'node:crypto';
import type { CreateShiftInput, Shift } from '@merma/schema';
import type { DbTx } from '../../db/client.js';
import type { AuthContext } from '../../trpc/context.js';

const toShift = (s: { id: string; name: string; start_time: string; end_time: string }): Shift => ({
  id: s.id,
  name: s.name,
  start_time: s.start_time,
  end_time: s.end_time,
});

export async function listShifts(db: DbTx, auth: AuthContext): Promise<Shift[]> {
  const rows = await db.shift.findMany({
    where: { establishment_id: auth.establishmentId, livemode: auth.livemode },
    orderBy: [{ start_time: 'asc' }, { name: 'asc' }, { id: 'asc' }],
  });
  return rows.map(toShift);
}

/** Creates a shift. Overnight shifts (end before start, e.g. 22:00-06:00) are allowed. */
export async function createShift(db: DbTx, auth: AuthContext, input: CreateShiftInput): Promise<Shift> {
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
  return toShift(row);
}
