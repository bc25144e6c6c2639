import { addDays, FOOD_CATEGORIES, localDate } from '@merma/schema';
import { MAX_QUICK_PRODUCTS, type StationSetup } from '@merma/schema/dashboard';
import type { Clock } from '../../context.js';
import type { Db } from '../../db/client.js';
import type { Sql } from '../../db/sql.js';
import { type CatalogCache, listActiveCauses, listDestinations } from '../catalog/service.js';
import { bestStepsThisYear } from '../compliance/hierarchy.js';
import { usageAndToday } from '../records/rollup.js';
import { listSessions } from '../sessions/service.js';
import { activeShiftAt, listShifts } from '../shifts/service.js';
import type { Station } from './service.js';
import { listTarePresets } from './tare-presets.js';

/** The days whose records order a station's buttons: the last 90, today included. */
export const USAGE_DAYS = 90;

/**
 * What a station needs before its first tap (`GET /station/setup`, StationSetup): the choices in
 * the order a cook reaches for them — categories and causes used most first (the catalogue's own
 * order among equals), destinations in the Ley 1/2025 hierarchy, the preferred first, since the
 * law ranks them and a station should not make landfill the quickest tap — the shifts and the one
 * now on, the open registration sessions, today's total, and each category's best step this year
 * (a lower destination asks the cook why: Ley 1/2025 art. 5.2), the kitchen's named containers
 * for the tare, and the products it throws most as quick buttons.
 */
export async function stationSetup(
  deps: { db: Db; sql: Sql; catalog: CatalogCache; clock: Clock },
  station: Station,
): Promise<StationSetup> {
  const { tenant } = station;
  const now = deps.clock();
  const today = localDate(now, tenant.timezone);
  const [usage, causes, destinations, shifts, current, sessions, best, tarePresets, quickProducts] = await Promise.all([
    usageAndToday(deps.sql, tenant, { from: addDays(today, -(USAGE_DAYS - 1)), today }),
    listActiveCauses(deps.db, deps.catalog),
    listDestinations(deps.db, deps.catalog),
    listShifts(deps.db, tenant),
    activeShiftAt(deps.db, tenant, now),
    listSessions(deps.sql, tenant, { status: 'open', limit: 20, offset: 0 }),
    bestStepsThisYear(deps.sql, tenant, now),
    listTarePresets(deps.sql, tenant.establishmentId),
    mostThrownProducts(deps.sql, tenant, now),
  ]);
  const uses = (key: string) => usage.uses.get(key) ?? 0;
  const byUse = <T>(items: T[], key: (item: T) => string) =>
    items
      .map((item, index) => ({ item, index, uses: uses(key(item)) }))
      .sort((a, b) => b.uses - a.uses || a.index - b.index)
      .map(({ item, uses }) => ({ ...item, uses }));
  return {
    station: station.identity,
    categories: byUse(
      FOOD_CATEGORIES.map((food_category) => ({ food_category })),
      (c) => `category:${c.food_category}`,
    ),
    causes: byUse(causes, (c) => `cause:${c.id}`),
    destinations: [...destinations].sort((a, b) => a.orden - b.orden).map((d) => ({ ...d, uses: uses(`destination:${d.id}`) })),
    shifts,
    current_shift_id: current,
    sessions: sessions.data,
    today: { day: today, ...usage.today },
    best_by_category: best as StationSetup['best_by_category'],
    tare_presets: tarePresets,
    quick_products: quickProducts,
  };
}

/**
 * The quick buttons: the organisation's active products with a unit weight that this establishment
 * and mode recorded most in the last USAGE_DAYS (records that count, by `product_id`), most first,
 * then by name; at most MAX_QUICK_PRODUCTS. A product never recorded here has no button: the
 * buttons follow what the kitchen throws, and the product list stays in the dashboard.
 */
async function mostThrownProducts(sql: Sql, tenant: Station['tenant'], now: Date): Promise<StationSetup['quick_products']> {
  const { rows } = await sql.query<StationSetup['quick_products'][number]>(
    `SELECT p.id::text, p.name, p.food_category, p.unit_weight_kg::float8 AS unit_weight_kg, u.uses
     FROM (
       SELECT r.product_id, count(*)::int AS uses FROM records r
       WHERE r.establishment_id = $1::uuid AND r.livemode = $2 AND r.superseded_by IS NULL AND r.product_id IS NOT NULL
         AND r.created_at >= $3::timestamptz - make_interval(days => $4)
       GROUP BY r.product_id
     ) u
     JOIN products p ON p.id = u.product_id AND p.organization_id = $5::uuid AND p.deactivated_at IS NULL AND p.unit_weight_kg IS NOT NULL
     ORDER BY u.uses DESC, lower(p.name), p.id
     LIMIT $6`,
    [tenant.establishmentId, tenant.livemode, now, USAGE_DAYS, tenant.organizationId, MAX_QUICK_PRODUCTS],
  );
  return rows;
}
