import { randomUUID } from 'node:crypto';
import type { EventType } from '@merma/schema';
import type { DbTx } from '../db/client.js';

/**
 * Records an event in the `events` table, on the caller's transaction: the event exists exactly
 * when the change that caused it is committed (transactional outbox). Delivery to webhook
 * subscriptions reads from this table.
 */
export async function emitEvent(
  db: DbTx,
  event: { establishmentId: string; livemode: boolean; type: EventType; data: Record<string, unknown>; at: Date },
): Promise<string> {
  const id = randomUUID();
  const payload = { event: event.type, timestamp: event.at.toISOString(), data: event.data };
  await db.$executeRaw`INSERT INTO events (id, establishment_id, livemode, type, payload, created_at)
    VALUES (${id}::uuid, ${event.establishmentId}::uuid, ${event.livemode}, ${event.type}, ${JSON.stringify(payload)}::jsonb, ${event.at.toISOString()}::timestamptz)`;
  return id;
}
