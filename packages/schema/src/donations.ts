import { z } from 'zod';
import { FoodCategory, IsoDate, Timestamp, text, Uuid } from './common.js';
import { Envelope } from './envelope.js';
import { Weekday } from './opening.js';

/**
 * Donation agreements (Ley 1/2025, art. 6.4.b and art. 7): the social entities and food banks an
 * organisation donates to, and the written agreements it signs with them for one or more of its
 * establishments. Both belong to the organisation, like its products: legal facts, not test or live
 * data.
 */

/** Days before `valid_until` from which an agreement without automatic renewal is `expiring`. */
export const AGREEMENT_EXPIRING_DAYS = 30;
/** Largest signed agreement document accepted (`PUT /donation-agreements/{id}/document`), in bytes. */
export const MAX_AGREEMENT_DOCUMENT_BYTES = 10 * 1024 * 1024;
export const MAX_ENTITY_CONTACTS = 20;
export const MAX_AGREEMENT_ESTABLISHMENTS = 500;
/** The day the agreements' dates and statuses are read in: Spanish law, Spanish calendar. */
export const AGREEMENT_TIMEZONE = 'Europe/Madrid';

export const ENTITY_LEGAL_FORMS = ['asociacion', 'fundacion', 'banco_de_alimentos', 'entidad_religiosa', 'otra'] as const;
export const EntityLegalForm = z.enum(ENTITY_LEGAL_FORMS);
export type EntityLegalForm = z.infer<typeof EntityLegalForm>;

export const AGREEMENT_RENEWALS = ['none', 'automatic_yearly'] as const;
export const AgreementRenewal = z.enum(AGREEMENT_RENEWALS);
export const AGREEMENT_STATUSES = ['draft', 'active', 'expiring', 'expired'] as const;
export const AgreementStatus = z.enum(AGREEMENT_STATUSES);
export type AgreementStatus = z.infer<typeof AgreementStatus>;
export const AGREEMENT_TRANSPORTS = ['entity', 'donor', 'third_party'] as const;
export const AgreementTransport = z.enum(AGREEMENT_TRANSPORTS);

const CIF_LETTERS = 'ABCDEFGHJNPQRSUVW';
/** Organisation kinds whose control character is always a letter, and those whose is always a digit. */
const CIF_LETTER_CONTROL = 'NPQRSW';
const CIF_DIGIT_CONTROL = 'ABEH';

/** A NIF as written on paper (`G-12345678`, `g 1234567 8`): upper case, without spaces, dots or hyphens. */
export const normalizeNif = (nif: string): string => nif.replace(/[\s.-]/g, '').toUpperCase();

/**
 * Whether `nif` (normalised) is the NIF of a legal person (the former CIF): a letter for its kind
 * (G asociaciones and fundaciones, R entidades religiosas…), 7 digits and a control character, a
 * digit or the letter `JABCDEFGHI`[digit] computed from the 7 digits. A social entity is a legal
 * person: a DNI or NIE is not its NIF.
 */
export function isValidEntityNif(nif: string): boolean {
  const m = /^([A-Z])(\d{7})([0-9A-J])$/.exec(nif);
  if (!m) return false;
  const [, kind, digits, control] = m as unknown as [string, string, string, string];
  if (!CIF_LETTERS.includes(kind)) return false;
  let sum = 0;
  for (let i = 0; i < 7; i++) {
    const d = Number(digits[i]);
    if (i % 2 === 1) sum += d;
    else sum += Math.floor((d * 2) / 10) + ((d * 2) % 10);
  }
  const digit = (10 - (sum % 10)) % 10;
  const letter = 'JABCDEFGHI'[digit] as string;
  if (CIF_LETTER_CONTROL.includes(kind)) return control === letter;
  if (CIF_DIGIT_CONTROL.includes(kind)) return control === String(digit);
  return control === letter || control === String(digit);
}

export const EntityNif = z.string().max(20).transform(normalizeNif).refine(isValidEntityNif, {
  message: "is not a valid NIF of a legal person: a letter (G, R…), 7 digits and the control digit or letter (e.g. 'G28029643')",
});

