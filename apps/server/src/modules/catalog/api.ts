import { ListCausesResponse, ListDestinationsResponse, ListEstablishmentsResponse, ListProductsResponse, NoQuery } from '@merma/schema';
import { apiProcedure, ok, router } from '../../trpc/trpc.js';
import { type CatalogCache, listActiveCauses, listDestinations, listEstablishments, listProducts } from './service.js';

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
          operationId: 'listProducts',
        },
        permission: 'catalog:read',
      })
      .input(NoQuery)
      .output(ListProductsResponse)
      .query(async ({ ctx }) => ok(await listProducts(ctx.db, ctx.auth))),
  });
}
