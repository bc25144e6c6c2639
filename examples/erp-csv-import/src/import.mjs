#!/usr/bin/env node
// @ts-check
/**
 * Imports an ERP export (CSV) into Merma as food-waste records.
 *
 *   MERMA_API_KEY=svc_test_… node src/import.mjs export.csv [--dry-run] [--json] [--timezone Europe/Madrid]
 *
 * Each data line becomes one record. Categories, destinations and causes are matched by name
 * (case- and accent-insensitive) or id against the API's catalogues; lines that cannot be mapped
 * are reported with their line number and not sent. The rest goes through `records.batch()` in
 * chunks of 500 with an idempotency key derived from the file's SHA-256, so rerunning the same file
 * after a crash stores nothing twice.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Merma } from '@merma/sdk';
import cliProgress from 'cli-progress';
import { parse } from 'csv-parse/sync';

/** @typedef {import('@merma/sdk').CreateRecordInput} CreateRecordInput */
/** @typedef {import('@merma/sdk').FoodCategory} FoodCategory */
/** @typedef {{ line: number, message: string }} LineError */
/**
 * @typedef {object} ImportSummary
 * @property {string} file
 * @property {string} sha256
 * @property {boolean} dry_run
 * @property {number} rows data lines read (the header and blank lines excluded)
 * @property {number} valid lines that mapped to a record
 * @property {number} inserted records stored by this run
 * @property {number} replayed records a previous run of the same file had stored (not stored again)
 * @property {number} failed lines not stored
 * @property {string[]} ignored_columns header columns that are not read
 * @property {LineError[]} errors one entry per line not stored, by line number
 */

export const DEFAULT_BASE_URL = 'http://127.0.0.1:3000';
/** The zone the ERP's dates are read in (`--timezone`): a date becomes noon of that day there. */
export const DEFAULT_TIMEZONE = 'Europe/Madrid';

/**
 * A calendar date of the ERP as the record's `occurred_at`: noon of that day in `timeZone`, with
 * that zone's offset (`2026-11-20T12:00:00+01:00`). The ERP gives no hour; noon keeps the day the
 * same in the establishment's zone whatever the offset.
 * @param {string} date `YYYY-MM-DD`
 * @param {string} timeZone an IANA zone, e.g. `Europe/Madrid`
 */
export function occurredAt(date, timeZone) {
  const name =
    new Intl.DateTimeFormat('en-GB', { timeZone, timeZoneName: 'longOffset' })
      .formatToParts(new Date(`${date}T12:00:00Z`))
      .find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
  return `${date}T12:00:00${name === 'GMT' ? 'Z' : name.slice(3)}`;
}

/** Header names understood, each with the aliases accepted (compared after `normalize`). */
const COLUMNS = /** @type {const} */ ({
  fecha: ['fecha', 'date', 'fecha_merma'],
  categoria: ['categoria', 'category', 'food_category', 'familia'],
  peso_kg: ['peso_kg', 'peso', 'kg', 'weight_kg', 'cantidad_kg'],
  destino: ['destino', 'destination', 'destino_id'],
  causa: ['causa', 'cause', 'causa_id', 'motivo'],
  producto: ['producto', 'product', 'product_name', 'articulo', 'descripcion'],
  ref: ['ref', 'referencia', 'reference', 'documento', 'id'],
  notas: ['notas', 'notes', 'observaciones'],
});
/** @typedef {keyof typeof COLUMNS} Column */
const REQUIRED = /** @type {Column[]} */ (['categoria', 'peso_kg', 'destino']);

