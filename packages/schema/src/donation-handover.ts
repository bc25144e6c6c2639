import { z } from 'zod';
import { FoodCategory, IsoDate, PaginationQuery, Timestamp, text, Uuid } from './common.js';
import { DONATION_STATUSES } from './constants.js';
import { Envelope, ListEnvelope } from './envelope.js';

/**
 * Donations (Ley 1/2025 art. 6.4.b and 7): food an establishment offers to a social entity under a
 * donation agreement (donations.ts), line by line. Each line is a record of the register from the
 * moment it is offered (destination: donation for human consumption), so analytics, the plan and
 * the chain stay the single source; a line the entity refuses is sent down the hierarchy by a
 * correction of that record, with the reason, never edited in place.
 *
 * States: `offered` → `accepted` (at least one line accepted) | `refused` (every line refused) →
 * `collected` → `received`. A donation carries `livemode` like a record: a test key offers test
 * donations under the organisation's agreements, which never reach the tax pack.
 */

export const DonationStatus = z.enum(DONATION_STATUSES);
export type DonationStatus = z.infer<typeof DonationStatus>;
export const DONATION_LINE_STATUSES = ['offered', 'accepted', 'refused'] as const;
export const DonationLineStatus = z.enum(DONATION_LINE_STATUSES);

/** How a line's quantity is counted: kilograms, units (pieces, trays, portions) or litres. */
export const DONATION_UNITS = ['kg', 'unit', 'l'] as const;
export const DonationUnit = z.enum(DONATION_UNITS);
export const DONATION_STORAGE = ['ambient', 'chilled', 'frozen'] as const;
export const DonationStorage = z.enum(DONATION_STORAGE);

/** The 14 allergens of Regulation (EU) 1169/2011, Annex II, that food handed over must declare. */
export const ALLERGENS = [
  'gluten',
  'crustaceans',
  'eggs',
  'fish',
  'peanuts',
  'soybeans',
  'milk',
  'nuts',
  'celery',
  'mustard',
  'sesame',
  'sulphites',
  'lupin',
  'molluscs',
] as const;
export const Allergen = z.enum(ALLERGENS);

/**
 * A best-before date this many days ahead, or already past, makes a line "near its best-before
 * date": the agreement must accept such food (`conditions.near_best_before`). Food past its
 * best-before date may still be donated in Spain when it is safe (Ley 1/2025 art. 6.4); food past
 * its use-by date may not, and is refused.
 */
export const NEAR_BEST_BEFORE_DAYS = 3;
export const MAX_DONATION_LINES = 100;
export const MAX_REFUSAL_REASON_LENGTH = 1000;

/** Euros with cents, as amounts on a delivery note are written. */
const Money = z.number().min(0).max(99_999_999).multipleOf(0.01);

export const DonationLineInput = z
  .strictObject({
    product_id: Uuid.nullish().describe('a product of the catalogue: its category, weight and prices fill what the line leaves out'),
    food_category: FoodCategory.optional().describe("required without `product_id`; by default the product's"),
    description: text(200).trim().min(1).describe('what is handed over, as the note shows it'),
    lot: text(100).trim().min(1).nullish(),
    best_before: IsoDate.nullish().describe('best-before date (consumo preferente)'),
    use_by: IsoDate.nullish().describe('use-by date (fecha de caducidad): a line past it is refused'),
    quantity: z.number().positive().max(1_000_000).multipleOf(0.001),
    unit: DonationUnit,
    net_kg: z
      .number()
      .positive()
      .max(100_000)
      .multipleOf(0.001)
      .optional()
      .describe("net weight; by default the quantity in kg, or units × the product's unit weight, or litres × its density"),
    storage: DonationStorage.default('ambient'),
    cooked: z.boolean().default(false).describe('cooked food (the agreement must accept it)'),
    book_value: Money.nullish().describe("value in the books at handover, in euros; by default the product's unit_cost × the quantity"),
    market_value: Money.nullish().describe("normal market value, in euros; by default the product's price × the quantity"),
    allergens: z
      .array(Allergen)
      .refine((a) => new Set(a).size === a.length, 'each allergen once')
      .default([]),
    temperature_c: z.number().min(-40).max(100).multipleOf(0.1).nullish().describe('temperature at handover, °C'),
    causa_id: Uuid.nullish().describe('the cause of the surplus, as on a record (GET /api/v1/causas)'),
  })
  .meta({ id: 'DonationLineInput' });
export type DonationLineInput = z.input<typeof DonationLineInput>;
export type DonationLineParsed = z.output<typeof DonationLineInput>;

export const CreateDonationInput = z
  .strictObject({
    agreement_id: Uuid.describe('the agreement it is given under: in force, covering this establishment'),
    notes: text(2000).trim().nullish(),
    lines: z.array(DonationLineInput).min(1).max(MAX_DONATION_LINES),
  })
  .meta({ id: 'CreateDonationInput' });
