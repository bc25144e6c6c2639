import { lerLabel, type WasteStream, type WasteStreamFields, type WfdOperation } from '@merma/schema';
import type { z } from 'zod';
import type { Sql } from '../../db/sql.js';
import { AppError, validationError } from '../../errors.js';

/**
 * Each waste stream of an establishment, with its code and its manager (`waste_streams`; the
 * schema's waste-streams.ts says what a stream is). The list answers one row per destination that
 * is waste, in the hierarchy's order, a stream not yet described with its code and manager null:
 * what an inspector would ask for and is still missing shows as such.
 *
 * Setting a stream is an upsert of its three facts; a destination that is not waste (donation,
 * animal feed, food kept for people, by-products) is a 400, and an unknown one a 404. Removing
 * one (the dashboard's) deletes its row. Neither touches a record: each record keeps the transfer
 * document it was handed over with (`transfer_document_ref`), and the dossier puts both side by side.
 */

type Fields = z.output<z.ZodObject<typeof WasteStreamFields>>;

type StreamRow = {
  destination_id: string;
  destination_code: string;
  wfd_operation: WfdOperation;
  ler_code: string | null;
  manager_name: string | null;
  manager_nima: string | null;
  updated_at: Date | null;
};

const toStream = (r: StreamRow): WasteStream => ({
  destination_id: r.destination_id,
  destination_code: r.destination_code,
  wfd_operation: r.wfd_operation,
  ler_code: r.ler_code,
  ler_label: r.ler_code === null ? null : lerLabel(r.ler_code),
  manager_name: r.manager_name,
  manager_nima: r.manager_nima,
  updated_at: r.updated_at ? r.updated_at.toISOString() : null,
});

/** Each destination with the establishment's stream where described ($1: the establishment). */
const STREAMS_SQL = `SELECT d.id::text AS destination_id, d.code AS destination_code, d.wfd_operation,
    w.ler_code, w.manager_name, w.manager_nima, w.updated_at
  FROM destinations d
  LEFT JOIN waste_streams w ON w.destination_id = d.id AND w.establishment_id = $1::uuid`;

/** Every destination that is waste, in the hierarchy's order, with the establishment's stream where described. */
export async function listWasteStreams(sql: Sql, establishmentId: string): Promise<WasteStream[]> {
  const { rows } = await sql.query<StreamRow>(`${STREAMS_SQL} WHERE d.wfd_operation <> 'not_waste' ORDER BY d.orden, d.code`, [
    establishmentId,
  ]);
  return rows.map(toStream);
}

async function streamOf(sql: Sql, establishmentId: string, destinationId: string): Promise<WasteStream> {
  const { rows } = await sql.query<StreamRow>(`${STREAMS_SQL} WHERE d.id = $2::uuid`, [establishmentId, destinationId]);
  const row = rows[0];
  if (!row) throw new AppError('not_found', 'No such destination');
  if (row.wfd_operation === 'not_waste') {
    throw validationError(`destination_id: ${row.destination_code} is not waste`, [
      {
        path: 'destination_id',
        message: `${row.destination_code} is not waste (food kept for people, donated, fed to animals or a by-product): it has no LER code or waste manager`,
      },
    ]);
  }
  return toStream(row);
}

/** Describes (or describes again) one stream: its LER code and its manager. */
export async function setWasteStream(
  sql: Sql,
  establishmentId: string,
  destinationId: string,
  fields: Fields,
  now: Date,
): Promise<{ before: WasteStream; after: WasteStream }> {
  const before = await streamOf(sql, establishmentId, destinationId);
  await sql.query(
    `INSERT INTO waste_streams (establishment_id, destination_id, ler_code, manager_name, manager_nima, updated_at)
     VALUES ($1::uuid, $2::uuid, $3, $4, $5, $6)
     ON CONFLICT (establishment_id, destination_id) DO UPDATE SET ler_code = EXCLUDED.ler_code,
       manager_name = EXCLUDED.manager_name, manager_nima = EXCLUDED.manager_nima, updated_at = EXCLUDED.updated_at`,
    [establishmentId, destinationId, fields.ler_code, fields.manager_name || null, fields.manager_nima, now],
  );
  return { before, after: await streamOf(sql, establishmentId, destinationId) };
}

/** Forgets one stream's code and manager (a destination the establishment no longer uses, or a mistake). */
export async function removeWasteStream(
  sql: Sql,
  establishmentId: string,
  destinationId: string,
): Promise<{ before: WasteStream; after: WasteStream }> {
  const before = await streamOf(sql, establishmentId, destinationId);
  if (before.ler_code === null) throw new AppError('not_found', 'This destination has no waste stream described');
  await sql.query('DELETE FROM waste_streams WHERE establishment_id = $1::uuid AND destination_id = $2::uuid', [
    establishmentId,
    destinationId,
  ]);
  return { before, after: await streamOf(sql, establishmentId, destinationId) };
}
