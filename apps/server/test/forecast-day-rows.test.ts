import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { poolOf } from '../src/db/client.js';
import { sqlOfPool } from '../src/db/sql.js';
import { dayRowsOf, readDayRows } from '../src/modules/predict/day-rows.js';
import { type DayRow, predictDemand, productDemand } from '../src/modules/predict/demand.js';
import type { DemandAt, DemandInput, ForecastPool } from '../src/modules/predict/pool.js';
import { seedKitchen } from './forecast-fixture.js';
import { authOf, createTenant, recordAt, startTestApp, type Tenant, type TestContext } from './helpers.js';

/**
 * The demand forecast reads each product's day rows as one text (modules/predict/day-rows.ts)
 * instead of a row per day: the rows it gives, and so the answer, are those of the query per day.
 */
const TODAY = '2026-11-24';
const NOW = new Date(`${TODAY}T18:00:00.000Z`);
const START = '2025-11-24';

/** The day rows as the forecast read them before, one row per product and day: the reference. */
async function rowsPerDay(t: TestContext, kitchen: Tenant, ids: string[]): Promise<Map<string, DayRow[]>> {
  const { rows } = await poolOf(t.db).query<DayRow>(
    `SELECT product_id::text, to_char(day, 'YYYY-MM-DD') AS day, units::float8 AS units, kg::float8 AS kg, sold_out,
       to_char(sold_out_at AT TIME ZONE $6, 'HH24:MI') AS sold_out_time
     FROM sale_day_totals
     WHERE establishment_id = $1::uuid AND livemode = $2 AND day >= $3::date AND day < $4::date AND product_id = ANY($5::uuid[])
     ORDER BY day`,
    [kitchen.establishmentId, false, START, TODAY, ids, 'Europe/Madrid'],
  );
  const byProduct = new Map<string, DayRow[]>();
  for (const row of rows) byProduct.set(row.product_id, [...(byProduct.get(row.product_id) ?? []), row]);
  return byProduct;
}

describe('demand forecast: day rows read as one text per product', () => {
  let t: TestContext;
  let kitchen: Tenant;
  let ids: string[];

  beforeAll(async () => {
    t = await startTestApp({ clock: () => NOW });
    kitchen = await createTenant(t.db);
    ids = await seedKitchen(t.db, kitchen, { products: 12, days: 200, today: TODAY, livemode: false });
    // Quantities whose float8 text is not an integer's: some products sold by weight (kg with three
    // decimals, units left), one in both measures, one with tiny and large quantities.
    await poolOf(t.db).query(
      `UPDATE sale_day_totals SET kg = round(units * 0.137, 3), units = CASE WHEN extract(dow FROM day) = 3 THEN units / 8 ELSE 0 END
       WHERE establishment_id = $1::uuid AND product_id = ANY($2::uuid[])`,
      [kitchen.establishmentId, [ids[1], ids[2]]],
    );
    await poolOf(t.db).query(
      `UPDATE sale_day_totals SET units = CASE WHEN extract(dow FROM day) = 2 THEN 0.001 ELSE units * 1000 + 0.1 END, kg = 0.3
       WHERE establishment_id = $1::uuid AND product_id = $2::uuid`,
      [kitchen.establishmentId, ids[3]],
    );
    for (let i = 0; i < 12; i++) {
      await recordAt(t.db, kitchen, `2026-11-${String(5 + i).padStart(2, '0')}T20:00:00.000Z`, {
        food_category: 'prepared_meals',
        product_name: `Plato ${String((i % 3) + 1).padStart(3, '0')}`,
        weight_kg: 0.4 + i / 10,
      });
    }
  });
  afterAll(() => t?.close());

  it('gives each product the rows the query per day gave', async () => {
    const reference = await rowsPerDay(t, kitchen, ids);
    const texts = await readDayRows(sqlOfPool(poolOf(t.db)), authOf(kitchen), { start: START, end: TODAY, productIds: ids });
    // What the comparison covers: fractions, both measures, sold-out days with and without a time.
    const all = [...reference.values()].flat();
    expect(all.some((r) => !Number.isInteger(r.kg) && r.kg > 0)).toBe(true);
    expect(all.some((r) => !Number.isInteger(r.units))).toBe(true);
    expect(all.some((r) => r.sold_out && r.sold_out_time !== null)).toBe(true);
    expect(all.some((r) => r.sold_out && r.sold_out_time === null)).toBe(true);
    expect([...texts.keys()].sort()).toEqual([...reference.keys()].sort());
    for (const id of ids) expect(dayRowsOf(id, texts.get(id)), id).toEqual(reference.get(id));
    expect(dayRowsOf('none', undefined)).toEqual([]);
  });

  it('answers, to the byte, what productDemand answers from the rows read per day', async () => {
    const sql = sqlOfPool(poolOf(t.db));
    const auth = authOf(kitchen);
    const answer = await predictDemand({ sql, clock: () => NOW }, auth, { horizon: 14 });
    // The inputs and `at` the forecast hands its pool, taken by a pool that only keeps them.
    let handed: { inputs: readonly DemandInput[]; at: DemandAt } | undefined;
    const keeping: ForecastPool = {
      threads: 1,
      demand: async (inputs, at) => {
        handed = { inputs, at };
        return [];
      },
      close: async () => {},
    };
    await predictDemand({ sql, clock: () => NOW, forecasts: keeping }, auth, { horizon: 14 });
    if (!handed) throw new Error('the pool was not asked');
    const { inputs, at } = handed;
    const reference = await rowsPerDay(t, kitchen, ids);
    const perDay = inputs.map((i) => productDemand(i.product, reference.get(i.product.id) ?? [], i.wasteKg, at));
    expect(answer.products).toHaveLength(12);
    expect(answer.products.some((p) => p.unit === 'kg')).toBe(true);
    expect(answer.products.some((p) => p.advice.last_4_weeks.waste_kg > 0)).toBe(true);
    expect(JSON.stringify(answer.products)).toBe(JSON.stringify(perDay));
  });
});
