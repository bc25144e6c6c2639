/**
 * Decimal numbers as Spanish and English users type or paste them, one reader for every numeric
 * field of the dashboard and the station (a product's price, cost and weight, a record's weight,
 * the service level, the station's keypad and totals).
 *
 * What is read, in either language:
 * - a decimal comma or point: `7,50` and `7.50` are 7.5; `0,35` and `0.350` are 0.35;
 * - with both marks, the last one is the decimal mark and the other groups thousands
 *   (`1.234,5`, `1,234.5`), whose groups must then be of three digits;
 * - one mark repeated groups thousands (`1.234.567`, `1,234,567`); spaces (`1 234,5`) group too;
 * - a leading minus, and a trailing unit the field already states (`kg`, `€`, `%`).
 *
 * What is refused, never guessed (a price or a weight 1,000 times too high steers tomorrow's
 * production): anything else, and one mark followed by exactly three digits after one to three
 * digits other than 0 when that mark is not the language's decimal mark — `1.234` in Spanish may
 * be 1234 (Spanish grouping) or 1.234 (an English decimal point), so it is `ambiguous` and the
 * field says how to write it. The language's own mark is its decimal mark: `1,234` in Spanish is
 * 1.234, `1.234` in English is 1.234.
 */

export type DecimalProblem = 'empty' | 'invalid' | 'ambiguous';
export type DecimalReading = { value: number; problem?: undefined } | { value?: undefined; problem: DecimalProblem };

/**
 * Intl's number formats, made once per language and options and kept: making one costs far more
 * than using it (a page of records formats hundreds of weights, and a phone's first render paid
 * for a new format per figure).
 */
const numberFormats = new Map<string, Intl.NumberFormat>();
export function numberFormat(language: string, options: Intl.NumberFormatOptions = {}): Intl.NumberFormat {
  const key = `${language}\u0000${JSON.stringify(options)}`;
  let format = numberFormats.get(key);
  if (!format) {
    format = new Intl.NumberFormat(language, options);
    numberFormats.set(key, format);
  }
  return format;
}

/** The language's decimal mark (`,` in Spanish, `.` in English), as Intl writes it. */
export function decimalMark(language: string): ',' | '.' {
  const mark = numberFormat(language)
    .formatToParts(0.5)
    .find((p) => p.type === 'decimal')?.value;
  return mark === ',' ? ',' : '.';
}

const GROUPED = /^\d{1,3}(?:[.,]\d{3})+$/;

/** Reads `text` as a decimal number typed or pasted by someone using `language` (see above). */
export function parseDecimal(text: string, language: string): DecimalReading {
  let s = text
    .trim()
    .replace(/(?:kg|€|%|eur)$/i, '')
    .replace(/[\s\u00a0\u202f']/g, '');
  if (s === '') return { problem: 'empty' };
  let sign = 1;
  if (/^[-\u2212]/.test(s)) {
    sign = -1;
    s = s.slice(1);
  }
  if (!/^[\d.,]+$/.test(s) || !/\d/.test(s)) return { problem: 'invalid' };
  const comma = s.lastIndexOf(',');
  const point = s.lastIndexOf('.');
  let whole: string;
  let fraction = '';
  if (comma >= 0 && point >= 0) {
    // Both marks: the last is the decimal mark; the integer part holds only the other, grouping.
    const at = Math.max(comma, point);
    whole = s.slice(0, at);
    fraction = s.slice(at + 1);
    const group = at === comma ? '.' : ',';
    if (!GROUPED.test(whole) || whole.includes(s[at] as string) || !/^\d+$/.test(fraction)) return { problem: 'invalid' };
    whole = whole.replaceAll(group, '');
  } else if (comma >= 0 || point >= 0) {
    const mark = comma >= 0 ? ',' : '.';
    const parts = s.split(mark);
    if (parts.length > 2) {
      // One mark repeated: it groups thousands.
      if (!GROUPED.test(s)) return { problem: 'invalid' };
      whole = parts.join('');
    } else {
      const [before = '', after = ''] = parts;
      if (after === '' || !/^\d*$/.test(before)) return { problem: 'invalid' };
      const couldGroup = /^[1-9]\d{0,2}$/.test(before) && after.length === 3;
      if (couldGroup && mark !== decimalMark(language)) return { problem: 'ambiguous' };
      whole = before || '0';
      fraction = after;
    }
  } else {
    whole = s;
  }
  const value = sign * Number(`${whole}.${fraction || '0'}`);
  return Number.isFinite(value) ? { value: value === 0 ? 0 : value } : { problem: 'invalid' };
}

/**
 * A number as a field shows it for editing, in the language's decimal mark and without grouping
 * (`1234,5` in Spanish), so that what is shown reads back the same: `parseDecimal` of it is `value`.
 */
export function formatDecimal(value: number, language: string, maximumFractionDigits = 4): string {
  return numberFormat(language, { useGrouping: false, maximumFractionDigits }).format(value);
}

/**
 * Kilograms as the dashboard and the station show them (one rule for both): a total, average or
 * forecast (`total`) to at most one decimal, an amount under 1 kg to its first significant digit
 * (`0,04 kg`, never "0 kg"); one weighing (`weighing`) to the gram (`1,235 kg`). In the language's
 * decimal mark.
 */
export function formatKg(value: number, language: string, kind: 'total' | 'weighing' = 'total'): string {
  const options: Intl.NumberFormatOptions =
    kind === 'weighing'
      ? { maximumFractionDigits: 3 }
      : value !== 0 && Math.abs(value) < 1
        ? { maximumSignificantDigits: 1 }
        : { maximumFractionDigits: 1 };
  return numberFormat(language, { style: 'unit', unit: 'kilogram', ...options }).format(value);
}
