import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decimalMark, formatDecimal, formatKg, parseDecimal } from '../src/lib/decimal.ts';

/**
 * The one reader of typed and pasted numbers (lib/decimal.ts), in Spanish and English: what either
 * language writes reads back as written, and a number written in one language and read in the
 * other is either the same number or refused as ambiguous — never another number.
 */
const LOCALES = ['es', 'en', 'es-ES', 'en-GB'] as const;
const locale = fc.constantFrom(...LOCALES);
// Amounts as the fields hold them: up to 100 million, to four decimals (a price) or grams.
// Thousands and three-decimal amounts are drawn often: they are where a mark may be read two ways.
const amount = fc.oneof(
  fc.integer({ min: 0, max: 100_000_000_0000 }).map((n) => n / 10_000),
  fc.integer({ min: 1000, max: 9_999_999 }),
  fc.integer({ min: 1001, max: 999_999 }).map((n) => n / 1000),
);
const written = (value: number, lang: string, grouping: boolean) =>
  new Intl.NumberFormat(lang, { useGrouping: grouping, maximumFractionDigits: 4 }).format(value);

describe('parseDecimal', () => {
  it.each([
    ['7,50', 'es', 7.5],
    ['7,50', 'en', 7.5],
    ['7.50', 'es', 7.5],
    ['7.50', 'en', 7.5],
    ['1,60', 'en', 1.6],
    ['0,35', 'en', 0.35],
    ['0.350', 'es', 0.35],
    ['1.234,5', 'es', 1234.5],
    ['1.234,5', 'en', 1234.5],
    ['1,234.5', 'es', 1234.5],
    ['1,234.5', 'en', 1234.5],
    ['1,234', 'es', 1.234],
    ['1.234', 'en', 1.234],
    ['1.234.567', 'es', 1234567],
    ['1 234,5', 'es', 1234.5],
    ['12,5 kg', 'es', 12.5],
    ['1234,5', 'en', 1234.5],
    ['42', 'es', 42],
    ['-3,5', 'es', -3.5],
    ['  2,75 € ', 'es', 2.75],
  ])('%s in %s is %d', (text, lang, value) => {
    expect(parseDecimal(text, lang)).toEqual({ value });
  });

  it.each([
    ['1.234', 'es'],
    ['12.500', 'es'],
    ['1,234', 'en'],
    ['999,000', 'en'],
  ])('%s in %s is ambiguous (thousands or decimals), never guessed', (text, lang) => {
    expect(parseDecimal(text, lang)).toEqual({ problem: 'ambiguous' });
  });

  it.each(['', '   ', 'abc', '1,2,3', '1.23.4', '7,', '1,234,5.6', '1.2,3.4', '12a', '1e3', ',', '--1', '0x10', 'Infinity'])(
    '%j is refused',
    (text) => {
      for (const lang of LOCALES) expect(parseDecimal(text, lang).value).toBeUndefined();
    },
  );

  it.each([
    [',5', 0.5],
    ['.5', 0.5],
    ['-,5', -0.5],
    ['\u22122,5', -2.5],
    ['.234', 0.234],
    ['1234.567', 1234.567],
    ['1234,567', 1234.567],
    ['0.500', 0.5],
    ['5 EUR', 5],
    ['50 %', 50],
    ['1\u00a0234,5', 1234.5],
  ])('%j is %d in either language: a leading mark, a minus sign, four digits before three, a unit', (text, value) => {
    for (const lang of LOCALES) expect(parseDecimal(text, lang), `${text} in ${lang}`).toEqual({ value });
  });

  it('reads minus zero as zero', () => {
    for (const text of ['-0', '-0,0', '-.0']) expect(Object.is(parseDecimal(text, 'es').value, 0), text).toBe(true);
  });

  it('says an empty field is empty, and anything else it cannot read is invalid', () => {
    for (const lang of LOCALES) {
      for (const text of ['', '   ', 'kg', ' € ']) expect(parseDecimal(text, lang), JSON.stringify(text)).toEqual({ problem: 'empty' });
      for (const text of ['abc', 'kg5', '1,5e3', '1.5e3', '1,2,3', '1.234,5.6', '7,', ',', '-', '5-3', '1.23.4'])
        expect(parseDecimal(text, lang), `${text} in ${lang}`).toEqual({ problem: 'invalid' });
    }
  });

  it('refuses a number too long to be finite instead of reading it as Infinity', () => {
    // 400 digits pasted by mistake: Number() of them is Infinity, which no field can store.
    for (const lang of LOCALES) {
      expect(parseDecimal('9'.repeat(400), lang)).toEqual({ problem: 'invalid' });
      expect(parseDecimal(`-${'1'.repeat(400)},5`, lang)).toEqual({ problem: 'invalid' });
    }
    // The longest integer a field may hold still reads.
    expect(parseDecimal('9'.repeat(300), 'es').value).toBe(Number('9'.repeat(300)));
  });

  it('reads back what the language writes without grouping, exactly', () => {
    fc.assert(
      fc.property(amount, locale, (value, lang) => {
        expect(parseDecimal(written(value, lang, false), lang)).toEqual({ value });
      }),
      { numRuns: 2000 },
    );
  });

  /**
   * Written in either language, grouped or not, and read in either: the same number, or refused as
   * ambiguous. The one other reading allowed is the reader's own: one mark that is the reader's
   * decimal mark before three digits (`1,234` read in Spanish is 1,234 kg even if an English
   * writer meant 1234).
   */
  it('reads what either language writes as the same number, refuses it as ambiguous, or reads it in its own mark', () => {
    fc.assert(
      fc.property(amount, locale, locale, fc.boolean(), (value, writer, reader, grouping) => {
        for (const text of [written(value, writer, grouping), String(value)]) {
          const read = parseDecimal(text, reader);
          if (read.problem) expect(read.problem, text).toBe('ambiguous');
          else if (read.value !== value) {
            const mark = decimalMark(reader);
            expect(text.split(mark).length === 2 && /^\d{1,3}[.,]\d{3}$/.test(text), `${text} read in ${reader}`).toBe(true);
            expect(read.value).toBe(Number(text.replace(mark, '.')));
          }
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('reads a price with two decimals in either mark, in either language', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 99_999_999 }), locale, (cents, lang) => {
        const [whole, fraction] = (cents / 100).toFixed(2).split('.');
        for (const mark of [',', '.']) expect(parseDecimal(`${whole}${mark}${fraction}`, lang)).toEqual({ value: cents / 100 });
      }),
    );
  });

  it('never throws, and what it reads is a finite number', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'0123456789.,- €kg%e'.split('')) }), locale, (text, lang) => {
        const read = parseDecimal(text, lang);
        if (read.problem === undefined) expect(Number.isFinite(read.value)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('formats for editing in the language, and reads that back', () => {
    expect(formatDecimal(1234.5, 'es')).toBe('1234,5');
    expect(formatDecimal(1234.5, 'en')).toBe('1234.5');
    expect(decimalMark('es')).toBe(',');
    expect(decimalMark('en-GB')).toBe('.');
    fc.assert(
      fc.property(amount, locale, (value, lang) => {
        expect(parseDecimal(formatDecimal(value, lang), lang)).toEqual({ value });
      }),
    );
  });
});

describe('formatKg', () => {
  it('writes a total to one decimal, and an amount under 1 kg to its first significant digit, never 0 kg', () => {
    expect(formatKg(12.345, 'en')).toBe('12.3 kg');
    expect(formatKg(1234.56, 'es')).toBe('1234,6 kg');
    expect(formatKg(1, 'en')).toBe('1 kg');
    expect(formatKg(0.04, 'en')).toBe('0.04 kg');
    expect(formatKg(0.004, 'es')).toBe('0,004 kg');
    expect(formatKg(-0.04, 'en')).toBe('-0.04 kg');
    expect(formatKg(0, 'en')).toBe('0 kg');
  });

  it('rounds an amount under 1 kg to one significant digit, not to the gram', () => {
    // Without the significant-digit rule, 0.456 kg would show as "0,456 kg", a weighing's precision
    // on a total.
    expect(formatKg(0.456, 'es')).toBe('0,5 kg');
    expect(formatKg(-0.75, 'en')).toBe('-0.8 kg');
    expect(formatKg(0.0456, 'en')).toBe('0.05 kg');
    // From 1 kg on, one decimal.
    expect(formatKg(1.25, 'en')).toBe('1.3 kg');
  });

  it('writes one weighing to the gram', () => {
    expect(formatKg(12.345, 'es', 'weighing')).toBe('12,345 kg');
    expect(formatKg(0.0456, 'en', 'weighing')).toBe('0.046 kg');
  });
});
