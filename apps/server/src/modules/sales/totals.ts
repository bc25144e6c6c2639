import type { FoodCategory } from '@merma/schema';
import type pg from 'pg';
import type { DataScope, Tenant } from '../../context.js';
import type { Sql } from '../../db/sql.js';

/**
 * The daily sales totals (`sale_day_totals`: units, kg, lines and sell-outs per establishment,
 * mode, product and local day), kept with every sales write (service.ts, returns.ts), are read
 * through this file and nowhere else: the demand forecast's history, its products and the
 * establishment's open days, the evening job's "has it sold" conditions, the sales value of the
 * figures per € of sales, and retention's purge of old days. The statements are those the forecast
 * was measured with (bench/README.md); a new reader adds a function here, so that a change of the
 * table is a change of this module (test/sales-totals-wall.test.ts).
 */

/** Whether the establishment and mode have a sale on the local day `day` (YYYY-MM-DD). */
export async function soldOnDay(sql: Sql, scope: DataScope, day: string): Promise<boolean> {
  const { rows } = await sql.query(
    'SELECT 1 FROM sale_day_totals WHERE establishment_id = $1::uuid AND livemode = $2 AND day = $3::date LIMIT 1',
    [scope.establishmentId, scope.livemode, day],
  );
  return rows.length > 0;
}

/** A product that sold in a range of days, with what the forecast needs of it. */
export type SoldProduct = {
  id: string;
  name: string;
  food_category: FoodCategory;
  unit_weight_kg: number | null;
  /** Sale lines in the range. */
  lines: number;
  /** Euros per unit of sale (products.price, unit_cost, salvage_value): null when not set. */
  price: number | null;
  unit_cost: number | null;
  salvage_value: number | null;
};

/**
 * The products the establishment and mode sold on the local days [`start`, `end`), best sellers
 * first by what they sold (kg converted with the unit weight where there is one), at most `limit`.
 * Only `productId` when given, only `foodCategory`'s when given; a deactivated product only when
 * asked for by its id.
 */
export async function soldProducts(
  sql: Sql,
  scope: DataScope,
  range: { start: string; end: string; productId: string | null; foodCategory: string | null; limit: number },
): Promise<SoldProduct[]> {
  // The limit is written into the statement (a constant of the caller's, never a request's value),
  // as it was when its plan was measured.
  const { rows } = await sql.query<SoldProduct>(
    `SELECT p.id::text, p.name, p.food_category, p.unit_weight_kg::float8 AS unit_weight_kg, sum(t.lines)::int AS lines,
       p.price::float8 AS price, p.unit_cost::float8 AS unit_cost, p.salvage_value::float8 AS salvage_value
     FROM sale_day_totals t JOIN products p ON p.id = t.product_id
     WHERE t.establishment_id = $1::uuid AND t.livemode = $2 AND t.day >= $3::date AND t.day < $4::date
       AND ($5::uuid IS NULL OR p.id = $5::uuid) AND ($6::text IS NULL OR p.food_category = $6)
       -- A deactivated product is no longer forecast, unless asked for by its id.
       AND (p.deactivated_at IS NULL OR p.id = $5::uuid)
     GROUP BY p.id
     -- Best sellers first by what they sell (kg converted with the unit weight where there is one),
     -- not by how many sale lines: the 200 kept are those that matter most.
     ORDER BY sum(t.units) + sum(t.kg) / coalesce(nullif(p.unit_weight_kg, 0), 1) DESC, p.name
     LIMIT ${range.limit}`,
    [scope.establishmentId, scope.livemode, range.start, range.end, range.productId, range.foodCategory],
  );
  return rows;
}

/**
 * The local days in [`start`, `end`) on which the establishment and mode sold anything at all
 * (YYYY-MM-DD): its open days, as its sales show them (an index-only scan).
 */
export async function daysWithSales(sql: Sql, scope: DataScope, range: { start: string; end: string }): Promise<string[]> {
  const { rows } = await sql.query<{ day: string }>(
    `SELECT DISTINCT to_char(day, 'YYYY-MM-DD') AS day FROM sale_day_totals
       WHERE establishment_id = $1::uuid AND livemode = $2 AND day >= $3::date AND day < $4::date`,
    [scope.establishmentId, scope.livemode, range.start, range.end],
  );
  return rows.map((r) => r.day);
}

