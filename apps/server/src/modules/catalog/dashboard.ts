import {
  Cause,
  CreateProductInput,
  Destination,
  ImportProductsInput,
  ImportProductsResult,
  Product,
  UpdateProductInput,
} from '@merma/schema';
import { z } from 'zod';
import { audited, BUILDERS, dashboardRouter, memberProcedure } from '../../trpc/dashboard-base.js';
import { createProduct, importProductCsv, listProducts, updateProduct } from './products.js';
import type { CatalogCache } from './service.js';

/**
 * The global catalogues, as the API gives them (names included), for labels and filters: every
 * cause, retired ones too (old records still name them), and the destinations in hierarchy order.
 * And the organisation's products (the products page): every member reads them, deactivated ones
 * included; owners, admins and developers add, change, deactivate and import them, each change in
 * the audit log (products.ts holds the checks, shared with the API and merma-admin).
 */
export function catalogDashboardRouter(catalog: CatalogCache) {
  return dashboardRouter({
    get: memberProcedure.output(z.object({ causes: z.array(Cause), destinations: z.array(Destination) })).query(async ({ ctx }) => {
      const { causes, destinations } = await catalog.get(ctx.db);
      return { causes, destinations };
    }),

    products: memberProcedure
      .output(z.array(Product))
      .query(({ ctx }) => listProducts(ctx.db, ctx.user.organizationId, { includeInactive: true })),

    createProduct: memberProcedure
      .meta({ roles: BUILDERS })
      .input(CreateProductInput)
      .output(Product)
      .mutation(({ ctx, input }) =>
        audited(
          ctx,
          'product.created',
          (tx) => createProduct(tx, ctx.user.organizationId, input),
          (product) => ({ target: product.name, details: { product_id: product.id, ean: product.ean } }),
        ),
      ),

    updateProduct: memberProcedure
      .meta({ roles: BUILDERS })
      .input(UpdateProductInput)
      .output(Product)
      .mutation(async ({ ctx, input }) => {
        const { after } = await audited(
          ctx,
          'product.updated',
          (tx, now) => updateProduct(tx, ctx.user.organizationId, input, now),
          ({ before, after }) => ({
            action: before.active !== after.active ? (after.active ? 'product.reactivated' : 'product.deactivated') : 'product.updated',
            target: after.name,
            details: { product_id: after.id, before, after },
          }),
        );
        return after;
      }),

    importProducts: memberProcedure
      .meta({ roles: BUILDERS })
      .input(ImportProductsInput)
      .output(ImportProductsResult)
      .mutation(({ ctx, input }) =>
        input.dry_run
          ? importProductCsv(ctx.db, ctx.user.organizationId, { csv: input.csv, dryRun: true })
          : audited(
              ctx,
              'product.imported',
              (tx) => importProductCsv(tx, ctx.user.organizationId, { csv: input.csv, dryRun: false }),
              (result) => ({ target: `${result.created + result.updated}`, details: { created: result.created, updated: result.updated } }),
            ),
      ),
  });
}
