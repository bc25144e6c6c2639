import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import {
  CreateRecordInput,
  type ErrorDetail,
  type InboundEventResult,
  InventoryLossPayload,
  isVolumeUnit,
  needsDensity,
  type SalesSummary,
  WasteCreatedPayload,
  WasteUpdatedPayload,
} from '@merma/schema';
import { DATE_ONLY, localNoon } from '../../calendar.js';
import type { AuthContext, Clock } from '../../context.js';
import type { DbTx } from '../../db/client.js';
import { findText, NUL_CHARACTER } from '../../db/text.js';
import { inTransaction } from '../../db/transaction.js';
import { AppError, issueDetails, renamedValidationError, validationError } from '../../errors.js';
import type { CatalogCache } from '../catalog/service.js';
import { correctRecord } from '../records/correct.js';
import { createRecord } from '../records/service.js';
import { storeReturns } from '../sales/returns.js';
import { salesOfPayload, storeSales } from '../sales/service.js';
import { type Connector, lossKilograms, type Mapped, type StandardWasteUpdated, standardConnector } from './connectors/index.js';

/** Disposal: where an inventory loss goes when the POS does not say. */
const DEFAULT_LOSS_DESTINATION = 'landfill';

/**
 * Events from ERP and POS systems. `waste.created` and `inventory.loss` become records (source
 * `inbound:<source>`), with the record's `record.created` semantics. `waste.updated` corrects a
 * record without rewriting it: the corrected version is appended to the chain as a new record
 * (the original's fields with the changes, `supersedes_id` = the original, inside its hash), the
 * original is marked `superseded_by` so lists and totals count the correction only, and
 * `record.updated` carries the new version (its `id` is the correction's; `record_id` of the
 * answer too). A record already corrected answers 409 naming its correction. A resend is recognised by
 * `payload.external_id` + `source`, or else by the request's Idempotency-Key, and answered
 * `duplicate` without a second record. Everything happens in one transaction: a refused event
 * writes nothing.
 */
