import { randomUUID } from 'node:crypto';
import {
  AGREEMENT_EXPIRING_DAYS,
  AGREEMENT_TIMEZONE,
  type AgreementStatus,
  type CreateDonationAgreementParsed,
  type DonationAgreement,
  localDate,
  type UpdateDonationAgreementParsed,
} from '@merma/schema';
import { isoSql } from '../../calendar.js';
import type { Sql, TransactionalSql } from '../../db/sql.js';
import { AppError, validationError } from '../../errors.js';

/**
 * Donation agreements (Ley 1/2025 art. 7) with a social entity, for one or more establishments of
 * the organisation. The status is never stored: it is read from the dates, the renewal and the
 * signed document on the day asked (`agreementStatus`), in Spain's calendar.
 */

type AgreementRow = {
  id: string;
  entity_id: string;
  entity_name: string;
  establishment_ids: string[];
  valid_from: string;
  valid_until: string;
  renewal: DonationAgreement['renewal'];
  accepted_food_categories: DonationAgreement['accepted_food_categories'];
  conditions: DonationAgreement['conditions'];
  collection: DonationAgreement['collection'];
  storage_conditions: string;
  safety_responsibility_clause: string;
  refusal_procedure: string;
  document_sha256: string | null;
  document_size: number | null;
  document_uploaded_at: string | null;
  created_at: string;
  updated_at: string;
};

const AGREEMENT_SELECT = `SELECT a.id::text, a.entity_id::text, e.name AS entity_name,
    ARRAY(SELECT ae.establishment_id::text FROM donation_agreement_establishments ae WHERE ae.agreement_id = a.id
      ORDER BY ae.establishment_id) AS establishment_ids,
    to_char(a.valid_from, 'YYYY-MM-DD') AS valid_from, to_char(a.valid_until, 'YYYY-MM-DD') AS valid_until, a.renewal,
    a.accepted_food_categories, a.conditions, a.collection, a.storage_conditions, a.safety_responsibility_clause,
    a.refusal_procedure, d.sha256 AS document_sha256, d.size_bytes AS document_size,
    ${isoSql('d.uploaded_at')} AS document_uploaded_at, ${isoSql('a.created_at')} AS created_at, ${isoSql('a.updated_at')} AS updated_at
  FROM donation_agreements a
  JOIN social_entities e ON e.id = a.entity_id
  LEFT JOIN donation_agreement_documents d ON d.agreement_id = a.id`;

/** Today in the agreements' calendar (Europe/Madrid). */
export const agreementToday = (now: Date): string => localDate(now, AGREEMENT_TIMEZONE);

const dayNumber = (day: string) => Date.parse(`${day}T00:00:00Z`) / 86_400_000;
/** Whole days from `from` to `to` (both YYYY-MM-DD). */
export const daysBetween = (from: string, to: string): number => Math.round(dayNumber(to) - dayNumber(from));

/**
 * `draft` while no signed document is stored or before `valid_from`; with automatic yearly renewal
 * `active` from then on; otherwise `expired` after `valid_until`, `expiring` from 30 days before it
 * (`valid_until` − today ≤ 30) and `active` before. expiring.ts selects the same agreements in SQL.
 */
export function agreementStatus(
  a: { valid_from: string; valid_until: string; renewal: DonationAgreement['renewal']; signed: boolean },
  today: string,
): AgreementStatus {
  if (!a.signed || today < a.valid_from) return 'draft';
  if (a.renewal === 'automatic_yearly') return 'active';
  if (a.valid_until < today) return 'expired';
  if (daysBetween(today, a.valid_until) <= AGREEMENT_EXPIRING_DAYS) return 'expiring';
  return 'active';
}

/** Days left before an `expiring` agreement ends (0 on its last day), on the day of `now`; null in any other status. */
export function expiresInDays(agreement: Pick<DonationAgreement, 'status' | 'valid_until'>, now: Date): number | null {
  return agreement.status === 'expiring' ? daysBetween(agreementToday(now), agreement.valid_until) : null;
}

