import { describe, expect, it } from 'vitest';
import { deductionRate, donationVat, type TaxEntity, type TaxLine, type TaxNoteCode, valueLine } from '../src/modules/donations/tax.js';
import { allocate, centsToEuros, eurosToCents, kgToGrams, percentFloor, percentOf } from '../src/modules/donations/tax-money.js';
import { taxPack } from '../src/modules/donations/tax-pack.js';

/**
 * The tax pack's arithmetic (modules/donations/tax.ts): VAT per donation, the art. 18 valuation, the
 * corporate-tax deduction of Ley 49/2002 art. 20 (wording from 2024) by entity, establishment and
 * organisation, and exact money. Pure functions: no database.
 */

const entity = (id: string, art2_entity: boolean, regime_opted_in: boolean): TaxEntity => ({
  id,
  ley_49_2002: { art2_entity, regime_opted_in },
});
const FOOD_BANK = entity('e-food-bank', true, true);
const PARISH = entity('e-parish', true, false); // an art. 2 entity that has not opted into the regime
const CLUB = entity('e-club', false, false); // not an entity of art. 2

let serial = 0;
function line(fields: Partial<TaxLine> & Pick<TaxLine, 'handed_over_on' | 'book_value'>): TaxLine {
  serial += 1;
  return {
    id: `l-${serial}`,
    donation_id: `d-${serial}`,
    establishment_id: 'est-centre',
    entity_id: FOOD_BANK.id,
    net_kg: '10.000',
    ...fields,
    // Unless a test says otherwise, the market value is the book value (no cut, nothing unknown).
    market_value: fields.market_value === undefined ? fields.book_value : fields.market_value,
  };
}

const codes = (notes: { code: TaxNoteCode }[]) => notes.map((n) => n.code);

