/**
 * The records export's formula guard as its documentation states it (modules/records/export.ts,
 * `formulaSafe`), spelled out character by character so the tests do not reuse the code they check.
 */

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
/** What must not start a cell: a formula character, or a line break that a reader may drop. */
export const CELL_START_CHARS = new Set([...FORMULA_CHARS, '\r', '\n']);

/**
 * The cell the export should write for a stored text: a `'` before the text when its first
 * character starts a formula (or is a line break or tab), and a `'` after every line break (CRLF,
 * CR or LF) that is followed by a formula character.
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
  'source',
  'supersedes_id',
  'record_hash',
];