export const EntityContact = z.strictObject({
  name: text(200).trim().min(1),
  role: text(200).trim().nullable().optional(),
  phone: text(40).trim().nullable().optional(),
  email: z.email().max(254).nullable().optional(),
});

const Ley49Status = z
  .strictObject({
    art2_entity: z.boolean().describe('an entity of Ley 49/2002 art. 2: a donation to it has a VAT taxable base of zero'),
    regime_opted_in: z.boolean().describe("opted into Ley 49/2002's tax regime: the donor may deduct the gift in its corporate tax"),
  })
  .describe('Ley 49/2002 status');

const Capacity = z.strictObject({
  cold_chain: z.boolean().describe('can keep chilled and frozen food cold'),
  vehicle: z.boolean().describe('has a vehicle to collect'),
  notes: text(2000).trim().nullable().optional(),
});

const EntityFields = z.object({
  name: text(200).trim().min(1),
  nif: EntityNif,
  address: text(500).trim().min(1),
  legal_form: EntityLegalForm,
  registry_number: text(100).trim().nullable().optional().describe('number in the registry of associations, foundations…'),
  ley_49_2002: Ley49Status,
  food_bank_network: text(100).trim().nullable().optional().describe('the network it belongs to (e.g. FESBAL)'),
  contacts: z.array(EntityContact).max(MAX_ENTITY_CONTACTS).default([]),
  capacity: Capacity,
});

export const SocialEntity = z
  .object({
    id: Uuid,
    name: z.string(),
    nif: z.string(),
    address: z.string(),
    legal_form: EntityLegalForm,
    registry_number: z.string().nullable(),
    ley_49_2002: z.object({ art2_entity: z.boolean(), regime_opted_in: z.boolean() }),
    food_bank_network: z.string().nullable(),
    contacts: z.array(
      z.object({ name: z.string(), role: z.string().nullable(), phone: z.string().nullable(), email: z.string().nullable() }),
    ),
    capacity: z.object({ cold_chain: z.boolean(), vehicle: z.boolean(), notes: z.string().nullable() }),
    archived: z.boolean().describe('archived entities are listed only with `include_archived=true`; their agreements stay'),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'SocialEntity' });
export type SocialEntity = z.infer<typeof SocialEntity>;

export const CreateSocialEntityInput = EntityFields.strict().meta({ id: 'CreateSocialEntityInput' });
export type CreateSocialEntityInput = z.input<typeof CreateSocialEntityInput>;
export type CreateSocialEntityParsed = z.output<typeof CreateSocialEntityInput>;

/** The fields to change (others keep their value); `null` clears an optional one; `contacts` replaces the list. */
export const UpdateSocialEntityInput = EntityFields.partial()
  .extend({ id: Uuid, contacts: z.array(EntityContact).max(MAX_ENTITY_CONTACTS).optional() })
  .strict()
  .meta({ id: 'UpdateSocialEntityInput' });
export type UpdateSocialEntityInput = z.input<typeof UpdateSocialEntityInput>;
export type UpdateSocialEntityParsed = z.output<typeof UpdateSocialEntityInput>;

export const ListSocialEntitiesQuery = z.strictObject({
  include_archived: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional()
    .describe('also list archived entities'),
});
export const SocialEntityIdParams = z.strictObject({ id: Uuid });
export const SocialEntityResponse = Envelope(SocialEntity);
export const ListSocialEntitiesResponse = Envelope(z.array(SocialEntity));

const Conditions = z.strictObject({
  chilled: z.boolean(),
  frozen: z.boolean(),
  cooked: z.boolean(),
  near_best_before: z.boolean().describe('food close to its best-before date'),
});

const Collection = z.strictObject({
  schedule: text(1000).trim().min(1).describe('when the entity collects, in words'),
  weekdays: z
    .array(Weekday)
    .refine((days) => new Set(days).size === days.length, 'each weekday once')
    .describe('the weekdays of collection'),
  transport: AgreementTransport.describe('who carries the food: the entity, the donor or a third party'),
});

