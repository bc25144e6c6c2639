import { Readable } from 'node:stream';
import type { WasteRecord } from '@merma/schema';
import type { CsvDialect } from '@merma/schema/dashboard';
import { type Stringifier, stringify } from 'csv-stringify';
import type { Clock, Tenant } from '../../context.js';
import type { Db } from '../../db/client.js';
import type { Sql } from '../../db/sql.js';
import { edibleLabel, foodCategoryLabel, hierarchyReasonLabel, measurementMethodLabel, wasteStageLabel } from '../catalog/labels.js';
import type { CatalogCache } from '../catalog/service.js';
import { listAllShifts } from '../shifts/service.js';
import { streamRecords } from './browse.js';
import { RECORD_FIELDS, type RecordFieldName } from './columns.js';
import type { RecordFilter } from './filter.js';

/**
 * The records table as CSV, streamed: rows are read a chunk at a time (browse.ts) and written as
 * they come, so an export of years of records never sits in memory. Two forms:
 *
 * - `es`: what a spreadsheet set to Spanish opens as columns — `;` between fields, a decimal comma,
 *   and a UTF-8 byte order mark so accents show right;
 * - `plain`: RFC 4180 (`,`, decimal point, no BOM), for programs.
 *
 * Columns are the API's record fields, plus the names of the destination, cause and shift, and
 * `local_time`, when the waste happened in the establishment's zone as a spreadsheet reads a
 * date-time. In `plain` they carry the API's names and codes (so a file's row equals the API's
 * record); `es` is read by people, so its headers are Spanish (`CSV_HEADERS_ES`, same columns in the
 * same order) and the food category and stage are their Spanish names (`Pescado`, `Preparación`), as
 * the prevention plan writes them. Opening the file never runs a formula someone typed into a note
 * (see `csvStringifier`).
 */
/** The column after an id that names what it refers to. */
const NAME_AFTER: Partial<Record<RecordFieldName, string>> = {
  destino_id: 'destino_nombre',
  causa_id: 'causa_nombre',
  shift_id: 'shift_name',
};

/** The file's columns, in order: the record's fields (columns.ts) between its dates and its chain. */
export const CSV_COLUMNS: readonly string[] = [
  'id',
  'occurred_at',
  'local_time',
  'created_at',
  ...RECORD_FIELDS.flatMap(({ name }) => [name, ...(NAME_AFTER[name] ? [NAME_AFTER[name]] : [])]),
  'source',
  'supersedes_id',
  'record_hash',
];

/** The `es` form's headers, column by column. */
export const CSV_HEADERS_ES: Readonly<Record<string, string>> = {
  id: 'ID',
  occurred_at: 'Fecha y hora (UTC)',
  local_time: 'Fecha y hora local',
  created_at: 'Registrado (UTC)',
  ...Object.fromEntries(RECORD_FIELDS.map(({ name, es }) => [name, es])),
  destino_nombre: 'Destino',
  causa_nombre: 'Causa',
  shift_name: 'Turno',
  source: 'Origen',
  supersedes_id: 'Corrige al registro',
  record_hash: 'Hash del registro',
};

const text = (value: string | null | undefined) => value ?? '';

/**
 * A cell a spreadsheet may read as a formula: one starting with `=`, `+`, `-`, `@`, their fullwidth
 * (`＝＋－＠`, read as formula starts by spreadsheets set to East Asian input) or small (`﹦﹢﹣﹫`)
 * forms, a tab, or a line break (CR, LF: some readers drop leading blanks and see what follows).
 */
