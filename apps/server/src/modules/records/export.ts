import { Readable } from 'node:stream';
import type { WasteRecord } from '@merma/schema';
import type { CsvDialect } from '@merma/schema/dashboard';
import { stringify } from 'csv-stringify';
import type { Clock, Tenant } from '../../context.js';
import type { Db } from '../../db/client.js';
import type { Sql } from '../../db/sql.js';
import type { CatalogCache } from '../catalog/service.js';
import { listShifts } from '../shifts/service.js';
import { streamRecords } from './browse.js';
import type { RecordFilter } from './filter.js';

/**
 * The records table as CSV, streamed: rows are read a chunk at a time (browse.ts) and written as
 * they come, so an export of years of records never sits in memory. Two forms:
 *
 * - `es`: what a spreadsheet set to Spanish opens as columns — `;` between fields, a decimal comma,
 *   and a UTF-8 byte order mark so accents show right;
 * - `plain`: RFC 4180 (`,`, decimal point, no BOM), for programs.
 *
 * Columns are the API's record fields under the API's names (so a file's row equals the API's
 * record), plus the names of the destination, cause and shift, and `local_time`, when the waste
 * happened in the establishment's zone as a spreadsheet reads a date-time. Text a person typed that starts like a
 * formula (`=`, `+`, `-`, `@`, tab, CR) is prefixed with `'`, so opening the file never runs it.
 */
export const CSV_COLUMNS = [
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
] as const;

const FORMULA = /^[=+\-@\t\r]/;
const safeText = (value: string | null | undefined) => (value == null ? '' : FORMULA.test(value) ? `'${value}` : value);

export async function exportRecordsCsv(
  deps: { db: Db; pool: Sql; clock: Clock; catalog: CatalogCache },
  tenant: Tenant,
  filter: RecordFilter,
  dialect: CsvDialect,
): Promise<Readable> {
  const [{ causeById, destinationById }, shifts] = await Promise.all([deps.catalog.get(deps.db), listShifts(deps.db, tenant)]);
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
  const row = (r: WasteRecord) => [
    r.id,
    r.occurred_at,
    localTime.format(new Date(r.occurred_at)),
    r.created_at,
    r.food_category,
    kg(r.weight_kg),
    r.destino_id,
    safeText(destinationById.get(r.destino_id)?.nombre),
    r.causa_id ?? '',
    safeText(r.causa_id ? causeById.get(r.causa_id)?.nombre : null),
    r.waste_stage ?? '',
    r.shift_id ?? '',
    safeText(r.shift_id ? shiftNames.get(r.shift_id) : null),
    r.session_id ?? '',
    safeText(r.product_name),
    safeText(r.notes),
    safeText(r.photo_url),
    r.source,
    r.supersedes_id ?? '',
    r.record_hash,
  ];
  const rows = Readable.from(
    (async function* () {
      for await (const chunk of streamRecords(deps, tenant, filter)) for (const r of chunk) yield row(r);
    })(),
  );
  const csv = stringify({ delimiter: es ? ';' : ',', bom: es, header: true, columns: [...CSV_COLUMNS], record_delimiter: 'windows' });
  rows.on('error', (err) => csv.destroy(err));
  return rows.pipe(csv);
}
