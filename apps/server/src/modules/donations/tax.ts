import { allocate, eurosToCents, kgToGrams, percentFloor, percentOf } from './tax-money.js';

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
 * is another twelve months regroups with its adviser.
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
const note = (code: TaxNoteCode): TaxNote => ({ code, text: TAX_NOTE_TEXT[code] });

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
    notes.push(note('book_value_unknown'));
    return { line_id: line.id, book_value_cents: null, market_value_cents: market, base_cents: 0, market_cap_cents: 0, notes };
  }
  if (market === null) notes.push(note('market_value_unknown'));
  const base = market === null ? book : Math.min(book, market);
  if (base < book) notes.push(note('market_value_cap_applied'));
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
    ? { donation_id: donation.id, entity_id: entity.id, taxable_base_cents: 0, rate_pct: 0, notes: [note('vat_zero_base')] }
    : {
        donation_id: donation.id,
        entity_id: entity.id,
        taxable_base_cents: null,
        rate_pct: null,
        notes: [note('vat_self_supply_adviser')],
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
  if (!entity.ley_49_2002.regime_opted_in) return { rate_pct: 0, notes: [note('entity_not_in_regime')] };
  if (year < DEDUCTION_RULES_FROM_YEAR) return { rate_pct: null, notes: [note('period_before_2024')] };
  const previous = amounts.get(year - 1) ?? 0;
  const before = amounts.get(year - 2) ?? 0;
  if (previous > 0 && before > 0 && previous >= before) {
    return { rate_pct: CORPORATE_TAX_RECURRENT_RATE_PCT, notes: [note('rate_recurrence')] };
  }
  const notes = [note('rate_general')];
  if (year - 2 < recordsSinceYear) notes.push(note('recurrence_history_incomplete'));
  return { rate_pct: CORPORATE_TAX_RATE_PCT, notes };
}

/** What a summary row adds up, whatever it groups. */
export type Totals = {
  net_kg: number;
  book_value_cents: number;
  /** Book values (known ones) cut to market value: the art. 18 base before the regime is asked. */
  base_cents: number;
  market_cap_cents: number;
  /** The part of `base_cents` given to entities under the regime: what the deduction is computed on. */
  deductible_base_cents: number;
  /** Of `deductible_base_cents`, what fits under the 15 % limit (all of it when no taxable base is given). */
  base_within_limit_cents: number;
  base_over_limit_cents: number;
  deduction_cents: number;
};

export type EntityYear = Totals & { entity_id: string; year: number; rate_pct: number | null; notes: TaxNote[] };
export type EstablishmentYear = Totals & {
  establishment_id: string;
  year: number;
  /** Its share of each entity's figures for the year (an entity's deduction split by base, to the cent). */
  entities: { entity_id: string; rate_pct: number | null; base_cents: number; deduction_cents: number }[];
};
export type OrganisationYear = Totals & {
  year: number;
  taxable_base_cents: number | null;
  /** 15 % of the taxable base, rounded down; `null` when none is given. */
  limit_cents: number | null;
  /** The last year an excess over the limit may be deducted in (periods ending in the next ten years). */
  carry_forward_until_year: number | null;
  notes: TaxNote[];
};

export type TaxPackInput = {
  entities: readonly TaxEntity[];
  lines: readonly TaxLine[];
  /** Deduction bases of gifts to the same entities that Merma did not record, by year: they count for recurrence only. */
  other_donations?: readonly { entity_id: string; year: number; base_cents: number }[];
  /** The company's corporate-tax taxable base per year, in cents, when the adviser gives it. */
  taxable_base_cents?: Readonly<Record<number, number>>;
  /** The first year Merma's records are complete for; by default the year of the earliest line. */
  records_since_year?: number;
};

export type TaxPack = {
  lines: LineValuation[];
  vat: DonationVat[];
  by_entity: EntityYear[];
  by_establishment: EstablishmentYear[];
  organisation: OrganisationYear[];
};

const ISO_DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
function yearOf(line: TaxLine): number {
  const m = ISO_DAY.exec(line.handed_over_on);
  if (!m) throw new RangeError(`line ${line.id}: handed_over_on must be YYYY-MM-DD, not ${JSON.stringify(line.handed_over_on)}`);
  return Number(m[1]);
}

const zero = (): Totals => ({
  net_kg: 0,
  book_value_cents: 0,
  base_cents: 0,
  market_cap_cents: 0,
  deductible_base_cents: 0,
  base_within_limit_cents: 0,
  base_over_limit_cents: 0,
  deduction_cents: 0,
});

type Valued = { line: TaxLine; year: number; grams: number; value: LineValuation; deductible: boolean };

