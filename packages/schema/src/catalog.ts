import { z } from 'zod';
import { FoodCategory, Sector, TimeOfDay, text, Uuid } from './common.js';
import { FoodChainStage } from './compliance.js';
import { MAX_PRODUCT_NAME_LENGTH } from './constants.js';
import { Envelope } from './envelope.js';

export const Cause = z.object({ id: Uuid, nombre: z.string(), icono: z.string(), activo: z.boolean() }).meta({ id: 'Cause' });
export type Cause = z.infer<typeof Cause>;
export const ListCausesResponse = Envelope(z.array(Cause));

/** A destination's operation under the Waste Framework Directive (2008/98/EC, annexes I and II). */
export const WFD_OPERATIONS = ['not_waste', 'R3', 'R1', 'D10', 'D1', 'sewer'] as const;
export const WfdOperation = z.enum(WFD_OPERATIONS).meta({
  id: 'WfdOperation',
  description:
    '`not_waste`: kept for people (processed or donated), animal feed or by-products — not food waste (Delegated Decision (EU) 2019/1597); `R3`: composting or anaerobic digestion (recycling); `R1`: energy recovery; `D10`: incineration; `D1`: landfill; `sewer`: discharged to sewer',
});
export type WfdOperation = z.infer<typeof WfdOperation>;

export const Destination = z
  .object({
    id: Uuid,
    nombre: z.string(),
    orden: z.number().int(),
    es_recuperacion: z.boolean(),
    code: z.string().describe('stable key of the destination, e.g. `donation`'),
    wfd_operation: WfdOperation,
  })
  .meta({ id: 'Destination' });
export type Destination = z.infer<typeof Destination>;
export const ListDestinationsResponse = Envelope(z.array(Destination));

export const Establishment = z
  .object({
    id: Uuid,
    name: z.string(),
    cif: z.string(),
    sector: Sector,
    timezone: z.string(),
    nace_code: z.string().nullable().describe('NACE Rev. 2 class of its activity ("56.10"); null until given'),
    stage: FoodChainStage.nullable().describe('its stage of the food supply chain (Delegated Decision (EU) 2019/1597), from nace_code'),
    floor_area_m2: z.number().nullable().describe('floor area open to the public, in m²; null until given'),
  })
  .meta({ id: 'Establishment' });
export const EstablishmentResponse = Envelope(Establishment);
export type Establishment = z.infer<typeof Establishment>;
export const ListEstablishmentsResponse = Envelope(z.array(Establishment));

/** GTIN (EAN-8, UPC-A, EAN-13, GTIN-14) with a valid check digit. */
export function isValidGtin(code: string): boolean {
  if (!/^(\d{8}|\d{12}|\d{13}|\d{14})$/.test(code)) return false;
  const digits = [...code].map(Number);
  const check = digits.pop() as number;
  const sum = digits.reverse().reduce((acc, d, i) => acc + d * (i % 2 === 0 ? 3 : 1), 0);
  return (10 - (sum % 10)) % 10 === check;
}

/**
 * A product of the organisation's catalogue: what sales name (by id, EAN or POS reference) and
 * what the demand forecast is made for. Prices are euros per unit of sale (per kg when sold by
 * weight); with `price` and `unit_cost` the production advice weighs a leftover against a missed sale.
 */
export const Product = z
  .object({
    id: Uuid,
    name: z.string(),
    food_category: FoodCategory,
    ean: z.string(),
    pos_ref: z.string().nullable().describe("the product's id in the POS, which connectors match sales by"),
    unit_weight_kg: z.number().nullable().describe("one unit's weight, to convert units and kg"),
    density_kg_per_l: z
      .number()
      .nullable()
      .describe('kg per litre (milk 1.03, oil 0.92), to weigh a sale or loss sent in a volume unit (litres, ml, fl oz)'),
    price: z.number().nullable().describe('sale price in euros per unit (per kg when sold by weight)'),
    unit_cost: z.number().nullable().describe('what one unit costs to make or buy, in euros'),
    salvage_value: z.number().nullable().describe('what a leftover unit is still worth (donated, sold off), in euros'),
    active: z.boolean().describe('false once deactivated: not listed by default nor forecast; its sales are kept'),
  })
  .meta({ id: 'Product' });
export type Product = z.infer<typeof Product>;
export const ListProductsResponse = Envelope(z.array(Product));

export const ListProductsQuery = z.strictObject({
  include_inactive: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional()
    .describe('also list deactivated products'),
});

const Euros = z.number().min(0).max(99_999_999).multipleOf(0.0001);

