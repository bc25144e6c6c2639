import { randomUUID } from 'node:crypto';
import type { BatchItemError, ErrorDetail } from '@merma/schema';
import type { IntegrationKind, MapRefusedLineInput, MapRefusedLineResult, RefusedLine } from '@merma/schema/dashboard';
import type { AuthContext, DataScope, Tenant } from '../../context.js';
import type { DbTx } from '../../db/client.js';
import { AppError, validationError } from '../../errors.js';
import { emitEvent } from '../../events/outbox.js';
import type { Prisma } from '../../generated/prisma/client.ts';
import type { Connector } from '../inbound/connectors/standard.js';
import { storeSales } from '../sales/service.js';
import { integrationCaller } from '../tenancy/callers.js';
import { VENDORS } from './vendors/index.js';

/**
 * Lines an integration received and could not store — a Square item or an Odoo product that no
 * product's `pos_ref` names (a new menu item), a custom-amount line, an order without its state, a
 * unit Merma cannot weigh — are kept, one row per vendor line (`integration_refused_lines`, by
 * `line_ref`, so a job run again keeps nothing twice), with the vendor's order, line and item ids
 * and the reason. The Integrations page counts and lists them; "map this item to a product" sets
 * the product's `pos_ref` to the vendor's item id and stores every kept line of that item (a
 * custom amount, which has no item id, is stored alone as the product chosen). Each read of the
 * vendor that refuses new lines writes one `integration.lines_refused` event on the same
 * transaction, so a subscribed endpoint hears of them at once.
 */

/** What `storeSales` refuses because no product is named or found: mapping the item fixes it. */
const PRODUCT_PROBLEMS = new Set(['no product of this organisation', 'product_id, ean or product_ref is required']);
const EVENT_LINES = 50;

type Found = { row: { id: string; kind: string }; auth: AuthContext };
/** A line's ids in the vendor's own records (each vendor reads them: vendors/<kind>/refused.ts). */
export type RefusedLineIds = { order_ref: string | null; line_ref: string; item_ref: string | null; item_name: string | null };
export type KeptLine = RefusedLineIds & { reason: string; mappable: boolean; line: Record<string, unknown> | null };
type Kept = KeptLine;

export const obj = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
export const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : null);
/** The value at a dotted path (`orders.0.line_items.1`) of a payload. */
export const at = (payload: unknown, path: string) =>
  path ? path.split('.').reduce<unknown>((v, k) => obj(v)[k] ?? (Array.isArray(v) ? v[Number(k)] : undefined), payload) : payload;

const describe = (details: ErrorDetail[]) => details.map((d) => `${d.path.replace(/^payload\./, '')}: ${d.message}`).join('; ');

/**
 * The lines of a `sales.recorded` payload the connector or `storeSales` refused: `outcome` is the
 * answer's `errors` (by line index), or the validation error thrown when nothing was stored.
 */
export function refusedSalesOf(
  source: IntegrationKind,
  payload: Record<string, unknown>,
  outcome: { errors: BatchItemError[] } | { error: AppError },
  fallbackRef: string,
): Kept[] {
  const vendor = VENDORS[source];
  let mapped: ReturnType<Connector['toStandard']>;
  try {
    mapped = vendor.connector.toStandard('sales.recorded', payload);
  } catch (err) {
    // Refused whole by the connector: the vendor says what is kept (vendors/<kind>/refused.ts).
    const reason = err instanceof AppError ? `${err.message}${err.details?.length ? ` (${describe(err.details)})` : ''}` : String(err);
    return vendor.refusedLines.wholePayload(payload, reason, fallbackRef);
  }
  const lines = (mapped.payload.sales ?? []) as Record<string, unknown>[];
  const origins = mapped.origins ?? lines.map(() => ({ path: '', fields: {} }));
  // By line: the answer's errors, or the thrown error's details, each given to the line whose path it is under.
  const byLine = new Map<number, ErrorDetail[]>();
  if ('errors' in outcome) for (const e of outcome.errors) byLine.set(e.index, e.details ?? []);
  else {
    for (const d of outcome.error.details ?? []) {
      const index = origins.findIndex((o) => {
        const prefix = o.path ? `payload.${o.path}` : 'payload';
        return d.path === prefix || d.path.startsWith(`${prefix}.`);
      });
      if (index >= 0) byLine.set(index, [...(byLine.get(index) ?? []), d]);
    }
  }
  return [...byLine].map(([index, details]) => {
    const line = lines[index] ?? {};
    const ids = vendor.refusedLines.idsOf(payload, origins[index]?.path ?? '', line, fallbackRef);
    return {
      ...ids,
      reason: describe(details) || 'not stored',
      mappable: details.length > 0 && details.every((d) => PRODUCT_PROBLEMS.has(d.message)),
      line,
    };
  });
}

