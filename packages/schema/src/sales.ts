import { z } from 'zod';
import { IsoDate, Uuid } from './common.js';
import { BatchItemError } from './records.js';

/** The most sale lines one `sales.recorded` event carries (a day of a busy shop: send several calls). */
export const MAX_SALES_PER_EVENT = 2000;

/**
 * Units a sale's quantity may be given in: counted units, a mass turned into kg, or a volume
 * turned into kg with the product's `density_kg_per_l` (a line in a volume unit for a product
 * without a density is refused, with the reason to set it).
 */
export const SALE_UNITS = ['unit', 'kg', 'g', 'lb', 'oz', 'l', 'ml', 'cl', 'fl_oz'] as const;

/** kg per unit of mass (sales and inventory losses given by weight). */
export const KG_PER_MASS_UNIT = { kg: 1, g: 0.001, lb: 0.45359237, oz: 0.028349523125 } as const;

/** Litres per unit of volume of the standard format (`fl_oz` is the US fluid ounce, 29.5735295625 ml). */
export const LITRES_PER_VOLUME_UNIT = { l: 1, ml: 0.001, cl: 0.01, fl_oz: 0.0295735295625 } as const;
export type VolumeUnit = keyof typeof LITRES_PER_VOLUME_UNIT;
export const isVolumeUnit = (unit: string | undefined): unit is VolumeUnit => unit !== undefined && unit in LITRES_PER_VOLUME_UNIT;

/** What the reason of a line in a volume unit says when its product has no density. */
export const needsDensity = (productName: string) =>
  `product ${productName} has no density: set the product's density (density_kg_per_l) to weigh a quantity in a volume unit (a volume is weighed, never counted: unit_weight_kg does not convert it)`;

/** How an inbound event names a product of the catalogue: one of these (`product_id` first, then `ean`). */
export const ProductReference = {
  product_id: Uuid.optional(),
  ean: z
    .string()
    .regex(/^\d{8,14}$/)
    .optional(),
  product_ref: z.string().trim().min(1).max(200).optional().describe("the product's id in the POS (pos_ref of the product catalogue)"),
};

/** The fields of a sale line (`SaleLine`), also those of a one-sale payload (`SaleRecordedPayload`). */
const SaleLineFields = {
  external_id: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .describe('the id of this sale line in the sending system; a resend with the same id and `source` is a duplicate'),
  ...ProductReference,
  quantity: z.number().positive().max(1_000_000),
  unit: z
    .enum(SALE_UNITS)
    .default('unit')
    .describe(
      "`unit` (counted, the default), a mass (kg, g, lb, oz), or a volume (l, ml, cl, fl_oz — US fluid ounces) weighed with the product's density_kg_per_l",
    ),
  sold_at: IsoDate.or(z.iso.datetime({ offset: true })).describe(
    'when it was sold (ISO 8601 with offset); a date alone (a day total) is noon of that day in the establishment time zone',
  ),
  sold_out: z
    .boolean()
    .default(false)
    .describe(
      "the product ran out on this line's day: the day's sales are then a floor on its demand (the forecast reads them as at least that, not as the demand itself)",
    ),
  sold_out_at: z.iso
    .datetime({ offset: true })
    .optional()
    .describe(
      "when it ran out (ISO 8601 with offset), on the line's local day; implies `sold_out`. With the establishment's shifts giving its opening hours, the forecast reads the day's demand as at least the sales scaled to the whole day (sold out at 14:00 of an 08:00–20:00 day: sales × 12 / 6), at most three times the sales; the earliest of a day's lines counts",
    ),
};

const NAMES_A_PRODUCT = { message: 'product_id, ean or product_ref is required', path: ['product_id'] };

/**
 * One sale line of `sales.recorded`: a product (by our id, its EAN or its id in the POS —
 * `pos_ref` in the product catalogue), how much was sold and when. Sales feed the demand forecast
 * only: they are never waste records and never enter the record chain.
 */
export const SaleLine = z
  .strictObject(SaleLineFields)
  .refine((s) => s.product_id || s.ean || s.product_ref, NAMES_A_PRODUCT)
  .meta({ id: 'SaleLine', unusedIO: 'input' });
export type SaleLine = z.input<typeof SaleLine>;

/**
 * `payload` of a `sales.recorded` event in the standard format: one sale (`source` and the
 * fields of a line) or a batch — a day's sales — as `{ source, sales: [...] }`.
 */
export const SalesRecordedBatch = z
  .strictObject({
    source: z.string().trim().min(1).max(100).describe('the system that sent the sales, e.g. "square"'),
    sales: z.array(z.unknown()).min(1).max(MAX_SALES_PER_EVENT).describe(`up to ${MAX_SALES_PER_EVENT} SaleLine items`),
  })
  .meta({ id: 'SalesRecordedBatch', unusedIO: 'input' });
export type SalesRecordedBatch = { source: string; sales: SaleLine[] };

/** `payload` of a `sales.recorded` event of one sale: `source` and the fields of a line. */
export const SaleRecordedPayload = z
  .strictObject({ source: SalesRecordedBatch.shape.source, ...SaleLineFields })
  .refine((s) => s.product_id || s.ean || s.product_ref, NAMES_A_PRODUCT)
  .meta({ id: 'SaleRecordedPayload', unusedIO: 'input' });
export type SaleRecordedPayload = z.input<typeof SaleRecordedPayload>;
export type SalesRecordedPayload = SalesRecordedBatch | (SaleLine & { source: string });

/** What a `sales.recorded` event stored: valid lines are stored, invalid ones reported by `index`. */
export const SalesSummary = z
  .object({
    received: z.number().int(),
    stored: z.number().int().describe('new sale lines stored'),
    duplicates: z.number().int().describe('lines already received (same `source` and `external_id`), not stored again'),
    errors: z.array(BatchItemError),
  })
  .meta({ id: 'SalesSummary' });
export type SalesSummary = z.infer<typeof SalesSummary>;
