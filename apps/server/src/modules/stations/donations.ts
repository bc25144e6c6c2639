import type { Donation, DonationAgreement } from '@merma/schema';
import { isoSql } from '../../calendar.js';
import type { Clock } from '../../context.js';
import type { Sql } from '../../db/sql.js';
import { listAgreements } from '../donations/agreements.js';
import { getDonation } from '../donations/donations.js';
import type { Station } from './service.js';

/**
 * What the station shows of donations (surfaces/station.ts): the agreements a cook can offer
 * under, and one offered donation, polled until the entity's volunteer has signed it on their
 * phone. Offering and the signing link are the API's own services (donations.ts, links.ts), run
 * for the device's establishment and mode.
 */

export type StationAgreement = Pick<DonationAgreement, 'id' | 'entity_name' | 'accepted_food_categories' | 'conditions' | 'valid_until'>;

/** The organisation's agreements in force today (active or expiring) that cover the station's establishment. */
export async function stationAgreements(deps: { sql: Sql; clock: Clock }, station: Station): Promise<StationAgreement[]> {
  const { organizationId, establishmentId } = station.tenant;
  const agreements = await listAgreements(deps.sql, organizationId, { establishment_id: establishmentId }, deps.clock());
  return agreements
    .filter((a) => a.status === 'active' || a.status === 'expiring')
    .map((a) => ({
      id: a.id,
      entity_name: a.entity_name,
      accepted_food_categories: a.accepted_food_categories,
      conditions: a.conditions,
      valid_until: a.valid_until,
    }));
}

export type StationDonation = Pick<Donation, 'id' | 'status' | 'entity_name' | 'offered_at' | 'decided_at' | 'totals'> & {
  lines: Pick<Donation['lines'][number], 'id' | 'description' | 'food_category' | 'quantity' | 'unit' | 'net_kg' | 'status'>[];
  /** Who signed the handover note on the entity's side, and when; null until signed. */
  signed: { name: string; signed_at: string } | null;
};

/** The station's donation `id` (its establishment and mode; a 404 for any other), with its signer once signed. */
export async function stationDonation(sql: Sql, station: Station, id: string): Promise<StationDonation> {
  const donation = await getDonation(sql, station.tenant, id);
  const { rows } = await sql.query<{ name: string; signed_at: string }>(
    `SELECT signer_name AS name, ${isoSql('signed_at')} AS signed_at FROM donation_notes WHERE donation_id = $1::uuid`,
    [id],
  );
  return {
    id: donation.id,
    status: donation.status,
    entity_name: donation.entity_name,
    offered_at: donation.offered_at,
    decided_at: donation.decided_at,
    totals: donation.totals,
    lines: donation.lines.map((l) => ({
      id: l.id,
      description: l.description,
      food_category: l.food_category,
      quantity: l.quantity,
      unit: l.unit,
      net_kg: l.net_kg,
      status: l.status,
    })),
    signed: rows[0] ?? null,
  };
}
