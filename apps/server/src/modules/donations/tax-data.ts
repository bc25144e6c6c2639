import { AGREEMENT_TIMEZONE, type EntityLegalForm, type FoodCategory } from '@merma/schema';
import type { Sql } from '../../db/sql.js';
import type { TaxEntity, TaxLine } from './tax.js';

/**
 * What the tax pack reads from the database, in one statement: the lines tax.ts and tax-pack.ts
 * compute on, and who gave them to whom.
 *
 * - **Lines**: the accepted lines of the donations of the key's mode that were collected (or since
 *   received), collected in the tax year or the two before it (the recurrence test's years), in
 *   Spain's calendar. An offered donation, a refused one, a refused line and the other mode's
 *   donations are not read. A line keeps its own row: the art. 18 cap (min of book and market
 *   value) is per line and is tax.ts's rule, not written again here as SQL.
 * - **Day of handover**: the day the donation was collected, in Europe/Madrid (the law's calendar,
 *   as the agreements' dates); it decides the tax year.
 * - **Companies**: the taxpayer is the company, i.e. the establishments' CIF (an organisation may
 *   hold several companies). Every establishment of the organisation with the CIF of those in scope
 *   is read, so a single-establishment key's rate still sees its company's gifts to the entity.
 * - **Records since**: per CIF, the year of the first donation Merma holds in this mode, so that a
 *   recurrence test reaching before it is flagged, not read as "no gift".
 * - **Signed certificates**: the year's stored certificates of the organisation and mode (their
 *   company, entity, SHA-256 and time, not the PDF), for the pack to say which it has received
 *   (certificates.ts stores them).
 */

export type TaxScope = {
  organizationId: string;
  livemode: boolean;
  /** A single-establishment key's establishment: only its company (CIF) is read. `null`: the organisation. */
  onlyEstablishmentId: string | null;
  /** Only this CIF (normalised: upper case, no spaces, dots or hyphens). */
  cif: string | null;
};

export type TaxDataEntity = TaxEntity & {
  name: string;
  nif: string;
  address: string;
  legal_form: EntityLegalForm;
  registry_number: string | null;
};

export type TaxDataLine = TaxLine & { position: number; description: string; food_category: FoodCategory };

export type TaxData = {
  organisation: string;
  establishments: { id: string; name: string; cif: string }[];
  entities: TaxDataEntity[];
  lines: TaxDataLine[];
  /** Per CIF, the first year Merma holds a donation of the mode for. */
  firstYears: Record<string, number>;
  /** The tax year's signed certificates of the mode, by company (normalised CIF) and entity. */
  certificates: { cif: string; entity_id: string; sha256: string; uploaded_at: string }[];
};

/** A CIF as compared: upper case, without spaces, dots or hyphens (as the query's `cif` is normalised). */
export const CIF_SQL = (column: string) => `upper(regexp_replace(${column}, '[[:space:].-]', '', 'g'))`;

const TAX_DATA_SQL = `
WITH scope AS (
  SELECT e.id, e.name, ${CIF_SQL('e.cif')} AS cif FROM establishments e
  WHERE e.organization_id = $1::uuid
    AND ($3::uuid IS NULL OR ${CIF_SQL('e.cif')} = (
      SELECT ${CIF_SQL('k.cif')} FROM establishments k WHERE k.id = $3::uuid AND k.organization_id = $1::uuid))
    AND ($4::text IS NULL OR ${CIF_SQL('e.cif')} = $4)
),
given AS (
  SELECT d.id, d.establishment_id, a.entity_id,
    to_char(d.collected_at AT TIME ZONE $6, 'YYYY-MM-DD') AS handed_over_on
  FROM donations d
  JOIN scope s ON s.id = d.establishment_id
  JOIN donation_agreements a ON a.id = d.agreement_id AND a.organization_id = $1::uuid
  WHERE d.livemode = $2 AND d.status IN ('collected', 'received')
    AND d.collected_at >= make_timestamptz($5 - 2, 1, 1, 0, 0, 0, $6)
    AND d.collected_at < make_timestamptz($5 + 1, 1, 1, 0, 0, 0, $6)
),
lines AS (
  SELECT l.id::text AS id, g.id::text AS donation_id, g.establishment_id::text AS establishment_id,
    g.entity_id::text AS entity_id, g.handed_over_on, l.position, l.description, l.food_category,
    l.net_kg::text AS net_kg, l.book_value::text AS book_value, l.market_value::text AS market_value
  FROM given g JOIN donation_lines l ON l.donation_id = g.id
  WHERE l.status = 'accepted'
)
SELECT
  (SELECT name FROM organizations WHERE id = $1::uuid) AS organisation,
  (SELECT coalesce(json_agg(json_build_object('id', s.id::text, 'name', s.name, 'cif', s.cif) ORDER BY s.cif, s.name, s.id), '[]')
     FROM scope s) AS establishments,
  (SELECT coalesce(json_agg(json_build_object(
       'id', e.id::text, 'name', e.name, 'nif', e.nif, 'address', e.address, 'legal_form', e.legal_form,
       'registry_number', e.registry_number,
       'ley_49_2002', json_build_object('art2_entity', e.ley49_art2_entity, 'regime_opted_in', e.ley49_regime_opted_in))
     ORDER BY e.name, e.id), '[]')
     FROM social_entities e WHERE e.organization_id = $1::uuid AND e.id IN (SELECT entity_id FROM given)) AS entities,
  (SELECT coalesce(json_agg(l ORDER BY l.handed_over_on, l.donation_id, l.position), '[]') FROM lines l) AS lines,
  (SELECT coalesce(json_object_agg(f.cif, f.first_year), '{}') FROM (
     SELECT s.cif, min(extract(year FROM d.offered_at AT TIME ZONE $6))::int AS first_year
     FROM donations d JOIN scope s ON s.id = d.establishment_id WHERE d.livemode = $2 GROUP BY s.cif) f) AS first_years,
  (SELECT coalesce(json_agg(json_build_object('cif', c.cif, 'entity_id', c.entity_id::text, 'sha256', c.sha256,
       'uploaded_at', to_char(c.uploaded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) ORDER BY c.cif, c.entity_id), '[]')
     FROM donation_certificates c
     WHERE c.organization_id = $1::uuid AND c.livemode = $2 AND c.year = $5 AND c.cif IN (SELECT cif FROM scope)) AS certificates`;

/** The lines of `year` and the two years before it, with their establishments and entities (see above). */
export async function readTaxData(sql: Sql, scope: TaxScope, year: number): Promise<TaxData> {
  const { rows } = await sql.query<{
    organisation: string | null;
    establishments: TaxData['establishments'];
    entities: TaxDataEntity[];
    lines: TaxDataLine[];
    first_years: Record<string, number>;
    certificates: TaxData['certificates'];
  }>(TAX_DATA_SQL, [scope.organizationId, scope.livemode, scope.onlyEstablishmentId, scope.cif, year, AGREEMENT_TIMEZONE]);
  const row = rows[0];
  if (!row) throw new Error('the tax pack query returned no row');
  return {
    organisation: row.organisation ?? '',
    establishments: row.establishments,
    entities: row.entities,
    lines: row.lines,
    firstYears: row.first_years,
    certificates: row.certificates,
  };
}
