import { at, type KeptLine, obj, type RefusedLineIds, str } from '../../refused.js';

/** How Square's refused sale lines are named and kept (../../refused.ts), from Square's own order. */

/** A line's order id, its uid in the order, its catalog variation id and its name. */
export function squareLineIds(payload: unknown, path: string, line: Record<string, unknown>, fallback: string): RefusedLineIds {
  const raw = obj(at(payload, path));
  const order = obj(at(payload, path.split('.').slice(0, -2).join('.')));
  const orderRef = str(order.id);
  const name = [str(raw.name), str(raw.variation_name)].filter(Boolean).join(' · ') || null;
  return {
    order_ref: orderRef,
    line_ref: str(line.external_id) ?? `${orderRef ?? fallback}:${str(raw.uid) ?? path}`,
    item_ref: str(raw.catalog_object_id),
    item_name: name,
  };
}

/** An order refused whole (one without its state): one kept line per order. */
export function squareRefusedWhole(payload: Record<string, unknown>, reason: string, fallbackRef: string): KeptLine[] {
  const orders = Array.isArray(payload.orders) ? payload.orders.map(obj) : [payload];
  return orders.map((o, i) => ({
    order_ref: str(o.id),
    line_ref: `order:${str(o.id) ?? `${fallbackRef}:${i}`}`,
    item_ref: null,
    item_name: null,
    reason,
    mappable: false,
    line: null,
  }));
}
