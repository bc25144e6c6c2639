import { Cause, Destination } from '@merma/schema';
import { z } from 'zod';
import { dashboardRouter, memberProcedure } from '../../trpc/dashboard-base.js';
import type { CatalogCache } from './service.js';

/**
 * The global catalogues, as the API gives them (names included), for labels and filters: every
 * cause, retired ones too (old records still name them), and the destinations in hierarchy order.
 */
export function catalogDashboardRouter(catalog: CatalogCache) {
  return dashboardRouter({
    get: memberProcedure.output(z.object({ causes: z.array(Cause), destinations: z.array(Destination) })).query(async ({ ctx }) => {
      const { causes, destinations } = await catalog.get(ctx.db);
      return { causes, destinations };
    }),
  });
}