export async function receiveInboundEvent(
  deps: { db: DbTx; clock: Clock; catalog: CatalogCache; idempotencyKey?: string | undefined },
  auth: AuthContext,
  /** `connector`: the payload's format (the standard one when absent), resolved by the caller (connectors/index.ts). */
  input: { event: string; payload: Record<string, unknown>; connector?: Connector | undefined },
): Promise<InboundEventResult> {
  // The payload is stored as jsonb, which holds no NUL character.
  const nul = findText(input.payload, NUL_CHARACTER);
  if (nul !== undefined) {
    throw validationError('The payload may not contain NUL characters', [{ path: `payload.${nul}`, message: 'NUL character' }]);
  }
  const connector = input.connector ?? standardConnector;
  const mapped = connector.toStandard(input.event, input.payload);
  if (input.event === 'sales.recorded') return receiveSales(deps, auth, input, mapped);
  const standard = mapped.payload;
  // A problem with a standard field is reported where the system's payload has it.
  const at = (field: string) => `payload.${mapped.fields?.[field] ?? field}`;
  const named = (details: ErrorDetail[]) =>
    details.map((d) => {
      const [, field = '', ...rest] = d.path.split('.');
      return d.path.startsWith('payload.') ? { ...d, path: [at(field), ...rest].join('.') } : d;
    });
  // The record's own problems (`shift_id`: its references, checked when it is stored), as the payload has them.
  const inPayload = (details: ErrorDetail[]) => named(details.map((d) => ({ ...d, path: `payload.${d.path}` })));

  let source: string;
  let externalId: string | undefined;
  let record: CreateRecordInput | undefined;
  let correction: StandardWasteUpdated | undefined;
  if (input.event === 'waste.created') {
    const parsed = WasteCreatedPayload.safeParse(standard);
    if (!parsed.success) throw validationError('Invalid waste.created payload', issueDetails(parsed.error, 'payload'));
    const { source: s, external_id, ...fields } = parsed.data;
    source = s;
    externalId = external_id;
    record = fields as CreateRecordInput;
  } else if (input.event === 'inventory.loss') {
    const parsed = InventoryLossPayload.safeParse(standard);
    if (!parsed.success) throw validationError('Invalid inventory.loss payload', named(issueDetails(parsed.error, 'payload')));
    const loss = parsed.data;
    source = loss.source;
    externalId = loss.external_id;
    const by = loss.product_id ? { id: loss.product_id } : loss.ean ? { ean: loss.ean } : { pos_ref: loss.product_ref as string };
    const product = await deps.db.product.findFirst({ where: { organization_id: auth.organizationId, ...by } });
    const field = loss.product_id ? 'product_id' : loss.ean ? 'ean' : 'product_ref';
    if (!product) throw validationError('Unknown product', [{ path: at(field), message: 'no product of this organisation' }]);
    const kg = lossKilograms(loss, {
      unitWeightKg: product.unit_weight_kg === null ? null : Number(product.unit_weight_kg),
      densityKgPerL: product.density_kg_per_l === null ? null : Number(product.density_kg_per_l),
    });
    if (kg === null && isVolumeUnit(loss.unit)) {
      throw validationError('The product has no density', [{ path: at('unit'), message: needsDensity(product.name) }]);
    }
    if (kg === null) {
      throw validationError('The product has no unit weight', [
        { path: at('unit'), message: `a loss in units needs the unit_weight_kg of product ${product.name}` },
      ]);
    }
    const catalog = await deps.catalog.get(deps.db);
    const fallback = catalog.destinations.find((d) => d.code === DEFAULT_LOSS_DESTINATION);
    record = {
      food_category: product.food_category as CreateRecordInput['food_category'],
      weight_kg: kg,
      destino_id: loss.destino_id ?? (fallback?.id as string),
      causa_id: loss.causa_id ?? null,
      product_name: product.name,
      notes: loss.reason ?? null,
      // A loss booked in a POS or an ERP (Square's and Odoo's connectors send theirs as this event):
      // a write-off, its weight from the quantity booked (counted, not estimated).
      measurement_method: 'write_off',
      // A date alone is that day's noon in the establishment's zone: the right day whatever the zone.
      occurred_at: loss.occurred_at
        ? DATE_ONLY.test(loss.occurred_at)
          ? localNoon(loss.occurred_at, auth.timezone)
          : loss.occurred_at
        : null,
    };
  } else {
    const parsed = WasteUpdatedPayload.safeParse(standard);
    if (!parsed.success) throw validationError('Invalid waste.updated payload', issueDetails(parsed.error, 'payload'));
    correction = parsed.data;
    source = correction.source;
    externalId = correction.external_id;
    record = undefined;
  }

  const externalRef = externalId ?? (deps.idempotencyKey ? `idempotency-key:${deps.idempotencyKey}` : null);
  return inTransaction(deps.db, async (tx) => {
    if (externalRef) {
      const seen = await receivedEvent(tx, auth, source, externalRef);
      if (seen) return { event_id: seen.id, status: 'duplicate' as const, record_id: seen.record_id };
    }
    let created: { id: string };
    if (correction) {
      const { source: _s, external_id: _e, record_id, ...changes } = correction;
      created = await correctRecord(
        { tx, clock: deps.clock, catalog: deps.catalog },
        auth,
        { record_id, changes, source: `inbound:${source}` },
        { name: inPayload, invalid: 'Invalid record in the event' },
      );
    } else {
      const parsedRecord = CreateRecordInput.safeParse(record);
      if (!parsedRecord.success) throw validationError('Invalid record in the event', named(issueDetails(parsedRecord.error, 'payload')));
      created = await createRecord(
        { db: tx, clock: deps.clock, catalog: deps.catalog },
        auth,
        parsedRecord.data,
        `inbound:${source}`,
      ).catch((err: unknown) => {
        throw renamedValidationError(err, inPayload);
      });
    }
    const id = randomUUID();
    await logEvent(tx, { id, auth, event: input.event, source, externalRef, recordId: created.id, payload: input.payload });
    return { event_id: id, status: 'processed' as const, record_id: created.id };
  });
}

