import { type InventoryLossPayload, isVolumeUnit, KG_PER_MASS_UNIT, LITRES_PER_VOLUME_UNIT, type WasteUpdatedPayload } from '@merma/schema';
import type { z } from 'zod';
import { validationError } from '../../../errors.js';
import type { ReturnLine } from '../../sales/returns.js';
import type { LineOrigin } from '../../sales/service.js';

/**
 * The standard inbound format (its shapes are @merma/schema's, inbound.ts): what every connector
 * maps a system's payload to, and what a system without a connector sends itself.
 */
export type StandardWasteUpdated = z.infer<typeof WasteUpdatedPayload>;
export type StandardInventoryLoss = z.infer<typeof InventoryLossPayload>;

const UNITS = { ...KG_PER_MASS_UNIT, unit: 0 } as const;

/**
 * The loss in kg; `unit` counts use the product's unit weight, a volume (l, ml, cl, fl_oz) the
 * product's density (kg = litres × density_kg_per_l); null when the product lacks the one needed.
 */
export function lossKilograms(
  p: StandardInventoryLoss,
  product: { unitWeightKg: number | null; densityKgPerL: number | null },
): number | null {
  if (p.quantity_kg !== undefined) return p.quantity_kg;
  if (p.unit === 'unit') return product.unitWeightKg === null ? null : (p.quantity as number) * product.unitWeightKg;
  if (isVolumeUnit(p.unit)) {
    return product.densityKgPerL === null ? null : (p.quantity as number) * LITRES_PER_VOLUME_UNIT[p.unit] * product.densityKgPerL;
  }
  return (p.quantity as number) * UNITS[p.unit as keyof typeof UNITS];
}

/** A sales payload already in the standard format (`sales`, or one line's `sold_at`). */
export const isStandardSale = (payload: Record<string, unknown>) => 'sales' in payload || 'sold_at' in payload;

/**
 * What a connector makes of a system's payload: the standard payload, and where each standard
 * field sits in the system's own payload (`{ product_ref: 'adjustment.catalog_object_id' }`) so
 * that a problem is reported where the sender put it. Sales come with `origins`, one per line.
 */
export type Mapped = {
  payload: Record<string, unknown>;
  fields?: Record<string, string>;
  origins?: LineOrigin[];
  /** Returns and refunds among the sales, stored as negative lines (sales/returns.ts). */
  returns?: ReturnLine[];
};

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
