import { at, type KeptLine, obj, type RefusedLineIds, str } from '../../refused.js';

/** How Odoo's refused sale lines are named and kept (../../refused.ts), from Odoo's own pos.order.line. */

const many2one = (v: unknown): [string | null, string | null] => (Array.isArray(v) ? [str(v[0]), str(v[1])] : [str(v), null]);

/** A line's order id, its product's id and name (many2one pairs as search_read gives them). */
export function odooLineIds(payload: unknown, path: string, line: Record<string, unknown>, fallback: string): RefusedLineIds {
  const raw = obj(at(payload, path));
  const [orderRef] = many2one(raw.order_id);
  const [productRef, productName] = many2one(raw.product_id);
  return {
    order_ref: orderRef,
    line_ref: str(line.external_id) ?? `${fallback}:${path || '0'}`,
    item_ref: productRef,
    item_name: productName ?? str(raw.full_product_name) ?? null,
  };
}

/**
 * Nothing: a payload that is not lines (a pos.order webhook without the API to read its lines)
 * is a setting to fix, answered 400 to Odoo and noted on the card, not a line.
 */
export function odooRefusedWhole(_payload: Record<string, unknown>, _reason: string, _fallbackRef: string): KeptLine[] {
  return [];
}