/** Spanish (and a few English) names for the API's food categories; the codes themselves work too. */
const CATEGORY_NAMES = /** @type {Record<FoodCategory, string[]>} */ ({
  meat: ['carne', 'carnes', 'carniceria', 'charcuteria'],
  fish: ['pescado', 'pescados', 'marisco', 'mariscos', 'pescaderia'],
  fruit_veg: ['fruta', 'frutas', 'verdura', 'verduras', 'hortalizas', 'fruta y verdura', 'frutas y verduras', 'fruit veg'],
  dairy: ['lacteos', 'lacteo', 'leche', 'quesos'],
  bakery: ['panaderia', 'pan', 'bolleria', 'pasteleria', 'panaderia y bolleria'],
  prepared_meals: ['platos preparados', 'plato preparado', 'comida preparada', 'comidas preparadas', 'prepared meals'],
  cereals: ['cereales', 'cereal', 'legumbres', 'pasta', 'arroz'],
  beverages: ['bebidas', 'bebida'],
  others: ['otros', 'otro', 'varios', 'other'],
});

/**
 * Lower case, no accents, `_`/`-`/runs of spaces as one space: "Lácteos" → "lacteos".
 * @param {unknown} value
 */
export function normalize(value) {
  return String(value)
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[\s_-]+/g, ' ')
    .trim();
}

/**
 * A weight in kg as ERPs write it: `1,5` and `1.5` are 1.5; with both separators the last one is
 * the decimal mark (`1.234,5` and `1,234.5` are 1234.5); several of one kind are thousands
 * separators (`1.234.567`). A single separator is always decimal: `1,500` is 1.5. A trailing `kg`
 * is allowed. Returns NaN for anything else.
 * @param {string} raw
 */
export function parseWeight(raw) {
  const s = raw.replace(/\s+/g, '').replace(/kg$/i, '');
  if (!/^\d[\d.,]*$/.test(s) || /[.,]$/.test(s)) return Number.NaN;
  const lastComma = s.lastIndexOf(',');
  const lastDot = s.lastIndexOf('.');
  let decimal = '';
  if (lastComma >= 0 && lastDot >= 0) decimal = lastComma > lastDot ? ',' : '.';
  else if (lastComma >= 0) decimal = s.indexOf(',') === lastComma ? ',' : '';
  else if (lastDot >= 0) decimal = s.indexOf('.') === lastDot ? '.' : '';
  const thousands = decimal === ',' ? '.' : decimal === '.' ? ',' : lastComma >= 0 ? ',' : '.';
  const [int = '', frac, extra] = s.split(decimal || '\u0000');
  if (extra !== undefined) return Number.NaN;
  if (thousands && int.includes(thousands) && !/^\d{1,3}([.,]\d{3})+$/.test(int)) return Number.NaN;
  return Number(`${int.replaceAll(thousands, '')}${frac !== undefined ? `.${frac}` : ''}`);
}

/**
 * A date as `YYYY-MM-DD`, `DD/MM/YYYY`, `DD-MM-YYYY` or `DD.MM.YYYY`; returns `YYYY-MM-DD`, or
 * undefined when it is not a real calendar date.
 * @param {string} raw
 */
