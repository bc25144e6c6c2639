import { randomUUID } from 'node:crypto';
import { importProducts } from '../src/admin/service.js';
import type { Db } from '../src/db/client.js';
import { poolOf } from '../src/db/client.js';
import { rng } from './series.js';

/**
 * A kitchen's year of sales for the demand forecast's tests, written straight into
 * `sale_day_totals` (one statement; the sales API would take minutes for a year of many products):
 * `products` products with a weekly pattern and noise, a few days sold out (some with a time), a
 * weekly closed day and a closure in the calendar, shifts, and the last weeks' waste of some.
 */
export async function seedKitchen(
  db: Db,
  tenant: { organizationId: string; establishmentId: string },
  options: { products: number; days: number; today: string; livemode: boolean; seed?: number },
): Promise<string[]> {
  const { products, days, today, livemode } = options;
  const names = Array.from({ length: products }, (_, i) => `Plato ${String(i + 1).padStart(3, '0')}`);
  const csv = ['name;food_category;ean;unit_weight_kg;price;unit_cost']
    .concat(
      names.map(
        (n, i) => `${n};prepared_meals;${ean13(i)};${i % 3 === 0 ? '0,25' : ''};${i % 4 === 0 ? '4,50' : ''};${i % 4 === 0 ? '1,20' : ''}`,
      ),
    )
    .join('\n');
  await importProducts(db, { org: tenant.organizationId, csv });
  const ids = (
    await db.product.findMany({ where: { organization_id: tenant.organizationId, name: { in: names } }, orderBy: { name: 'asc' } })
  ).map((p) => p.id);
  const r = rng(options.seed ?? 11);
  const rows: { product: string[]; day: string[]; units: number[]; soldOut: boolean[]; at: (string | null)[] } = {
    product: [],
    day: [],
    units: [],
    soldOut: [],
    at: [],
  };
  const todayMs = Date.parse(`${today}T00:00:00Z`);
  ids.forEach((id, p) => {
    const level = 5 + (p % 17) * 3;
    for (let d = days; d >= 1; d--) {
      const date = new Date(todayMs - d * 86_400_000);
      const weekday = date.getUTCDay();
      if (weekday === 1) continue; // closed on Mondays
      const units = Math.max(0, Math.round(level * (weekday === 0 || weekday === 6 ? 1.6 : 1) + (r() - 0.5) * level * 0.6));
      if (units === 0 && p % 5 === 0) continue;
      const soldOut = r() < 0.04;
      rows.product.push(id);
      rows.day.push(date.toISOString().slice(0, 10));
      rows.units.push(units);
      rows.soldOut.push(soldOut);
      rows.at.push(soldOut && p % 2 === 0 ? `${date.toISOString().slice(0, 10)}T13:30:00Z` : null);
    }
  });
  const pool = poolOf(db);
  await pool.query(
    `INSERT INTO sale_day_totals (establishment_id, livemode, product_id, day, units, kg, lines, sold_out, sold_out_at)
     SELECT $1::uuid, $2, u.product, u.day, u.units, 0, 1, u.sold_out, u.at
     FROM unnest($3::uuid[], $4::date[], $5::numeric[], $6::boolean[], $7::timestamptz[]) AS u(product, day, units, sold_out, at)`,
    [tenant.establishmentId, livemode, rows.product, rows.day, rows.units, rows.soldOut, rows.at],
  );
  const [y, m, d] = today.split('-').map(Number) as [number, number, number];
  const dayOffset = (n: number) => new Date(Date.UTC(y, m - 1, d + n)).toISOString().slice(0, 10);
  await pool.query('INSERT INTO weekly_closed_days (establishment_id, livemode, weekday) VALUES ($1::uuid, $2, 1)', [
    tenant.establishmentId,
    livemode,
  ]);
  await pool.query(
    `INSERT INTO closures (id, establishment_id, livemode, starts_on, ends_on, reason) VALUES
       ($1::uuid, $3::uuid, $4, $5::date, $6::date, 'obras'), ($2::uuid, $3::uuid, $4, $7::date, $8::date, 'fiesta')`,
    [randomUUID(), randomUUID(), tenant.establishmentId, livemode, dayOffset(-60), dayOffset(-50), dayOffset(3), dayOffset(3)],
  );
  await pool.query(
    `INSERT INTO shifts (id, establishment_id, livemode, name, start_time, end_time) VALUES
       ($1::uuid, $3::uuid, $4, 'mañana', '08:00', '16:00'), ($2::uuid, $3::uuid, $4, 'tarde', '16:00', '22:00')`,
    [randomUUID(), randomUUID(), tenant.establishmentId, livemode],
  );
  return ids;
}

/** A valid EAN-13 for the n-th product (its check digit computed). */
function ean13(n: number): string {
  const base = `8470${String(n).padStart(8, '0')}`;
  const sum = [...base].reduce((a, d, i) => a + Number(d) * (i % 2 === 0 ? 1 : 3), 0);
  return `${base}${(10 - (sum % 10)) % 10}`;
}
