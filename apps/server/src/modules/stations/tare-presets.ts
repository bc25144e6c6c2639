import { randomUUID } from 'node:crypto';
import { MAX_TARE_PRESETS, type TarePreset } from '@merma/schema/dashboard';
import type { Sql } from '../../db/sql.js';
import { AppError, validationError } from '../../errors.js';

/**
 * The containers of an establishment (`tare_presets`): named, each with its empty weight, for the
 * station's "tare" (flow.ts: the scale reads the gross, the record holds the net). Owners and
 * admins name them on the Stations page; every station of the establishment offers them, in both
 * modes. At most MAX_TARE_PRESETS, names unique regardless of case; a record keeps the weight it
 * subtracted (`tare_kg`), so deleting or re-weighing a container changes no record.
 */
type Row = { id: string; name: string; tare_kg: number };

const COLUMNS = 'id::text, name, tare_kg::float8 AS tare_kg';

export async function listTarePresets(sql: Sql, establishmentId: string): Promise<TarePreset[]> {
  const { rows } = await sql.query<Row>(`SELECT ${COLUMNS} FROM tare_presets WHERE establishment_id = $1::uuid ORDER BY lower(name), id`, [
    establishmentId,
  ]);
  return rows;
}

export async function addTarePreset(
  sql: Sql,
  establishmentId: string,
  input: { name: string; tare_kg: number },
  now: Date,
): Promise<TarePreset> {
  // Locks the establishment's row: two adds at once cannot both pass the count.
  const { rows: held } = await sql.query<{ n: number; taken: boolean }>(
    `SELECT (SELECT count(*)::int FROM tare_presets WHERE establishment_id = e.id) AS n,
            EXISTS (SELECT 1 FROM tare_presets WHERE establishment_id = e.id AND lower(name) = lower($2)) AS taken
     FROM establishments e WHERE e.id = $1::uuid FOR UPDATE`,
    [establishmentId, input.name],
  );
  const state = held[0];
  if (!state) throw new AppError('not_found', 'No such establishment');
  if (state.taken) {
    throw new AppError('conflict', `A container is already named "${input.name}"`, [
      { path: 'name', message: 'already used by another container' },
    ]);
  }
  if (state.n >= MAX_TARE_PRESETS) {
    throw validationError(`At most ${MAX_TARE_PRESETS} containers`, [
      { path: 'name', message: `at most ${MAX_TARE_PRESETS} containers: delete one first` },
    ]);
  }
  const { rows } = await sql.query<Row>(
    `INSERT INTO tare_presets (id, establishment_id, name, tare_kg, created_at) VALUES ($1::uuid, $2::uuid, $3, $4, $5) RETURNING ${COLUMNS}`,
    [randomUUID(), establishmentId, input.name, input.tare_kg, now],
  );
  return rows[0] as Row;
}

export async function deleteTarePreset(sql: Sql, establishmentId: string, id: string): Promise<TarePreset> {
  const { rows } = await sql.query<Row>(
    `DELETE FROM tare_presets WHERE id = $1::uuid AND establishment_id = $2::uuid RETURNING ${COLUMNS}`,
    [id, establishmentId],
  );
  if (!rows[0]) throw new AppError('not_found', 'No such container');
  return rows[0];
}
