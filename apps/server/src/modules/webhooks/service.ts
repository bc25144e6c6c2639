import { randomUUID } from 'node:crypto';
import type { EventType, WebhookSubscription, WebhookSubscriptionWithSecret } from '@merma/schema';
import { generateSecret } from '@merma/signing';
import type { DataScope } from '../../context.js';
import type { DbTx } from '../../db/client.js';
import { inTransaction } from '../../db/transaction.js';
import { AppError } from '../../errors.js';
import type { SecretBox } from '../../secrets/cipher.js';
import { openSecret, sealSecret } from '../../secrets/stored.js';
import { assertDeliverableUrl, type TargetPolicy } from './target.js';

/**
 * Outbound webhook subscriptions of an establishment and mode. A subscription receives the events
 * it lists; several subscriptions fan out. The signing secret is `whsec_` + 32 random bytes in
 * base64 (256 bits) unless the customer brings one (which @merma/schema checks with
 * `secretProblem`), and is returned only by `create` and `rotateSecret`. It is stored encrypted
 * (secrets/stored.ts): `secrets` seals what these functions write.
 */
type Row = {
  id: string;
  url: string;
  events: string[];
  status: string;
  description: string | null;
  consecutive_failures: number;
  created_at: Date;
  deactivated_at: Date | null;
  deactivation_reason: string | null;
  previous_secret_expires_at: Date | null;
};

/** The public shape; `now` decides whether a rotated-out secret still signs. */
const toSubscription = (r: Row, now: Date): WebhookSubscription => ({
  id: r.id,
  url: r.url,
  events: r.events as EventType[],
  status: r.status as 'active' | 'deactivated',
  description: r.description,
  consecutive_failures: r.consecutive_failures,
  created_at: r.created_at.toISOString(),
  deactivated_at: r.deactivated_at?.toISOString() ?? null,
  deactivation_reason: r.status === 'deactivated' ? ((r.deactivation_reason as 'gone' | 'failures' | null) ?? null) : null,
  previous_secret_expires_at:
    r.previous_secret_expires_at && r.previous_secret_expires_at.getTime() > now.getTime()
      ? r.previous_secret_expires_at.toISOString()
      : null,
});

/** The subscription `id` of the caller's establishment and mode, or 404. */
export async function findSubscription(db: DbTx, auth: DataScope, id: string) {
  const row = await db.webhookSubscription.findFirst({ where: { id, establishment_id: auth.establishmentId, livemode: auth.livemode } });
  if (!row) throw new AppError('not_found', `No webhook subscription ${id} in this establishment`);
  return row;
}

export async function createSubscription(
  db: DbTx,
  auth: DataScope,
  policy: TargetPolicy,
  secrets: SecretBox,
  input: { url: string; events: EventType[]; secret?: string | undefined; description?: string | null | undefined },
  now: Date,
): Promise<WebhookSubscriptionWithSecret> {
  const url = await assertDeliverableUrl(input.url, policy);
  const secret = input.secret ?? generateSecret();
  const id = randomUUID();
  const row = await db.webhookSubscription.create({
    data: {
      id,
      establishment_id: auth.establishmentId,
      livemode: auth.livemode,
      url: url.toString(),
      events: [...new Set(input.events)],
      secret: sealSecret(secrets, id, 'secret', secret),
      description: input.description ?? null,
      // Stamped with the clock that stamps events: a subscription receives the events from this
      // moment on (dispatch.ts, dispatchEvents).
      created_at: now,
    },
  });
  return { ...toSubscription(row, now), secret };
}

export async function listSubscriptions(db: DbTx, auth: DataScope, now: Date): Promise<WebhookSubscription[]> {
  const rows = await db.webhookSubscription.findMany({
    where: { establishment_id: auth.establishmentId, livemode: auth.livemode },
    orderBy: [{ created_at: 'asc' }, { id: 'asc' }],
  });
  return rows.map((r) => toSubscription(r, now));
}

