import type { MailLanguage } from '@merma/schema';
import type pg from 'pg';
import type { Log } from '../../context.js';
import { type Mail, type Mailer, mailLanguage } from '../../mail.js';
import { quoted } from '../team/mail.js';
import { DEACTIVATE_AFTER_FAILED_DELIVERIES } from './schedule.js';

/** The `webhooks.notify_deactivated` job's payload (queued by attempt.ts). */
export type DeactivationNotice = { subscription_id: string; reason: 'gone' | 'failures'; last_error: string | null };

type Recipient = { email: string; language: string | null };

/**
 * `webhooks.notify_deactivated`: mails the organisation's administrators that a subscription was
 * deactivated, why, and how to bring it back. They are its owners and admins (team members with
 * those roles, who can reactivate it in the dashboard), each in their own e-mail language
 * (`users.language`, else Spanish), and the organisation's contact address
 * (`organizations.admin_email`, set by `merma-admin org create --admin-email`) when it is not one
 * of them, in Spanish. One e-mail per person, so that no address is shown to another. A job of its
 * own, so a mail server that is down is retried by the queue without touching the delivery's
 * outcome (a retry after a partial failure may mail someone twice, which beats mailing nobody).
 */
export async function notifyDeactivated(
  deps: { pool: pg.Pool; mailer: Mailer; log: Pick<Log, 'warn'> },
  payload: DeactivationNotice,
): Promise<void> {
  const { rows } = await deps.pool.query<{
    url: string;
    establishment: string;
    livemode: boolean;
    deactivated_at: Date | null;
    recipients: Recipient[];
  }>(
    `SELECT s.url, s.livemode, s.deactivated_at, e.name AS establishment,
       coalesce((SELECT json_agg(json_build_object('email', r.email, 'language', r.language) ORDER BY r.rank, r.email)
                 FROM (SELECT DISTINCT ON (lower(x.email)) x.email, x.language, x.rank
                       FROM (SELECT u.email, u.language, CASE m.role WHEN 'owner' THEN 0 ELSE 1 END AS rank
                             FROM memberships m JOIN users u ON u.id = m.user_id
                             WHERE m.organization_id = o.id AND m.role IN ('owner', 'admin')
                             UNION ALL
                             SELECT o.admin_email, NULL, 2 WHERE o.admin_email IS NOT NULL) x
                       ORDER BY lower(x.email), x.rank) r), '[]'::json) AS recipients
     FROM webhook_subscriptions s JOIN establishments e ON e.id = s.establishment_id JOIN organizations o ON o.id = e.organization_id
     WHERE s.id = $1`,
    [payload.subscription_id],
  );
  const row = rows[0];
  if (!row) return;
  if (row.recipients.length === 0) {
    deps.log.warn(
      { subscription_id: payload.subscription_id },
      'webhook deactivated; the organisation has no owner, admin or administrator e-mail to tell',
    );
    return;
  }
  for (const recipient of row.recipients) {
    await deps.mailer.send(
      deactivationMail({
        to: recipient.email,
        language: mailLanguage(recipient.language),
        subscriptionId: payload.subscription_id,
        url: row.url,
        establishment: row.establishment,
        livemode: row.livemode,
        reason: payload.reason,
        lastError: payload.last_error,
        at: row.deactivated_at,
      }),
    );
  }
}

/** The deactivation e-mail. The establishment's name is typed by customers: quoted on a line of its own. */
export function deactivationMail(input: {
  to: string;
  language: MailLanguage;
  subscriptionId: string;
  url: string;
  establishment: string;
  livemode: boolean;
  reason: DeactivationNotice['reason'];
  lastError: string | null;
  at: Date | null;
}): Mail {
  const id = input.subscriptionId;
  const at = input.at?.toISOString() ?? '';
  const text =
    input.language === 'en'
      ? [
          `A webhook endpoint (${input.livemode ? 'live' : 'test'} mode) has been deactivated${at ? ` at ${at}` : ''}.`,
          '',
          `Establishment: ${quoted(input.establishment)}`,
          `Endpoint: ${input.url}`,
          `Subscription: ${id}`,
          '',
          `Why: ${
            input.reason === 'gone'
              ? 'the endpoint answered 410 Gone, which means it no longer wants events'
              : `${DEACTIVATE_AFTER_FAILED_DELIVERIES} deliveries in a row failed after all their retries (about 15 hours each)`
          }.`,
          input.lastError ? `Last error: ${input.lastError}.` : '',
          '',
          'No events are sent to it until it is reactivated. Once the receiver works again, reactivate it in the',
          `dashboard (Integrations), or with POST /api/v1/webhooks/${id}/reactivate (or merma-admin webhook reactivate --id ${id}),`,
          `and resend what it missed with POST /api/v1/webhooks/${id}/recover (failed deliveries since a given time)`,
          'or one delivery with POST /api/v1/webhooks/{id}/deliveries/{delivery_id}/retry.',
        ]
      : [
          `Se ha desactivado un endpoint de webhooks (modo ${input.livemode ? 'real' : 'de prueba'})${at ? ` el ${at}` : ''}.`,
          '',
          `Establecimiento: ${quoted(input.establishment)}`,
          `Endpoint: ${input.url}`,
          `Suscripción: ${id}`,
          '',
          `Motivo: ${
            input.reason === 'gone'
              ? 'el endpoint respondió 410 Gone, que significa que ya no quiere recibir eventos'
              : `${DEACTIVATE_AFTER_FAILED_DELIVERIES} entregas seguidas fallaron tras todos sus reintentos (unas 15 horas cada una)`
          }.`,
          input.lastError ? `Último error: ${input.lastError}.` : '',
          '',
          'No se le envía ningún evento hasta que se reactive. Cuando el receptor vuelva a funcionar, reactívalo en el',
          `panel (Integraciones), o con POST /api/v1/webhooks/${id}/reactivate (o merma-admin webhook reactivate --id ${id}),`,
          `y reenvía lo que no recibió con POST /api/v1/webhooks/${id}/recover (entregas fallidas desde una fecha)`,
          'o una sola entrega con POST /api/v1/webhooks/{id}/deliveries/{delivery_id}/retry.',
        ];
  return {
    to: input.to,
    subject: input.language === 'en' ? 'Merma: a webhook endpoint was deactivated' : 'Merma: se ha desactivado un endpoint de webhooks',
    text: text.filter((l, i, all) => l !== '' || all[i - 1] !== '').join('\n'),
  };
}