/**
 * Keeps the refused lines (those kept before are left as they are) and, when some are new, writes
 * the `integration.lines_refused` event. Returns how many are new.
 */
export async function keepRefusedLines(tx: DbTx, found: Found, kept: Kept[], now: Date): Promise<number> {
  if (kept.length === 0) return 0;
  const { row, auth } = found;
  const created = await tx.integrationRefusedLine.createManyAndReturn({
    data: kept.map((k) => ({
      id: randomUUID(),
      integration_id: row.id,
      establishment_id: auth.establishmentId,
      livemode: auth.livemode,
      source: row.kind,
      order_ref: k.order_ref,
      line_ref: k.line_ref.slice(0, 500),
      item_ref: k.item_ref,
      item_name: k.item_name?.slice(0, 300) ?? null,
      reason: k.reason.slice(0, 1000),
      mappable: k.mappable,
      line: (k.line ?? undefined) as Prisma.InputJsonValue | undefined,
      created_at: now,
    })),
    skipDuplicates: true,
  });
  if (created.length === 0) return 0;
  const open = await tx.integrationRefusedLine.count({ where: { integration_id: row.id, resolved_at: null } });
  await emitEvent(tx, {
    establishmentId: auth.establishmentId,
    livemode: auth.livemode,
    type: 'integration.lines_refused',
    at: now,
    data: {
      establishment_id: auth.establishmentId,
      integration_id: row.id,
      kind: row.kind as IntegrationKind,
      refused: created.length,
      open_refused: open,
      lines: created.slice(0, EVENT_LINES).map((l) => ({
        id: l.id,
        order_ref: l.order_ref,
        line_ref: l.line_ref,
        item_ref: l.item_ref,
        item_name: l.item_name,
        reason: l.reason,
        mappable: l.mappable,
      })),
    },
  });
  return created.length;
}

/** Unresolved kept lines by integration, for the cards. */
export async function openRefusedCounts(db: DbTx, ids: string[]): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const rows = await db.integrationRefusedLine.groupBy({
    by: ['integration_id'],
    where: { integration_id: { in: ids }, resolved_at: null },
    _count: { _all: true },
  });
  return new Map(rows.map((r) => [r.integration_id, r._count._all]));
}

type LineRow = Awaited<ReturnType<DbTx['integrationRefusedLine']['findMany']>>[number];

function toRefusedLine(l: LineRow): RefusedLine {
  const line = obj(l.line);
  const quantity = typeof line.quantity === 'number' ? line.quantity : null;
  return {
    id: l.id,
    order_ref: l.order_ref,
    line_ref: l.line_ref,
    item_ref: l.item_ref,
    item_name: l.item_name,
    reason: l.reason,
    mappable: l.mappable,
    quantity,
    unit: quantity === null ? null : line.unit === 'kg' ? 'kg' : 'unit',
    sold_at: typeof line.sold_at === 'string' && !Number.isNaN(Date.parse(line.sold_at)) ? new Date(line.sold_at).toISOString() : null,
    created_at: l.created_at.toISOString(),
  };
}

const MAX_LISTED = 200;

async function integrationOf(db: DbTx, scope: DataScope, id: string) {
  const row = await db.integration.findFirst({ where: { id, establishment_id: scope.establishmentId, livemode: scope.livemode } });
  if (!row) throw new AppError('not_found', `No integration ${id} in this establishment`);
  return row;
}