const AgreementFields = z.object({
  entity_id: Uuid.describe('the social entity (`GET /social-entities`)'),
  establishment_ids: z
    .array(Uuid)
    .min(1)
    .max(MAX_AGREEMENT_ESTABLISHMENTS)
    .refine((ids) => new Set(ids).size === ids.length, 'each establishment once')
    .describe("the organisation's establishments the agreement covers"),
  valid_from: IsoDate,
  valid_until: IsoDate.describe('last day in force'),
  renewal: AgreementRenewal.describe('`automatic_yearly`: renewed each year unless a party ends it, so it never expires here'),
  accepted_food_categories: z
    .array(FoodCategory)
    .min(1)
    .refine((c) => new Set(c).size === c.length, 'each category once'),
  conditions: Conditions.describe('what kinds of food the entity accepts'),
  collection: Collection,
  storage_conditions: text(5000).trim().min(1),
  safety_responsibility_clause: text(5000).trim().min(1).describe("each party's food-safety responsibility"),
  refusal_procedure: text(5000)
    .trim()
    .min(1)
    .describe('how the entity refuses food, with a reason (art. 7); the donor then sends it down the hierarchy'),
});

const validityOrder = (a: { valid_from?: string | undefined; valid_until?: string | undefined }) =>
  a.valid_from === undefined || a.valid_until === undefined || a.valid_until >= a.valid_from;

export const CreateDonationAgreementInput = AgreementFields.strict()
  .refine(validityOrder, { message: 'must not be before valid_from', path: ['valid_until'] })
  .meta({ id: 'CreateDonationAgreementInput' });
export type CreateDonationAgreementInput = z.input<typeof CreateDonationAgreementInput>;
export type CreateDonationAgreementParsed = z.output<typeof CreateDonationAgreementInput>;

/** The fields to change (others keep theirs); `establishment_ids` replaces the list. The dates are checked with the ones kept. */
export const UpdateDonationAgreementInput = AgreementFields.omit({ entity_id: true })
  .partial()
  .extend({ id: Uuid })
  .strict()
  .refine(validityOrder, { message: 'must not be before valid_from', path: ['valid_until'] })
  .meta({ id: 'UpdateDonationAgreementInput' });
export type UpdateDonationAgreementInput = z.input<typeof UpdateDonationAgreementInput>;
export type UpdateDonationAgreementParsed = z.output<typeof UpdateDonationAgreementInput>;

export const AgreementDocument = z.object({
  sha256: z.string().describe('SHA-256 of the stored PDF, hexadecimal'),
  size_bytes: z.number().int(),
  uploaded_at: Timestamp,
});

export const DonationAgreement = z
  .object({
    id: Uuid,
    entity_id: Uuid,
    entity_name: z.string(),
    establishment_ids: z.array(Uuid),
    valid_from: IsoDate,
    valid_until: IsoDate,
    renewal: AgreementRenewal,
    status: AgreementStatus.describe(
      "`draft` until the signed document is stored and while `valid_from` is ahead; `expired` after `valid_until`; `expiring` in the 30 days up to it; `active` otherwise. With `automatic_yearly` renewal it is never `expiring` nor `expired`. Days in Spain's calendar (Europe/Madrid)",
    ),
    accepted_food_categories: z.array(FoodCategory),
    conditions: z.object({ chilled: z.boolean(), frozen: z.boolean(), cooked: z.boolean(), near_best_before: z.boolean() }),
    collection: z.object({ schedule: z.string(), weekdays: z.array(Weekday), transport: AgreementTransport }),
    storage_conditions: z.string(),
    safety_responsibility_clause: z.string(),
    refusal_procedure: z.string(),
    document: AgreementDocument.nullable().describe('the signed agreement (`PUT /donation-agreements/{id}/document`); null until stored'),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'DonationAgreement' });
export type DonationAgreement = z.infer<typeof DonationAgreement>;

export const ListDonationAgreementsQuery = z.strictObject({
  entity_id: Uuid.optional().describe('only the agreements with this entity'),
  establishment_id: Uuid.optional().describe('only the agreements covering this establishment'),
  status: AgreementStatus.optional(),
});
export type ListDonationAgreementsQuery = z.input<typeof ListDonationAgreementsQuery>;
export const DonationAgreementIdParams = z.strictObject({ id: Uuid });
export const DonationAgreementResponse = Envelope(DonationAgreement);
export const ListDonationAgreementsResponse = Envelope(z.array(DonationAgreement));
