import type { Tenant } from '../../context.js';
import type { Sql } from '../../db/sql.js';
import { dayTotalsTexts } from '../sales/totals.js';
import type { DayRow } from './demand.js';

/**
 * A product's day rows (`DayRow`, oldest first) as one text: what the database writes for it, and
 * what crosses to the forecast pool's thread, which turns it into rows (`dayRowsOf`) for
 * `productDemand`.
 *
 * Why: 200 products × a year are 73,000 rows. Read as rows, `pg` parsed each into an object on the
 * event loop (43–67 ms of its CPU per forecast, in bursts of up to 31 ms when the socket had
 * several reads waiting), the rows were grouped per product (8–15 ms at once) and structured-cloned
 * to the threads (another 8–11 ms, in the same stretch): the loop was held 23–48 ms at a time
 * while another tenant's requests waited (bench/README.md, "bench:forecast-tenants"). As 200 rows
 * of one string each, reading them costs the loop 6–8 ms in bursts under 1 ms, a copy to a thread
 * is a string's, and the thread parses them.
 *
 * The text: one day per `;`-separated item, `day,units,kg,sold_out[,sold_out_time]` — the day as
 * YYYY-MM-DD, units and kg as PostgreSQL writes a float8 (its shortest exact form, which
 * `parseFloat` reads back to the same number, as `pg` does for a float8 column), sold_out `t` or
 * `f`, the sold-out time (HH:MM, local) only when there is one. The rows it gives equal those of
 * the query per day it replaces (test/forecast-day-rows.test.ts).
 */
export type DayRowsText = string;

/**
 * Each of `productIds`' day rows in [start, end) as a `DayRowsText`, by product id; a product with
 * none is absent. The local time of a sell-out is read in `tenant.timezone`.
 */
export function readDayRows(
  sql: Sql,
  tenant: Tenant,
  range: { start: string; end: string; productIds: readonly string[] },
): Promise<Map<string, DayRowsText>> {
  // The statement that writes the text is the sales module's (sales/totals.ts), the one reader of the totals.
  return dayTotalsTexts(sql, tenant, range);
}

/** The rows of `text` (`DayRowsText`), as the query per day gave them. */
export function dayRowsOf(productId: string, text: DayRowsText | undefined): DayRow[] {
  if (!text) return [];
  return text.split(';').map((item) => {
    const [day, units, kg, soldOut, time] = item.split(',') as [string, string, string, string, string | undefined];
    return {
      product_id: productId,
      day,
      units: parseFloat(units),
      kg: parseFloat(kg),
      sold_out: soldOut === 't',
      sold_out_time: time ?? null,
    };
  });
}

/** The first day of `text` (its rows are oldest first), or undefined without rows. */
export const firstDayOf = (text: DayRowsText | undefined): string | undefined => (text ? text.slice(0, 10) : undefined);
