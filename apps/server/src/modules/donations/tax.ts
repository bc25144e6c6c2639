import { eurosToCents } from './tax-money.js';

/**
 * The tax pack's arithmetic: pure functions over the lines handed to social entities, which the SQL
 * layer feeds (accepted lines of collected or received live donations, with the day of handover).
 * No database, no clock. Money is integer cents and weights integer grams (tax-money.ts); every
 * figure carries notes — a code the dashboard words and an English text naming the article.
 * docs/decisions/0011-donations-and-tax.md says which texts these rules rest on and what is left to
 * the customer's adviser.
 *
 * - **VAT** (Ley 37/1992): goods donated to an entity of Ley 49/2002 art. 2 that uses them for its
 *   general-interest purposes have a taxable base of 0 (art. 79.Tres regla 3.ª: total deterioration
 *   is presumed) and a rate of 0 % (art. 91.Cuatro), both since 10 April 2022 (Ley 7/2022, disposición
 *   final tercera). To another entity the gift is a self-supply whose VAT the adviser settles.
 * - **Valuation** (Ley 49/2002 art. 18): goods count at their book value when handed over, never above
 *   their normal market value: per line, min(book value, market value); the cut is reported.
 * - **Corporate-tax deduction** (Ley 49/2002 art. 20, as worded from 1 January 2024 by Real
 *   Decreto-ley 6/2023): only for entities under the regime (`regime_opted_in`); 40 % of the year's
 *   base per entity, 50 % when the company gave to the same entity in each of the two previous tax
 *   periods and gave in the nearer one at least as much as in the one before it; the year's base may
 *   not exceed 15 % of the company's taxable base (given by the adviser), the excess being deductible
 *   in the periods ending in the next ten years.
 *
 * Tax periods are calendar years (the day of handover, in Spain's calendar): a company whose period
 * is another twelve months regroups with its adviser. tax-pack.ts adds the rules up by entity,
 * establishment and organisation.
 */

/** First tax period the 2024 wording of art. 20 governs; earlier periods are not computed. */
export const DEDUCTION_RULES_FROM_YEAR = 2024;
export const CORPORATE_TAX_RATE_PCT = 40;
export const CORPORATE_TAX_RECURRENT_RATE_PCT = 50;
/** Art. 20.2: the year's deduction base may not exceed this share of the taxable base. */
export const TAXABLE_BASE_LIMIT_PCT = 15;
/** Art. 20.1 and 20.2: what is not deducted carries to the periods ending in the next ten years. */
export const CARRY_FORWARD_YEARS = 10;

export const TAX_NOTE_TEXT = {
  vat_zero_base:
    'VAT taxable base 0 and rate 0 %: goods donated to an entity of Ley 49/2002 art. 2 that uses them for its general-interest purposes (Ley 37/1992 art. 79.Tres regla 3.ª and art. 91.Cuatro, since 10 April 2022). Keep the entity’s certificate stating the use.',
  vat_self_supply_adviser:
    'The entity is not recorded as an entity of Ley 49/2002 art. 2: the gift is a self-supply of goods for VAT (Ley 37/1992 art. 79.Tres) and the zero base does not apply. Your adviser decides the VAT due.',
  book_value_unknown:
    'No book value for this line (its product has no unit cost): it adds nothing to the deduction base. Ley 49/2002 art. 18 then values goods by the Wealth Tax rules; ask your adviser.',
  market_value_unknown:
    'No market value for this line (its product has no price): the book value is used, unchecked against the market-value ceiling of Ley 49/2002 art. 18.',
  market_value_cap_applied:
    'Book value above the normal market value: the deduction base is the market value (Ley 49/2002 art. 18); the difference is shown.',
  entity_not_in_regime:
    'The entity has not opted into the tax regime of Ley 49/2002: gifts to it give no corporate-tax deduction (art. 16 and 20) and do not count towards recurrence.',
  period_before_2024:
    'Tax periods before 2024 follow the earlier wording of Ley 49/2002 art. 20 (35 %, 40 %, 10 % limit): not computed here.',
  rate_general: 'Deduction of 40 % of the base (Ley 49/2002 art. 20.1, wording from 2024).',
  rate_recurrence:
    'Deduction of 50 %: gifts to this entity in each of the two previous tax periods, the nearer one at least as large as the one before it (Ley 49/2002 art. 20.1, second paragraph, wording from 2024).',
  recurrence_history_incomplete:
    'Merma’s records start after the earlier of the two previous tax periods: gifts to this entity made before then, or outside Merma, may raise the rate to 50 %. Your adviser checks.',
  taxable_base_limit_applied:
    'The year’s deduction base exceeds 15 % of the taxable base given: only that share is deducted this year; the excess may be deducted in the tax periods ending in the next 10 years (Ley 49/2002 art. 20.2). The limit covers every gift of the company, including those Merma does not record.',
  taxable_base_limit_not_checked:
    'No taxable base given: the 15 % limit of Ley 49/2002 art. 20.2 is not checked. Deduction not applied for lack of tax due carries over 10 years (art. 20.1).',
} as const;

