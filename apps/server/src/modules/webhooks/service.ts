import { randomUUID } from 'node:crypto';
import type { EventType, WebhookSubscription, WebhookSubscriptionWithSecret } from '@merma/schema';
import { generateSecret } from '@merma/signing';
import type { DbTx } from '../../db/client.js';
import { AppError } from '../../errors.js';
import type { AuthContext } from '../../trpc/context.js';
import { assertDeliverableUrl } from './target.js';

/**
 * Outbound webhook subscriptions of an establishment and mode. A subscription receives the events
 * it lists; several subscriptions fan out. The signing secret is `whsec_` + 32 random bytes in
 * base64 (256 bits) unless the customer brings one, and is returned only by `create`.
 */
export type TargetPolicy = { production: boolean; allowPrivate: boolean };

type Row = {
  id: string;
  url: string;
  events: string[];
  status: string;
  description: string | null;
  consecutive_failures: number;
  created_at: Date;
  deactivated_at: Date | null;
};

const toSubscription = (r: Row): WebhookSubscription => ({
  id: r.id,
  url: r.url,
  events: r.events as EventType[],
  status: r.status as 'active' | 'deactivated',
  description: r.description,
  consecutive_failures: r.consecutive_failures,
  created_at: r.created_at.toISOString(),
  deactivated_at: r.deactivated_at?.toISOString() ?? null,
});

async function find(db: DbTx, auth: AuthContext, id: string) {
  const row = await db.webhookSubscription.findFirst({ where: { id, establishment_id: auth.establishmentId, livemode: auth.livemode } });
  if (!row) throw new AppError('not_found', `No webhook subscription ${id} in this establishment`);
  return row;
}

export async function createSubscription(
  db: DbTx,
  auth: AuthContext,
  policy: TargetPolicy,
  input: { url: string; events: EventType[]; secret?: string | undefined; description?: string | null | undefined },
  now: Date,
): Promise<WebhookSubscriptionWithSecret> {
  const url = await assertDeliverableUrl(input.url, policy);
  const secret = input.secret ?? generateSecret();
  const row = await db.webhookSubscription.create({
    data: {
      id: randomUUID(),
      establishment_id: auth.establishmentId,
      livemode: auth.livemode,
      url: url.toString(),
      events: [...new Set(input.events)],
      secret,
      description: input.description ?? null,
      // Stamped with the clock that stamps events: a subscription receives the events from this
      // moment on (jobs/webhooks.ts, dispatchEvents).
      created_at: now,
    },
  });
  return { ...toSubscription(row), secret };
}

export async function listSubscriptions(db: DbTx, auth: AuthContext): Promise<WebhookSubscription[]> {
  const rows = await db.webhookSubscription.findMany({
    where: { establishment_id: auth.establishmentId, livemode: auth.livemode },
    orderBy: [{ created_at: 'asc' }, { id: 'asc' }],
  });
  return rows.map(toSubscription);
}

export async function getSubscription(db: DbTx, auth: AuthContext, id: string): Promise<WebhookSubscription> {
  return toSubscription(await find(db, auth, id));
}

export async function updateSubscription(
  db: DbTx,
  auth: AuthContext,
  policy: TargetPolicy,
  input: { id: string; url?: string | undefined; events?: EventType[] | undefined; description?: string | null | undefined },
): Promise<WebhookSubscription> {
  await find(db, auth, input.id);
  const url = input.url === undefined ? undefined : (await assertDeliverableUrl(input.url, policy)).toString();
  const row = await db.webhookSubscription.update({
    where: { id: input.id },
    data: {
      ...(url !== undefined ? { url } : {}),
      ...(input.events !== undefined ? { events: [...new Set(input.events)] } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
    },
  });
  return toSubscription(row);
}

export async function deleteSubscription(db: DbTx, auth: AuthContext, id: string): Promise<{ id: string; deleted: true }> {
  await find(db, auth, id);
  await db.webhookSubscription.delete({ where: { id } });
  return { id, deleted: true };
}

/** Returns a deactivated subscription to `active`, with its failure count reset. */
export async function reactivateSubscription(db: DbTx, auth: AuthContext, id: string): Promise<WebhookSubscription> {
  await find(db, auth, id);
  const row = await db.webhookSubscription.update({
    where: { id },
    data: { status: 'active', consecutive_failures: 0, deactivated_at: null },
  });
  return toSubscription(row);
}