/** The unresolved kept lines of an integration, newest first (the first 200). */
export async function listRefusedLines(db: DbTx, scope: DataScope, integrationId: string): Promise<RefusedLine[]> {
  await integrationOf(db, scope, integrationId);
  const rows = await db.integrationRefusedLine.findMany({
    where: { integration_id: integrationId, resolved_at: null },
    orderBy: [{ created_at: 'desc' }, { id: 'desc' }],
    take: MAX_LISTED,
  });
  return rows.map(toRefusedLine);
}

/**
 * Maps a kept line's item to a product and stores the kept lines it names (see the module's note).
 * A product already mapped to another item of the vendor is refused (409) rather than moved: its
 * `pos_ref` may be what another integration or the catalogue import relies on.
 */
export async function mapRefusedLine(tx: DbTx, tenant: Tenant, input: MapRefusedLineInput, now: Date): Promise<MapRefusedLineResult> {
  const integration = await integrationOf(tx, tenant, input.integration_id);
  const line = await tx.integrationRefusedLine.findFirst({
    where: { id: input.line_id, integration_id: integration.id, resolved_at: null },
  });
  if (!line) throw new AppError('not_found', `No kept line ${input.line_id} waiting on this integration`);
  if (!line.mappable || line.line === null) {
    throw new AppError('conflict', `This line cannot be stored by mapping its item to a product: ${line.reason}`);
  }
  const product = await tx.product.findFirst({ where: { id: input.product_id, organization_id: tenant.organizationId } });
  if (!product) throw validationError('Unknown product', [{ path: 'product_id', message: 'no product of this organisation' }]);

  let replayed: LineRow[];
  if (line.item_ref) {
    const holder = await tx.product.findFirst({ where: { organization_id: tenant.organizationId, pos_ref: line.item_ref } });
    if (holder && holder.id !== product.id) {
      throw new AppError('conflict', `The item ${line.item_ref} is already mapped to the product ${holder.name}`);
    }
    if (product.pos_ref && product.pos_ref !== line.item_ref) {
      throw new AppError(
        'conflict',
        `The product ${product.name} is already mapped to the item ${product.pos_ref}: a product maps to one item (pos_ref)`,
      );
    }
    if (!holder) await tx.product.update({ where: { id: product.id }, data: { pos_ref: line.item_ref } });
    replayed = await tx.integrationRefusedLine.findMany({
      where: { integration_id: integration.id, resolved_at: null, mappable: true, item_ref: line.item_ref },
      orderBy: [{ created_at: 'asc' }, { id: 'asc' }],
    });
  } else {
    replayed = [line];
  }
  const sales = replayed.map((l) => {
    const { product_ref: _r, ean: _e, ...rest } = obj(l.line);
    return l.item_ref ? obj(l.line) : { ...rest, product_id: product.id };
  });
  const auth = integrationCaller(tenant, integration.id);
  let errors: BatchItemError[];
  try {
    errors = (await storeSales(tx, auth, { source: integration.kind, lines: sales, batch: true, now, eventId: randomUUID() })).errors;
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== 'validation_error') throw err;
    // Nothing could be stored: every line keeps its new reason.
    errors = replayed.map((_, index) => ({ index, code: 'validation_error', error: err.message, details: err.details ?? [] }));
  }
  const failed = new Map(errors.map((e) => [e.index, e]));
  const stored = replayed.filter((_, i) => !failed.has(i));
  if (stored.length > 0) {
    await tx.integrationRefusedLine.updateMany({
      where: { id: { in: stored.map((l) => l.id) } },
      data: { resolved_at: now, product_id: product.id },
    });
  }
  const still: LineRow[] = [];
  for (const [index, e] of failed) {
    const l = replayed[index] as LineRow;
    const reason = (describe(e.details ?? []) || e.error).slice(0, 1000);
    const details = e.details ?? [];
    const mappable = details.length > 0 && details.every((d) => PRODUCT_PROBLEMS.has(d.message));
    still.push(await tx.integrationRefusedLine.update({ where: { id: l.id }, data: { reason, mappable } }));
  }
  return { stored: stored.length, still_refused: still.map(toRefusedLine) };
}
