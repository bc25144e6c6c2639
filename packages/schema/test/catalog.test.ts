import { describe, expect, it } from 'vitest';
import { CreateProductInput, isValidGtin, productPriceProblems } from '../src/catalog.js';

/**
 * The catalogue's checks that are more than a shape: a GTIN's check digit (products are matched by
 * EAN in sales and CSV imports) and prices that contradict each other. The API, the dashboard and
 * the CSV import all apply them (apps/server/test/catalog.test.ts, products-api.test.ts).
 */
describe('isValidGtin', () => {
  it('accepts EAN-8, UPC-A, EAN-13 and GTIN-14 codes with their check digit', () => {
    expect(isValidGtin('96385074')).toBe(true);
    expect(isValidGtin('036000291452')).toBe(true);
    expect(isValidGtin('4006381333931')).toBe(true);
    expect(isValidGtin('5901234123457')).toBe(true);
    expect(isValidGtin('10012345678902')).toBe(true);
    // A check digit of 0 (the sum a multiple of ten), and all zeros.
    expect(isValidGtin('12345670')).toBe(true);
    expect(isValidGtin('0000000000000')).toBe(true);
    // The same EAN-13 as a GTIN-14 (a leading 0): the weights run from the right.
    expect(isValidGtin('04006381333931')).toBe(true);
  });

  it('refuses every other check digit', () => {
    for (const code of ['96385074', '036000291452', '4006381333931', '10012345678902', '12345670']) {
      const body = code.slice(0, -1);
      const check = Number(code.slice(-1));
      for (let digit = 0; digit <= 9; digit++) {
        if (digit !== check) expect(isValidGtin(`${body}${digit}`), `${body}${digit}`).toBe(false);
      }
    }
  });

  it('refuses the EAN-13 weights read from the left (3 on odd places counted from the check digit)', () => {
    // 400638133393 with its weights read from the left would need 7 as its check digit, not 1.
    expect(isValidGtin('4006381333937')).toBe(false);
    expect(isValidGtin('4006381333931')).toBe(true);
  });

  it('refuses other lengths even with a right check digit, and anything but digits', () => {
    // Each is a digit string followed by the check digit its weights give.
    for (const code of ['86', '1234565', '123456784', '1234567895', '12345678905', '123456789012343']) {
      expect(isValidGtin(code), code).toBe(false);
    }
    expect(isValidGtin('')).toBe(false);
    expect(isValidGtin(' 4006381333931')).toBe(false);
    expect(isValidGtin('4006381333931 ')).toBe(false);
    expect(isValidGtin('x4006381333931')).toBe(false);
    expect(isValidGtin('4006381333931x')).toBe(false);
    expect(isValidGtin('400638133393a')).toBe(false);
    expect(isValidGtin('4006-381333931')).toBe(false);
    expect(isValidGtin('９６３８５０７４')).toBe(false);
  });
});

describe('productPriceProblems', () => {
  it('finds nothing when the prices agree, are equal, or some are not given', () => {
    expect(productPriceProblems({})).toEqual([]);
    expect(productPriceProblems({ price: 3, unit_cost: 1.2, salvage_value: 0.4 })).toEqual([]);
    expect(productPriceProblems({ price: 3, unit_cost: 3, salvage_value: 3 })).toEqual([]);
    expect(productPriceProblems({ price: 0, unit_cost: 0, salvage_value: 0 })).toEqual([]);
    // Only two of them: a cost above nothing, a leftover above no cost, are not contradictions.
    expect(productPriceProblems({ price: null, unit_cost: 5, salvage_value: 1 })).toEqual([]);
    expect(productPriceProblems({ price: undefined, unit_cost: 5, salvage_value: 1 })).toEqual([]);
    expect(productPriceProblems({ price: 1, unit_cost: null, salvage_value: 5 })).toEqual([]);
    expect(productPriceProblems({ price: 1, salvage_value: 5 })).toEqual([]);
    expect(productPriceProblems({ unit_cost: 5 })).toEqual([]);
    // A missing amount contradicts nothing, whatever the other one is (a null is no 0).
    expect(productPriceProblems({ price: -1, unit_cost: null })).toEqual([]);
    expect(productPriceProblems({ price: -1 })).toEqual([]);
    expect(productPriceProblems({ unit_cost: -1, salvage_value: null })).toEqual([]);
    expect(productPriceProblems({ unit_cost: -1 })).toEqual([]);
  });

  it('names a cost above the price, with both amounts', () => {
    expect(productPriceProblems({ price: 2.5, unit_cost: 2.51 })).toEqual([
      { path: 'unit_cost', message: '2.51 is above price 2.5 (every sale would lose money)' },
    ]);
    // A price of 0 is a price: any cost is above it.
    expect(productPriceProblems({ price: 0, unit_cost: 0.01 })).toEqual([
      { path: 'unit_cost', message: '0.01 is above price 0 (every sale would lose money)' },
    ]);
  });

  it('names a leftover worth more than making it, with both amounts', () => {
    expect(productPriceProblems({ unit_cost: 1, salvage_value: 1.5 })).toEqual([
      { path: 'salvage_value', message: '1.5 is above unit_cost 1 (a leftover would be worth more than making it)' },
    ]);
    expect(productPriceProblems({ unit_cost: 0, salvage_value: 0.2 })).toEqual([
      { path: 'salvage_value', message: '0.2 is above unit_cost 0 (a leftover would be worth more than making it)' },
    ]);
  });

  it('names both, cost first, when both contradict', () => {
    expect(productPriceProblems({ price: 1, unit_cost: 2, salvage_value: 3 })).toEqual([
      { path: 'unit_cost', message: '2 is above price 1 (every sale would lose money)' },
      { path: 'salvage_value', message: '3 is above unit_cost 2 (a leftover would be worth more than making it)' },
    ]);
  });
});

describe('CreateProductInput', () => {
  const product = { name: 'Pan', food_category: 'bakery', ean: '4006381333931' };

  it('accepts prices that agree', () => {
    expect(CreateProductInput.safeParse({ ...product, price: 2, unit_cost: 1, salvage_value: 0.5 }).success).toBe(true);
  });

  it('reports each contradiction as an issue on its own field, with its message', () => {
    const result = CreateProductInput.safeParse({ ...product, price: 1, unit_cost: 2, salvage_value: 3 });
    expect(result.success).toBe(false);
    expect(result.error?.issues).toEqual([
      expect.objectContaining({ code: 'custom', path: ['unit_cost'], message: '2 is above price 1 (every sale would lose money)' }),
      expect.objectContaining({
        code: 'custom',
        path: ['salvage_value'],
        message: '3 is above unit_cost 2 (a leftover would be worth more than making it)',
      }),
    ]);
  });
});
