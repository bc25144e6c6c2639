import { AGREEMENT_EXPIRING_DAYS } from '@merma/schema';
import { isoSql } from '../../calendar.js';
import type { Clock } from '../../context.js';
import type { Sql } from '../../db/sql.js';
import { insertEventsSql } from '../../events/outbox.js';
import { agreementToday } from './agreements.js';

/** The worker's daily task (jobs/worker.ts). */
export const AGREEMENTS_EXPIRING_TASK = 'donations.agreements_expiring';

/**
 * `agreement.expiring`: once a day, every signed agreement without automatic renewal that is in
 * force and ends within 30 days (`agreementStatus` says `expiring`, agreements.ts) writes one event
 * per establishment it covers, in one statement. `expiring_notified_for` keeps the `valid_until`
 * it was sent for, so an agreement is announced once per end date: a rerun, or a second replica,
 * sends nothing more; an agreement extended and nearing its new end is announced again.
 *
 * The events are live (`livemode` true): agreements are the organisation's legal facts, not test
 * data (service.ts), so live subscriptions of each covered establishment receive them.
 */
export async function notifyExpiringAgreements(deps: { sql: Sql; clock: Clock }): Promise<number> {
  const now = deps.clock();
  const { rows } = await deps.sql.query<{ n: number }>(
    `WITH due AS (
       UPDATE donation_agreements a SET expiring_notified_for = a.valid_until
       WHERE a.renewal = 'none' AND a.valid_from <= $1::date AND a.valid_until >= $1::date
         AND a.valid_until - $1::date <= $3
         AND EXISTS (SELECT 1 FROM donation_agreement_documents d WHERE d.agreement_id = a.id)
         AND a.expiring_notified_for IS DISTINCT FROM a.valid_until
       RETURNING a.id, a.entity_id, a.valid_until
     ), written AS (
       ${insertEventsSql(`SELECT ae.establishment_id, true AS livemode, 'agreement.expiring' AS type,
         jsonb_build_object('event', 'agreement.expiring', 'timestamp', ${isoSql('$2::timestamptz')},
           'data', jsonb_build_object('establishment_id', ae.establishment_id, 'agreement_id', due.id, 'entity_id', due.entity_id,
             'entity_name', e.name, 'valid_until', to_char(due.valid_until, 'YYYY-MM-DD'),
             'days_left', due.valid_until - $1::date)) AS payload,
         $2::timestamptz AS created_at, NULL::text AS trace_parent
       FROM due JOIN donation_agreement_establishments ae ON ae.agreement_id = due.id JOIN social_entities e ON e.id = due.entity_id`)}
       RETURNING 1
     )
     SELECT count(*)::int AS n FROM written`,
    [agreementToday(now), now.toISOString(), AGREEMENT_EXPIRING_DAYS],
  );
  return Number(rows[0]?.n ?? 0);
}
