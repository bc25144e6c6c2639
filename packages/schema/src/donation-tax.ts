import { z } from 'zod';
import { IsoDate, queryInt, Timestamp, text, Uuid } from './common.js';
import { TAX_PACK_MAX_YEAR, TAX_PACK_MIN_YEAR } from './constants.js';
import { EntityLegalForm, MAX_AGREEMENT_DOCUMENT_BYTES } from './donations.js';
import { Envelope } from './envelope.js';

/**
 * The donations' tax pack (`GET /donations/tax-pack`, and its CSV and PDF): per tax year and donor
 * company (CIF), the VAT of each donation, the Ley 49/2002 art. 18 base of the gifts (book value
 * capped at market value), the art. 20 corporate-tax deduction per social entity (40 %, or 50 % on
 * recurrence over three years) and the 15 % limit when the adviser gives the taxable base. The
 * server computes it from the accepted lines of collected or received donations
 * (modules/donations/tax.ts, tax-pack.ts); docs/decisions/0011-donations-and-tax.md gives the rules
 * and their sources. Amounts are euros with cents, computed exactly in cents.
 */

/** Every note a figure of the pack may carry (its English text names the article). */
export const DONATION_TAX_NOTE_CODES = [
  'vat_zero_base',
  'vat_self_supply_adviser',
  'book_value_unknown',
  'market_value_unknown',
  'market_value_cap_applied',
  'entity_not_in_regime',
  'period_before_2024',
  'rate_general',
  'rate_recurrence',
  'recurrence_history_incomplete',
  'taxable_base_limit_applied',
  'taxable_base_limit_not_checked',
] as const;
export const DonationTaxNoteCode = z.enum(DONATION_TAX_NOTE_CODES);
export type DonationTaxNoteCode = z.infer<typeof DonationTaxNoteCode>;

export const DonationTaxNote = z
  .object({ code: DonationTaxNoteCode, text: z.string().describe('in English, naming the article') })
  .meta({ id: 'DonationTaxNote' });

/** A company's taxable base as the adviser writes it: euros, with up to two decimals, negative for a loss. */
const TaxableBase = z
  .string()
  .regex(/^-?\d{1,13}(\.\d{1,2})?$/, 'must be an amount in euros with up to two decimals, e.g. 250000.00')
  .describe(
    "the company's corporate-tax taxable base for the year, in euros (negative for a loss), to apply the 15 % limit of Ley 49/2002 art. 20.2; needs a single company (CIF): give `cif` when the key sees several",
  );

/** A tax year in a query string (the calendar year of the handover, in Spain). */
export const TaxYearQuery = queryInt(TAX_PACK_MIN_YEAR, TAX_PACK_MAX_YEAR).describe(
  'the tax year (calendar year of the handover, in Spain)',
);

/** A donor company's CIF as given, normalised as the establishments' are compared: no spaces, dots or hyphens, upper case. */
export const CompanyCif = text(20).transform((v) => v.replace(/[\s.-]/g, '').toUpperCase());

export const DonationTaxPackQuery = z
  .strictObject({
    year: TaxYearQuery,
    taxable_base: TaxableBase.optional(),
    cif: CompanyCif.optional().describe("only this donor company's establishments (their CIF)"),
  })
  .meta({ id: 'DonationTaxPackQuery' });
export type DonationTaxPackQuery = z.input<typeof DonationTaxPackQuery>;
export type DonationTaxPackQueryParsed = z.output<typeof DonationTaxPackQuery>;

const euros = (what: string) => z.number().describe(`${what}, euros`);

export const DonationTaxTotals = z
  .object({
    net_kg: z.number(),
    book_value: euros('book value of the lines that have one'),
    market_value_cap: euros('how much capping book values at market value took off (Ley 49/2002 art. 18)'),
    base: euros('the art. 18 base: book value, never above market value'),
    deductible_base: euros('the part of `base` given to entities under the Ley 49/2002 regime, in a year the pack computes'),
    base_within_limit: euros('of `deductible_base`, what fits under the 15 % limit (all of it without a taxable base)'),
    base_over_limit: euros('of `deductible_base`, what the 15 % limit defers to the next ten years'),
    deduction: euros('the corporate-tax deduction (Ley 49/2002 art. 20)'),
  })
  .meta({ id: 'DonationTaxTotals' });
export type DonationTaxTotals = z.infer<typeof DonationTaxTotals>;

export const DonationTaxEntity = z
  .object({
    entity_id: Uuid,
    name: z.string(),
    nif: z.string(),
    legal_form: EntityLegalForm,
    ley_49_2002: z
      .object({ art2_entity: z.boolean(), regime_opted_in: z.boolean() })
      .describe("the entity's status as recorded now (the certificate it issues is the proof)"),
    rate_pct: z
      .number()
      .nullable()
      .describe('40, 50 on recurrence, 0 for an entity outside the regime; null for a year before 2024 (not computed)'),
    recurrence: z
      .object({
        years: z
          .array(
            z.object({
              year: z.number().int(),
              base: euros("the company's art. 18 base of gifts to this entity with a right to deduction"),
            }),
          )
          .describe('the two previous tax years, the earlier first: the company’s gifts to the entity, which decide the 50 % rate'),
        met: z.boolean().describe('gifts in both previous years, the nearer one at least the earlier: 50 %'),
      })
      .describe('the three-year test of Ley 49/2002 art. 20.1 (wording from 2024), over the whole company'),
    totals: DonationTaxTotals.nullable().describe("the company's gifts to the entity in the year; null for a single-establishment key"),
    establishments: z
      .array(z.object({ establishment_id: Uuid, base: euros('its art. 18 base'), deduction: euros('its share of the deduction') }))
      .describe("each establishment's share (the key's establishments only)"),
    notes: z.array(DonationTaxNote),
    signed_certificate: z
      .object({ sha256: z.string().describe('of the stored PDF, hexadecimal'), uploaded_at: Timestamp })
      .nullable()
      .describe(
        "the art. 24 certificate the entity signed for the company's gifts of the year, as stored (`PUT /donations/tax-pack/certificates/{entity_id}/signed`); null until one is",
      ),
  })
  .meta({ id: 'DonationTaxEntity' });