/** Adds the lines' own figures (weights, values, bases); limit and deduction are set by the caller. */
function addLine(t: Totals & { grams?: number }, v: Valued): void {
  t.grams = (t.grams ?? 0) + v.grams;
  t.book_value_cents += v.value.book_value_cents ?? 0;
  t.base_cents += v.value.base_cents;
  t.market_cap_cents += v.value.market_cap_cents;
  if (v.deductible) t.deductible_base_cents += v.value.base_cents;
}

function finish<T extends Totals & { grams?: number }>(t: T): Omit<T, 'grams'> {
  const { grams = 0, ...rest } = t;
  return { ...rest, net_kg: grams / 1000 };
}

/** A summary's notes on its lines' values: each kind once, when any line has it. */
function valueNotes(lines: readonly Valued[]): TaxNote[] {
  const codes = new Set(lines.flatMap((v) => v.value.notes.map((n) => n.code)));
  return (['book_value_unknown', 'market_value_unknown', 'market_value_cap_applied'] as const).filter((c) => codes.has(c)).map(note);
}

const key = (...parts: (string | number)[]) => parts.join('\u0000');
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The whole pack for one organisation (one taxpayer, one NIF): every line valued, every donation's
 * VAT, and per year the figures by entity, by establishment and for the organisation.
 */
export function taxPack(input: TaxPackInput): TaxPack {
  const entities = new Map(input.entities.map((e) => [e.id, e]));
  const entityOf = (id: string) => {
    const entity = entities.get(id);
    if (!entity) throw new Error(`no entity ${id} in the tax pack's input`);
    return entity;
  };

  const valued: Valued[] = input.lines.map((line) => ({
    line,
    year: yearOf(line),
    grams: kgToGrams(line.net_kg),
    value: valueLine(line),
    deductible: entityOf(line.entity_id).ley_49_2002.regime_opted_in,
  }));

  const vat: DonationVat[] = [];
  const seenDonations = new Map<string, string>();
  for (const { line } of valued) {
    const known = seenDonations.get(line.donation_id);
    if (known !== undefined) {
      if (known !== line.entity_id) throw new Error(`donation ${line.donation_id} names two entities`);
      continue;
    }
    seenDonations.set(line.donation_id, line.entity_id);
    vat.push(donationVat({ id: line.donation_id, entity_id: line.entity_id }, entityOf(line.entity_id)));
  }

  // Recurrence reads every gift with a right to deduction, by entity and year.
  const amounts = new Map<string, Map<number, number>>();
  const addAmount = (entityId: string, year: number, cents: number) => {
    const years = amounts.get(entityId) ?? new Map<number, number>();
    years.set(year, (years.get(year) ?? 0) + cents);
    amounts.set(entityId, years);
  };
  for (const v of valued) if (v.deductible) addAmount(v.line.entity_id, v.year, v.value.base_cents);
  for (const o of input.other_donations ?? []) {
    if (!Number.isSafeInteger(o.base_cents) || o.base_cents < 0)
      throw new RangeError(`other donation base must be integer cents, not ${o.base_cents}`);
    if (entityOf(o.entity_id).ley_49_2002.regime_opted_in) addAmount(o.entity_id, o.year, o.base_cents);
  }
  const recordsSince = input.records_since_year ?? Math.min(...valued.map((v) => v.year));

  const entityYears = new Map<string, EntityYear & { grams?: number }>();
  const establishmentShares = new Map<string, Valued[]>(); // entity-year → its lines
  for (const v of valued) {
    const k = key(v.line.entity_id, v.year);
    let row = entityYears.get(k);
    if (!row) {
      const rate = deductionRate(entityOf(v.line.entity_id), v.year, amounts.get(v.line.entity_id) ?? new Map(), recordsSince);
      row = { ...zero(), entity_id: v.line.entity_id, year: v.year, rate_pct: rate.rate_pct, notes: rate.notes };
      entityYears.set(k, row);
      establishmentShares.set(k, []);
    }
    addLine(row, v);
    establishmentShares.get(k)?.push(v);
  }
  for (const [k, row] of entityYears) {
    row.notes.push(...valueNotes(establishmentShares.get(k) ?? []));
    if (row.rate_pct === null) row.deductible_base_cents = 0; // a period this pack does not compute
  }

  const years = [...new Set(valued.map((v) => v.year))].sort((a, b) => a - b);
  const organisation: OrganisationYear[] = [];
  for (const year of years) {
    const rows = [...entityYears.values()].filter((r) => r.year === year).sort((a, b) => byText(a.entity_id, b.entity_id));
    const org: OrganisationYear & { grams?: number } = {
      ...zero(),
      year,
      taxable_base_cents: null,
      limit_cents: null,
      carry_forward_until_year: null,
      notes: [],
    };
    for (const v of valued) if (v.year === year) addLine(org, v);
    org.deductible_base_cents = rows.reduce((a, r) => a + r.deductible_base_cents, 0);

    const taxable = input.taxable_base_cents?.[year];
    let within = rows.map((r) => r.deductible_base_cents);
    if (taxable === undefined) {
      org.notes.push(note('taxable_base_limit_not_checked'));
    } else {
      if (!Number.isSafeInteger(taxable)) throw new RangeError(`taxable base for ${year} must be integer cents, not ${taxable}`);
      org.taxable_base_cents = taxable;
      org.limit_cents = percentFloor(Math.max(0, taxable), TAXABLE_BASE_LIMIT_PCT);
      if (org.deductible_base_cents > org.limit_cents) {
        // Which gifts the limit leaves for later is not written in art. 20: split in proportion.
        within = allocate(org.limit_cents, within);
        org.carry_forward_until_year = year + CARRY_FORWARD_YEARS;
        org.notes.push(note('taxable_base_limit_applied'));
      }
    }
    rows.forEach((r, i) => {
      r.base_within_limit_cents = within[i] as number;
      r.base_over_limit_cents = r.deductible_base_cents - r.base_within_limit_cents;
      r.deduction_cents = r.rate_pct ? percentOf(r.base_within_limit_cents, r.rate_pct) : 0;
      if (r.base_over_limit_cents > 0) r.notes.push(note('taxable_base_limit_applied'));
    });
    org.base_within_limit_cents = rows.reduce((a, r) => a + r.base_within_limit_cents, 0);
    org.base_over_limit_cents = rows.reduce((a, r) => a + r.base_over_limit_cents, 0);
    org.deduction_cents = rows.reduce((a, r) => a + r.deduction_cents, 0);
    org.notes.push(...valueNotes(valued.filter((v) => v.year === year)));
    organisation.push(finish(org));
  }

  const by_establishment = establishmentRows(entityYears, establishmentShares);
  const by_entity = [...entityYears.values()].map(finish).sort((a, b) => a.year - b.year || byText(a.entity_id, b.entity_id));
  return { lines: valued.map((v) => v.value), vat, by_entity, by_establishment, organisation };
}

