import { randomUUID } from 'node:crypto';
import { type BatchItemError, localDate, MAX_OCCURRED_AT_AGE_DAYS } from '@merma/schema';
import type { AuthContext } from '../../context.js';
import type { DbTx } from '../../db/client.js';
import { Prisma } from '../../generated/prisma/client.ts';

/**
 * Returns and refunds from a POS (Square return orders' `returns[].return_line_items`, Odoo refund
 * lines with a negative `qty`): each is stored as a negative sale line, so the day totals the
 * demand forecast reads count what was sold net of what came back.
 *
 * Decided: a return is counted against the day of the sale it returns — the original line, found
 * by its id (Square `source_order_id:source_line_item_uid`, Odoo `refunded_orderline_id`), gives the
 * product, the unit and the day, so a Monday sale returned on Tuesday lowers Monday's demand (what
 * was really wanted), not Tuesday's. A return whose sale Merma never received (sold before the
 * integration, or through another channel) is counted on its own day, its product found by the
 * vendor's item id, within the same window as a sale. A return is stored once by its own id. A day
 * total never goes below zero.
 */
export type ReturnLine = {
  /** The return line's own id (the resend key). */
  external_id: string | undefined;
  /** The returned sale line's id, as that sale was stored (`sales.external_ref`). */
  original_ref: string | undefined;
  product_ref: string | undefined;
  /** Positive: how much came back, in `unit`. */
  quantity: number;
  unit: 'unit' | 'kg';
  returned_at: string | undefined;
};

export type ReturnsSummary = { stored: number; duplicates: number; errors: BatchItemError[] };

