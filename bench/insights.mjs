// Insights at scale for `pnpm bench`: one establishment with a year of records (about 40 a day) in
// a database of at least 1,000,000 records; GET /analytics by day against the same statement run
// raw with pg, GET /predict on that year, and GET /predict?type=demand for 100 products with a
// year of daily sales each (their day totals seeded with SQL).
import { FORWARDED } from './lib.mjs';

const DEMAND_PRODUCTS = 100;

/** p50/p99 of `n` sequential runs of `fn`, in ms. */
async function timeIt(fn, n) {
  const times = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(n / 2)], p99: times[Math.min(n - 1, Math.floor(n * 0.99))] };
}

/** The statement the analytics service runs (apps/server/src/modules/analytics/service.ts), for the raw side. */
const ANALYTICS_SQL = `
  WITH f AS (
    SELECT r.weight_kg, r.food_category, r.destino_id, r.causa_id, r.waste_stage, date_trunc($6, r.created_at AT TIME ZONE $5) AS bucket
    FROM records r WHERE r.establishment_id = $1::uuid AND r.livemode = $2
      AND r.created_at >= (($3::date)::timestamp AT TIME ZONE $5) AND r.created_at < (($4::date + 1)::timestamp AT TIME ZONE $5)
  ),
  periods AS (
    SELECT generate_series(date_trunc($6, (($3::date)::timestamp AT TIME ZONE $5) AT TIME ZONE $5),
      date_trunc($6, ((($4::date + 1)::timestamp AT TIME ZONE $5) - interval '1 microsecond') AT TIME ZONE $5), ('1 ' || $6)::interval) AS bucket
  )
  SELECT
    (SELECT coalesce(sum(weight_kg), 0)::float8 FROM f) AS total_kg,
    (SELECT count(*)::int FROM f) AS total_records,
    (SELECT coalesce(json_object_agg(k, kg), '{}') FROM (SELECT food_category AS k, sum(weight_kg)::float8 AS kg FROM f GROUP BY 1) x) AS by_category,
    (SELECT coalesce(json_object_agg(k, kg), '{}') FROM (SELECT destino_id::text AS k, sum(weight_kg)::float8 AS kg FROM f GROUP BY 1) x) AS by_destino,
    (SELECT coalesce(json_object_agg(k, kg), '{}') FROM (SELECT coalesce(causa_id::text, 'none') AS k, sum(weight_kg)::float8 AS kg FROM f GROUP BY 1) x) AS by_cause,
    (SELECT coalesce(json_object_agg(k, kg), '{}') FROM (SELECT coalesce(waste_stage, 'none') AS k, sum(weight_kg)::float8 AS kg FROM f GROUP BY 1) x) AS by_stage,
    (SELECT (coalesce(sum(f.weight_kg) FILTER (WHERE d.es_recuperacion), 0) / nullif(sum(f.weight_kg), 0))::float8
       FROM f JOIN destinations d ON d.id = f.destino_id) AS recovery_rate,
    (SELECT coalesce(json_agg(json_build_object('period', to_char(periods.bucket, $7), 'total_kg', coalesce(t.kg, 0)) ORDER BY periods.bucket), '[]')
       FROM periods LEFT JOIN (SELECT bucket, sum(weight_kg)::float8 AS kg FROM f GROUP BY 1) t USING (bucket)) AS trend`;

/**
 * The day totals of rows seeded with SQL (records/rollup.ts keeps them for records written through
 * the API): rebuilt from the records, as the migration that introduced them did.
 */
export async function rebuildDayTotals(client) {
  await client.query('TRUNCATE record_day_totals');
  await client.query(
    `INSERT INTO record_day_totals (establishment_id, livemode, day, food_category, destino_id, causa_id, waste_stage, kg, records)
     SELECT r.establishment_id, r.livemode, (r.occurred_at AT TIME ZONE e.timezone)::date, r.food_category, r.destino_id, r.causa_id,
       r.waste_stage, sum(r.weight_kg), count(*)
     FROM records r JOIN establishments e ON e.id = r.establishment_id
     WHERE r.superseded_by IS NULL
     GROUP BY 1, 2, 3, 4, 5, 6, 7`,
  );
}

