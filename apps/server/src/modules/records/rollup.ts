import { localDate } from '@merma/schema';
import { localDaySql } from '../../calendar.js';
import type { DataScope } from '../../context.js';
import type { DbTx } from '../../db/client.js';

/**
 * `record_day_totals`: kg and record count of the records that count (not superseded) per
 * establishment, mode, local day of `occurred_at` (the establishment's zone) and the dimensions
 * the analytics break down by (category, destination, cause, stage). Every write keeps it in its
 * own transaction: a record adds to its bucket; a correction adds itself and takes its original
 * out. Long-range analytics and sector benchmarking read it (a few rows a day) instead of every
 * record; `test/rollup.test.ts` checks it equals the aggregation of the records themselves.
 *
 * An establishment's days are those of its time zone when the record was stored: changing the
 * zone afterwards leaves earlier records on their old days (rebuild with the migration's INSERT).
 */

/** The SQL of a bucket upsert from a row source `src` with the columns named below. */
export const ADD_TO_DAY_TOTALS = `
  INSERT INTO record_day_totals AS t (establishment_id, livemode, day, food_category, destino_id, causa_id, waste_stage, kg, records)
  SELECT establishment_id, livemode, day, food_category, destino_id, causa_id, waste_stage, sum(kg), count(*)::int
  FROM src GROUP BY 1, 2, 3, 4, 5, 6, 7
  ON CONFLICT ON CONSTRAINT record_day_totals_key
  DO UPDATE SET kg = t.kg + excluded.kg, records = t.records + excluded.records`;

/** The bucket day of a record: the local date of `occurredAt` in the establishment's zone. */
export const bucketDay = (occurredAt: string, timezone: string) => localDate(new Date(occurredAt), timezone);

/**
 * Marks `originalId` as replaced by `correctionId` and takes it out of its day's totals (the
 * correction added itself when it was stored). The caller holds the original's row lock and has
 * checked that nothing replaced it yet.
 */
export async function supersede(
  tx: DbTx,
  scope: DataScope & { timezone: string },
  originalId: string,
  correctionId: string,
): Promise<void> {
  // The day is found again in SQL (`localDaySql`), as the JavaScript `bucketDay` wrote it.
  await tx.$executeRawUnsafe(
    `WITH old AS (
      UPDATE records SET superseded_by = $1::uuid
      WHERE id = $2::uuid AND establishment_id = $3::uuid AND livemode = $4 AND superseded_by IS NULL
      RETURNING establishment_id, livemode, occurred_at, food_category, destino_id, causa_id, waste_stage, weight_kg
    )
    UPDATE record_day_totals t SET kg = t.kg - old.weight_kg, records = t.records - 1
    FROM old
    WHERE t.establishment_id = old.establishment_id AND t.livemode = old.livemode
      AND t.day = ${localDaySql('old.occurred_at', '$5')}
      AND t.food_category = old.food_category AND t.destino_id = old.destino_id
      AND t.causa_id IS NOT DISTINCT FROM old.causa_id AND t.waste_stage IS NOT DISTINCT FROM old.waste_stage`,
    correctionId,
    originalId,
    scope.establishmentId,
    scope.livemode,
    scope.timezone,
  );
}