/**
 * Each entity's year split across the establishments that gave: bases as they are, the part within
 * the limit and the deduction in proportion to each establishment's deductible base, to the cent
 * (so an organisation's establishments add up to its figures exactly).
 */
function establishmentRows(entityYears: Map<string, EntityYear>, lines: Map<string, Valued[]>): EstablishmentYear[] {
  const rows = new Map<string, EstablishmentYear & { grams?: number }>();
  for (const [k, entity] of entityYears) {
    const entityLines = lines.get(k) ?? [];
    const establishments = [...new Set(entityLines.map((v) => v.line.establishment_id))].sort(byText);
    const perEstablishment = establishments.map((id) => {
      let row = rows.get(key(id, entity.year));
      if (!row) {
        row = { ...zero(), establishment_id: id, year: entity.year, entities: [] };
        rows.set(key(id, entity.year), row);
      }
      const own = entityLines.filter((v) => v.line.establishment_id === id);
      const before = row.deductible_base_cents;
      for (const v of own) addLine(row, v);
      const deductible = entity.rate_pct === null ? 0 : row.deductible_base_cents - before;
      row.deductible_base_cents = before + deductible;
      return { row, deductible, base: own.reduce((a, v) => a + v.value.base_cents, 0) };
    });
    const weights = perEstablishment.map((p) => p.deductible);
    const total = weights.reduce((a, w) => a + w, 0);
    const within = total === 0 ? weights.map(() => 0) : allocate(entity.base_within_limit_cents, weights);
    const deduction = total === 0 ? weights.map(() => 0) : allocate(entity.deduction_cents, weights);
    perEstablishment.forEach((p, i) => {
      p.row.base_within_limit_cents += within[i] as number;
      p.row.base_over_limit_cents += p.deductible - (within[i] as number);
      p.row.deduction_cents += deduction[i] as number;
      p.row.entities.push({
        entity_id: entity.entity_id,
        rate_pct: entity.rate_pct,
        base_cents: p.base,
        deduction_cents: deduction[i] as number,
      });
    });
  }
  return [...rows.values()]
    .map((r) => finish({ ...r, entities: r.entities.sort((a, b) => byText(a.entity_id, b.entity_id)) }))
    .sort((a, b) => a.year - b.year || byText(a.establishment_id, b.establishment_id));
}
