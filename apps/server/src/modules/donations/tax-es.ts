import { AGREEMENT_TIMEZONE, localDate } from '@merma/schema';
import type { TaxNoteCode } from './tax.js';

/**
 * The tax pack's documents are read in Spain (the company, its adviser, the social entity): their
 * words and numbers in Spanish. The notes' English texts (tax.ts) stay the API's; these are the same
 * notes for the CSV and the PDF, short (a CSV cell) and in full (the PDF's notes).
 */
export const TAX_NOTE_ES: Record<TaxNoteCode, { short: string; text: string }> = {
  vat_zero_base: {
    short: 'IVA: base imponible 0 (art. 79.Tres y 91.Cuatro LIVA)',
    text: 'IVA: base imponible 0 y tipo 0 %. Bienes donados a una entidad del art. 2 de la Ley 49/2002 que los destina a sus fines de interés general (Ley 37/1992, art. 79.Tres regla 3.ª y art. 91.Cuatro, desde el 10 de abril de 2022). Conserve el certificado de la entidad que declara ese destino.',
  },
  vat_self_supply_adviser: {
    short: 'IVA: autoconsumo, lo liquida su asesor',
    text: 'La entidad no consta como entidad del art. 2 de la Ley 49/2002: la donación es un autoconsumo de bienes a efectos del IVA (Ley 37/1992, art. 79.Tres) y no se aplica la base cero. Su asesor determina el IVA devengado.',
  },
  book_value_unknown: {
    short: 'Sin valor contable',
    text: 'Línea sin valor contable (su producto no tiene coste unitario): no suma a la base de deducción. El art. 18 de la Ley 49/2002 remite entonces a las normas del Impuesto sobre el Patrimonio; consulte a su asesor.',
  },
  market_value_unknown: {
    short: 'Sin valor de mercado',
    text: 'Línea sin valor de mercado (su producto no tiene precio): se usa el valor contable sin contrastarlo con el límite del valor normal de mercado del art. 18 de la Ley 49/2002.',
  },
  market_value_cap_applied: {
    short: 'Limitado al valor de mercado (art. 18)',
    text: 'Valor contable superior al valor normal de mercado: la base de deducción es el valor de mercado (Ley 49/2002, art. 18); se muestra la diferencia.',
  },
  entity_not_in_regime: {
    short: 'Entidad fuera del régimen de la Ley 49/2002',
    text: 'La entidad no ha optado por el régimen fiscal de la Ley 49/2002: sus donativos no dan deducción en el Impuesto sobre Sociedades (art. 16 y 20) ni cuentan para la recurrencia.',
  },
  period_before_2024: {
    short: 'Ejercicio anterior a 2024: no calculado',
    text: 'Los ejercicios anteriores a 2024 siguen la redacción anterior del art. 20 de la Ley 49/2002 (35 %, 40 %, límite del 10 %): no se calculan aquí.',
  },
  rate_general: {
    short: 'Deducción del 40 % (art. 20.1)',
    text: 'Deducción del 40 % de la base (Ley 49/2002, art. 20.1, redacción desde 2024).',
  },
  rate_recurrence: {
    short: 'Deducción del 50 % por recurrencia (art. 20.1)',
    text: 'Deducción del 50 %: donativos a esta entidad en cada uno de los dos ejercicios anteriores, el más reciente al menos igual al anterior (Ley 49/2002, art. 20.1, párrafo segundo, redacción desde 2024).',
  },
  recurrence_history_incomplete: {
    short: 'Historial de recurrencia incompleto',
    text: 'Los registros de Merma empiezan después del primero de los dos ejercicios anteriores: donativos a esta entidad anteriores, o fuera de Merma, pueden elevar el porcentaje al 50 %. Lo comprueba su asesor.',
  },
  taxable_base_limit_applied: {
    short: 'Límite del 15 % de la base imponible aplicado',
    text: 'La base de deducción del ejercicio supera el 15 % de la base imponible indicada: solo esa parte se deduce este año; el exceso puede deducirse en los períodos impositivos que concluyan en los 10 años siguientes (Ley 49/2002, art. 20.2). El límite incluye todos los donativos de la empresa, también los que Merma no registra.',
  },
  taxable_base_limit_not_checked: {
    short: 'Límite del 15 % no comprobado',
    text: 'No se ha indicado la base imponible: no se comprueba el límite del 15 % del art. 20.2 de la Ley 49/2002. La deducción no aplicada por insuficiencia de cuota puede aplicarse en los 10 años siguientes (art. 20.1).',
  },
};

/** Euros with a decimal comma and no thousands separator, as a Spanish spreadsheet reads a number: `1234,56`. */
export function eurosCell(euros: number | null): string {
  if (euros === null) return '';
  return euros.toFixed(2).replace('.', ',');
}

/** A number with a decimal comma, as many decimals as it has: `12,5`, `3`. */
export const numberCell = (value: number | null): string => (value === null ? '' : String(value).replace('.', ','));

/** Euros as written on a Spanish document: `1.234,56 €`. */
export function eurosText(euros: number): string {
  const [whole = '0', cents = '00'] = Math.abs(euros).toFixed(2).split('.');
  return `${euros < 0 ? '-' : ''}${whole.replace(/\B(?=(\d{3})+(?!\d))/g, '.')},${cents} €`;
}

/** Kilograms as written on a Spanish document: `1.234,5 kg`. */
export function kgText(kg: number): string {
  const [whole = '0', decimals] = String(kg).split('.');
  return `${whole.replace(/\B(?=(\d{3})+(?!\d))/g, '.')}${decimals ? `,${decimals}` : ''} kg`;
}

/** `YYYY-MM-DD` as `dd/mm/yyyy`. */
export const dayText = (day: string): string => `${day.slice(8, 10)}/${day.slice(5, 7)}/${day.slice(0, 4)}`;

/** An instant (ISO 8601) as its day in Spain, `dd/mm/yyyy`. */
export const instantDayText = (instant: string): string => dayText(localDate(new Date(instant), AGREEMENT_TIMEZONE));

export const yesNo = (value: boolean): string => (value ? 'Sí' : 'No');

/** A rate as written: `40 %`, or a dash when the year is not computed. */
export const rateText = (rate: number | null): string => (rate === null ? '—' : `${rate} %`);

export const LEGAL_FORM_ES: Record<string, string> = {
  asociacion: 'Asociación',
  fundacion: 'Fundación',
  banco_de_alimentos: 'Banco de alimentos',
  entidad_religiosa: 'Entidad religiosa',
  otra: 'Otra',
};
