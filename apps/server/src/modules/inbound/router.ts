import { InboundEventInput, InboundEventResponse } from '@merma/schema';
import { apiProcedure, ok, router } from '../../trpc/trpc.js';
import type { CatalogCache } from '../catalog/service.js';
import { receiveInboundEvent } from './service.js';

export function inboundRouter(catalog: CatalogCache) {
  return router({
    receive: apiProcedure
      .meta({
        openapi: {
          method: 'POST',
          path: '/webhooks/inbound',
          tags: ['events'],
          summary: 'Receive an event from an ERP or POS system',
          description:
            'Standard format: `{event, payload}` with `payload.source` naming the system and `payload.external_id` its event id. `waste.created` carries the record fields (`occurred_at` included); `inventory.loss` carries `product_id` or `ean`, `quantity_kg` (or `quantity` + `unit`: kg, g, lb, oz), `reason`, `occurred_at` (a date alone is noon of that day in the establishment time zone) and optionally `destino_id` (disposal when absent); `waste.updated` keeps the `occurred_at` of the original unless it gives another. A resend (same `external_id` + `source`, or same Idempotency-Key) within the dedupe window (30 days by default) answers `duplicate` and stores nothing.',
          operationId: 'receiveInboundEvent',
        },
        permission: 'inbound:write',
        ownIdempotency: true,
      })
      .input(InboundEventInput)
      .output(InboundEventResponse)
      .mutation(async ({ ctx, input }) =>
        ok(await receiveInboundEvent({ db: ctx.db, clock: ctx.clock, catalog, idempotencyKey: ctx.idempotencyKey }, ctx.auth, input)),
      ),
  });
}