describe('the corporate-tax deduction (Ley 49/2002 art. 20, from 2024)', () => {
  it('worked example: three years to one food bank — 40 %, 40 %, then 50 % because the second year gave at least the first', () => {
    const pack = taxPack({
      entities: [FOOD_BANK],
      lines: [
        // Year 1: 1,000.00 € at book value (market value above it: no cut).
        line({ handed_over_on: '2024-03-14', book_value: '600.00', market_value: '720.00' }),
        line({ handed_over_on: '2024-11-02', book_value: '400.00', market_value: '480.00' }),
        // Year 2: 1,200.00 €, at least year 1's.
        line({ handed_over_on: '2025-06-30', book_value: '1200.00', market_value: '1500.00' }),
        // Year 3: less than year 2 — the year's own amount plays no part in its rate.
        line({ handed_over_on: '2026-01-05', book_value: '900.00', market_value: '950.00' }),
      ],
    });
    const years = pack.by_entity.map((r) => ({
      year: r.year,
      base: r.deductible_base_cents,
      rate: r.rate_pct,
      deduction: r.deduction_cents,
    }));
    expect(years).toEqual([
      { year: 2024, base: 100_000, rate: 40, deduction: 40_000 },
      { year: 2025, base: 120_000, rate: 40, deduction: 48_000 },
      { year: 2026, base: 90_000, rate: 50, deduction: 45_000 },
    ]);
    expect(codes(pack.by_entity[2]?.notes ?? [])).toEqual(['rate_recurrence']);
    // Years 1 and 2 cannot see two earlier years in Merma: the adviser is told.
    expect(codes(pack.by_entity[0]?.notes ?? [])).toEqual(['rate_general', 'recurrence_history_incomplete']);
    expect(codes(pack.by_entity[1]?.notes ?? [])).toEqual(['rate_general', 'recurrence_history_incomplete']);
    expect(pack.organisation.map((o) => [o.year, o.deduction_cents])).toEqual([
      [2024, 40_000],
      [2025, 48_000],
      [2026, 45_000],
    ]);
  });

  it('a smaller year breaks the recurrence: 40 % the year after; the rule looks back two years only, so it returns a year later', () => {
    const pack = taxPack({
      entities: [FOOD_BANK],
      lines: [
        line({ handed_over_on: '2024-05-01', book_value: '1000.00' }),
        line({ handed_over_on: '2025-05-01', book_value: '999.99' }), // one cent less than 2024
        line({ handed_over_on: '2026-05-01', book_value: '999.99' }), // equal to 2025
        line({ handed_over_on: '2027-05-01', book_value: '10.00' }),
      ],
    });
    const rates = pack.by_entity.map((r) => [r.year, r.rate_pct, r.deduction_cents]);
    expect(rates).toEqual([
      [2024, 40, 40_000],
      [2025, 40, 40_000],
      [2026, 40, 40_000], // 2025 < 2024
      [2027, 50, 500], // 2026 ≥ 2025 (equal counts); 2024 is three years back and plays no part
    ]);
  });

  it('recurrence is per entity, and needs a gift in each of the two previous years', () => {
    const other = entity('e-other-bank', true, true);
    const amounts = new Map([[2025, 50_000]]);
    expect(deductionRate(FOOD_BANK, 2026, amounts, 2024).rate_pct).toBe(40); // nothing in 2024
    expect(
      deductionRate(
        FOOD_BANK,
        2026,
        new Map([
          [2024, 0],
          [2025, 50_000],
        ]),
        2024,
      ).rate_pct,
    ).toBe(40);
    expect(
      deductionRate(
        FOOD_BANK,
        2026,
        new Map([
          [2024, 50_000],
          [2025, 50_000],
        ]),
        2024,
      ).rate_pct,
    ).toBe(50);

    const pack = taxPack({
      entities: [FOOD_BANK, other],
      lines: [
        line({ handed_over_on: '2024-02-01', book_value: '500.00', entity_id: other.id }),
        line({ handed_over_on: '2025-02-01', book_value: '500.00' }),
        line({ handed_over_on: '2026-02-01', book_value: '500.00' }),
      ],
    });
    const foodBank2026 = pack.by_entity.find((r) => r.entity_id === FOOD_BANK.id && r.year === 2026);
    expect(foodBank2026?.rate_pct).toBe(40); // 2024's gift went to another entity
  });

  it('gifts Merma did not record count for recurrence when given', () => {
    const pack = taxPack({
      entities: [FOOD_BANK],
      lines: [line({ handed_over_on: '2026-09-09', book_value: '300.00' })],
      other_donations: [
        { entity_id: FOOD_BANK.id, year: 2024, base_cents: 20_000 },
        { entity_id: FOOD_BANK.id, year: 2025, base_cents: 20_000 },
      ],
      records_since_year: 2026,
    });
    expect(pack.by_entity[0]).toMatchObject({ rate_pct: 50, deduction_cents: 15_000 });
    // Only the recorded lines are the year's base.
    expect(pack.organisation[0]).toMatchObject({ deductible_base_cents: 30_000, deduction_cents: 15_000 });
  });

  it('an entity that has not opted into the regime gives no deduction, says why, and its VAT base is still 0 (art. 2)', () => {
    const pack = taxPack({
      entities: [PARISH],
      lines: [
        line({ handed_over_on: '2024-04-04', book_value: '100.00', entity_id: PARISH.id }),
        line({ handed_over_on: '2025-04-04', book_value: '100.00', entity_id: PARISH.id }),
        line({ handed_over_on: '2026-04-04', book_value: '100.00', entity_id: PARISH.id }),
      ],
      taxable_base_cents: { 2026: 1_000_000_00 },
    });
    for (const row of pack.by_entity) {
      expect(row).toMatchObject({ rate_pct: 0, base_cents: 10_000, deductible_base_cents: 0, deduction_cents: 0 });
      expect(codes(row.notes)).toContain('entity_not_in_regime');
    }
    expect(pack.organisation.map((o) => o.deduction_cents)).toEqual([0, 0, 0]);
    expect(pack.vat.map((v) => [v.taxable_base_cents, v.rate_pct])).toEqual([
      [0, 0],
      [0, 0],
      [0, 0],
    ]);
  });

  it('the year’s base is limited to 15 % of the taxable base, split in proportion; the excess carries ten years', () => {
    const other = entity('e-other-bank', true, true);
    const pack = taxPack({
      entities: [FOOD_BANK, other],
      lines: [
        line({ handed_over_on: '2026-03-01', book_value: '1200.00' }),
        line({ handed_over_on: '2026-03-02', book_value: '800.00', entity_id: other.id }),
      ],
      // The food bank had gifts in 2024 and 2025 outside Merma: 50 % for it; 40 % for the other.
      other_donations: [
        { entity_id: FOOD_BANK.id, year: 2024, base_cents: 1_00 },
        { entity_id: FOOD_BANK.id, year: 2025, base_cents: 1_00 },
      ],
      taxable_base_cents: { 2026: 10_000_00 },
    });
    const [org] = pack.organisation;
    expect(org).toMatchObject({
      taxable_base_cents: 10_000_00,
      limit_cents: 1_500_00,
      deductible_base_cents: 2_000_00,
      base_within_limit_cents: 1_500_00,
      base_over_limit_cents: 500_00,
      carry_forward_until_year: 2036,
      // 900.00 × 50 % + 600.00 × 40 %
      deduction_cents: 450_00 + 240_00,
    });
    expect(codes(org?.notes ?? [])).toContain('taxable_base_limit_applied');
    const food = pack.by_entity.find((r) => r.entity_id === FOOD_BANK.id);
    const rest = pack.by_entity.find((r) => r.entity_id === other.id);
    expect(food).toMatchObject({ rate_pct: 50, base_within_limit_cents: 900_00, base_over_limit_cents: 300_00, deduction_cents: 450_00 });
    expect(rest).toMatchObject({ rate_pct: 40, base_within_limit_cents: 600_00, base_over_limit_cents: 200_00, deduction_cents: 240_00 });
  });

  it('under the limit nothing changes; without a taxable base the limit is not checked and says so; a loss leaves a limit of 0', () => {
    const lines = [line({ handed_over_on: '2026-07-07', book_value: '100.00' })];
    const under = taxPack({ entities: [FOOD_BANK], lines, taxable_base_cents: { 2026: 1_000_00 } }).organisation[0];
    expect(under).toMatchObject({ limit_cents: 150_00, base_within_limit_cents: 100_00, base_over_limit_cents: 0, deduction_cents: 40_00 });
    expect(under?.carry_forward_until_year).toBeNull();

    const unchecked = taxPack({ entities: [FOOD_BANK], lines }).organisation[0];
    expect(unchecked).toMatchObject({ taxable_base_cents: null, limit_cents: null, deduction_cents: 40_00 });
    expect(codes(unchecked?.notes ?? [])).toEqual(['taxable_base_limit_not_checked']);

    const loss = taxPack({ entities: [FOOD_BANK], lines, taxable_base_cents: { 2026: -5_000_00 } }).organisation[0];
    expect(loss).toMatchObject({ limit_cents: 0, base_within_limit_cents: 0, base_over_limit_cents: 100_00, deduction_cents: 0 });
    // 15 % of 0.99 € is 0.1485 €: the limit rounds down, never up.
    expect(percentFloor(99, 15)).toBe(14);
  });

  it('periods before 2024 are not computed with the 2024 rules', () => {
    const pack = taxPack({ entities: [FOOD_BANK], lines: [line({ handed_over_on: '2023-12-31', book_value: '100.00' })] });
    expect(pack.by_entity[0]).toMatchObject({ year: 2023, rate_pct: null, deductible_base_cents: 0, deduction_cents: 0 });
    expect(codes(pack.by_entity[0]?.notes ?? [])).toEqual(['period_before_2024']);
  });
});