const toAgreement = (r: AgreementRow, today: string): DonationAgreement => ({
  id: r.id,
  entity_id: r.entity_id,
  entity_name: r.entity_name,
  establishment_ids: r.establishment_ids,
  valid_from: r.valid_from,
  valid_until: r.valid_until,
  renewal: r.renewal,
  status: agreementStatus({ ...r, signed: r.document_sha256 !== null }, today),
  accepted_food_categories: r.accepted_food_categories,
  conditions: r.conditions,
  collection: r.collection,
  storage_conditions: r.storage_conditions,
  safety_responsibility_clause: r.safety_responsibility_clause,
  refusal_procedure: r.refusal_procedure,
  document:
    r.document_sha256 === null
      ? null
      : { sha256: r.document_sha256, size_bytes: Number(r.document_size), uploaded_at: r.document_uploaded_at as string },
  created_at: r.created_at,
  updated_at: r.updated_at,
});

export type AgreementFilter = {
  entity_id?: string | undefined;
  establishment_id?: string | undefined;
  status?: AgreementStatus | undefined;
};

/** The organisation's agreements, the latest ending first, filtered as asked. */
export async function listAgreements(sql: Sql, organizationId: string, filter: AgreementFilter, now: Date): Promise<DonationAgreement[]> {
  const { rows } = await sql.query<AgreementRow>(
    `${AGREEMENT_SELECT}
     WHERE a.organization_id = $1::uuid AND ($2::uuid IS NULL OR a.entity_id = $2::uuid)
       AND ($3::uuid IS NULL OR EXISTS (SELECT 1 FROM donation_agreement_establishments ae WHERE ae.agreement_id = a.id AND ae.establishment_id = $3::uuid))
     ORDER BY a.valid_until DESC, a.id`,
    [organizationId, filter.entity_id ?? null, filter.establishment_id ?? null],
  );
  const today = agreementToday(now);
  const agreements = rows.map((r) => toAgreement(r, today));
  return filter.status ? agreements.filter((a) => a.status === filter.status) : agreements;
}

/** The organisation's agreement `id`; a 404 for any other. */
export async function getAgreement(sql: Sql, organizationId: string, id: string, now: Date): Promise<DonationAgreement> {
  const { rows } = await sql.query<AgreementRow>(`${AGREEMENT_SELECT} WHERE a.id = $1::uuid AND a.organization_id = $2::uuid`, [
    id,
    organizationId,
  ]);
  if (!rows[0]) throw new AppError('not_found', `No donation agreement ${id} in this organisation`);
  return toAgreement(rows[0], agreementToday(now));
}

/**
 * A 400 unless the entity is the organisation's and not archived: an unknown id in a body is a
 * bad request, not a missing resource (the contract's rule for every body reference).
 */
async function checkEntity(sql: Sql, organizationId: string, entityId: string): Promise<void> {
  const { rows } = await sql.query<{ archived: boolean }>(
    'SELECT archived_at IS NOT NULL AS archived FROM social_entities WHERE id = $1::uuid AND organization_id = $2::uuid',
    [entityId, organizationId],
  );
  if (!rows[0]) {
    throw validationError(`No social entity ${entityId} in this organisation`, [{ path: 'entity_id', message: 'unknown social entity' }]);
  }
  if (rows[0].archived) {
    throw validationError(`The social entity ${entityId} is archived: restore it first`, [{ path: 'entity_id', message: 'archived' }]);
  }
}

/** A 400 naming the first establishment that is not the organisation's (a body reference, as above). */
async function checkEstablishments(sql: Sql, organizationId: string, ids: readonly string[]): Promise<void> {
  const { rows } = await sql.query<{ id: string }>(
    'SELECT e.id::text FROM establishments e WHERE e.id = ANY($1::uuid[]) AND e.organization_id = $2::uuid',
    [ids, organizationId],
  );
  const own = new Set(rows.map((r) => r.id));
  const other = ids.find((id) => !own.has(id));
  if (other) {
    const index = ids.indexOf(other);
    throw validationError(`No establishment ${other} in this organisation`, [
      { path: `establishment_ids.${index}`, message: 'unknown establishment' },
    ]);
  }
}

