import type pg from 'pg';
import type { Log } from '../../context.js';
import type { Mailer } from '../../mail.js';
import { DEACTIVATE_AFTER_FAILED_DELIVERIES } from './schedule.js';

/** The `webhooks.notify_deactivated` job's payload (queued by attempt.ts). */
export type DeactivationNotice = { subscription_id: string; reason: 'gone' | 'failures'; last_error: string | null };

/**
 * `webhooks.notify_deactivated`: mails the organisation's administrator that a subscription was
 * deactivated and how to bring it back. A job of its own, so a mail server that is down is retried
 * by the queue without touching the delivery's outcome.
 */
export async function notifyDeactivated(
  deps: { pool: pg.Pool; mailer: Mailer; log: Pick<Log, 'warn'> },
  payload: DeactivationNotice,
): Promise<void> {
  const { rows } = await deps.pool.query<{ url: string; establishment: string; admin_email: string | null; livemode: boolean }>(
    `SELECT s.url, s.livemode, e.name AS establishment, o.admin_email
     FROM webhook_subscriptions s JOIN establishments e ON e.id = s.establishment_id JOIN organizations o ON o.id = e.organization_id
     WHERE s.id = $1`,
    [payload.subscription_id],
  );
  const row = rows[0];
  if (!row) return;
  if (!row.admin_email) {
    deps.log.warn(
      { subscription_id: payload.subscription_id },
      'webhook deactivated; the organisation has no administrator e-mail to tell',
    );
    return;
  }
  const why =
    payload.reason === 'gone'
      ? 'the endpoint answered 410 Gone, which means it no longer wants events'
      : `${DEACTIVATE_AFTER_FAILED_DELIVERIES} deliveries in a row failed after all their retries (about 15 hours each)`;
  await deps.mailer.send({
    to: row.admin_email,
    subject: `Merma: webhook deactivated for ${row.establishment}`,
    text: [
      `The webhook subscription ${payload.subscription_id} (${row.livemode ? 'live' : 'test'} mode) of ${row.establishment}`,
      `sending to ${row.url} has been deactivated: ${why}.`,
      payload.last_error ? `Last error: ${payload.last_error}.` : '',
      '',
      'No events are sent to it until it is reactivated. Once the receiver works again, reactivate it with',
      `POST /api/v1/webhooks/${payload.subscription_id}/reactivate (or merma-admin webhook reactivate --id ${payload.subscription_id}),`,
      `and resend what it missed with POST /api/v1/webhooks/${payload.subscription_id}/recover (failed deliveries since a given time)`,
      'or one delivery with POST /api/v1/webhooks/{id}/deliveries/{delivery_id}/retry.',
    ]
      .filter((l, i, all) => l !== '' || all[i - 1] !== '')
      .join('\n'),
  });
}
