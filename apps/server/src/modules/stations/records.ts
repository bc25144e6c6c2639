import { type CreateRecordParsed, localDate, type WasteRecord } from '@merma/schema';
import type { StationRecent } from '@merma/schema/dashboard';
import { STATION_MAX_WEIGHT_KG, STATION_UNDO_SECONDS, stationSource } from '@merma/schema/station';
import type { Clock } from '../../context.js';
import type { DbTx } from '../../db/client.js';
import type { Sql } from '../../db/sql.js';
import { AppError, validationError } from '../../errors.js';
import type { CatalogCache } from '../catalog/service.js';
import { correctRecord } from '../records/correct.js';
import { listRecords } from '../records/list.js';
import { usageAndToday } from '../records/rollup.js';
import { createRecord, type RecordDeps } from '../records/service.js';
import type { Station } from './service.js';

/**
 * A kitchen station's records (docs/decisions/0007-the-kitchen-station.md). A station writes
 * through the service of `POST /api/v1/records` — the same checks, chain, day totals and
 * `record.created` event — for its one establishment and mode, with `source` = `station:<device
 * id>`, up to STATION_MAX_WEIGHT_KG; and undoes its own last records, within STATION_UNDO_SECONDS of storing them, by a
 * correction that voids them (`correctRecord` with `voids`).
 */

/** How many of today's records a station shows. */
export const STATION_RECENT_LIMIT = 10;

export type StationRecordDeps = { tx: DbTx; clock: Clock; catalog: CatalogCache };

/** `deps.sql`: where the record's writes run (the request's Idempotency-Key connection, as for `POST /api/v1/records`). */
export function createStationRecord(deps: RecordDeps, station: Station, input: CreateRecordParsed): Promise<WasteRecord> {
  if (input.weight_kg > STATION_MAX_WEIGHT_KG) {
    const message = `at most ${STATION_MAX_WEIGHT_KG} kg from a station; record a larger loss from the dashboard`;
    return Promise.reject(validationError(`weight_kg: ${message}`, [{ path: 'weight_kg', message }]));
  }
  return createRecord(deps, station.tenant, input, stationSource(station.identity.device.id));
}

/**
 * Voids a record this device stored less than STATION_UNDO_SECONDS ago. Another source's record
 * (another station's, the API's) is not this device's to undo: 404, as if absent. Later than the
 * window, or already corrected: 409, with where to correct it instead.
 */
export async function undoStationRecord(deps: StationRecordDeps, station: Station, recordId: string): Promise<WasteRecord> {
  const { tenant } = station;
  const [row] = await deps.tx.$queryRawUnsafe<{ created_at: Date; superseded_by: string | null }[]>(
    `SELECT created_at, superseded_by::text FROM records
     WHERE id = $1::uuid AND establishment_id = $2::uuid AND livemode = $3 AND source = $4`,
    recordId,
    tenant.establishmentId,
    tenant.livemode,
    stationSource(station.identity.device.id),
  );
  if (!row) throw new AppError('not_found', `No record ${recordId} of this station`);
  if (row.superseded_by) throw new AppError('conflict', 'This record was already undone or corrected', undefined, { shouldRetry: false });
  if (deps.clock().getTime() - row.created_at.getTime() > STATION_UNDO_SECONDS * 1000) {
    throw new AppError(
      'conflict',
      `A record can be undone at the station for ${STATION_UNDO_SECONDS / 60} minutes after it is stored; correct it from the dashboard (Records)`,
      undefined,
      { shouldRetry: false },
    );
  }
  return correctRecord(deps, tenant, { record_id: recordId, changes: {}, source: stationSource(station.identity.device.id), voids: true });
}

/** Today's records that count (every source's: the kitchen's day), newest first, and today's total. */
export async function recentStationRecords(deps: { sql: Sql; clock: Clock }, station: Station): Promise<StationRecent> {
  const { tenant } = station;
  const day = localDate(deps.clock(), tenant.timezone);
  const [list, usage] = await Promise.all([
    listRecords(deps, tenant, { from: day, to: day, limit: STATION_RECENT_LIMIT, offset: 0 }),
    usageAndToday(deps.sql, tenant, { from: day, today: day }),
  ]);
  return { records: list.data, today: { day, ...usage.today } };
}
