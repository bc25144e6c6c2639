import { randomUUID } from 'node:crypto';
import type { CreateSocialEntityParsed, SocialEntity, UpdateSocialEntityParsed } from '@merma/schema';
import { isoSql } from '../../calendar.js';
import type { Sql } from '../../db/sql.js';
import { AppError } from '../../errors.js';

/**
 * Social entities and food banks (Ley 1/2025 art. 6.4.b): the organisation's, like its products,
 * one per NIF. An entity is archived, never deleted: its agreements name it.
 */

type EntityRow = {
  id: string;
  name: string;
  nif: string;
  address: string;
  legal_form: SocialEntity['legal_form'];
  registry_number: string | null;
  ley49_art2_entity: boolean;
  ley49_regime_opted_in: boolean;
  food_bank_network: string | null;
  contacts: SocialEntity['contacts'];
  cold_chain: boolean;
  vehicle: boolean;
  capacity_notes: string | null;
  archived_at: Date | null;
  created_at: string;
  updated_at: string;
};

const ENTITY_COLUMNS = `id::text, name, nif, address, legal_form, registry_number, ley49_art2_entity, ley49_regime_opted_in,
  food_bank_network, contacts, cold_chain, vehicle, capacity_notes, archived_at,
  ${isoSql('created_at')} AS created_at, ${isoSql('updated_at')} AS updated_at`;

const toEntity = (r: EntityRow): SocialEntity => ({
  id: r.id,
  name: r.name,
  nif: r.nif,
  address: r.address,
  legal_form: r.legal_form,
  registry_number: r.registry_number,
  ley_49_2002: { art2_entity: r.ley49_art2_entity, regime_opted_in: r.ley49_regime_opted_in },
  food_bank_network: r.food_bank_network,
  contacts: r.contacts,
  capacity: { cold_chain: r.cold_chain, vehicle: r.vehicle, notes: r.capacity_notes },
  archived: r.archived_at !== null,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

/** Contacts as stored and answered: every field present, `null` when not given. */
const storedContacts = (contacts: CreateSocialEntityParsed['contacts']) =>
  contacts.map((c) => ({ name: c.name, role: c.role ?? null, phone: c.phone ?? null, email: c.email ?? null }));

/** A unique violation (another entity of the organisation has the NIF) as the 409 it is. */
function conflictOf(err: unknown, nif: string): never {
  const unique = (err as { code?: string }).code === '23505' || String(err).includes('social_entities_organization_nif_key');
  if (unique) throw new AppError('conflict', `Another social entity of this organisation has the NIF ${nif}`);
  throw err;
}

export async function listEntities(sql: Sql, organizationId: string, options: { includeArchived?: boolean } = {}): Promise<SocialEntity[]> {
  const { rows } = await sql.query<EntityRow>(
    `SELECT ${ENTITY_COLUMNS} FROM social_entities WHERE organization_id = $1::uuid ${options.includeArchived ? '' : 'AND archived_at IS NULL'}
     ORDER BY name, id`,
    [organizationId],
  );
  return rows.map(toEntity);
}

/** The entity of the organisation with `id`; a 404 for any other (another organisation's included). */
export async function getEntity(sql: Sql, organizationId: string, id: string): Promise<SocialEntity> {
  const { rows } = await sql.query<EntityRow>(
    `SELECT ${ENTITY_COLUMNS} FROM social_entities WHERE id = $1::uuid AND organization_id = $2::uuid`,
    [id, organizationId],
  );
  if (!rows[0]) throw new AppError('not_found', `No social entity ${id} in this organisation`);
  return toEntity(rows[0]);
}

export async function createEntity(sql: Sql, organizationId: string, input: CreateSocialEntityParsed, now: Date): Promise<SocialEntity> {
  try {
    const { rows } = await sql.query<EntityRow>(
      `INSERT INTO social_entities (id, organization_id, name, nif, address, legal_form, registry_number, ley49_art2_entity,
         ley49_regime_opted_in, food_bank_network, contacts, cold_chain, vehicle, capacity_notes, created_at, updated_at)
       VALUES ($1::uuid, $2::uuid, $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb, $12, $13, $14, $15::timestamptz, $15::timestamptz)
       RETURNING ${ENTITY_COLUMNS}`,
      [
        randomUUID(),
        organizationId,
        input.name,
        input.nif,
        input.address,
        input.legal_form,
        input.registry_number ?? null,
        input.ley_49_2002.art2_entity,
        input.ley_49_2002.regime_opted_in,
        input.food_bank_network ?? null,
        JSON.stringify(storedContacts(input.contacts)),
        input.capacity.cold_chain,
        input.capacity.vehicle,
        input.capacity.notes ?? null,
        now.toISOString(),
      ],
    );
    return toEntity(rows[0] as EntityRow);
  } catch (err) {
    conflictOf(err, input.nif);
  }
}

/** Changes the fields sent (`null` clears an optional one, `contacts` replaces the list); a 404 for another organisation's. */
export async function updateEntity(sql: Sql, organizationId: string, input: UpdateSocialEntityParsed, now: Date): Promise<SocialEntity> {
  const before = await getEntity(sql, organizationId, input.id);
  const merged = {
    name: input.name ?? before.name,
    nif: input.nif ?? before.nif,
    address: input.address ?? before.address,
    legal_form: input.legal_form ?? before.legal_form,
    registry_number: input.registry_number === undefined ? before.registry_number : input.registry_number,
    ley: input.ley_49_2002 ?? before.ley_49_2002,
    network: input.food_bank_network === undefined ? before.food_bank_network : input.food_bank_network,
    contacts: input.contacts ? storedContacts(input.contacts) : before.contacts,
    capacity: input.capacity ? { ...input.capacity, notes: input.capacity.notes ?? null } : before.capacity,
  };
  try {
    const { rows } = await sql.query<EntityRow>(
      `UPDATE social_entities SET name = $3, nif = $4, address = $5, legal_form = $6, registry_number = $7, ley49_art2_entity = $8,
         ley49_regime_opted_in = $9, food_bank_network = $10, contacts = $11::jsonb, cold_chain = $12, vehicle = $13,
         capacity_notes = $14, updated_at = $15::timestamptz
       WHERE id = $1::uuid AND organization_id = $2::uuid RETURNING ${ENTITY_COLUMNS}`,
      [
        input.id,
        organizationId,
        merged.name,
        merged.nif,
        merged.address,
        merged.legal_form,
        merged.registry_number,
        merged.ley.art2_entity,
        merged.ley.regime_opted_in,
        merged.network,
        JSON.stringify(merged.contacts),
        merged.capacity.cold_chain,
        merged.capacity.vehicle,
        merged.capacity.notes,
        now.toISOString(),
      ],
    );
    return toEntity(rows[0] as EntityRow);
  } catch (err) {
    conflictOf(err, merged.nif);
  }
}

/** Archives (from `now`) or restores an entity; doing what is already so changes nothing. */
export async function archiveEntity(sql: Sql, organizationId: string, id: string, archived: boolean, now: Date): Promise<SocialEntity> {
  const before = await getEntity(sql, organizationId, id);
  if (before.archived === archived) return before;
  const { rows } = await sql.query<EntityRow>(
    `UPDATE social_entities SET archived_at = $3::timestamptz, updated_at = $4::timestamptz
     WHERE id = $1::uuid AND organization_id = $2::uuid RETURNING ${ENTITY_COLUMNS}`,
    [id, organizationId, archived ? now.toISOString() : null, now.toISOString()],
  );
  return toEntity(rows[0] as EntityRow);
}