async function setEstablishments(sql: Sql, agreementId: string, ids: readonly string[]): Promise<void> {
  await sql.query(
    `WITH gone AS (DELETE FROM donation_agreement_establishments WHERE agreement_id = $1::uuid AND NOT (establishment_id = ANY($2::uuid[])))
     INSERT INTO donation_agreement_establishments (agreement_id, establishment_id)
     SELECT $1::uuid, id FROM unnest($2::uuid[]) AS id ON CONFLICT DO NOTHING`,
    [agreementId, ids],
  );
}

export async function createAgreement(
  sql: TransactionalSql,
  organizationId: string,
  input: CreateDonationAgreementParsed,
  now: Date,
): Promise<DonationAgreement> {
  // Every reference is checked before anything is written.
  await checkEntity(sql, organizationId, input.entity_id);
  await checkEstablishments(sql, organizationId, input.establishment_ids);
  const id = randomUUID();
  await sql.transaction(async (tx) => {
    await tx.query(
      `INSERT INTO donation_agreements (id, organization_id, entity_id, valid_from, valid_until, renewal, accepted_food_categories,
         conditions, collection, storage_conditions, safety_responsibility_clause, refusal_procedure, created_at, updated_at)
       VALUES ($1::uuid, $2::uuid, $3::uuid, $4::date, $5::date, $6, $7::text[], $8::jsonb, $9::jsonb, $10, $11, $12,
         $13::timestamptz, $13::timestamptz)`,
      [
        id,
        organizationId,
        input.entity_id,
        input.valid_from,
        input.valid_until,
        input.renewal,
        input.accepted_food_categories,
        JSON.stringify(input.conditions),
        JSON.stringify(input.collection),
        input.storage_conditions,
        input.safety_responsibility_clause,
        input.refusal_procedure,
        now.toISOString(),
      ],
    );
    await setEstablishments(tx, id, input.establishment_ids);
  });
  return getAgreement(sql, organizationId, id, now);
}

/** Changes the fields sent (`establishment_ids` replaces the list); the dates are checked with the ones kept. */
export async function updateAgreement(
  sql: TransactionalSql,
  organizationId: string,
  input: UpdateDonationAgreementParsed,
  now: Date,
): Promise<DonationAgreement> {
  const before = await getAgreement(sql, organizationId, input.id, now);
  const { id, establishment_ids, ...changes } = input;
  const merged = { ...before, ...changes };
  if (merged.valid_until < merged.valid_from) {
    throw validationError(`valid_until (${merged.valid_until}) is before valid_from (${merged.valid_from})`, [
      { path: 'valid_until', message: 'must not be before valid_from' },
    ]);
  }
  if (establishment_ids) await checkEstablishments(sql, organizationId, establishment_ids);
  await sql.transaction(async (tx) => {
    await tx.query(
      `UPDATE donation_agreements SET valid_from = $3::date, valid_until = $4::date, renewal = $5, accepted_food_categories = $6::text[],
         conditions = $7::jsonb, collection = $8::jsonb, storage_conditions = $9, safety_responsibility_clause = $10,
         refusal_procedure = $11, updated_at = $12::timestamptz
       WHERE id = $1::uuid AND organization_id = $2::uuid`,
      [
        id,
        organizationId,
        merged.valid_from,
        merged.valid_until,
        merged.renewal,
        merged.accepted_food_categories,
        JSON.stringify(merged.conditions),
        JSON.stringify(merged.collection),
        merged.storage_conditions,
        merged.safety_responsibility_clause,
        merged.refusal_procedure,
        now.toISOString(),
      ],
    );
    if (establishment_ids) await setEstablishments(tx, id, establishment_ids);
  });
  return getAgreement(sql, organizationId, id, now);
}