const FORMULA_CELL = /^[=+\-@\t\r\n\uFF1D\uFF0B\uFF0D\uFF20\uFE66\uFE62\uFE63\uFE6B]/;
/** A line break inside a cell followed by a formula character: where a line-by-line reader starts a row. */
const FORMULA_LINE = /(\r\n|\r|\n)(?=[=+\-@\t\uFF1D\uFF0B\uFF0D\uFF20\uFE66\uFE62\uFE63\uFE6B])/g;
/** What needs quotes in either form: CR, LF, a quote, and both separators (`,` and `;`). */
const NEEDS_QUOTES = /[\r\n",;]/;

/**
 * A cell as written: `'` before a text that starts a formula, and after every line break inside it
 * that is followed by a formula character, so neither a spreadsheet nor a program that splits the
 * file into lines ever meets a formula. The apostrophe is how spreadsheets mark a cell as text; the
 * value read back is the stored one with those apostrophes (OWASP "CSV Injection"). Applied to every
 * cell, not only to free text: ids, dates and figures never start that way, so they are unchanged.
 */
function formulaSafe(value: string): string {
  const lines = value.replace(FORMULA_LINE, "$1'");
  return FORMULA_CELL.test(lines) ? `'${lines}` : lines;
}

/**
 * The CSV writer of the export in either form: rows of CSV_COLUMNS (strings) in, the file's text
 * out — or of `columns` (key and header), for another file written the same way (a donation's
 * handover note, the tax pack). Rows end with CRLF; csv-stringify then quotes only fields holding
 * the separator, a quote or CRLF itself, so a lone LF or CR would reach the file bare and a
 * spreadsheet would start a new row there. Any field holding CR, LF, a quote or either separator is
 * therefore quoted, in both forms (a file may be opened with the other form's separator). Every cell
 * goes through `formulaSafe`.
 */
export function csvStringifier(
  dialect: CsvDialect,
  columns: readonly { key: string; header: string }[] = CSV_COLUMNS.map((key) => ({
    key,
    header: dialect === 'es' ? (CSV_HEADERS_ES[key] as string) : key,
  })),
): Stringifier {
  const es = dialect === 'es';
  return stringify({
    delimiter: es ? ';' : ',',
    bom: es,
    header: true,
    columns: columns.map(({ key, header }) => ({ key, header })),
    record_delimiter: 'windows',
    quoted_match: NEEDS_QUOTES,
    cast: { string: (value) => formulaSafe(value) },
  });
}

/**
 * A whole small file written the same way (a donation's handover note, the tax pack, the ESRS
 * figures): `rows` of `columns` through `csvStringifier`, collected into the file's bytes.
 */
export async function csvBytes(
  dialect: CsvDialect,
  columns: readonly { key: string; header: string }[],
  rows: Iterable<Record<string, string>>,
): Promise<Buffer> {
  const csv = csvStringifier(dialect, columns);
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    csv.on('data', (chunk: Buffer | string) => chunks.push(Buffer.from(chunk)));
    csv.on('end', () => resolve(Buffer.concat(chunks)));
    csv.on('error', reject);
  });
  for (const row of rows) csv.write(row);
  csv.end();
  return done;
}

export async function exportRecordsCsv(
  deps: { db: Db; sql: Sql; clock: Clock; catalog: CatalogCache },
  tenant: Tenant,
  filter: RecordFilter,
  dialect: CsvDialect,
): Promise<Readable> {
  const [{ causeById, destinationById }, shifts] = await Promise.all([deps.catalog.get(deps.db), listAllShifts(deps.db, tenant)]);
  const shiftNames = new Map(shifts.map((s) => [s.id, s.name]));
  const es = dialect === 'es';
  const localTime = new Intl.DateTimeFormat('sv-SE', {
    timeZone: tenant.timezone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  });
  const kg = (v: number) => (es ? String(v).replace('.', ',') : String(v));
  const category = (code: string) => (es ? foodCategoryLabel(code, 'es') : code);
  const stage = (code: string | null) => (code === null ? '' : es ? wasteStageLabel(code, 'es') : code);
  // Each column's cell; a field without one here is written as stored (null as empty).
  const special: Record<string, (r: WasteRecord) => string> = {
    local_time: (r) => localTime.format(new Date(r.occurred_at)),
    food_category: (r) => category(r.food_category),
    weight_kg: (r) => kg(r.weight_kg),
    destino_nombre: (r) => text(destinationById.get(r.destino_id)?.nombre),
    causa_nombre: (r) => text(r.causa_id ? causeById.get(r.causa_id)?.nombre : null),
    waste_stage: (r) => stage(r.waste_stage),
    shift_name: (r) => text(r.shift_id ? shiftNames.get(r.shift_id) : null),
    measurement_method: (r) =>
      r.measurement_method === null ? '' : es ? measurementMethodLabel(r.measurement_method, 'es') : r.measurement_method,
    estimated: (r) => (r.estimated === null ? '' : es ? (r.estimated ? 'sí' : 'no') : String(r.estimated)),
    edible: (r) => (r.edible === null ? '' : es ? edibleLabel(r.edible, 'es') : r.edible),
    tare_kg: (r) => (r.tare_kg === null ? '' : kg(r.tare_kg)),
    hierarchy_reason: (r) => (r.hierarchy_reason === null ? '' : es ? hierarchyReasonLabel(r.hierarchy_reason, 'es') : r.hierarchy_reason),
  };
  const cells = CSV_COLUMNS.map(
    (column) => special[column] ?? ((r: WasteRecord) => text((r as Record<string, unknown>)[column] as string | null | undefined)),
  );
  const row = (r: WasteRecord) => cells.map((cell) => cell(r));
  const rows = Readable.from(
    (async function* () {
      for await (const chunk of streamRecords(deps, tenant, filter)) for (const r of chunk) yield row(r);
    })(),
  );
  const csv = csvStringifier(dialect);
  rows.on('error', (err) => csv.destroy(err));
  return rows.pipe(csv);
}
