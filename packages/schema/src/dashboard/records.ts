import { z } from 'zod';
import { DateOrDateTime, FoodCategory, Uuid } from '../common.js';
import { DossierQuery, EsrsE5CsvQuery } from '../compliance.js';
import { MAX_PAGE_LIMIT } from '../constants.js';
import { KeysetCursor } from '../cursor.js';
import { CreateRecordInput, WasteRecord } from '../records.js';
import { KeyMode, ModeScope } from './common.js';

/** The records table, a record's detail, the dashboard's records and corrections, and the CSV export (`records`). */

/** The filters of the records table and of its export (dates in the establishment's time zone). */
const recordFilterShape = {
  from: DateOrDateTime.optional(),
  to: DateOrDateTime.optional(),
  food_category: FoodCategory.optional(),
  destino_id: Uuid.optional(),
  causa_id: Uuid.optional(),
  shift_id: Uuid.optional(),
  /** A registration session's records: all of them, whatever their day, unless `from`/`to` narrow them. */
  session_id: Uuid.optional(),
};
export const RecordsPageInput = ModeScope.extend({
  ...recordFilterShape,
  /**
   * Also list the records a correction replaced (marked `superseded_by`). Off by default: lists,
   * totals and analytics count the corrections only.
   */
  include_superseded: z.boolean().optional(),
  limit: z.number().int().min(1).max(MAX_PAGE_LIMIT).default(50),
  /** The `next_cursor` of the page before. */
  cursor: KeysetCursor.optional(),
});
export type RecordsPageInput = z.input<typeof RecordsPageInput>;
/** A row of the records table: the record and the correction that replaced it, if one did. */
export const RecordsPageRow = WasteRecord.extend({ superseded_by: Uuid.nullable() });
export type RecordsPageRow = z.infer<typeof RecordsPageRow>;
export const RecordsPage = z.object({
  data: z.array(RecordsPageRow),
  next_cursor: z.string().nullable(),
  /** How many records the filters match; on the first page only (null on later ones). */
  total: z.number().int().nullable(),
  /** The kg of every record the filters match (not of this page only); on the first page only. */
  total_kg: z.number().nullable(),
});
export type RecordsPage = z.infer<typeof RecordsPage>;

/**
 * The dashboard's "add a record": the body of `POST /api/v1/records` (the same shape and checks) in
 * the establishment and mode the dashboard shows.
 */
export const DashboardCreateRecordInput = CreateRecordInput.extend(ModeScope.shape);
export type DashboardCreateRecordInput = z.input<typeof DashboardCreateRecordInput>;

/**
 * A correction from the dashboard, as the inbound `waste.updated` makes one: the fields that change
 * (the record's own shape, every field optional; at least one), appended to the chain as a new record
 * that supersedes `record_id`.
 */
export const DashboardCorrectRecordInput = CreateRecordInput.partial()
  .extend({ ...ModeScope.shape, record_id: Uuid })
  .refine((p) => Object.keys(p).some((k) => !['establishment_id', 'livemode', 'record_id'].includes(k)), {
    message: 'name at least one field to change',
    path: ['record_id'],
  });
export type DashboardCorrectRecordInput = z.input<typeof DashboardCorrectRecordInput>;

export const RecordIdInput = ModeScope.extend({ id: Uuid });
/** A record and its place in the establishment's hash chain. */
export const RecordDetail = z.object({
  record: WasteRecord,
  chain_seq: z.number().int(),
  /** The hash this record's hash links to (the previous record's, or the genesis hash). */
  prev_hash: z.string(),
  /** Records in the chain now. */
  chain_length: z.number().int(),
  /** The correction that replaced it, when one did. */
  superseded_by: Uuid.nullable(),
});
export type RecordDetail = z.infer<typeof RecordDetail>;

/**
 * The two CSV forms of the export: `es` opens as columns in a spreadsheet set to Spanish (`;`
 * between fields, decimal comma, UTF-8 BOM); `plain` is RFC 4180 with a decimal point, for programs.
 */
export const CSV_DIALECTS = ['es', 'plain'] as const;
export const CsvDialect = z.enum(CSV_DIALECTS);
export type CsvDialect = z.infer<typeof CsvDialect>;

/** `GET /export/records.csv`: the records table's filters, as a query string. */
export const RecordsExportQuery = z.strictObject({
  establishment_id: Uuid,
  mode: KeyMode,
  dialect: CsvDialect.default('es'),
  ...recordFilterShape,
});
export type RecordsExportQuery = z.input<typeof RecordsExportQuery>;

/** `GET /dashboard/export/dossier.zip`: the inspection dossier of an establishment in a mode, as the API's `DossierQuery`. */
export const DossierExportQuery = z.strictObject({
  establishment_id: Uuid,
  mode: KeyMode,
  ...DossierQuery.shape,
});
export type DossierExportQuery = z.input<typeof DossierExportQuery>;

/** `GET /dashboard/export/esrs-e5.csv`: a year's ESRS E5-5 figures of an establishment in a mode, as the API's. */
export const EsrsE5ExportQuery = z.strictObject({
  establishment_id: Uuid,
  mode: KeyMode,
  ...EsrsE5CsvQuery.shape,
});
export type EsrsE5ExportQuery = z.input<typeof EsrsE5ExportQuery>;