describe('valuation (Ley 49/2002 art. 18): book value, never above market value', () => {
  it('the market value cuts a book value above it, line by line, and the cut is reported per line and in total', () => {
    const pack = taxPack({
      entities: [FOOD_BANK],
      lines: [
        line({ id: 'over', handed_over_on: '2026-02-02', book_value: '50.00', market_value: '30.00' }),
        line({ id: 'under', handed_over_on: '2026-02-02', book_value: '10.00', market_value: '12.00' }),
      ],
    });
    expect(pack.lines).toEqual([
      expect.objectContaining({
        line_id: 'over',
        book_value_cents: 50_00,
        market_value_cents: 30_00,
        base_cents: 30_00,
        market_cap_cents: 20_00,
      }),
      expect.objectContaining({
        line_id: 'under',
        book_value_cents: 10_00,
        market_value_cents: 12_00,
        base_cents: 10_00,
        market_cap_cents: 0,
      }),
    ]);
    expect(codes(pack.lines[0]?.notes ?? [])).toEqual(['market_value_cap_applied']);
    expect(pack.organisation[0]).toMatchObject({
      book_value_cents: 60_00,
      base_cents: 40_00,
      market_cap_cents: 20_00,
      deduction_cents: 16_00,
    });
    expect(codes(pack.organisation[0]?.notes ?? [])).toContain('market_value_cap_applied');
  });

  it('an unknown market value keeps the book value and says it was not checked; an unknown book value adds nothing', () => {
    expect(valueLine({ id: 'a', book_value: '20.00', market_value: null })).toMatchObject({ base_cents: 20_00, market_cap_cents: 0 });
    expect(codes(valueLine({ id: 'a', book_value: '20.00', market_value: null }).notes)).toEqual(['market_value_unknown']);
    const noBook = valueLine({ id: 'b', book_value: null, market_value: '30.00' });
    expect(noBook).toMatchObject({ book_value_cents: null, base_cents: 0 });
    expect(codes(noBook.notes)).toEqual(['book_value_unknown']);
  });
});

