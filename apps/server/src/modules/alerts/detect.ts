import type pg from 'pg';
import { dayStartSql, isoSql, localDaySql } from '../../calendar.js';
import type { Clock } from '../../context.js';
import { insertEventsSql } from '../../events/outbox.js';

/**
 * `alerts.detect`: the spike detector of one establishment and mode, run (throttled to once every
 * few seconds) after records are stored. Its alerts feed the dashboard's overview and, for
 * subscribers, the `alert.spike_detected` webhook.
 *
 * For each food category with waste today (the establishment's local day): today's kg is compared
 * with the same weekday of the four previous weeks (the trailing 28 days; a weekday without waste
 * counts as 0 kg). A spike is more than `mean + 3 × sample standard deviation` and at least
 * `ALERT_MIN_KG` — so a flat history (deviation 0) alerts as soon as the day passes its mean by
 * that floor. A day is judged only when the establishment recorded waste on at least one of those
 * four weekdays (a newcomer has no baseline). At most one alert per establishment, mode, category
 * and day (a unique key); each new alert writes `alert.spike_detected` to the outbox in the same
 * statement, and subscribers of `alert.triggered` receive it under that name. The payload is built
 * in SQL from the rows the statement computes, in the shape of `eventPayload('alert.spike_detected',
 * …)` (events/outbox.ts; data: @merma/schema's AlertEventData), which events.test.ts checks
 * against the schema.
 */
export async function detectSpikes(
  deps: { pool: pg.Pool; clock: Clock; minKg: number },
  payload: { establishment_id: string; livemode: boolean },
): Promise<number> {
  const { rowCount } = await deps.pool.query(
    `WITH est AS (
       SELECT timezone AS tz, ${localDaySql('$3::timestamptz', 'timezone')} AS today
       FROM establishments WHERE id = $1
     ), totals AS (
       SELECT r.food_category, ${localDaySql('r.occurred_at', 'est.tz')} AS day, sum(r.weight_kg) AS kg
       FROM records r, est
       WHERE r.establishment_id = $1 AND r.livemode = $2 AND r.superseded_by IS NULL
         AND r.occurred_at >= ${dayStartSql('est.today - 28', 'est.tz')}
         AND r.occurred_at < ${dayStartSql('est.today + 1', 'est.tz')}
       GROUP BY 1, 2
     ), history AS (
       SELECT count(*) AS days FROM totals, est WHERE totals.day IN (est.today - 7, est.today - 14, est.today - 21, est.today - 28)
     ), stats AS (
       SELECT t.food_category, t.kg AS total, avg(coalesce(h.kg, 0)) AS mean, stddev_samp(coalesce(h.kg, 0)) AS sd
       FROM totals t
       CROSS JOIN est
       CROSS JOIN generate_series(1, 4) AS w(n)
       LEFT JOIN totals h ON h.food_category = t.food_category AND h.day = est.today - 7 * w.n
       WHERE t.day = est.today
       GROUP BY t.food_category, t.kg
     ), spikes AS (
       SELECT s.* FROM stats s, history
       WHERE history.days > 0 AND s.total >= $4 AND s.total > s.mean + 3 * s.sd
     ), stored AS (
       INSERT INTO alerts (id, establishment_id, livemode, food_category, day, total_kg, baseline_kg, threshold_kg, created_at)
       SELECT gen_random_uuid(), $1, $2, sp.food_category, est.today, sp.total, round(sp.mean, 3), round(sp.mean + 3 * sp.sd, 3), $3
       FROM spikes sp, est
       ON CONFLICT (establishment_id, livemode, food_category, day) DO NOTHING
       RETURNING food_category, day, total_kg, baseline_kg, threshold_kg
     )
     ${insertEventsSql(`SELECT $1::uuid AS establishment_id, $2::boolean AS livemode, 'alert.spike_detected' AS type,
       jsonb_build_object('event', 'alert.spike_detected',
         'timestamp', ${isoSql('$3::timestamptz')},
         'data', jsonb_build_object(
           'establishment_id', $1::uuid, 'food_category', st.food_category, 'date', st.day::text,
           'total_kg', st.total_kg::float8, 'baseline_kg', st.baseline_kg::float8, 'threshold_kg', st.threshold_kg::float8,
           'z_score', CASE WHEN sp.sd > 0 THEN round((sp.total - sp.mean) / sp.sd, 2)::float8 END)) AS payload,
       $3::timestamptz AS created_at, NULL::text AS trace_parent
     FROM stored st JOIN spikes sp USING (food_category)`)}`,
    [payload.establishment_id, payload.livemode, deps.clock(), deps.minKg],
  );
  return rowCount ?? 0;
}