export async function storeReturns(
  tx: DbTx,
  auth: AuthContext,
  input: { source: string; returns: ReturnLine[]; now: Date; eventId: string; firstIndex: number },
): Promise<ReturnsSummary> {
  const errors: BatchItemError[] = [];
  const refuse = (i: number, path: string, message: string) =>
    errors.push({ index: input.firstIndex + i, code: 'validation_error', error: `${path}: ${message}`, details: [{ path, message }] });
  const originals = input.returns.flatMap((r) => (r.original_ref ? [r.original_ref] : []));
  const refs = input.returns.flatMap((r) => (r.product_ref ? [r.product_ref] : []));
  const sold = originals.length
    ? await tx.$queryRaw<{ external_ref: string; product_id: string; unit: string; day: Date; sold_at: Date }[]>`
        SELECT external_ref, product_id::text, unit, day, sold_at FROM sales
        WHERE establishment_id = ${auth.establishmentId}::uuid AND livemode = ${auth.livemode} AND source = ${input.source}
          AND external_ref = ANY(${originals}::text[]) AND quantity > 0`
    : [];
  const products = refs.length
    ? await tx.$queryRaw<{ id: string; pos_ref: string }[]>`
        SELECT id::text, pos_ref FROM products WHERE organization_id = ${auth.organizationId}::uuid AND pos_ref = ANY(${refs}::text[])`
    : [];
  const bySale = new Map(sold.map((s) => [s.external_ref, s]));
  const byRef = new Map(products.map((p) => [p.pos_ref, p.id]));
  const oldest = input.now.getTime() - MAX_OCCURRED_AT_AGE_DAYS * 86_400_000;

  const rows: { id: string; product_id: string; ref: string | null; quantity: number; unit: string; sold_at: string; day: string }[] = [];
  for (const [i, r] of input.returns.entries()) {
    const quantity = Math.round(r.quantity * 1000) / 1000;
    if (!(quantity > 0)) {
      refuse(i, 'quantity', 'a return of nothing');
      continue;
    }
    const original = r.original_ref ? bySale.get(r.original_ref) : undefined;
    if (original) {
      if (original.unit !== r.unit) {
        refuse(i, 'unit', `returned in ${r.unit}, sold in ${original.unit}`);
        continue;
      }
      rows.push({
        id: randomUUID(),
        product_id: original.product_id,
        ref: r.external_id ?? null,
        quantity: -quantity,
        unit: original.unit,
        sold_at: original.sold_at.toISOString(),
        day: original.day.toISOString().slice(0, 10),
      });
      continue;
    }
    const productId = r.product_ref ? byRef.get(r.product_ref) : undefined;
    if (!productId) {
      refuse(i, 'product_ref', 'a return of no product of this organisation, nor of a sale received');
      continue;
    }
    const at = r.returned_at ? new Date(r.returned_at) : undefined;
    if (!at || Number.isNaN(at.getTime())) {
      refuse(i, 'returned_at', 'the return has no date');
      continue;
    }
    if (at.getTime() < oldest) {
      refuse(i, 'returned_at', `may be at most ${MAX_OCCURRED_AT_AGE_DAYS} days back`);
      continue;
    }
    rows.push({
      id: randomUUID(),
      product_id: productId,
      ref: r.external_id ?? null,
      quantity: -quantity,
      unit: r.unit,
      sold_at: at.toISOString(),
      day: localDate(at, auth.timezone),
    });
  }
  if (rows.length === 0) return { stored: 0, duplicates: 0, errors };

  const [result] = await tx.$queryRaw<{ stored: number }[]>(Prisma.sql`
    WITH ins AS (
      INSERT INTO sales (id, establishment_id, livemode, product_id, source, external_ref, quantity, unit, sold_at, day, inbound_event_id)
      SELECT u.id, ${auth.establishmentId}::uuid, ${auth.livemode}, u.product_id, ${input.source}, u.ref, u.quantity, u.unit,
        u.sold_at, u.day, ${input.eventId}::uuid
      FROM json_to_recordset(${JSON.stringify(rows)}::json)
        AS u(id uuid, product_id uuid, ref text, quantity numeric, unit text, sold_at timestamptz, day date)
      ORDER BY u.ref, u.product_id, u.day
      ON CONFLICT (establishment_id, livemode, source, external_ref) DO NOTHING
      RETURNING 1
    )
    SELECT count(*)::int AS stored FROM ins`);
  const stored = result?.stored ?? 0;
  const days = [...new Set(rows.map((r) => r.day))];
  // The day totals lowered by the returns this event stored; never below zero. `lines` counts sales only.
  await tx.$executeRaw(Prisma.sql`
    INSERT INTO sale_day_totals AS t (establishment_id, livemode, product_id, day, units, kg, lines, sold_out, sold_out_at)
    SELECT ${auth.establishmentId}::uuid, ${auth.livemode}, product_id, day,
      0, 0, 0, false, NULL
    FROM sales
    WHERE establishment_id = ${auth.establishmentId}::uuid AND livemode = ${auth.livemode} AND day = ANY(${days}::date[])
      AND inbound_event_id = ${input.eventId}::uuid AND quantity < 0
    GROUP BY product_id, day ORDER BY product_id, day
    ON CONFLICT (establishment_id, livemode, product_id, day) DO NOTHING`);
  await tx.$executeRaw(Prisma.sql`
    UPDATE sale_day_totals AS t
    SET units = greatest(0, t.units + r.units), kg = greatest(0, t.kg + r.kg)
    FROM (
      SELECT product_id, day, coalesce(sum(quantity) FILTER (WHERE unit = 'unit'), 0) AS units,
        coalesce(sum(quantity) FILTER (WHERE unit = 'kg'), 0) AS kg
      FROM sales
      WHERE establishment_id = ${auth.establishmentId}::uuid AND livemode = ${auth.livemode} AND day = ANY(${days}::date[])
        AND inbound_event_id = ${input.eventId}::uuid AND quantity < 0
      GROUP BY product_id, day
    ) AS r
    WHERE t.establishment_id = ${auth.establishmentId}::uuid AND t.livemode = ${auth.livemode}
      AND t.product_id = r.product_id AND t.day = r.day`);
  return { stored, duplicates: rows.length - stored, errors };
}