export async function measureInsights(client, ourPort, seeded, destino) {
  const big = seeded[seeded.length - 1];
  await client.query('DELETE FROM records WHERE establishment_id = $1', [big.id]);
  await client.query(
    `INSERT INTO records (id, establishment_id, livemode, chain_seq, food_category, weight_kg, destino_id, waste_stage, prev_hash, record_hash, created_at, occurred_at)
     SELECT gen_random_uuid(), $1::uuid, false, g, (ARRAY['meat','fish','dairy','bakery','fruit_veg'])[1 + g % 5], 0.5 + (g % 40) / 8.0, $2,
            (ARRAY['storage','preparation','service',NULL])[1 + g % 4], repeat('0', 64), md5(g::text) || md5(g::text),
            now() - (g * interval '13 minutes'), now() - (g * interval '13 minutes')
     FROM generate_series(1, 40 * 365) g`,
    [big.id, destino],
  );
  await client.query('UPDATE record_chain_heads SET seq = 40 * 365 WHERE establishment_id = $1', [big.id]);
  const before = (await client.query('SELECT count(*)::int AS n FROM records')).rows[0].n;
  const missing = 1_000_000 - before;
  if (missing > 0) {
    // Filler spread over 200 other establishments, numbered above their existing chains.
    await client.query(
      `INSERT INTO records (id, establishment_id, livemode, chain_seq, food_category, weight_kg, destino_id, prev_hash, record_hash, created_at, occurred_at)
       SELECT gen_random_uuid(), e.id, false, 10000000 + g, 'others', 1, $2, repeat('0', 64), repeat('f', 64),
              now() - (g * interval '1 minute'), now() - (g * interval '1 minute')
       FROM (SELECT id FROM establishments WHERE id <> $1::uuid ORDER BY id LIMIT 200) e,
            generate_series(1, ceil($3::numeric / 200)::int) g`,
      [big.id, destino, missing],
    );
  }
  await rebuildDayTotals(client);
  await client.query('VACUUM ANALYZE records');
  await client.query('VACUUM ANALYZE record_day_totals');
  const totalRows = (await client.query('SELECT count(*)::int AS n FROM records')).rows[0].n;
  const yearRows = (await client.query('SELECT count(*)::int AS n FROM records WHERE establishment_id = $1', [big.id])).rows[0].n;

  const today = new Date().toISOString().slice(0, 10);
  const from = new Date(Date.now() - 364 * 86_400_000).toISOString().slice(0, 10);
  const headers = { ...FORWARDED, authorization: `Bearer ${big.key}` };
  const analyticsUrl = `http://127.0.0.1:${ourPort}/api/v1/analytics?from=${from}&to=${today}&group_by=day`;
  const predictUrl = `http://127.0.0.1:${ourPort}/api/v1/predict?horizon=28`;
  const get = async (url) => {
    const res = await fetch(url, { headers });
    if (!res.ok) throw new Error(`${url} → ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
  };
  for (let i = 0; i < 5; i++) {
    await get(analyticsUrl);
    await get(predictUrl);
  }
  const analytics = await timeIt(() => get(analyticsUrl), 40);
  const raw = await timeIt(() => client.query(ANALYTICS_SQL, [big.id, false, from, today, 'Europe/Madrid', 'day', 'YYYY-MM-DD']), 40);
  const predict = await timeIt(() => get(predictUrl), 40);

  // Demand: 100 products sold every day of the last year, with a weekly pattern.
  const [{ organization_id: org }] = (await client.query('SELECT organization_id FROM establishments WHERE id = $1', [big.id])).rows;
  await client.query(
    `INSERT INTO products (id, organization_id, name, food_category, ean, pos_ref, unit_weight_kg)
     SELECT gen_random_uuid(), $1::uuid, 'Bench product ' || p, 'bakery', '84' || lpad(p::text, 11, '0'), 'bench-' || p, 0.1
     FROM generate_series(1, ${DEMAND_PRODUCTS}) p`,
    [org],
  );
  await client.query(
    `INSERT INTO sale_day_totals (establishment_id, livemode, product_id, day, units, kg, lines)
     SELECT $1::uuid, false, pr.id, d::date, 20 + (extract(dow FROM d) * 7)::int + (random() * 10)::int, 0, 1
     FROM products pr, generate_series(current_date - 365, current_date - 1, interval '1 day') d
     WHERE pr.organization_id = $2::uuid AND pr.pos_ref LIKE 'bench-%'`,
    [big.id, org],
  );
  await client.query('VACUUM ANALYZE sale_day_totals');
  const demandUrl = `http://127.0.0.1:${ourPort}/api/v1/predict?type=demand&horizon=7`;
  for (let i = 0; i < 3; i++) await get(demandUrl);
  const demand = await timeIt(() => get(demandUrl), 20);
  return { totalRows, yearRows, analytics, raw, predict, demand, demandProducts: DEMAND_PRODUCTS };
}
