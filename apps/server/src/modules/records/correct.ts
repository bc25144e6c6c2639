import { CreateRecordInput, type ErrorDetail, type WasteRecord } from '@merma/schema';
import { isoSql } from '../../calendar.js';
import type { Clock, Tenant } from '../../context.js';
import type { DbTx } from '../../db/client.js';
import { AppError, issueDetails, renamedValidationError, validationError } from '../../errors.js';
import { Prisma } from '../../generated/prisma/client.ts';
import type { CatalogCache } from '../catalog/service.js';
import { RECORD_FIELD_COLUMNS_SQL, type RecordFieldName } from './columns.js';
import type { HashedFields } from './hash.js';
import { supersede } from './rollup.js';
import { createRecord, occurredAtProblem } from './service.js';

/** The corrected record's columns that a correction copies (the hashed fields it keeps). */
type OriginalRow = Pick<HashedFields, 'id' | RecordFieldName | 'occurred_at'> & { superseded_by: string | null };

/** The fields a correction may change: any of a record's own (`CreateRecordInput`), unparsed. */
export type RecordChanges = Partial<Record<keyof CreateRecordInput, unknown>>;

/**
 * Corrects a record without rewriting it — the inbound `waste.updated` and the dashboard's
 * "correct" both come here. The corrected version is appended to the chain as a new record (the
 * original's fields with `changes` over them, `supersedes_id` = the original, inside its hash, with
 * the `record.updated` event), the original is marked `superseded_by` so lists and totals count the
 * correction only, and the chain stays intact (GET /records/verify walks both). A record already
 * corrected is a 409 naming its correction; a new date must be within the accepted window (the
 * original's date is kept however old). Runs on the caller's transaction, which holds the
 * original's row lock until it ends, so two corrections of one record cannot both land.
 *
 * With `voids`, the correction keeps every field of the original and *voids* it (the kitchen
 * station's undo, docs/decisions/0007): the new record carries `voided: true` in its hash, and
 * neither it nor the original counts in lists, totals, the forecast or the plan; the register
 * (`include_superseded`) shows both.
 *
 * `options.name` turns the details' paths (the record's fields: `weight_kg`) into where the
 * caller's request has them (`payload.weight_kg` for an inbound event); `options.invalid` is the
 * message of an invalid corrected record (by default, its details).
 */
export async function correctRecord(
  deps: { tx: DbTx; clock: Clock; catalog: CatalogCache },
  tenant: Tenant,
  correction: { record_id: string; changes: RecordChanges; source: string; voids?: boolean },
  options: { name?: (details: ErrorDetail[]) => ErrorDetail[]; invalid?: string } = {},
): Promise<WasteRecord> {
  const name = options.name ?? ((d: ErrorDetail[]) => d);
  const { tx } = deps;
  const { record_id } = correction;
  const [original] = await tx.$queryRaw<OriginalRow[]>`
    SELECT id::text, ${Prisma.raw(RECORD_FIELD_COLUMNS_SQL)}, superseded_by::text,
      ${Prisma.raw(isoSql('occurred_at'))} AS occurred_at
    FROM records
    WHERE id = ${record_id}::uuid AND establishment_id = ${tenant.establishmentId}::uuid AND livemode = ${tenant.livemode}
    FOR UPDATE`;
  if (!original) throw new AppError('not_found', `No record ${record_id} in this establishment`);
  if (original.superseded_by) {
    throw new AppError('conflict', `Record ${record_id} was already corrected by ${original.superseded_by}; correct that record instead`);
  }
  const { id: _id, superseded_by: _by, ...kept } = original;
  const changes = Object.fromEntries(Object.entries(correction.changes).filter(([, v]) => v !== undefined));
  // A new method brings its own answer to "estimated?" unless the correction says; a scale named
  // for the original's weighing does not carry over to another method.
  if ('measurement_method' in changes) {
    if (!('estimated' in changes)) kept.estimated = null;
    if (!('scale_id' in changes) && changes.measurement_method !== 'direct_weighing') kept.scale_id = null;
  }
  // A correction keeps the original's date, however old; a new date must be within the window.
  if (typeof changes.occurred_at === 'string' && new Date(changes.occurred_at).getTime() !== new Date(original.occurred_at).getTime()) {
    const problem = occurredAtProblem(changes.occurred_at, deps.clock());
    if (problem) {
      const [named] = name([problem]) as [ErrorDetail];
      throw validationError(`${named.path}: ${named.message}`, [named]);
    }
  }
  const parsed = CreateRecordInput.safeParse({ ...kept, ...changes });
  if (!parsed.success) {
    const details = name(issueDetails(parsed.error));
    throw validationError(options.invalid ?? details.map((d) => `${d.path}: ${d.message}`).join('; '), details);
  }
  // Its references (shift, session, destination, cause) are checked there, and named as the caller has them.
  const created = await createRecord(
    { db: tx, clock: deps.clock, catalog: deps.catalog },
    tenant,
    parsed.data,
    correction.source,
    original.id,
    correction.voids === true,
  ).catch((err: unknown) => {
    throw renamedValidationError(err, name);
  });
  await supersede(tx, tenant, original.id, created.id);
  // A voiding correction takes itself out too: nothing replaces it, so it is its own end
  // (`superseded_by` = its own id), and every "counts" filter (`superseded_by IS NULL`) leaves both out.
  if (correction.voids) await supersede(tx, tenant, created.id, created.id);
  return created;
}
