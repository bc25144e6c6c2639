import { TextInput, type TextInputProps } from '@mantine/core';
import type { TFunction } from 'i18next';
import { decimalMark, parseDecimal } from '../lib/decimal.ts';

/**
 * A decimal number field: text as typed or pasted (`7,50`, `7.50`, `1.234,5`), read by
 * `parseDecimal` when the form is checked, never reformatted while typing — a number input that
 * drops the comma of a pasted `7,50` saves 750. The phone shows its decimal keypad.
 */
export function DecimalInput(props: TextInputProps) {
  return <TextInput inputMode="decimal" autoComplete="off" {...props} />;
}

type Bounds = { min?: number; max?: number; integer?: boolean; optional?: boolean };

/**
 * The form check of a decimal field: null when `text` reads as a number within `bounds` (or is
 * empty and optional), else the sentence the field shows in `language` (the reader's locale).
 */
export function decimalError(t: TFunction, text: string, language: string, bounds: Bounds = {}): string | null {
  const read = parseDecimal(text, language);
  if (read.problem === 'empty') return bounds.optional ? null : t('numbers.required');
  if (read.problem === 'ambiguous') {
    const mark = decimalMark(language);
    const digits = text.trim().replace(/[.,]/, '');
    return t('numbers.ambiguous', { text: text.trim(), whole: digits, decimal: text.trim().replace(/[.,]/, mark) });
  }
  if (read.problem) return t('numbers.invalid', { example: `7${decimalMark(language)}50` });
  if (bounds.integer && !Number.isInteger(read.value)) return t('numbers.integer');
  if (bounds.min !== undefined && read.value < bounds.min) return t('numbers.min', { min: bounds.min });
  if (bounds.max !== undefined && read.value > bounds.max) return t('numbers.max', { max: bounds.max });
  return null;
}

/** A checked decimal field's value as the API takes it: empty is null. */
export function decimalValue(text: string, language: string): number | null {
  return parseDecimal(text, language).value ?? null;
}