export async function getSubscription(db: DbTx, auth: DataScope, id: string, now: Date): Promise<WebhookSubscription> {
  return toSubscription(await findSubscription(db, auth, id), now);
}

export async function updateSubscription(
  db: DbTx,
  auth: DataScope,
  policy: TargetPolicy,
  input: { id: string; url?: string | undefined; events?: EventType[] | undefined; description?: string | null | undefined },
  now: Date,
): Promise<WebhookSubscription> {
  await findSubscription(db, auth, input.id);
  const url = input.url === undefined ? undefined : (await assertDeliverableUrl(input.url, policy)).toString();
  const row = await db.webhookSubscription.update({
    where: { id: input.id },
    data: {
      ...(url !== undefined ? { url } : {}),
      ...(input.events !== undefined ? { events: [...new Set(input.events)] } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
    },
  });
  return toSubscription(row, now);
}

export async function deleteSubscription(db: DbTx, auth: DataScope, id: string): Promise<{ id: string; deleted: true }> {
  await findSubscription(db, auth, id);
  await db.webhookSubscription.delete({ where: { id } });
  return { id, deleted: true };
}

/** Returns a deactivated subscription to `active`, with its failure count reset. */
export async function reactivateSubscription(db: DbTx, auth: DataScope, id: string, now: Date): Promise<WebhookSubscription> {
  await findSubscription(db, auth, id);
  return toSubscription(await markActive(db, id), now);
}

/**
 * The reactivation itself, for the API (after the tenancy check above) and for operators
 * (`merma-admin webhook reactivate`, any establishment).
 */
export function markActive(db: DbTx, id: string) {
  return db.webhookSubscription.update({
    where: { id },
    data: { status: 'active', consecutive_failures: 0, deactivated_at: null, deactivation_reason: null },
  });
}

/**
 * Rotates the signing secret, as Standard Webhooks describes: the new secret (the customer's, or
 * generated) signs from now on, and the one it replaces keeps signing beside it for
 * `grace_period_seconds` (0: dropped at once), so receivers can switch without losing a delivery.
 * Only one previous secret is kept: rotating again within a grace period drops the oldest secret
 * at once. The new secret is returned here only. Deactivated subscriptions can rotate too.
 *
 * A sealed value is bound to its column, so the replaced secret is opened and sealed again as
 * `previous_secret` rather than moved by SQL. The row is locked between that read and the write,
 * so concurrent rotations take turns and never lose a secret.
 */
export async function rotateSecret(
  db: DbTx,
  auth: DataScope,
  secrets: SecretBox,
  input: { id: string; secret?: string | undefined; grace_period_seconds: number },
  now: Date,
): Promise<WebhookSubscriptionWithSecret> {
  const secret = input.secret ?? generateSecret();
  const expiresAt = input.grace_period_seconds > 0 ? new Date(now.getTime() + input.grace_period_seconds * 1000) : null;
  return inTransaction(db, async (tx) => {
    const [stored] = await tx.$queryRaw<{ id: string; secret: string }[]>`
      SELECT id::text, secret FROM webhook_subscriptions
      WHERE id = ${input.id}::uuid AND establishment_id = ${auth.establishmentId}::uuid AND livemode = ${auth.livemode}
      FOR UPDATE`;
    if (!stored) throw new AppError('not_found', `No webhook subscription ${input.id} in this establishment`);
    const previous = expiresAt
      ? sealSecret(secrets, stored.id, 'previous_secret', openSecret(secrets, stored.id, 'secret', stored.secret))
      : null;
    const [row] = await tx.$queryRaw<Row[]>`
      UPDATE webhook_subscriptions
      SET previous_secret = ${previous}::text,
          previous_secret_expires_at = ${expiresAt}::timestamptz,
          secret = ${sealSecret(secrets, stored.id, 'secret', secret)}
      WHERE id = ${stored.id}::uuid
      RETURNING id::text, url, events, status, description, consecutive_failures, created_at, deactivated_at, deactivation_reason,
        previous_secret_expires_at`;
    return { ...toSubscription(row as Row, now), secret };
  });
}
