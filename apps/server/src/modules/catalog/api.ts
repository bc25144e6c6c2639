import {
  CreateProductInput,
  ImportProductsInput,
  ImportProductsResponse,
  ListCausesResponse,
  ListDestinationsResponse,
  ListEstablishmentsResponse,
  ListProductsQuery,
  ListProductsResponse,
  NoQuery,
  ProductResponse,
  UpdateProductInput,
} from '@merma/schema';
import { AppError } from '../../errors.js';
import { apiProcedure, ok, router } from '../../trpc/trpc.js';
import { createProduct, importProductCsv, listProducts, updateProduct } from './products.js';
import { type CatalogCache, listActiveCauses, listDestinations, listEstablishments } from './service.js';

/**
 * The product catalogue is the organisation's, shared by its test and live data (sales of both
 * modes name the same products, and their prices steer the live advice): a test key reads it and
 * may preview an import, a live key (or the dashboard) changes it.
 */
function liveOnly(livemode: boolean): void {
  if (!livemode) {
    throw new AppError(
      'forbidden',
      'The product catalogue is shared by test and live data: change it with a live key (svc_live_…) or in the dashboard; a test key reads it and may preview an import (dry_run)',
    );
  }
}

export function catalogRouter(cache: CatalogCache) {
  return router({
    causas: apiProcedure
      .meta({
        openapi: {
          method: 'GET',
          path: '/causas',
          tags: ['catalogues'],
          summary: 'List active causes of waste',
          operationId: 'listCausas',
        },
        permission: 'catalog:read',
      })
      .input(NoQuery)
      .output(ListCausesResponse)
      .query(async ({ ctx }) => ok(await listActiveCauses(ctx.db, cache))),

    destinos: apiProcedure
      .meta({
        openapi: {
          method: 'GET',
          path: '/destinos',
          tags: ['catalogues'],
          summary: 'List destinations in the order of the Ley 1/2025 hierarchy',
          operationId: 'listDestinos',
        },
        permission: 'catalog:read',
      })
      .input(NoQuery)
      .output(ListDestinationsResponse)
      .query(async ({ ctx }) => ok(await listDestinations(ctx.db, cache))),

    establishments: apiProcedure
      .meta({
        openapi: {
          method: 'GET',
          path: '/establishments',
          tags: ['catalogues'],
          summary: 'List the establishments this key can access',
          operationId: 'listEstablishments',
        },
        permission: 'catalog:read',
      })
      .input(NoQuery)
      .output(ListEstablishmentsResponse)
      .query(async ({ ctx }) => ok(await listEstablishments(ctx.db, ctx.auth))),

    products: apiProcedure
      .meta({
        openapi: {
          method: 'GET',
          path: '/products',
          tags: ['catalogues'],
          summary: 'List catalogue products',
          description:
            "The organisation's products, by name: what sales name and the demand forecast is made for. Deactivated products only with `include_inactive=true`.",
          operationId: 'listProducts',
        },
        permission: 'catalog:read',
      })
      .input(ListProductsQuery)
      .output(ListProductsResponse)
      .query(async ({ ctx, input }) =>
        ok(await listProducts(ctx.db, ctx.auth.organizationId, { includeInactive: input.include_inactive ?? false })),
      ),

    createProduct: apiProcedure
      .meta({
        openapi: {
          method: 'POST',
          path: '/products',
          tags: ['catalogues'],
          summary: 'Add a product',
          description:
            "A product of the organisation's catalogue (every establishment of it sees it, in both modes: only a live key changes it). Its EAN, and its POS reference when given, are unique in the organisation (409 otherwise). With `price` and `unit_cost` the production advice weighs a leftover against a missed sale.",
          operationId: 'createProduct',
        },
        permission: 'catalog:write',
        successStatus: 201,
      })
      .input(CreateProductInput)
      .output(ProductResponse)
      .mutation(async ({ ctx, input }) => {
        liveOnly(ctx.auth.livemode);
        return ok(await createProduct(ctx.db, ctx.auth.organizationId, input));
      }),

    updateProduct: apiProcedure
      .meta({
        openapi: {
          method: 'PATCH',
          path: '/products/{id}',
          tags: ['catalogues'],
          summary: 'Change or deactivate a product',
          description:
            'Only the fields sent change; `null` clears an optional one. Prices are checked with the ones kept. `active: false` deactivates the product: it is no longer listed nor forecast, and its sales stay; `true` brings it back.',
          operationId: 'updateProduct',
        },
        permission: 'catalog:write',
      })
      .input(UpdateProductInput)
      .output(ProductResponse)
      .mutation(async ({ ctx, input }) => {
        liveOnly(ctx.auth.livemode);
        return ok((await updateProduct(ctx.db, ctx.auth.organizationId, input, ctx.clock())).after);
      }),

    importProducts: apiProcedure
      .meta({
        openapi: {
          method: 'POST',
          path: '/products/import',
          tags: ['catalogues'],
          summary: 'Import products from a CSV',
          description:
            'The CSV as text in `csv`: header `name,food_category,ean` and optionally `pos_ref`, `unit_weight_kg`, `density_kg_per_l`, `price`, `unit_cost`, `salvage_value` (`,` or `;` separated, a decimal comma read as a point). Products are matched by EAN: a known one is updated (and reactivated), a new one created. Every line is checked first: one bad line and nothing is written, the 400 listing each problem with its line. `dry_run: true` answers the same without writing (a preview).',
          operationId: 'importProducts',
        },
        permission: 'catalog:write',
      })
      .input(ImportProductsInput)
      .output(ImportProductsResponse)
      .mutation(async ({ ctx, input }) => {
        if (!input.dry_run) liveOnly(ctx.auth.livemode);
        return ok(await importProductCsv(ctx.db, ctx.auth.organizationId, { csv: input.csv, dryRun: input.dry_run }));
      }),
  });
}
