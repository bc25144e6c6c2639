import { parse } from 'csv-parse/sync';
import { expect } from 'vitest';

/** What the CSV export's tests share: what starts a formula, the cell expected for a text, reading CSV as a spreadsheet does. */

/** What a spreadsheet reads as the start of a formula (or of a cell holding one). */
export const FORMULA_CHARS = new Set([
  '=',
  '+',
  '-',
  '@',
  '\t',
  '\uFF1D',
  '\uFF0B',
  '\uFF0D',
  '\uFF20',
  '\uFE62',
  '\uFE63',
  '\uFE66',
  '\uFE6B',
]);
export const CELL_START_CHARS = new Set([...FORMULA_CHARS, '\r', '\n']);

/**
 * The cell the export should write for a stored text, spelled out: a `'` before the text when its
 * first character starts a formula (or is a line break or tab), and a `'` after every line break
 * (CRLF, CR or LF) that is followed by a formula character.
 */
export function expectedCell(text: string): string {
  let out = text.length > 0 && CELL_START_CHARS.has(text[0] as string) ? "'" : '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    out += c;
    const lineBreak = c === '\n' || (c === '\r' && text[i + 1] !== '\n');
    if (lineBreak && i + 1 < text.length && FORMULA_CHARS.has(text[i + 1] as string)) out += "'";
  }
  return out;
}

/** Every line of a cell (as a reader splitting on line breaks would see it) starts harmlessly. */
export function assertNoFormula(cell: string) {
  expect(CELL_START_CHARS.has(cell[0] ?? ''), JSON.stringify(cell)).toBe(false);
  for (const line of cell.split(/\r\n|\r|\n/).slice(1)) {
    expect(FORMULA_CHARS.has(line[0] ?? ''), JSON.stringify(cell)).toBe(false);
  }
}

export const DIALECTS = [
  { dialect: 'es', delimiter: ';' },
  { dialect: 'plain', delimiter: ',' },
] as const;

/**
 * Read as a spreadsheet does: a CRLF, a lone LF or a lone CR outside quotes ends a row (csv-parse
 * alone would settle on the first one it meets and keep the others as text).
 */
export const parseCsv = (body: string, delimiter: string) =>
  parse(body, { bom: true, delimiter, columns: true, record_delimiter: ['\r\n', '\n', '\r'], relax_column_count: true }) as Record<
    string,
    string
  >[];

/** The export's headers, written out here rather than read from the code they check. */
export const SPANISH_HEADERS = [
  'ID',
  'Fecha y hora (UTC)',
  'Fecha y hora local',
  'Registrado (UTC)',
  'Categoría',
  'Peso (kg)',
  'ID destino',
  'Destino',
  'ID causa',
  'Causa',
  'Etapa',
  'ID turno',
  'Turno',
  'ID sesión de registro',
  'Producto',
  'Notas',
  'URL de la foto',
  'ID producto',
  'Método de medición',
  'ID báscula',
  'Estimado',
  'Comestible',
  'Tara (kg)',
  'Motivo de la jerarquía',
  'Justificación',
  'Documento de traslado',
  'Origen',
  'Corrige al registro',
  'Hash del registro',
];
export const PLAIN_HEADERS = [
  'id',
  'occurred_at',
  'local_time',
  'created_at',
  'food_category',
  'weight_kg',
  'destino_id',
  'destino_nombre',
  'causa_id',
  'causa_nombre',
  'waste_stage',
  'shift_id',
  'shift_name',
  'session_id',
  'product_name',
  'notes',
  'photo_url',
  'product_id',
  'measurement_method',
  'scale_id',
  'estimated',
  'edible',
  'tare_kg',
  'hierarchy_reason',
  'hierarchy_note',
  'transfer_document_ref',
  'source',
  'supersedes_id',
  'record_hash',
];
