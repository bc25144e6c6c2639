import { z } from 'zod';
import { IsoDate, Uuid } from './common.js';
import { CreateRecordInput } from './records.js';
import { type KG_PER_MASS_UNIT, type LITRES_PER_VOLUME_UNIT, ProductReference } from './sales.js';

/**
 * The standard payloads of `POST /api/v1/webhooks/inbound`: what a system without a connector
 * sends, and what every connector (Square, Odoo) maps its system's payload to. The server checks
 * `payload` against the one its `event` names (`sales.recorded`: `SalesRecordedBatch` or one
 * `SaleLine` with `source`; sales.ts); the OpenAPI document lists them under `payload`. Each is
 * documented as a request's input (`unusedIO: 'input'`): a field with a default is optional.
 */

const Source = {
  source: z.string().trim().min(1).max(100).describe('the system that sent the event, e.g. "sap-b1"'),
  external_id: z.string().trim().min(1).max(200).optional().describe('the id of the event in that system; a resend is a duplicate'),
};

/**
 * `waste.created`: a record (`CreateRecordInput`'s fields and rules, as `POST /records` takes it)
 * and where it came from. Fields the format does not know are dropped, as systems add their own.
 */
export const WasteCreatedPayload = z
  .object({ ...Source, ...CreateRecordInput.shape })
  .meta({ id: 'WasteCreatedPayload', unusedIO: 'input' });
export type WasteCreatedPayload = z.input<typeof WasteCreatedPayload>;

/**
 * `waste.updated`: a correction of a record — `record_id` and the fields that change. It is
 * appended to the chain as a new record that supersedes the original. Any of the record's fields
 * may change, as in the dashboard's correction.
 */
export const WasteUpdatedPayload = z
  .object({
    ...Source,
    record_id: Uuid.describe('the record corrected'),
    ...CreateRecordInput.partial().shape,
  })
  .refine((p) => Object.keys(p).some((k) => !['source', 'external_id', 'record_id'].includes(k)), {
    message: 'name at least one field to change',
    path: ['record_id'],
  })
  .meta({ id: 'WasteUpdatedPayload', unusedIO: 'input' });
export type WasteUpdatedPayload = z.input<typeof WasteUpdatedPayload>;

/**
 * Units an inventory loss may be counted in: a mass, `unit` (with the product's unit weight), or a
 * volume (with the product's density, `density_kg_per_l`).
 */
export const LOSS_UNITS = ['kg', 'g', 'lb', 'oz', 'unit', 'l', 'ml', 'cl', 'fl_oz'] as const satisfies readonly (
  | keyof typeof KG_PER_MASS_UNIT
  | keyof typeof LITRES_PER_VOLUME_UNIT
  | 'unit'
)[];

/** `inventory.loss`: stock written off (expired, damaged), recorded as waste of the product named. */
export const InventoryLossPayload = z
  .object({
    ...Source,
    ...ProductReference,
    quantity_kg: z.number().positive().optional(),
    quantity: z.number().positive().optional(),
    unit: z
      .enum(LOSS_UNITS)
      .optional()
      .describe('`unit` counts use the product’s unit weight; a volume (l, ml, cl, fl_oz — US) its density_kg_per_l'),
    reason: z.string().max(500).optional(),
    occurred_at: IsoDate.or(z.iso.datetime({ offset: true }))
      .optional()
      .describe('a date alone is noon of that day in the establishment time zone'),
    destino_id: Uuid.optional().describe('where the loss went; disposal (landfill) when not given'),
    causa_id: Uuid.optional(),
  })
  .refine((p) => p.product_id || p.ean || p.product_ref, { message: 'product_id, ean or product_ref is required', path: ['product_id'] })
  .refine((p) => p.quantity_kg !== undefined || (p.quantity !== undefined && p.unit !== undefined), {
    message:
      'quantity_kg, or quantity with unit (kg, g, lb, oz, unit for products with a unit weight, or l, ml, cl, fl_oz for products with a density), is required',
    path: ['quantity_kg'],
  })
  .meta({ id: 'InventoryLossPayload', unusedIO: 'input' });
export type InventoryLossPayload = z.input<typeof InventoryLossPayload>;