/**
 * Each of `productIds`' days in [`start`, `end`) as one text per product, by product id (a product
 * without sales there is absent): one day per `;`-separated item, oldest first,
 * `day,units,kg,sold_out[,sold_out_time]`, the sell-out's local time read in `tenant.timezone`.
 * The format, and why it is a text, is predict/day-rows.ts's (`DayRowsText`), which parses it.
 */
export async function dayTotalsTexts(
  sql: Sql,
  tenant: Tenant,
  range: { start: string; end: string; productIds: readonly string[] },
): Promise<Map<string, string>> {
  const { rows } = await sql.query<{ product_id: string; days: string }>(
    `SELECT product_id::text,
       string_agg(to_char(day, 'YYYY-MM-DD') || ',' || units::float8::text || ',' || kg::float8::text || ','
         || CASE WHEN sold_out THEN 't' ELSE 'f' END || coalesce(',' || to_char(sold_out_at AT TIME ZONE $6, 'HH24:MI'), ''),
         ';' ORDER BY day) AS days
     FROM sale_day_totals
     WHERE establishment_id = $1::uuid AND livemode = $2 AND day >= $3::date AND day < $4::date AND product_id = ANY($5::uuid[])
     GROUP BY product_id`,
    [tenant.establishmentId, tenant.livemode, range.start, range.end, range.productIds, tenant.timezone],
  );
  return new Map(rows.map((r) => [r.product_id, r.days]));
}

/**
 * For a statement over many establishments at once (predict/evening.ts): an `EXISTS` condition,
 * true when the establishment and mode of the SQL expressions `row` sold anything on a local day
 * from `from` to `to` (SQL date expressions, both included).
 */
export function soldBetweenSql(row: { establishmentId: string; livemode: string }, from: string, to: string): string {
  return `EXISTS (SELECT 1 FROM sale_day_totals t WHERE t.establishment_id = ${row.establishmentId} AND t.livemode = ${row.livemode}
           AND t.day >= ${from} AND t.day <= ${to})`;
}

/** As `soldBetweenSql`, for the one local day of the SQL date expression `day`. */
export function soldOnDaySql(row: { establishmentId: string; livemode: string }, day: string): string {
  return `EXISTS (SELECT 1 FROM sale_day_totals t
           WHERE t.establishment_id = ${row.establishmentId} AND t.livemode = ${row.livemode} AND t.day = ${day})`;
}

/**
 * Retention (retention/purge.ts): deletes at most `batch` daily totals of days before `firstDay`
 * (YYYY-MM-DD), skipping rows another transaction holds; answers how many it deleted.
 */
export async function purgeDayTotalsBefore(pool: pg.Pool, firstDay: string, batch: number): Promise<number> {
  // The daily totals have no id: a batch of their keys.
  const { rowCount } = await pool.query(
    `DELETE FROM sale_day_totals WHERE (establishment_id, livemode, product_id, day) IN (
         SELECT establishment_id, livemode, product_id, day FROM sale_day_totals WHERE day < $1::date LIMIT ${batch} FOR UPDATE SKIP LOCKED)`,
    [firstDay],
  );
  return rowCount ?? 0;
}

/**
 * What a period sold, in euros at each product's price today (the catalogue knows no other), for
 * the figures per € of sales (compliance/reduction.ts): products without a price are left out and
 * their units counted; `units` is every unit sold.
 */
export async function salesValue(
  sql: Sql,
  scope: DataScope,
  range: { from: string; to: string },
): Promise<{ eur: number; unpriced: number; units: number }> {
  const { rows } = await sql.query<{ eur: number; unpriced: number; units: number }>(
    `SELECT coalesce(sum(s.units * p.price) FILTER (WHERE p.price IS NOT NULL), 0)::float8 AS eur,
            coalesce(sum(s.units) FILTER (WHERE p.price IS NULL), 0)::float8 AS unpriced,
            coalesce(sum(s.units), 0)::float8 AS units
     FROM sale_day_totals s JOIN products p ON p.id = s.product_id
     WHERE s.establishment_id = $1::uuid AND s.livemode = $2 AND s.day BETWEEN $3::date AND $4::date`,
    [scope.establishmentId, scope.livemode, range.from, range.to],
  );
  return rows[0] ?? { eur: 0, unpriced: 0, units: 0 };
}
