import type { DonationAgreement } from '@merma/schema';
import { dayStartSql, isoSql } from '../../calendar.js';
import type { DataScope } from '../../context.js';
import type { Sql } from '../../db/sql.js';
import { agreementStatus, agreementToday } from './agreements.js';

/**
 * What the prevention plan says of donations (Ley 1/2025 art. 6 and 7), for one establishment and
 * mode over the plan's days: the agreements that cover it, the kilos offered, accepted and refused,
 * and every refusal with its reason and where the food went instead (the destination of the
 * correction that re-routed it, or none yet). Read by modules/plan when a plan is generated, and
 * stored with it, so the plan keeps what was true that day.
 */
export type PlanDonations = {
  agreements: { id: string; entity_name: string; valid_from: string; valid_until: string; status: DonationAgreement['status'] }[];
  offered_kg: number;
  accepted_kg: number;
  refused_kg: number;
  refusals: {
    donation_id: string;
    offered_at: string;
    entity_name: string;
    description: string;
    kg: number;
    reason: string;
    /** The destination's code of the correction that sent it elsewhere; null while it waits. */
    rerouted_to: string | null;
  }[];
};

/** At most this many refusals are listed (the newest); the kilos count them all. */
export const PLAN_REFUSALS = 100;

export async function planDonations(
  sql: Sql,
  scope: DataScope & { timezone: string },
  period: { from: string; to: string },
  now: Date,
): Promise<PlanDonations> {
  const params = [scope.establishmentId, scope.livemode, period.from, period.to, scope.timezone];
  const inPeriod = `d.establishment_id = $1::uuid AND d.livemode = $2
    AND d.offered_at >= ${dayStartSql('$3::date', '$5')} AND d.offered_at < ${dayStartSql('$4::date + 1', '$5')}`;
  const [agreements, totals, refusals] = await Promise.all([
    sql.query<{
      id: string;
      entity_name: string;
      valid_from: string;
      valid_until: string;
      renewal: DonationAgreement['renewal'];
      signed: boolean;
    }>(
      `SELECT a.id::text, e.name AS entity_name, to_char(a.valid_from, 'YYYY-MM-DD') AS valid_from,
         to_char(a.valid_until, 'YYYY-MM-DD') AS valid_until, a.renewal,
         EXISTS (SELECT 1 FROM donation_agreement_documents doc WHERE doc.agreement_id = a.id) AS signed
       FROM donation_agreements a JOIN donation_agreement_establishments ae ON ae.agreement_id = a.id
       JOIN social_entities e ON e.id = a.entity_id
       WHERE ae.establishment_id = $1::uuid ORDER BY a.valid_until DESC, a.id`,
      [scope.establishmentId],
    ),
    sql.query<{ offered: string; accepted: string; refused: string }>(
      `SELECT coalesce(sum(l.net_kg), 0)::text AS offered,
         coalesce(sum(l.net_kg) FILTER (WHERE l.status = 'accepted'), 0)::text AS accepted,
         coalesce(sum(l.net_kg) FILTER (WHERE l.status = 'refused'), 0)::text AS refused
       FROM donations d JOIN donation_lines l ON l.donation_id = d.id WHERE ${inPeriod}`,
      params,
    ),
    sql.query<PlanDonations['refusals'][number] & { kg: string }>(
      `SELECT d.id::text AS donation_id, ${isoSql('d.offered_at')} AS offered_at, e.name AS entity_name, l.description,
         l.net_kg::text AS kg, l.refusal_reason AS reason, dest.code AS rerouted_to
       FROM donations d JOIN donation_lines l ON l.donation_id = d.id
       JOIN donation_agreements a ON a.id = d.agreement_id JOIN social_entities e ON e.id = a.entity_id
       LEFT JOIN records r ON r.id = l.rerouted_record_id LEFT JOIN destinations dest ON dest.id = r.destino_id
       WHERE ${inPeriod} AND l.status = 'refused'
       ORDER BY d.offered_at DESC, l.position LIMIT ${PLAN_REFUSALS}`,
      params,
    ),
  ]);
  const today = agreementToday(now);
  const t = totals.rows[0];
  return {
    agreements: agreements.rows.map(({ renewal, signed, ...a }) => ({ ...a, status: agreementStatus({ ...a, renewal, signed }, today) })),
    offered_kg: Number(t?.offered ?? 0),
    accepted_kg: Number(t?.accepted ?? 0),
    refused_kg: Number(t?.refused ?? 0),
    refusals: refusals.rows.map((r) => ({ ...r, kg: Number(r.kg) })),
  };
}
