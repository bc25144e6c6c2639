import { z } from 'zod';
import { Uuid } from './common.js';
import { Envelope } from './envelope.js';
import { InboundEventResult } from './webhooks.js';

/**
 * The bodies the integrations' own URLs take (apps/server/src/http/integrations.ts), as
 * the vendors send them: for the API reference. The server reads them with the square and odoo
 * connectors; these shapes name what it reads.
 */

/** https://developer.squareup.com/reference/square/webhooks: the envelope of every notification. */
export const SquareNotification = z
  .looseObject({
    merchant_id: z.string().optional(),
    type: z
      .string()
      .describe(
        '`order.created`, `order.updated`, `order.fulfillment.updated` (orders in state COMPLETED are fetched with BatchRetrieveOrders and stored as sales) or `inventory.count.updated` (the WASTE adjustments of the counted items are fetched with BatchRetrieveInventoryChanges and stored as losses). Other types are answered `ignored`',
      ),
    event_id: z.string().max(200).describe("Square's event id: the same id again answers `duplicate`"),
    created_at: z.string().describe('when Square made the event; older than the dedupe window (INBOUND_DEDUPE_DAYS), refused as a replay'),
    data: z.looseObject({
      type: z.string(),
      id: z.string(),
      object: z
        .record(z.string(), z.unknown())
        .describe(
          '`order_created` / `order_updated` / `order_fulfillment_updated` ({order_id, location_id, state, version}), or `inventory_counts`',
        ),
    }),
  })
  .meta({ id: 'SquareNotification' });

/** What an integration's URL answers when it stored a notification for later, or left it out. */
export const IntegrationReceipt = z
  .object({
    event_id: Uuid.nullable().describe('the stored notification; null for a duplicate'),
    status: z
      .enum(['queued', 'duplicate', 'ignored'])
      .describe('`queued`: stored, the orders or adjustments are being read from the vendor; `ignored`: nothing to read (see `reason`)'),
    reason: z.string().optional(),
  })
  .meta({ id: 'IntegrationReceipt' });
export const IntegrationReceiptResponse = Envelope(IntegrationReceipt);

/**
 * The body of an Odoo automation rule's "Send Webhook Notification" action (Odoo 17+;
 * odoo/addons/base/models/ir_actions.py, `_run_action_webhook`): `_model`, `_id`, `_action` and
 * the fields chosen in the rule, read with `load=None` (many2one fields as bare ids, datetimes as
 * `YYYY-MM-DD HH:MM:SS` in UTC).
 */
export const OdooWebhookBody = z
  .looseObject({
    _model: z.enum(['stock.scrap', 'pos.order.line', 'pos.order']),
    _id: z.number().int().describe('the record id: a resend of the same record answers `duplicate`'),
    _action: z.string().optional(),
    product_id: z
      .union([z.number().int(), z.tuple([z.number().int(), z.string()])])
      .optional()
      .describe("stock.scrap, pos.order.line: Odoo's product id, a product's `pos_ref`"),
    scrap_qty: z.number().optional().describe('stock.scrap: the quantity, in product_uom_id'),
    qty: z.number().optional().describe('pos.order.line: the quantity sold (negative: a refund, left out)'),
    product_uom_id: z
      .union([z.number().int(), z.tuple([z.number().int(), z.string()])])
      .optional()
      .describe('the unit of measure; a bare id needs the related field `x_uom_name` (Unit of Measure → Name) beside it'),
    x_uom_name: z.string().optional().describe('Units, Dozens, kg, g, t, lb, oz — in English or Spanish (Unidades, Docenas)'),
    state: z
      .string()
      .optional()
      .describe('stock.scrap: only `done` scraps are losses; pos.order: only paid, done or invoiced orders are sales'),
    date_done: z
      .union([z.string(), z.literal(false)])
      .optional()
      .describe('stock.scrap: when it was validated (UTC)'),
    create_date: z.string().optional().describe('pos.order.line: when it was sold (UTC)'),
    scrap_reason_tag_ids: z.array(z.unknown()).optional().describe('stock.scrap: the reasons, kept in the record’s notes'),
    lines: z
      .array(z.number().int())
      .optional()
      .describe("pos.order: the lines' ids, read through JSON-RPC when the integration has Odoo's URL, database, login and API key"),
  })
  .meta({ id: 'OdooWebhookBody' });

export const OdooIntegrationResult = z.union([InboundEventResult, IntegrationReceipt]).meta({ id: 'OdooIntegrationResult' });
export const OdooIntegrationResponse = Envelope(OdooIntegrationResult);
