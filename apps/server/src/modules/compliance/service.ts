import {
  type Establishment,
  localDate,
  type Obligations,
  type OrganizationSize,
  type PlanLanguage,
  type Sector,
  stageOfNace,
} from '@merma/schema';
import type { Sql } from '../../db/sql.js';
import { AppError } from '../../errors.js';
import { CIF_SQL } from '../donations/tax-data.js';
import { obligationsOf } from './obligations.js';

type FactsRow = {
  id: string;
  name: string;
  cif: string;
  sector: string;
  timezone: string;
  nace_code: string | null;
  floor_area_m2: number | null;
  organization_id: string;
  headcount: number | null;
  annual_turnover_eur: number | null;
  balance_sheet_eur: number | null;
  cif_establishments: number;
  cif_floor_area_m2: number | null;
};

/** One establishment's facts, its organisation's size and its CIF's establishments (count and summed area, null while one lacks it), in one statement. */
async function loadFacts(sql: Sql, establishmentId: string): Promise<FactsRow> {
  const { rows } = await sql.query<FactsRow>(
    `SELECT e.id::text, e.name, e.cif, e.sector, e.timezone, e.nace_code, e.floor_area_m2::float8 AS floor_area_m2, e.organization_id::text,
       o.headcount, o.annual_turnover_eur::float8 AS annual_turnover_eur, o.balance_sheet_eur::float8 AS balance_sheet_eur,
       g.n AS cif_establishments, g.area AS cif_floor_area_m2
     FROM establishments e
     JOIN organizations o ON o.id = e.organization_id
     CROSS JOIN LATERAL (
       SELECT count(*)::int AS n, CASE WHEN bool_and(s.floor_area_m2 IS NOT NULL) THEN sum(s.floor_area_m2)::float8 END AS area
       FROM establishments s WHERE s.organization_id = e.organization_id AND ${CIF_SQL('s.cif')} = ${CIF_SQL('e.cif')}
     ) g
     WHERE e.id = $1::uuid`,
    [establishmentId],
  );
  const row = rows[0];
  if (!row) throw new AppError('not_found', 'No such establishment');
  return row;
}

/** "Am I obliged?" for one establishment, on the day `now` is in its time zone. */
export async function obligationsFor(sql: Sql, establishmentId: string, lang: PlanLanguage, now: Date): Promise<Obligations> {
  const f = await loadFacts(sql, establishmentId);
  return obligationsOf(
    {
      establishmentId: f.id,
      asOf: localDate(now, f.timezone),
      size: { headcount: f.headcount, annual_turnover_eur: f.annual_turnover_eur, balance_sheet_eur: f.balance_sheet_eur },
      naceCode: f.nace_code,
      floorArea: f.floor_area_m2,
      cif: { cif: f.cif, establishments: f.cif_establishments, floor_area_m2: f.cif_floor_area_m2 },
    },
    lang,
  );
}

/** The public shape of an establishment, its activity's stage derived from its NACE class. */
export function establishmentOf(
  row: Pick<FactsRow, 'id' | 'name' | 'cif' | 'sector' | 'timezone' | 'nace_code' | 'floor_area_m2'>,
): Establishment {
  return {
    id: row.id,
    name: row.name,
    cif: row.cif,
    sector: row.sector as Sector,
    timezone: row.timezone,
    nace_code: row.nace_code,
    stage: row.nace_code ? stageOfNace(row.nace_code) : null,
    floor_area_m2: row.floor_area_m2 === null ? null : Number(row.floor_area_m2),
  };
}

/**
 * Sets an establishment's activity and floor area (a field left out is kept, null clears it) and
 * answers it with the values before, for the audit log.
 */
export async function updateEstablishmentFacts(
  sql: Sql,
  establishmentId: string,
  body: { nace_code?: string | null | undefined; floor_area_m2?: number | null | undefined },
): Promise<{ before: Establishment; after: Establishment }> {
  const before = await loadFacts(sql, establishmentId);
  const { rows } = await sql.query<FactsRow>(
    `UPDATE establishments SET
       nace_code = CASE WHEN $2 THEN $3::text ELSE nace_code END,
       floor_area_m2 = CASE WHEN $4 THEN $5::numeric ELSE floor_area_m2 END
     WHERE id = $1::uuid
     RETURNING id::text, name, cif, sector, timezone, nace_code, floor_area_m2::float8 AS floor_area_m2`,
    [establishmentId, body.nace_code !== undefined, body.nace_code ?? null, body.floor_area_m2 !== undefined, body.floor_area_m2 ?? null],
  );
  return { before: establishmentOf(before), after: establishmentOf(rows[0] as FactsRow) };
}

/** Sets an organisation's size (every field: null clears it) and answers it with the values before. */
export async function updateOrganizationSize(
  sql: Sql,
  organizationId: string,
  size: OrganizationSize,
): Promise<{ before: OrganizationSize; after: OrganizationSize }> {
  const { rows } = await sql.query<OrganizationSize & { old: OrganizationSize }>(
    `WITH old AS (SELECT headcount, annual_turnover_eur::float8 AS annual_turnover_eur, balance_sheet_eur::float8 AS balance_sheet_eur
                  FROM organizations WHERE id = $1::uuid FOR UPDATE)
     UPDATE organizations o SET headcount = $2, annual_turnover_eur = $3, balance_sheet_eur = $4
     FROM old WHERE o.id = $1::uuid
     RETURNING o.headcount, o.annual_turnover_eur::float8 AS annual_turnover_eur, o.balance_sheet_eur::float8 AS balance_sheet_eur, row_to_json(old) AS old`,
    [organizationId, size.headcount, size.annual_turnover_eur, size.balance_sheet_eur],
  );
  const row = rows[0];
  if (!row) throw new AppError('not_found', 'No such organisation');
  const { old, ...after } = row;
  return { before: old, after };
}
