import { InboundEventInput, InboundEventResponse } from '@merma/schema';
import { validationError } from '../../errors.js';
import { apiProcedure, ok, router } from '../../trpc/trpc.js';
import type { CatalogCache } from '../catalog/service.js';
import { type Connector, connectorFor } from './connectors/index.js';
import { receiveInboundEvent } from './service.js';

/** `vendorConnectors`: every vendor's connector (modules/integrations/vendors), which a request may name. */
export function inboundRouter(catalog: CatalogCache, vendorConnectors: readonly Connector[]) {
  return router({
    receive: apiProcedure
      .meta({
        openapi: {
          method: 'POST',
          path: '/webhooks/inbound',
          tags: ['events'],
          summary: 'Receive an event from an ERP or POS system',
          description:
            'Standard format: `{event, payload}` with `payload.source` naming the system and `payload.external_id` its event id. `waste.created` carries the record fields (`occurred_at` included); `inventory.loss` carries `product_id` or `ean`, `quantity_kg` (or `quantity` + `unit`: kg, g, lb, oz), `reason`, `occurred_at` (a date alone is noon of that day in the establishment time zone) and optionally `destino_id` (disposal when absent); `waste.updated` keeps the `occurred_at` of the original unless it gives another. A resend (same `external_id` + `source`, or same Idempotency-Key) within the dedupe window (30 days by default) answers `duplicate` and stores nothing. `sales.recorded` carries sales for the demand forecast (`GET /predict?type=demand`), never waste: one `SaleLine` with `source`, or `{source, sales: SaleLine[]}` (up to 2000 lines, e.g. a day). Each line names a product (`product_id`, `ean` or `product_ref` = its `pos_ref`), `quantity` in `unit` (unit by default; kg, g, lb, oz) and `sold_at`, and may say it ran out (`sold_out`, and when: `sold_out_at`), which the forecast reads as a floor on the demand of that day; a line with an `external_id` is stored once per `source`. Unusable lines are listed in `sales.errors` by index and the others stored; none usable: 400. Only `connector` (any case) selects a connector; a standard payload keeps its `source`. `connector: square` reads Square objects in snake_case or as the Square Node SDK gives them (camelCase): `sales.recorded` takes `Order`s (`{orders}` of BatchRetrieveOrders or SearchOrders, any number of line items; `{order}`; COMPLETED only, sold at `closed_at`, each line by `catalog_object_id` = product `pos_ref`, in its `quantity_unit` weight unit or counted); `inventory.loss` takes an `InventoryAdjustment` to WASTE (an `InventoryChange` of BatchRetrieveInventoryChanges, whose `measurement_unit` gives the unit, or `{adjustment}`). Order notifications and SearchOrders `order_entries` carry no line items and are refused. `connector: odoo` reads webhook bodies of automation rules (`_model`, `_id`, fields read with bare ids) and search_read records: `inventory.loss` a `stock.scrap` in state done (dated by `date_done`), `sales.recorded` `pos.order.line` records (one, or `{lines}`). The unit comes from `product_uom_id` as `[id, name]`, a related `x_uom_name` (or `x_studio_uom_name`), or `x_uom_category` + `x_uom_factor`: Weight and Unit units (English or Spanish names) are read, others refused.',
          operationId: 'receiveInboundEvent',
        },
        permission: 'inbound:write',
        ownIdempotency: true,
      })
      .input(InboundEventInput)
      .output(InboundEventResponse)
      .mutation(async ({ ctx, input }) => {
        // Any vendor's connector may be named here, as its integration's URL would use it.
        const connector = connectorFor(input.connector, vendorConnectors);
        if (!connector) {
          throw validationError(`Unknown connector "${input.connector}"`, [{ path: 'connector', message: 'not a registered connector' }]);
        }
        const deps = { db: ctx.db, clock: ctx.clock, catalog, idempotencyKey: ctx.idempotencyKey };
        return ok(await receiveInboundEvent(deps, ctx.auth, { ...input, connector }));
      }),
  });
}