/** A product's fields as a client sends them; prices must make sense together (`productPriceProblems`). */
const ProductFields = z.object({
  name: text(MAX_PRODUCT_NAME_LENGTH).trim().min(1),
  food_category: FoodCategory,
  ean: z.string().trim().refine(isValidGtin, 'not a valid EAN/GTIN (8, 12, 13 or 14 digits with their check digit)'),
  pos_ref: text(100).trim().min(1).nullable().optional(),
  unit_weight_kg: z.number().positive().max(1000).multipleOf(0.001).nullable().optional(),
  density_kg_per_l: z.number().positive().max(1000).multipleOf(0.0001).nullable().optional(),
  price: Euros.nullable().optional(),
  unit_cost: Euros.nullable().optional(),
  salvage_value: Euros.nullable().optional(),
});

type Prices = { price?: number | null | undefined; unit_cost?: number | null | undefined; salvage_value?: number | null | undefined };

/** Prices that contradict each other: a cost above the price, a leftover worth more than making it. */
export function productPriceProblems(p: Prices): { path: string; message: string }[] {
  const problems: { path: string; message: string }[] = [];
  if (p.price != null && p.unit_cost != null && p.unit_cost > p.price)
    problems.push({ path: 'unit_cost', message: `${p.unit_cost} is above price ${p.price} (every sale would lose money)` });
  if (p.unit_cost != null && p.salvage_value != null && p.salvage_value > p.unit_cost)
    problems.push({
      path: 'salvage_value',
      message: `${p.salvage_value} is above unit_cost ${p.unit_cost} (a leftover would be worth more than making it)`,
    });
  return problems;
}

export const CreateProductInput = ProductFields.strict()
  .superRefine((p, ctx) => {
    for (const problem of productPriceProblems(p)) ctx.addIssue({ code: 'custom', path: [problem.path], message: problem.message });
  })
  .meta({ id: 'CreateProductInput' });
export type CreateProductInput = z.input<typeof CreateProductInput>;
export type CreateProductParsed = z.output<typeof CreateProductInput>;

/**
 * The fields to change (others keep their value); `null` clears an optional one; `active: false`
 * deactivates the product (it leaves the list and the forecast; its sales stay), `true` brings it back.
 */
export const UpdateProductInput = ProductFields.partial()
  .extend({ id: Uuid, active: z.boolean().optional() })
  .strict()
  .meta({ id: 'UpdateProductInput' });
export type UpdateProductInput = z.input<typeof UpdateProductInput>;

export const ProductIdParams = z.strictObject({ id: Uuid });
export const ProductResponse = Envelope(Product);

/**
 * A product CSV: header `name,food_category,ean` and optionally `pos_ref`, `unit_weight_kg`,
 * `density_kg_per_l`, `price`, `unit_cost`, `salvage_value` (`,` or `;` separated, a decimal comma read as a point).
 * Products are matched by EAN: a known one is updated, a new one created. Every line is checked
 * first; one bad line and nothing is written.
 */
export const ImportProductsInput = z
  .strictObject({
    csv: z.string().min(1).describe("the CSV file's text"),
    dry_run: z.boolean().default(false).describe('check and preview only: nothing is written'),
  })
  .meta({ id: 'ImportProductsInput' });
export type ImportProductsInput = z.input<typeof ImportProductsInput>;

export const ImportProductsResult = z
  .object({
    dry_run: z.boolean(),
    created: z.number().int(),
    updated: z.number().int(),
    products: z
      .array(
        z.object({
          line: z.number().int().describe('the line of the file'),
          action: z.enum(['create', 'update']),
          product: Product.omit({ id: true, active: true }),
        }),
      )
      .describe('each line, as it is (or would be, on a dry run) stored'),
  })
  .meta({ id: 'ImportProductsResult' });
export type ImportProductsResult = z.infer<typeof ImportProductsResult>;
export const ImportProductsResponse = Envelope(ImportProductsResult);

/** A work shift. `end_time` earlier than `start_time` means it runs overnight (22:00-06:00). */
export const Shift = z.object({ id: Uuid, name: z.string(), start_time: TimeOfDay, end_time: TimeOfDay }).meta({ id: 'Shift' });
export type Shift = z.infer<typeof Shift>;
export const ListShiftsResponse = Envelope(z.array(Shift));

export const CreateShiftInput = z
  .strictObject({
    name: text(100).trim().min(1),
    start_time: TimeOfDay,
    end_time: TimeOfDay,
  })
  .refine((s) => s.start_time !== s.end_time, {
    message: 'end_time must differ from start_time',
    path: ['end_time'],
  })
  .meta({ id: 'CreateShiftInput' });
export type CreateShiftInput = z.input<typeof CreateShiftInput>;
export const CreateShiftResponse = Envelope(Shift);

/** Empty query for endpoints without parameters (unknown parameters are refused). */
export const NoQuery = z.strictObject({});