describe('VAT per donation (Ley 37/1992 art. 79.Tres regla 3.ª and 91.Cuatro)', () => {
  it('base 0 and rate 0 % for an art. 2 entity; for another entity a warning that the adviser decides the self-supply', () => {
    expect(donationVat({ id: 'd1', entity_id: FOOD_BANK.id }, FOOD_BANK)).toMatchObject({ taxable_base_cents: 0, rate_pct: 0 });
    const club = donationVat({ id: 'd2', entity_id: CLUB.id }, CLUB);
    expect(club).toMatchObject({ taxable_base_cents: null, rate_pct: null });
    expect(codes(club.notes)).toEqual(['vat_self_supply_adviser']);
    expect(club.notes[0]?.text).toMatch(/adviser/);

    const pack = taxPack({
      entities: [CLUB],
      lines: [
        line({ donation_id: 'd-club', handed_over_on: '2026-01-01', book_value: '5.00', entity_id: CLUB.id }),
        line({ donation_id: 'd-club', handed_over_on: '2026-01-01', book_value: '6.00', entity_id: CLUB.id }),
      ],
    });
    expect(pack.vat).toHaveLength(1); // one verdict per donation, not per line
    expect(codes(pack.vat[0]?.notes ?? [])).toEqual(['vat_self_supply_adviser']);
    expect(pack.organisation[0]?.deduction_cents).toBe(0);
  });
});

