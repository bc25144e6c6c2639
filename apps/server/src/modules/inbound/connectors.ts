import { CreateRecordInput, FoodCategory, IsoDate, Uuid, WasteStage } from '@merma/schema';
import { z } from 'zod';

/**
 * Connectors turn a source system's own payload into the standard inbound format. The standard
 * format is the default; `connector` (or a `source` naming a registered connector) selects another.
 * Connectors for POS systems are added here, each with fixture tests.
 */
export const StandardWasteCreated = z.object({
  source: z.string().trim().min(1).max(100).describe('the system that sent the event, e.g. "sap-b1"'),
  external_id: z.string().trim().min(1).max(200).optional().describe('the id of the event in that system; a resend is a duplicate'),
  food_category: FoodCategory,
  weight_kg: z.number(),
  destino_id: Uuid,
  causa_id: Uuid.nullish(),
  product_name: z.string().nullish(),
  waste_stage: WasteStage.nullish(),
  shift_id: Uuid.nullish(),
  session_id: Uuid.nullish(),
  notes: z.string().nullish(),
  photo_url: z.string().nullish(),
});

/**
 * `waste.updated`: a correction of a record — `record_id` and the fields that change. It is
 * appended to the chain as a new record that supersedes the original (see inbound/service.ts).
 */
const Changes = CreateRecordInput.shape;
export const StandardWasteUpdated = z
  .object({
    source: z.string().trim().min(1).max(100),
    external_id: z.string().trim().min(1).max(200).optional(),
    record_id: Uuid,
    food_category: Changes.food_category.optional(),
    weight_kg: Changes.weight_kg.optional(),
    destino_id: Changes.destino_id.optional(),
    causa_id: Changes.causa_id,
    product_name: Changes.product_name,
    waste_stage: Changes.waste_stage,
    notes: Changes.notes,
    photo_url: Changes.photo_url,
  })
  .refine((p) => Object.keys(p).some((k) => !['source', 'external_id', 'record_id'].includes(k)), {
    message: 'name at least one field to change',
    path: ['record_id'],
  });
export type StandardWasteUpdated = z.infer<typeof StandardWasteUpdated>;

const UNITS = { kg: 1, g: 0.001, lb: 0.45359237, oz: 0.028349523125 } as const;

export const StandardInventoryLoss = z
  .object({
    source: z.string().trim().min(1).max(100),
    external_id: z.string().trim().min(1).max(200).optional(),
    product_id: Uuid.optional(),
    ean: z
      .string()
      .regex(/^\d{8,14}$/)
      .optional(),
    quantity_kg: z.number().positive().optional(),
    quantity: z.number().positive().optional(),
    unit: z.enum(Object.keys(UNITS) as [keyof typeof UNITS, ...(keyof typeof UNITS)[]]).optional(),
    reason: z.string().max(500).optional(),
    occurred_at: IsoDate.or(z.iso.datetime({ offset: true })).optional(),
    destino_id: Uuid.optional().describe('where the loss went; disposal (landfill) when not given'),
    causa_id: Uuid.optional(),
  })
  .refine((p) => p.product_id || p.ean, { message: 'product_id or ean is required', path: ['product_id'] })
  .refine((p) => p.quantity_kg !== undefined || (p.quantity !== undefined && p.unit !== undefined), {
    message: 'quantity_kg, or quantity with unit (kg, g, lb, oz), is required',
    path: ['quantity_kg'],
  });
export type StandardInventoryLoss = z.infer<typeof StandardInventoryLoss>;

export function lossKilograms(p: StandardInventoryLoss): number {
  if (p.quantity_kg !== undefined) return p.quantity_kg;
  return (p.quantity as number) * UNITS[p.unit as keyof typeof UNITS];
}

export type Connector = {
  name: string;
  /** Maps the system's payload for `event` to the standard payload (unvalidated). */
  toStandard(event: string, payload: Record<string, unknown>): Record<string, unknown>;
};

const standard: Connector = { name: 'standard', toStandard: (_event, payload) => payload };

export const CONNECTORS = new Map<string, Connector>([[standard.name, standard]]);

export function connectorFor(connector: string | undefined, payload: Record<string, unknown>): Connector | undefined {
  if (connector) return CONNECTORS.get(connector);
  const source = typeof payload.source === 'string' ? payload.source : undefined;
  return (source && CONNECTORS.get(source)) || standard;
}
