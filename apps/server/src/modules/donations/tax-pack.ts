import {
  CARRY_FORWARD_YEARS,
  type DonationVat,
  deductionRate,
  donationVat,
  type LineValuation,
  taxNote as note,
  TAXABLE_BASE_LIMIT_PCT,
  type TaxEntity,
  type TaxLine,
  type TaxNote,
  valueLine,
} from './tax.js';
import { allocate, kgToGrams, percentFloor, percentOf } from './tax-money.js';

/**
 * The tax pack of one organisation (one taxpayer, one NIF) for every year its lines cover: the
 * rules of tax.ts added up by entity (where the rate is decided), by establishment (each entity's
 * figures split to the cent) and for the organisation (where the 15 % limit of Ley 49/2002 art. 20.2
 * applies, since the taxable base is the company's).
 */

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