describe('summaries by establishment and organisation', () => {
  it('establishments split each entity’s deduction to the cent, so they add up to the organisation exactly', () => {
    // Three establishments give 0.01 € each at 50 %: the entity's deduction is 0.015 € → 0.02 €;
    // rounding each establishment apart would make 0.03 €.
    const lines = ['est-a', 'est-b', 'est-c'].map((est) =>
      line({ handed_over_on: '2026-10-10', book_value: '0.01', establishment_id: est, net_kg: '0.1' }),
    );
    const pack = taxPack({
      entities: [FOOD_BANK],
      lines,
      other_donations: [
        { entity_id: FOOD_BANK.id, year: 2024, base_cents: 1 },
        { entity_id: FOOD_BANK.id, year: 2025, base_cents: 1 },
      ],
    });
    expect(pack.by_entity[0]).toMatchObject({ rate_pct: 50, base_cents: 3, deduction_cents: 2 });
    expect(pack.by_establishment.map((e) => e.deduction_cents)).toEqual([1, 1, 0]);
    const sum = pack.by_establishment.reduce((a, e) => a + e.deduction_cents, 0);
    expect(sum).toBe(pack.organisation[0]?.deduction_cents);
    expect(pack.by_establishment[0]?.entities).toEqual([{ entity_id: FOOD_BANK.id, rate_pct: 50, base_cents: 1, deduction_cents: 1 }]);
    // 0.1 + 0.1 + 0.1 kg is 0.3 kg, not 0.30000000000000004.
    expect(pack.organisation[0]?.net_kg).toBe(0.3);
  });

  it('an establishment giving to two entities sums both; the organisation sums every establishment', () => {
    const other = entity('e-other-bank', true, true);
    const pack = taxPack({
      entities: [FOOD_BANK, other, CLUB],
      lines: [
        line({ handed_over_on: '2026-05-05', book_value: '10.00', establishment_id: 'est-a', net_kg: '1.250' }),
        line({ handed_over_on: '2026-05-05', book_value: '20.00', establishment_id: 'est-a', entity_id: other.id, net_kg: '2.500' }),
        line({ handed_over_on: '2026-05-05', book_value: '40.00', establishment_id: 'est-b', entity_id: CLUB.id, net_kg: '4' }),
      ],
    });
    const a = pack.by_establishment.find((e) => e.establishment_id === 'est-a');
    const b = pack.by_establishment.find((e) => e.establishment_id === 'est-b');
    expect(a).toMatchObject({ net_kg: 3.75, book_value_cents: 30_00, deductible_base_cents: 30_00, deduction_cents: 12_00 });
    expect(a?.entities.map((x) => x.entity_id)).toEqual([FOOD_BANK.id, other.id].sort());
    expect(b).toMatchObject({ net_kg: 4, book_value_cents: 40_00, deductible_base_cents: 0, deduction_cents: 0 });
    expect(pack.organisation[0]).toMatchObject({
      net_kg: 7.75,
      book_value_cents: 70_00,
      deductible_base_cents: 30_00,
      deduction_cents: 12_00,
    });
  });
});

describe('exact money', () => {
  it('reads euros into cents without floating-point drift, half a cent upwards', () => {
    expect(eurosToCents('1.005')).toBe(101);
    expect(eurosToCents(1.005)).toBe(101); // Math.round(1.005 * 100) is 100
    expect(eurosToCents('0.1')).toBe(10);
    expect(eurosToCents('12.344')).toBe(1234);
    expect(eurosToCents('7')).toBe(700);
    expect(kgToGrams('0.0005')).toBe(1);
    expect(() => eurosToCents('-1.00')).toThrow(RangeError);
    expect(() => eurosToCents('1e3')).toThrow(RangeError);
    expect(centsToEuros(123456)).toBe('1234.56');
    expect(centsToEuros(5)).toBe('0.05');
  });

  it('a deduction is rounded to the nearest cent, a half cent upwards, on the year’s base — not summed from rounded lines', () => {
    expect(percentOf(5, 50)).toBe(3); // 2.5 → 3
    expect(percentOf(5, 40)).toBe(2); // 2.0
    expect(percentOf(3, 50)).toBe(2); // 1.5 → 2
    expect(percentOf(1, 40)).toBe(0); // 0.4 → 0
    // Three lines of 0.01 € at 40 %: 0.012 € → 0.01 €, where rounding each line would give 0.
    const pack = taxPack({
      entities: [FOOD_BANK],
      lines: [1, 2, 3].map(() => line({ handed_over_on: '2026-03-03', book_value: '0.01' })),
    });
    expect(pack.organisation[0]?.deduction_cents).toBe(1);
  });

  it('large amounts and proportional splits stay exact integers', () => {
    expect(percentOf(9_000_000_000, 40)).toBe(3_600_000_000);
    expect(allocate(10, [1, 1, 1])).toEqual([4, 3, 3]);
    expect(allocate(0, [0, 0])).toEqual([0, 0]);
    expect(allocate(1_500_00, [1_200_00, 800_00])).toEqual([900_00, 600_00]);
  });
});
