import type { DONATION_STORAGE, DONATION_UNITS, DonationLineInput, FoodCategory } from '@merma/schema';
import type { DashboardCreateDonationInput } from '@merma/schema/dashboard';
import type { TFunction } from 'i18next';
import { decimalError, decimalValue } from '../../components/DecimalInput.tsx';
import { detailText, type ErrorDetail } from '../../lib/errors.ts';

/**
 * The "Offer a donation" form's values and how they become the API's `CreateDonationInput`: a line's
 * fields keep the API's names, so that a server detail's path (`lines.2.use_by`) names the form's
 * field as it is; numbers are kept as typed (a decimal comma or point) and read when sent.
 */
export type LineValues = {
  /** React's key of the line (lines are added and removed). */
  key: string;
  product_id: string | null;
  food_category: string | null;
  description: string;
  quantity: string;
  unit: (typeof DONATION_UNITS)[number];
  net_kg: string;
  lot: string;
  best_before: string;
  use_by: string;
  storage: (typeof DONATION_STORAGE)[number];
  cooked: boolean;
  allergens: string[];
  temperature_c: string;
  book_value: string;
  market_value: string;
};

export type OfferValues = { agreement_id: string | null; notes: string; lines: LineValues[] };

let lineCounter = 0;
export const emptyLine = (): LineValues => ({
  key: `line-${++lineCounter}`,
  product_id: null,
  food_category: null,
  description: '',
  quantity: '',
  unit: 'kg',
  net_kg: '',
  lot: '',
  best_before: '',
  use_by: '',
  storage: 'ambient',
  cooked: false,
  allergens: [],
  temperature_c: '',
  book_value: '',
  market_value: '',
});

/** The form's own checks of a line, the server's bounds (donation-handover.ts); the server checks everything again. */
export function lineRules(t: TFunction<'donations'>, common: TFunction, language: string) {
  const decimal = (bounds: Parameters<typeof decimalError>[3]) => (value: string) => decimalError(common, value, language, bounds);
  return {
    description: (v: string) => (v.trim() ? null : t('donations.offerForm.descriptionRequired')),
    food_category: (v: string | null, values: OfferValues, path: string) => {
      const line = values.lines[Number(path.split('.')[1])];
      return v || line?.product_id ? null : t('donations.offerForm.categoryRequired');
    },
    quantity: (v: string) => decimal({ min: 0.001, max: 1_000_000 })(v),
    net_kg: (v: string) => decimal({ min: 0.001, max: 100_000, optional: true })(v),
    temperature_c: (v: string) => decimal({ min: -40, max: 100, optional: true })(v),
    book_value: (v: string) => decimal({ min: 0, optional: true })(v),
    market_value: (v: string) => decimal({ min: 0, optional: true })(v),
  };
}

const text = (value: string) => value.trim() || null;

/** The line as the API takes it: empty optional fields left out (or null where the API takes null). */
function lineInput(line: LineValues, language: string): DonationLineInput {
  const netKg = decimalValue(line.net_kg, language);
  return {
    product_id: line.product_id,
    ...(line.food_category ? { food_category: line.food_category as FoodCategory } : {}),
    description: line.description.trim(),
    lot: text(line.lot),
    best_before: text(line.best_before),
    use_by: text(line.use_by),
    quantity: decimalValue(line.quantity, language) as number,
    unit: line.unit,
    ...(netKg === null ? {} : { net_kg: netKg }),
    storage: line.storage,
    cooked: line.cooked,
    allergens: line.allergens as DonationLineInput['allergens'],
    temperature_c: decimalValue(line.temperature_c, language),
    book_value: decimalValue(line.book_value, language),
    market_value: decimalValue(line.market_value, language),
  };
}

export function offerInput(
  scope: { establishment_id: string; livemode: boolean },
  values: OfferValues,
  language: string,
): DashboardCreateDonationInput {
  return {
    ...scope,
    agreement_id: values.agreement_id as string,
    notes: text(values.notes),
    lines: values.lines.map((line) => lineInput(line, language)),
  };
}

const LINE_FIELDS = new Set<string>([
  'product_id',
  'food_category',
  'description',
  'quantity',
  'unit',
  'net_kg',
  'lot',
  'best_before',
  'use_by',
  'storage',
  'cooked',
  'allergens',
  'temperature_c',
  'book_value',
  'market_value',
]);

/**
 * A 400's details as the form's errors, by field path (`lines.2.use_by`, `agreement_id`): each
 * detail in the reader's language where the server gives it a code, else its own message. A detail
 * about nothing the form shows (a line's cause, the list of lines) is left to the alert above the
 * form, which lists them all.
 */
export function fieldErrors(i18n: { t: TFunction }, details: readonly ErrorDetail[], lineCount: number): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const d of details) {
    const line = /^lines\.(\d+)\.(\w+)/.exec(d.path);
    const known =
      d.path === 'agreement_id' || d.path === 'notes' || (line && Number(line[1]) < lineCount && LINE_FIELDS.has(line[2] as string));
    if (!known) continue;
    const path = line ? `lines.${line[1]}.${line[2]}` : d.path;
    const said = d.code ? detailText(i18n, d) : d.message;
    errors[path] = errors[path] ? `${errors[path]}; ${said}` : said;
  }
  return errors;
}