export function parseDate(raw) {
  const s = raw.trim();
  let m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  let [y, mo, d] = m ? [m[1], m[2], m[3]] : [];
  if (!m) {
    m = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})$/.exec(s);
    if (!m) return undefined;
    [d, mo, y] = [m[1]?.padStart(2, '0'), m[2]?.padStart(2, '0'), m[3]];
  }
  const iso = `${y}-${mo}-${d}`;
  const date = new Date(`${iso}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === iso ? iso : undefined;
}

/** @type {Map<string, FoodCategory>} */
const CATEGORY_LOOKUP = new Map(
  Object.entries(CATEGORY_NAMES).flatMap(([code, names]) =>
    [code, ...names].map((name) => [normalize(name), /** @type {FoodCategory} */ (code)]),
  ),
);

/** @param {string} raw */
export function resolveCategory(raw) {
  return CATEGORY_LOOKUP.get(normalize(raw));
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Finds a catalogue entry by id, by `code` (destinations), by its full name, or by the start of its
 * name when only one entry starts that way ("Donación" → "Donación para consumo humano").
 * Case- and accent-insensitive.
 * @param {{ id: string, nombre: string, code?: string }[]} entries
 * @returns {(raw: string) => string | undefined} the entry's id
 */
export function catalogResolver(entries) {
  const exact = new Map();
  for (const e of entries) {
    exact.set(e.id.toLowerCase(), e.id);
    exact.set(normalize(e.nombre), e.id);
    if (e.code) exact.set(normalize(e.code), e.id);
  }
  return (raw) => {
    const key = UUID.test(raw.trim()) ? raw.trim().toLowerCase() : normalize(raw);
    if (!key) return undefined;
    const found = exact.get(key);
    if (found) return found;
    const starts = entries.filter((e) => `${normalize(e.nombre)} `.startsWith(`${key} `));
    return starts.length === 1 ? starts[0]?.id : undefined;
  };
}

/**
 * Reads the CSV: one delimiter for the whole file, the header's (`;` when the header has one, else
 * tab, else `,`); values may be quoted. Returns the header's column map and the data lines with their
 * line number in the file.
 * @param {string} text
 */
export function readCsv(text) {
  const header = text.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0] ?? '';
  const delimiter = header.includes(';') ? ';' : header.includes('\t') ? '\t' : ',';
  // With `info: true` every row comes as { record, info }; info.lines is its (last) line in the file.
  const options = { delimiter, bom: true, trim: true, skip_empty_lines: true, relax_column_count: true, info: true };
  const rows = /** @type {{ record: string[], info: { lines: number } }[]} */ (/** @type {unknown} */ (parse(text, options)));
  const [first, ...data] = rows;
  if (!first) throw new Error('The file is empty (expected a header line, e.g. fecha;categoria;peso_kg;destino;causa;producto;ref)');
  /** @type {Partial<Record<Column, number>>} */
  const columns = {};
  /** @type {string[]} */
  const unknown = [];
  first.record.forEach((name, i) => {
    const n = normalize(name).replaceAll(' ', '_');
    const column = /** @type {Column | undefined} */ (
      Object.keys(COLUMNS).find((c) => /** @type {readonly string[]} */ (COLUMNS[/** @type {Column} */ (c)]).includes(n))
    );
    if (column && columns[column] === undefined) columns[column] = i;
    else unknown.push(name);
  });
  const missing = REQUIRED.filter((c) => columns[c] === undefined);
  if (missing.length) {
    throw new Error(`The header lacks the column(s) ${missing.join(', ')} (it has: ${first.record.join(', ') || 'nothing'})`);
  }
  return {
    delimiter,
    columns,
    unknownColumns: unknown,
    width: first.record.length,
    lines: data.map((r) => ({ line: r.info.lines, values: r.record })),
  };
}

/**
 * Maps one CSV line to a record, or says everything that is wrong with it.
 * @param {string[]} values
 * @param {Partial<Record<Column, number>>} columns
 * @param {{ destino: (raw: string) => string | undefined, causa: (raw: string) => string | undefined }} resolve
 * @param {string} [timeZone] the zone the ERP's dates are read in
 * @returns {{ record: CreateRecordInput, problems?: undefined } | { record?: undefined, problems: string[] }}
 */
export function toRecord(values, columns, resolve, timeZone = DEFAULT_TIMEZONE) {
  /** @param {Column} c */
  const get = (c) => {
    const i = columns[c];
    return i === undefined ? '' : (values[i] ?? '').trim();
  };
  const problems = [];
  const fecha = get('fecha') ? parseDate(get('fecha')) : null;
  if (fecha === undefined) problems.push(`fecha "${get('fecha')}" is not a date (YYYY-MM-DD or DD/MM/YYYY)`);
  const category = resolveCategory(get('categoria'));
  if (!category) problems.push(`categoria "${get('categoria')}" is not a food category`);
  const weight = parseWeight(get('peso_kg'));
  if (!(weight > 0) || weight > 1_000_000 || Math.round(weight * 1000) === 0) {
    problems.push(`peso_kg "${get('peso_kg')}" is not a weight in kg between 0.001 and 1,000,000`);
  }
  const destinoId = resolve.destino(get('destino'));
  if (!destinoId) problems.push(`destino "${get('destino')}" is unknown (see GET /api/v1/destinos)`);
  const causaId = get('causa') ? resolve.causa(get('causa')) : null;
  if (causaId === undefined) problems.push(`causa "${get('causa')}" is unknown (see GET /api/v1/causas)`);
  const product = get('producto');
  if (product.length > 200) problems.push('producto is longer than 200 characters');
  // The ERP's date is when the waste happened (occurred_at); its reference is kept in the notes.
  const notes = [get('ref') && `ref ${get('ref')}`, get('notas')].filter(Boolean).join(' · ');
  if (notes.length > 500) problems.push('ref and notas together are longer than 500 characters');
  if (problems.length || !category || !destinoId) return { problems };
  return {
    record: {
      food_category: category,
      weight_kg: weight,
      destino_id: destinoId,
      ...(causaId ? { causa_id: causaId } : {}),
      ...(product ? { product_name: product } : {}),
      ...(notes ? { notes } : {}),
      ...(fecha ? { occurred_at: occurredAt(fecha, timeZone) } : {}),
    },
  };
}

/**
 * Shows batch progress: a bar on a terminal, one plain line per chunk otherwise.
 * @param {NodeJS.WritableStream & { isTTY?: boolean }} stream
 * @param {number} total
 */
function progressReporter(stream, total) {
  if (stream.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        stream,
        format: 'uploading {bar} {percentage}% | {value}/{total} rows | inserted {inserted} | already stored {replayed} | failed {failed}',
        hideCursor: true,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(total, 0, { inserted: 0, replayed: 0, failed: 0 });
    return {
      /** @param {import('@merma/sdk').BatchProgress} p */
      update: (p) => bar.update(p.sent, { inserted: p.inserted, replayed: p.replayed, failed: p.failed }),
      stop: () => bar.stop(),
    };
  }
  return {
    /** @param {import('@merma/sdk').BatchProgress} p */
    update: (p) =>
      stream.write(`progress ${p.sent}/${p.total} rows (inserted ${p.inserted}, already stored ${p.replayed}, failed ${p.failed})\n`),
    stop: () => {},
  };
}

/**
 * Runs one import.
 * @param {object} options
 * @param {string} options.file
 * @param {Merma} options.merma
 * @param {boolean} [options.dryRun]
 * @param {string} [options.timeZone] the zone the file's dates are read in (default Europe/Madrid)
 * @param {NodeJS.WritableStream & { isTTY?: boolean }} [options.progress] where progress goes (default stderr)
 * @returns {Promise<ImportSummary>}
 */
export async function importFile({ file, merma, dryRun = false, progress = process.stderr, timeZone = DEFAULT_TIMEZONE }) {
  const bytes = await readFile(file);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const csv = readCsv(bytes.toString('utf8'));
  const [destinos, causas] = await Promise.all([merma.destinos.list(), merma.causas.list()]);
  const resolve = { destino: catalogResolver(destinos), causa: catalogResolver(causas) };

  /** @type {LineError[]} */
  const errors = [];
  /** @type {CreateRecordInput[]} */
  const records = [];
  /** @type {number[]} */
  const lineOf = [];
  for (const { line, values } of csv.lines) {
    if (values.length !== csv.width) {
      errors.push({ line, message: `expected ${csv.width} fields separated by "${csv.delimiter}", found ${values.length}` });
      continue;
    }
    const mapped = toRecord(values, csv.columns, resolve, timeZone);
    if (mapped.record) {
      records.push(mapped.record);
      lineOf.push(line);
    } else errors.push({ line, message: mapped.problems.join('; ') });
  }

  const summary = {
    file,
    sha256,
    dry_run: dryRun,
    ignored_columns: csv.unknownColumns,
    rows: csv.lines.length,
    valid: records.length,
    inserted: 0,
    replayed: 0,
    failed: errors.length,
    errors,
  };
  if (dryRun || records.length === 0) return summary;

  const bar = progressReporter(progress, records.length);
  let result;
  try {
    result = await merma.records.batch(records, {
      // Chunk n is sent as `${key}:${n}`: the same file sent again is answered from the server's
      // idempotency store (24 h) instead of being stored twice.
      idempotencyKey: `erp-csv-${sha256}`,
      onProgress: (p) => bar.update(p),
    });
  } finally {
    bar.stop();
  }
  for (const e of result.errors) {
    errors.push({ line: /** @type {number} */ (lineOf[e.index]), message: `${e.code}: ${e.error}` });
  }
  errors.sort((a, b) => a.line - b.line);
  return { ...summary, inserted: result.inserted, replayed: result.replayed, failed: errors.length, errors };
}

/**
 * @param {ImportSummary} s
 * @param {number} [maxErrors]
 */
export function formatSummary(s, maxErrors = 50) {
  const out = [
    `${path.basename(s.file)}: ${s.rows} rows, ${s.valid} valid (sha256 ${s.sha256.slice(0, 12)})`,
    ...(s.ignored_columns.length ? [`ignored columns: ${s.ignored_columns.join(', ')}`] : []),
    s.dry_run ? 'dry run: nothing was sent' : `inserted: ${s.inserted}`,
    ...(s.replayed ? [`already stored by an earlier run (not stored again): ${s.replayed}`] : []),
    `failed: ${s.failed}`,
  ];
  for (const e of s.errors.slice(0, maxErrors)) out.push(`  line ${e.line}: ${e.message}`);
  if (s.errors.length > maxErrors) out.push(`  … and ${s.errors.length - maxErrors} more`);
  return `${out.join('\n')}\n`;
}

const USAGE = `usage: node src/import.mjs <export.csv> [--dry-run] [--json] [--timezone Europe/Madrid]
  MERMA_API_KEY   the API key (required), e.g. the svc_test_ key printed by \`pnpm admin quickstart\`
  MERMA_BASE_URL  the API (default ${DEFAULT_BASE_URL})
exit status: 0 every line stored (or valid, with --dry-run), 2 some lines failed, 1 the import could not run`;

/** @param {string[]} argv */
export async function main(argv) {
  let args;
  try {
    args = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        'dry-run': { type: 'boolean' },
        json: { type: 'boolean' },
        timezone: { type: 'string', default: DEFAULT_TIMEZONE },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    process.stderr.write(`${/** @type {Error} */ (err).message}\n${USAGE}\n`);
    return 1;
  }
  const [file, ...extra] = args.positionals;
  if (args.values.help || !file || extra.length) {
    process.stderr.write(`${USAGE}\n`);
    return args.values.help ? 0 : 1;
  }
  try {
    const merma = new Merma({ apiKey: process.env.MERMA_API_KEY, baseUrl: process.env.MERMA_BASE_URL || DEFAULT_BASE_URL });
    const timeZone = String(args.values.timezone);
    try {
      new Intl.DateTimeFormat('en', { timeZone });
    } catch {
      process.stderr.write(`--timezone "${timeZone}" is not a time zone (e.g. Europe/Madrid, Atlantic/Canary)\n`);
      return 1;
    }
    const summary = await importFile({ file, merma, dryRun: Boolean(args.values['dry-run']), timeZone });
    process.stdout.write(args.values.json ? `${JSON.stringify(summary, null, 2)}\n` : formatSummary(summary));
    return summary.failed > 0 ? 2 : 0;
  } catch (err) {
    process.stderr.write(`import failed: ${/** @type {Error} */ (err).message}\n`);
    return 1;
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