export const DonationTaxEstablishment = DonationTaxTotals.extend({
  establishment_id: Uuid,
  name: z.string(),
})
  .describe("an establishment's share of the company's figures (each entity's deduction split by base, to the cent)")
  .meta({ id: 'DonationTaxEstablishment' });

export const DonationTaxDonation = z
  .object({
    donation_id: Uuid,
    establishment_id: Uuid,
    entity_id: Uuid,
    handed_over_on: IsoDate.describe("the day it was collected, in Spain's calendar: it decides the tax year"),
    lines: z.number().int().describe('accepted lines'),
    net_kg: z.number(),
    book_value: euros('book value of the lines that have one'),
    market_value_cap: euros('taken off by the market-value cap'),
    base: euros('the art. 18 base'),
    vat: z
      .object({
        taxable_base: z.number().nullable().describe('0 for an art. 2 entity; null: a self-supply whose VAT the adviser settles'),
        rate_pct: z.number().nullable(),
      })
      .describe('Ley 37/1992 art. 79.Tres regla 3.ª and 91.Cuatro'),
    notes: z.array(DonationTaxNote),
  })
  .meta({ id: 'DonationTaxDonation' });

export const DonationTaxpayer = z
  .object({
    cif: z.string().describe("the donor company: its establishments' CIF"),
    totals: DonationTaxTotals.extend({
      taxable_base: z.number().nullable().describe('as given'),
      limit: z.number().nullable().describe('15 % of the taxable base, rounded down; null without one'),
      carry_forward_until_year: z.number().int().nullable().describe('the last year an excess over the limit may be deducted in'),
      notes: z.array(DonationTaxNote),
    })
      .nullable()
      .describe("the company's year; null for a single-establishment key"),
    entities: z.array(DonationTaxEntity),
    establishments: z.array(DonationTaxEstablishment),
    donations: z.array(DonationTaxDonation).describe('by handover day'),
  })
  .meta({ id: 'DonationTaxpayer' });

export const DonationTaxPack = z
  .object({
    year: z.number().int(),
    livemode: z.boolean().describe("the key's mode: a test key's pack is of its test donations and has no tax value"),
    scope: z
      .enum(['organisation', 'establishment'])
      .describe(
        "`organisation` (an Enterprise Multi key): every establishment. `establishment`: the key's own establishment's donations and shares; the rate and its recurrence test still read the whole company's gifts to each entity",
      ),
    generated_at: Timestamp,
    rules: z.object({
      rate_pct: z.number(),
      recurrent_rate_pct: z.number(),
      taxable_base_limit_pct: z.number(),
      carry_forward_years: z.number().int(),
      computed: z.boolean().describe('false for a year before 2024: the deduction is not computed (earlier wording of art. 20)'),
    }),
    taxpayers: z.array(DonationTaxpayer).describe('one per donor company (CIF) with donations handed over in the year'),
  })
  .meta({ id: 'DonationTaxPack' });
export type DonationTaxPack = z.infer<typeof DonationTaxPack>;

export const DonationTaxPackResponse = Envelope(DonationTaxPack);

/**
 * `GET /donations/tax-pack/certificates/{entity_id}.pdf`: the entity and the same year and company
 * filter; and the signed certificate's `PUT` and `GET …/{entity_id}/signed`, whose company may be
 * left out when the key sees one that gave to the entity in the year.
 */
export const DonationCertificateQuery = DonationTaxPackQuery.omit({ taxable_base: true });

/** Largest signed certificate accepted, in bytes: the signed agreement's limit (one PDF body parser serves both). */
export const MAX_SIGNED_CERTIFICATE_BYTES = MAX_AGREEMENT_DOCUMENT_BYTES;

/**
 * A signed certificate of Ley 49/2002 art. 24 as stored: the one the entity signed (the pre-filled
 * one, or its own) for one donor company's gifts of one tax year, in one mode. One per company,
 * entity, year and mode; a new upload replaces it (the audit log keeps the hash it replaced).
 */
export const DonationSignedCertificate = z
  .object({
    entity_id: Uuid,
    year: z.number().int(),
    cif: z.string().describe('the donor company whose gifts it certifies'),
    sha256: z.string().describe('of the PDF as stored, hexadecimal'),
    size_bytes: z.number().int(),
    uploaded_at: Timestamp,
  })
  .meta({ id: 'DonationSignedCertificate' });
export type DonationSignedCertificate = z.infer<typeof DonationSignedCertificate>;

export const DonationSignedCertificateResponse = Envelope(DonationSignedCertificate);
