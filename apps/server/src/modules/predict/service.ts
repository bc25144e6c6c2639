import type { FoodCategory, Prediction } from '@merma/schema';
import { addDays, localDate } from '@merma/schema';
import type { Clock, Tenant } from '../../context.js';
import { type Sql, sqlParams } from '../../db/sql.js';
import { validationError } from '../../errors.js';
import { dayTotalsSql } from '../records/rollup.js';
import { backtest, forecastFromTomorrow } from './model.js';

const HISTORY_DAYS = 365;
const BACKTEST_DAYS = 14;

/**
 * Daily waste forecast for the next `horizon` days. History: the day totals (records/rollup.ts,
 * local days of the establishment) from the first day with records, at most 365 days, up to yesterday
 * (today is not complete), days without records counting 0.
 */
export async function predictWaste(
  deps: { sql: Sql; clock: Clock },
  auth: Tenant,
  query: { horizon: number; food_category?: FoodCategory | undefined; product_id?: string | undefined },
): Promise<Prediction> {
  if (query.product_id) {
    // Waste records name products as free text: a product's waste forecast is not kept apart.
    throw validationError('product_id applies to type=demand', [{ path: 'product_id', message: 'use type=demand for a product' }]);
  }
  const now = deps.clock();
  const today = localDate(now, auth.timezone);
  const start = addDays(today, -HISTORY_DAYS);
  const p = sqlParams();
  // Every day from the first with a record up to yesterday, 0 kg where nothing was recorded.
  const daily = dayTotalsSql(auth, { from: start, to: addDays(today, -1), food_category: query.food_category }, p);
  const { rows } = await deps.sql.query<{ kg: number }>(
    `WITH daily AS (SELECT day, sum(kg)::float8 AS kg FROM ${daily} t GROUP BY 1),
       first_day AS (SELECT min(day) AS d FROM daily)
     SELECT coalesce(daily.kg, 0) AS kg
     FROM first_day, generate_series(first_day.d, ${p.add(today)}::date - 1, interval '1 day') AS g(day)
     LEFT JOIN daily ON daily.day = g.day::date
     ORDER BY g.day`,
    p.values,
  );
  const history = rows.map((r) => r.kg);
  const f = forecastFromTomorrow(history, query.horizon);
  const round = (v: number) => Math.round(v * 1000) / 1000;
  const mae = backtest(history, BACKTEST_DAYS);
  return {
    type: 'waste',
    food_category: query.food_category ?? null,
    method: history.length ? f.method : 'no history: zero until records exist',
    history_days: history.length,
    backtest: { metric: 'mae', value: mae === null ? null : round(mae), days: BACKTEST_DAYS },
    points: f.values.map((v, i) => ({
      date: addDays(today, i + 1),
      predicted_kg: round(v),
      lower: round(f.lower[i] as number),
      upper: round(f.upper[i] as number),
    })),
    generated_at: now.toISOString(),
  };
}
