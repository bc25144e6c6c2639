import { CreateRecordInput, IsoDate, KG_PER_MASS_UNIT, ProductReference, Uuid } from '@merma/schema';
import { z } from 'zod';
import { validationError } from '../../../errors.js';
import type { LineOrigin } from '../../sales/service.js';

/**
 * The standard inbound format: what every connector maps a system's payload to, and what a
 * system without a connector sends itself.
 */
const Source = {
  source: z.string().trim().min(1).max(100).describe('the system that sent the event, e.g. "sap-b1"'),
  external_id: z.string().trim().min(1).max(200).optional().describe('the id of the event in that system; a resend is a duplicate'),
};

/**
 * `waste.created`: a record (`CreateRecordInput`'s fields and rules, as `POST /records` takes it)
 * and where it came from. Fields the format does not know are dropped, as systems add their own.
 */
export const StandardWasteCreated = z.object({ ...Source, ...CreateRecordInput.shape });

/**
 * `waste.updated`: a correction of a record — `record_id` and the fields that change. It is
 * appended to the chain as a new record that supersedes the original (see inbound/service.ts).
 * Any of the record's fields may change, as in the dashboard's correction (a shift or session
 * named here used to be dropped without a word).
 */
export const StandardWasteUpdated = z
  .object({
    ...Source,
    record_id: Uuid,
    ...CreateRecordInput.partial().shape,
  })
  .refine((p) => Object.keys(p).some((k) => !['source', 'external_id', 'record_id'].includes(k)), {
    message: 'name at least one field to change',
    path: ['record_id'],
  });
export type StandardWasteUpdated = z.infer<typeof StandardWasteUpdated>;

const UNITS = { ...KG_PER_MASS_UNIT, unit: 0 } as const;

export const StandardInventoryLoss = z
  .object({
    source: z.string().trim().min(1).max(100),
    external_id: z.string().trim().min(1).max(200).optional(),
    ...ProductReference,
    quantity_kg: z.number().positive().optional(),
    quantity: z.number().positive().optional(),
    unit: z.enum(Object.keys(UNITS) as [keyof typeof UNITS, ...(keyof typeof UNITS)[]]).optional(),
    reason: z.string().max(500).optional(),
    occurred_at: IsoDate.or(z.iso.datetime({ offset: true })).optional(),
    destino_id: Uuid.optional().describe('where the loss went; disposal (landfill) when not given'),
    causa_id: Uuid.optional(),
  })
  .refine((p) => p.product_id || p.ean || p.product_ref, { message: 'product_id, ean or product_ref is required', path: ['product_id'] })
  .refine((p) => p.quantity_kg !== undefined || (p.quantity !== undefined && p.unit !== undefined), {
    message: 'quantity_kg, or quantity with unit (kg, g, lb, oz, or unit for products with a unit weight), is required',
    path: ['quantity_kg'],
  });
export type StandardInventoryLoss = z.infer<typeof StandardInventoryLoss>;

/** The loss in kg; `unit` counts use the product's unit weight (null when it has none). */
/** The loss in kg; `unit` counts use the product's unit weight (null when it has none). */
export function lossKilograms(p: StandardInventoryLoss, unitWeightKg: number | null): number | null {
  if (p.quantity_kg !== undefined) return p.quantity_kg;
  if (p.unit === 'unit') return unitWeightKg === null ? null : (p.quantity as number) * unitWeightKg;
  return (p.quantity as number) * UNITS[p.unit as keyof typeof UNITS];
}

/** A sales payload already in the standard format (`sales`, or one line's `sold_at`). */
export const isStandardSale = (payload: Record<string, unknown>) => 'sales' in payload || 'sold_at' in payload;

/**
 * What a connector makes of a system's payload: the standard payload, and where each standard
 * field sits in the system's own payload (`{ product_ref: 'adjustment.catalog_object_id' }`) so
 * that a problem is reported where the sender put it. Sales come with `origins`, one per line.
 */
export type Mapped = { payload: Record<string, unknown>; fields?: Record<string, string>; origins?: LineOrigin[] };

export type Connector = {
  name: string;
  /** Maps the system's payload for `event` to the standard format (unvalidated), or refuses it. */
  toStandard(event: string, payload: Record<string, unknown>): Mapped;
};

/** Standard sale lines, each with where it came from in the system's payload (`LineOrigin`). */
export type ConnectorSales = { source: string; sales: Record<string, unknown>[]; origins: LineOrigin[] };

export const obj = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/** Refuses a payload (400, nothing stored), naming the field of the system's payload at fault. */
export function refuse(message: string, path: string, detail: string): never {
  throw validationError(message, [{ path: ['payload', path].filter(Boolean).join('.'), message: detail }]);
}
