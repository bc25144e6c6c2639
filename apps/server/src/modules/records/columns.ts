import { type CreateRecordParsed, ESTIMATED_BY_METHOD, type MeasurementMethodCode } from '@merma/schema';

/**
 * The record's own fields — what a client sends in `CreateRecordInput`, one column each — described
 * once. Every hand-written SQL statement and file that names them is produced from this list: the
 * columns read (`RECORD_COLUMNS_TEXT`, rows.ts), the INSERT of a single record and of a batch with
 * its `json_to_recordset` types (service.ts), the original a correction copies (correct.ts), the
 * answer's fields (`toRecord`, and the fields that are hashed), and the CSV export's columns and
 * Spanish headers (export.ts). `occurred_at` is not here: it is a field of every record, with rules
 * of its own (the accepted window, the local day), written next to `created_at`.
 *
 * The order is the CSV export's, which customers' spreadsheets read by position: add a field at the
 * end. `type` is the column's SQL type, which each value is cast to and read back from; `es` is
 * the field's header in the Spanish export. docs/new-record-field.md lists the other places a new
 * field goes (the migration, the Prisma model, the contract's schemas and the hash).
 */
export const RECORD_FIELDS = [
  { name: 'food_category', type: 'text', es: 'Categoría' },
  { name: 'weight_kg', type: 'numeric', es: 'Peso (kg)' },
  { name: 'destino_id', type: 'uuid', es: 'ID destino' },
  { name: 'causa_id', type: 'uuid', es: 'ID causa' },
  { name: 'waste_stage', type: 'text', es: 'Etapa' },
  { name: 'shift_id', type: 'uuid', es: 'ID turno' },
  { name: 'session_id', type: 'uuid', es: 'ID sesión de registro' },
  { name: 'product_name', type: 'text', es: 'Producto' },
  { name: 'notes', type: 'text', es: 'Notas' },
  { name: 'photo_url', type: 'text', es: 'URL de la foto' },
  { name: 'product_id', type: 'uuid', es: 'ID producto' },
  { name: 'measurement_method', type: 'text', es: 'Método de medición' },
  { name: 'scale_id', type: 'text', es: 'ID báscula' },
  { name: 'estimated', type: 'boolean', es: 'Estimado' },
  { name: 'edible', type: 'text', es: 'Comestible' },
  { name: 'tare_kg', type: 'numeric', es: 'Tara (kg)' },
  { name: 'hierarchy_reason', type: 'text', es: 'Motivo de la jerarquía' },
  { name: 'hierarchy_note', type: 'text', es: 'Justificación' },
  { name: 'transfer_document_ref', type: 'text', es: 'Documento de traslado' },
] as const satisfies readonly { name: keyof CreateRecordParsed; type: 'text' | 'uuid' | 'numeric' | 'boolean'; es: string }[];

export type RecordField = (typeof RECORD_FIELDS)[number];
export type RecordFieldName = RecordField['name'];
export const RECORD_FIELD_NAMES: readonly RecordFieldName[] = RECORD_FIELDS.map((f) => f.name);

/** The fields' columns as the service reads them: uuids as text, the weight as a JS number. */
export const RECORD_FIELD_COLUMNS_SQL = RECORD_FIELDS.map(({ name, type }) =>
  type === 'uuid' ? `${name}::text` : type === 'numeric' ? `${name}::float8 AS ${name}` : name,
).join(', ');

/** The fields' column names, in order, for an INSERT's column list. */
export const RECORD_FIELD_NAMES_SQL = RECORD_FIELD_NAMES.join(', ');

/** `json_to_recordset`'s column definitions of the fields (`food_category text, weight_kg numeric, …`). */
export const RECORD_FIELD_TYPES_SQL = RECORD_FIELDS.map(({ name, type }) => `${name} ${type}`).join(', ');

/**
 * The fields of `source` (a parsed input or a stored row), an absent one as null. A value is what
 * its column holds; `sqlValue` turns the weight into the text its `numeric` cast reads exactly.
 * Written out field by field, not looped over RECORD_FIELDS: every record written or read builds
 * one (500 for a batch, 50 for a page), and an object made by one literal is V8's cheapest to make
 * and read. `satisfies` holds the literal to the list: a field added to RECORD_FIELDS and not here
 * does not compile.
 */
export function recordFieldsOf(source: Partial<Record<RecordFieldName, unknown>>): Record<RecordFieldName, unknown> {
  const fields = {
    food_category: source.food_category ?? null,
    weight_kg: source.weight_kg ?? null,
    destino_id: source.destino_id ?? null,
    causa_id: source.causa_id ?? null,
    waste_stage: source.waste_stage ?? null,
    shift_id: source.shift_id ?? null,
    session_id: source.session_id ?? null,
    product_name: source.product_name ?? null,
    notes: source.notes ?? null,
    photo_url: source.photo_url ?? null,
    product_id: source.product_id ?? null,
    measurement_method: source.measurement_method ?? null,
    scale_id: source.scale_id ?? null,
    estimated: source.estimated ?? null,
    edible: source.edible ?? null,
    tare_kg: source.tare_kg ?? null,
    hierarchy_reason: source.hierarchy_reason ?? null,
    hierarchy_note: source.hierarchy_note ?? null,
    transfer_document_ref: source.transfer_document_ref ?? null,
  } satisfies Record<RecordFieldName, unknown>;
  // Not said whether it is an estimate: the method says (a stored row already holds it).
  if (fields.estimated === null && fields.measurement_method !== null) {
    fields.estimated = ESTIMATED_BY_METHOD[fields.measurement_method as MeasurementMethodCode];
  }
  return fields;
}

/** A field's value as a query parameter: the weight as its decimal text (a parameter keeps one type). */
export const sqlValue = (field: RecordField, value: unknown): unknown =>
  field.type === 'numeric' && value !== null ? String(value) : value;