/**
 * `sales.recorded`: sale lines for the demand forecast, stored apart from waste records (see
 * sales/service.ts). Lines are deduplicated by their own `external_id`; a request replayed under
 * the same Idempotency-Key answers `duplicate` (every line counted as one) without reading its
 * lines again, and the same key with another payload is a 409. `status` is `duplicate` when nothing
 * new was stored because every valid line had been received before. A connector's payload with no
 * sale in it (a page of open orders, a day without sales) is received with nothing to store; one
 * the connector cannot read was refused by it. A connector's lines are not held to the standard
 * batch's limit (a SearchOrders page may carry more): all are stored in the one transaction.
 */
async function receiveSales(
  deps: { db: DbTx; clock: Clock; idempotencyKey?: string | undefined },
  auth: AuthContext,
  input: { event: string; payload: Record<string, unknown> },
  mapped: Mapped,
): Promise<InboundEventResult> {
  const { origins } = mapped;
  const empty = origins !== undefined && origins.length === 0;
  const { source, lines, batch } = origins
    ? { source: String(mapped.payload.source), lines: mapped.payload.sales as unknown[], batch: true }
    : salesOfPayload(mapped.payload);
  const externalRef = deps.idempotencyKey ? `idempotency-key:${deps.idempotencyKey}` : null;
  return inTransaction(deps.db, async (tx) => {
    if (externalRef) {
      const seen = await receivedEvent(tx, auth, source, externalRef);
      if (seen) {
        // Compared as JSON values (jsonb keeps no key order).
        if (!isDeepStrictEqual(JSON.parse(JSON.stringify(seen.payload)), JSON.parse(JSON.stringify(input.payload)))) {
          throw new AppError(
            'conflict',
            'This Idempotency-Key was already used with different sales; use a new key for a new request',
            undefined,
            { shouldRetry: false },
          );
        }
        const sales = { received: lines.length, stored: 0, duplicates: lines.length, errors: [] };
        return { event_id: seen.id, status: 'duplicate' as const, record_id: null, sales };
      }
    }
    const id = randomUUID();
    const sales: SalesSummary = empty
      ? { received: 0, stored: 0, duplicates: 0, errors: [] }
      : await storeSales(tx, auth, { source, lines, batch, now: deps.clock(), eventId: id, origins });
    // Returns and refunds: negative lines against the sale they return (sales/returns.ts), counted after the lines.
    const returns = mapped.returns ?? [];
    if (returns.length > 0) {
      const r = await storeReturns(tx, auth, { source, returns, now: deps.clock(), eventId: id, firstIndex: lines.length });
      sales.received += returns.length;
      sales.stored += r.stored;
      sales.duplicates += r.duplicates;
      sales.errors = [...sales.errors, ...r.errors];
    }
    await logEvent(tx, { id, auth, event: input.event, source, externalRef, recordId: null, payload: input.payload });
    const status = sales.stored === 0 && sales.duplicates > 0 ? ('duplicate' as const) : ('processed' as const);
    return { event_id: id, status, record_id: null, sales };
  });
}

/** The event this source sent before under `externalRef`, if any (within the dedupe window: retention purges older ones). */
function receivedEvent(tx: DbTx, auth: AuthContext, source: string, externalRef: string) {
  return tx.inboundEvent.findUnique({
    where: {
      establishment_id_livemode_source_external_ref: {
        establishment_id: auth.establishmentId,
        livemode: auth.livemode,
        source,
        external_ref: externalRef,
      },
    },
  });
}

/** The inbound event log (and dedupe) row; the same event arriving twice at once: 409 to retry. */
async function logEvent(
  tx: DbTx,
  e: { id: string; auth: AuthContext; event: string; source: string; externalRef: string | null; recordId: string | null; payload: object },
): Promise<void> {
  try {
    await tx.inboundEvent.create({
      data: {
        id: e.id,
        establishment_id: e.auth.establishmentId,
        livemode: e.auth.livemode,
        event: e.event,
        source: e.source,
        external_ref: e.externalRef,
        record_id: e.recordId,
        payload: e.payload,
      },
    });
  } catch (err) {
    // The second insert hits the unique key and rolls the transaction back.
    if ((err as { code?: string }).code !== 'P2002') throw err;
    throw new AppError('conflict', 'This event is being processed; retry to receive its result', undefined, { shouldRetry: true });
  }
}
