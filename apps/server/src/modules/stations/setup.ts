import { addDays, FOOD_CATEGORIES, localDate } from '@merma/schema';
import type { StationSetup } from '@merma/schema/dashboard';
import type { Clock } from '../../context.js';
import type { Db } from '../../db/client.js';
import type { Sql } from '../../db/sql.js';
import { type CatalogCache, listActiveCauses, listDestinations } from '../catalog/service.js';
import { bestStepsThisYear } from '../compliance/hierarchy.js';
import { usageAndToday } from '../records/rollup.js';
import { listSessions } from '../sessions/service.js';
import { activeShiftAt, listShifts } from '../shifts/service.js';
import type { Station } from './service.js';

/** The days whose records order a station's buttons: the last 90, today included. */
export const USAGE_DAYS = 90;

/**
 * What a station needs before its first tap (`GET /station/setup`, StationSetup): the choices in
 * the order a cook reaches for them — categories and causes used most first (the catalogue's own
 * order among equals), destinations in the Ley 1/2025 hierarchy, the preferred first, since the
 * law ranks them and a station should not make landfill the quickest tap — the shifts and the one
 * now on, the open registration sessions, today's total, and each category's best step this year
 * (a lower destination asks the cook why: Ley 1/2025 art. 5.2).
 */
export async function stationSetup(
  deps: { db: Db; sql: Sql; catalog: CatalogCache; clock: Clock },
  station: Station,
): Promise<StationSetup> {
  const { tenant } = station;
  const now = deps.clock();
  const today = localDate(now, tenant.timezone);
  const [usage, causes, destinations, shifts, current, sessions, best] = await Promise.all([
    usageAndToday(deps.sql, tenant, { from: addDays(today, -(USAGE_DAYS - 1)), today }),
    listActiveCauses(deps.db, deps.catalog),
    listDestinations(deps.db, deps.catalog),
    listShifts(deps.db, tenant),
    activeShiftAt(deps.db, tenant, now),
    listSessions(deps.sql, tenant, { status: 'open', limit: 20, offset: 0 }),
    bestStepsThisYear(deps.sql, tenant, now),
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
  };
}