export type CreateDonationInput = z.input<typeof CreateDonationInput>;
export type CreateDonationParsed = z.output<typeof CreateDonationInput>;

export const LineDecision = z.discriminatedUnion('decision', [
  z.strictObject({ line_id: Uuid, decision: z.literal('accepted') }),
  z.strictObject({
    line_id: Uuid,
    decision: z.literal('refused'),
    reason: text(MAX_REFUSAL_REASON_LENGTH).trim().min(1).describe('why the entity refuses it (Ley 1/2025 art. 7)'),
  }),
]);

/** The entity's answer, every line once: accepted, or refused with a reason. */
export const DecideDonationInput = z
  .strictObject({
    id: Uuid,
    lines: z
      .array(LineDecision)
      .min(1)
      .max(MAX_DONATION_LINES)
      .refine((l) => new Set(l.map((d) => d.line_id)).size === l.length, 'each line once'),
  })
  .meta({ id: 'DecideDonationInput' });
export type DecideDonationInput = z.input<typeof DecideDonationInput>;

export const RerouteDonationLineInput = z
  .strictObject({
    id: Uuid,
    line_id: Uuid,
    destino_id: Uuid.describe('where the refused food goes instead: a destination below donation in the hierarchy (GET /api/v1/destinos)'),
    note: text(1000).trim().min(1).nullish().describe("the kitchen's note, kept with the entity's reason on the corrected record"),
  })
  .meta({ id: 'RerouteDonationLineInput' });
export type RerouteDonationLineInput = z.input<typeof RerouteDonationLineInput>;

export const DonationIdParams = z.strictObject({ id: Uuid });

export const ListDonationsQuery = z
  .strictObject({
    status: DonationStatus.optional(),
    entity_id: Uuid.optional(),
    awaiting_reroute: z
      .enum(['true', 'false'])
      .transform((v) => v === 'true')
      .optional()
      .describe('only donations with a refused line not yet sent elsewhere'),
    ...PaginationQuery,
  })
  .meta({ id: 'ListDonationsQuery' });
export type ListDonationsQuery = z.input<typeof ListDonationsQuery>;

export const DonationLine = z
  .object({
    id: Uuid,
    position: z.number().int().describe('1 for the first line'),
    product_id: Uuid.nullable(),
    food_category: FoodCategory,
    description: z.string(),
    lot: z.string().nullable(),
    best_before: IsoDate.nullable(),
    use_by: IsoDate.nullable(),
    quantity: z.number(),
    unit: DonationUnit,
    net_kg: z.number(),
    storage: DonationStorage,
    cooked: z.boolean(),
    book_value: z.number().nullable(),
    market_value: z.number().nullable(),
    allergens: z.array(Allergen),
    temperature_c: z.number().nullable(),
    status: DonationLineStatus,
    refusal_reason: z.string().nullable(),
    record_id: Uuid.describe('the record of the register it is (destination: donation)'),
    rerouted: z
      .object({ record_id: Uuid, destino_id: Uuid, at: Timestamp })
      .nullable()
      .describe('for a refused line, the correction that sent it down the hierarchy; null until then'),
  })
  .meta({ id: 'DonationLine' });
export type DonationLine = z.infer<typeof DonationLine>;

export const Donation = z
  .object({
    id: Uuid,
    establishment_id: Uuid,
    livemode: z.boolean(),
    agreement_id: Uuid,
    entity_id: Uuid,
    entity_name: z.string(),
    status: DonationStatus,
    notes: z.string().nullable(),
    offered_at: Timestamp,
    decided_at: Timestamp.nullable(),
    collected_at: Timestamp.nullable(),
    received_at: Timestamp.nullable(),
    lines: z.array(DonationLine),
    totals: z.object({
      net_kg: z.number(),
      accepted_kg: z.number(),
      book_value: z.number().describe('of the accepted lines (all lines while offered), euros'),
      market_value: z.number(),
    }),
    awaiting_reroute: z.number().int().describe('refused lines not yet sent elsewhere'),
  })
  .meta({ id: 'Donation' });
export type Donation = z.infer<typeof Donation>;

export const DonationResponse = Envelope(Donation);
export const ListDonationsResponse = ListEnvelope(Donation);

/** `data` of the donation.* webhooks: the donation's state; `GET /donations/{id}` has its lines. */
export const DonationEventData = z.object({
  establishment_id: Uuid,
  livemode: z.boolean(),
  donation_id: Uuid,
  agreement_id: Uuid,
  entity_id: Uuid,
  entity_name: z.string(),
  status: DonationStatus,
  lines: z.object({ offered: z.number().int(), accepted: z.number().int(), refused: z.number().int() }),
  net_kg: z.number(),
});
export type DonationEventData = z.infer<typeof DonationEventData>;