export type TaxNoteCode = keyof typeof TAX_NOTE_TEXT;
export type TaxNote = { code: TaxNoteCode; text: string };
export const taxNote = (code: TaxNoteCode): TaxNote => ({ code, text: TAX_NOTE_TEXT[code] });

export type TaxEntity = { id: string; ley_49_2002: { art2_entity: boolean; regime_opted_in: boolean } };

export type TaxLine = {
  id: string;
  donation_id: string;
  establishment_id: string;
  entity_id: string;
  /** The day the goods were handed over, `YYYY-MM-DD` in Spain's calendar: it decides the tax period. */
  handed_over_on: string;
  /** As stored (`numeric::text`) or as numbers; read exactly. */
  net_kg: string | number;
  book_value: string | number | null;
  market_value: string | number | null;
};

export type LineValuation = {
  line_id: string;
  book_value_cents: number | null;
  market_value_cents: number | null;
  /** Ley 49/2002 art. 18: min(book value, market value); the book value when the market value is unknown; 0 without a book value. */
  base_cents: number;
  /** How much the market value cut from the book value. */
  market_cap_cents: number;
  notes: TaxNote[];
};

/** A line's deduction base under Ley 49/2002 art. 18. */
export function valueLine(line: Pick<TaxLine, 'id' | 'book_value' | 'market_value'>): LineValuation {
  const book = line.book_value == null ? null : eurosToCents(line.book_value);
  const market = line.market_value == null ? null : eurosToCents(line.market_value);
  const notes: TaxNote[] = [];
  if (book === null) {
    notes.push(taxNote('book_value_unknown'));
    return { line_id: line.id, book_value_cents: null, market_value_cents: market, base_cents: 0, market_cap_cents: 0, notes };
  }
  if (market === null) notes.push(taxNote('market_value_unknown'));
  const base = market === null ? book : Math.min(book, market);
  if (base < book) notes.push(taxNote('market_value_cap_applied'));
  return { line_id: line.id, book_value_cents: book, market_value_cents: market, base_cents: base, market_cap_cents: book - base, notes };
}

export type DonationVat = {
  donation_id: string;
  entity_id: string;
  /** 0 for an art. 2 entity; `null`: not decided here, the adviser's. */
  taxable_base_cents: 0 | null;
  rate_pct: 0 | null;
  notes: TaxNote[];
};

/** The VAT of one donation, from its entity's status. */
export function donationVat(donation: { id: string; entity_id: string }, entity: TaxEntity): DonationVat {
  if (entity.id !== donation.entity_id) throw new Error(`donation ${donation.id} is to entity ${donation.entity_id}, not ${entity.id}`);
  return entity.ley_49_2002.art2_entity
    ? { donation_id: donation.id, entity_id: entity.id, taxable_base_cents: 0, rate_pct: 0, notes: [taxNote('vat_zero_base')] }
    : {
        donation_id: donation.id,
        entity_id: entity.id,
        taxable_base_cents: null,
        rate_pct: null,
        notes: [taxNote('vat_self_supply_adviser')],
      };
}

export type DeductionRate = { rate_pct: number | null; notes: TaxNote[] };

/**
 * The corporate-tax rate for gifts to one entity in `year`, from the deduction bases of gifts to it
 * by year (`amounts`: cents, only gifts with a right to deduction). Ley 49/2002 art. 20.1, from 2024:
 * 50 % when there were gifts in both `year − 1` and `year − 2` and those of `year − 1` are at least
 * those of `year − 2`; `year − 3` and the year's own amount play no part. `recordsSinceYear`: the
 * first year the amounts are complete for, so a missing earlier year is flagged rather than read as
 * no gift.
 */
export function deductionRate(
  entity: TaxEntity,
  year: number,
  amounts: ReadonlyMap<number, number>,
  recordsSinceYear: number,
): DeductionRate {
  if (!entity.ley_49_2002.regime_opted_in) return { rate_pct: 0, notes: [taxNote('entity_not_in_regime')] };
  if (year < DEDUCTION_RULES_FROM_YEAR) return { rate_pct: null, notes: [taxNote('period_before_2024')] };
  const previous = amounts.get(year - 1) ?? 0;
  const before = amounts.get(year - 2) ?? 0;
  if (previous > 0 && before > 0 && previous >= before) {
    return { rate_pct: CORPORATE_TAX_RECURRENT_RATE_PCT, notes: [taxNote('rate_recurrence')] };
  }
  const notes = [taxNote('rate_general')];
  if (year - 2 < recordsSinceYear) notes.push(taxNote('recurrence_history_incomplete'));
  return { rate_pct: CORPORATE_TAX_RATE_PCT, notes };
}
