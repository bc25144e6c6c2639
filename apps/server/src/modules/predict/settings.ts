import { DEFAULT_SERVICE_LEVEL, type ProductionSettings, type UpdateProductionSettingsInput } from '@merma/schema';
import { isoSql } from '../../calendar.js';
import type { DataScope } from '../../context.js';
import type { Sql } from '../../db/sql.js';

/**
 * The production advice's settings of an establishment, per mode as its opening calendar is (a
 * test key tries a service level without moving the live advice): today, the service level — the
 * share of days the advice covers for a product without prices, before the adjustment for its
 * recorded waste (`adviceQuantile`, demand.ts). One row per establishment and mode once set
 * (`production_settings`); none: the default, 0.85.
 */

type Row = { service_level: number; updated_at: string };

export async function getProductionSettings(sql: Sql, scope: DataScope): Promise<ProductionSettings> {
  const { rows } = await sql.query<Row>(
    `SELECT service_level::float8 AS service_level, ${isoSql('updated_at')} AS updated_at
     FROM production_settings WHERE establishment_id = $1::uuid AND livemode = $2`,
    [scope.establishmentId, scope.livemode],
  );
  const row = rows[0];
  return row
    ? { service_level: row.service_level, is_default: false, updated_at: row.updated_at }
    : { service_level: DEFAULT_SERVICE_LEVEL, is_default: true, updated_at: null };
}

/**
 * Sets the service level (rounded to hundredths, as it is stored), or goes back to the default
 * with null; returns the settings before and after, for the audit log.
 */
export async function updateProductionSettings(
  sql: Sql,
  scope: DataScope,
  input: UpdateProductionSettingsInput,
  now: Date,
): Promise<{ before: ProductionSettings; after: ProductionSettings }> {
  const before = await getProductionSettings(sql, scope);
  if (input.service_level === null) {
    await sql.query('DELETE FROM production_settings WHERE establishment_id = $1::uuid AND livemode = $2', [
      scope.establishmentId,
      scope.livemode,
    ]);
  } else {
    await sql.query(
      `INSERT INTO production_settings (establishment_id, livemode, service_level, updated_at)
       VALUES ($1::uuid, $2, round($3::numeric, 2), $4::timestamptz)
       ON CONFLICT (establishment_id, livemode) DO UPDATE SET service_level = excluded.service_level, updated_at = excluded.updated_at`,
      [scope.establishmentId, scope.livemode, input.service_level, now.toISOString()],
    );
  }
  return { before, after: await getProductionSettings(sql, scope) };
}
