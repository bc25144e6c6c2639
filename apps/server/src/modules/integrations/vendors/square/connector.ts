import { type Connector, isStandardSale, type Mapped, obj, refuse } from '../../../inbound/connectors/standard.js';
import { inStandard, squareMeasure } from '../../../inbound/connectors/units.js';
import type { ReturnLine } from '../../../sales/returns.js';
import type { LineOrigin } from '../../../sales/service.js';

/**
 * Square (squareup.com). Square's API writes snake_case (`line_items`, `closed_at`); its official
 * Node SDK gives the same objects in camelCase (`lineItems`, `closedAt`, `quantityUnit`). Keys are
 * turned to snake_case once, on entry, and problems are reported under the sender's own names.
 * Money is not read (the SDK's amounts are bigint, JSON may carry them as numbers or strings).
 */
const snake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const camel = (key: string) => key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

function snakeKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(snakeKeys);
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [snake(k), snakeKeys(v)]));
}
/** Whether the sender wrote camelCase (Square's own keys; `metadata` holds the seller's keys, not Square's). */
function hasCamelKeys(value: unknown, depth = 0): boolean {
  if (depth > 6 || !value || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.slice(0, 3).some((v) => hasCamelKeys(v, depth + 1));
  return Object.entries(value).some(([k, v]) => k !== 'metadata' && (/^[a-z]+[A-Z]/.test(k) || hasCamelKeys(v, depth + 1)));
}

/** The Square notification (webhook event body) that was sent instead of an object, refused with what to send. */
const INTEGRATION_URL = "the Square integration's notification URL (dashboard → Integrations), which fetches them";
function refuseNotification(payload: Record<string, unknown>, event: string): void {
  const data = obj(payload.data);
  const object = obj(data.object);
  if (typeof payload.type !== 'string' || !payload.merchant_id || Object.keys(object).length === 0) return;
  if (object.inventory_adjustment || object.adjustment) return; // carries the adjustment itself
  const [key = 'data.object', inner] = Object.entries(object)[0] ?? [];
  const type = payload.type;
  const path = `data.object.${key}`;
  if (type.startsWith('order.')) {
    const order = obj(inner);
    refuse(
      `This is a Square ${type} notification: it names an order (${String(order.order_id ?? data.id)}, ${String(order.state ?? 'no state')}) but carries none of its line_items. Send the orders themselves — {orders: [Order]} as BatchRetrieveOrders or SearchOrders answer, COMPLETED orders with their line_items — or send the notification to ${INTEGRATION_URL}`,
      path,
      'a notification, not an Order',
    );
  }
  if (type === 'inventory.count.updated') {
    refuse(
      `This is a Square inventory.count.updated notification: it carries counts (quantities in stock), not the InventoryAdjustment to WASTE that is a loss. Send the adjustment — an InventoryChange of BatchRetrieveInventoryChanges, or {adjustment} of RetrieveInventoryAdjustment — or send the notification to ${INTEGRATION_URL}`,
      path,
      'counts, not an adjustment',
    );
  }
  refuse(
    `This is a Square ${type} notification, which Merma does not read as ${event}: send ${event === 'sales.recorded' ? 'Square Orders ({orders})' : 'a Square InventoryChange or {adjustment}'}`,
    'type',
    `a ${type} notification`,
  );
}

/**
 * Square Orders API: `Order` objects (https://developer.squareup.com/reference/square/objects/Order)
 * as BatchRetrieveOrders or SearchOrders answer (`{ orders }`; SearchOrders filtered by the location
 * of the key's establishment and by `closed_at`; any number of line items, stored in one
 * transaction), RetrieveOrder (`{ order }`) or the Order itself. Only COMPLETED orders are sales:
 * a page without one (a quiet hour) is received with nothing to store. Each line item becomes a
 * sale line: the order `id` and the item `uid` as the resend key, `catalog_object_id` (a product
 * whose `pos_ref` is the variation id), `quantity` (decimal string) in
 * `quantity_unit.measurement_unit` (a `weight_unit` — every MeasurementUnitWeight — is a mass;
 * none or `generic_unit: UNIT` a count; another kind is refused for the line), sold at the order's
 * `closed_at`. A line without a catalog object (a custom amount) is reported in `errors`. A return
 * order's `returns[].return_line_items` are negative sales against the line they return
 * (`source_order_id:source_line_item_uid`; sales/returns.ts). Refused whole: order notifications (`order.created`, `order.updated`,
 * `order.fulfillment.updated`, which name an order without its lines), SearchOrders'
 * `order_entries` (ids only), and a payload with no Order in it.
 */
function squareSales(payload: Record<string, unknown>, name: (path: string) => string): Mapped {
  refuseNotification(payload, 'sales.recorded');
  if (Array.isArray(payload.order_entries) && !Array.isArray(payload.orders)) {
    refuse(
      'These are SearchOrders entries (return_entries: true): order ids without line items. Search without return_entries to send the orders themselves, or fetch them with BatchRetrieveOrders and send {orders}',
      name('order_entries'),
      'order ids, not orders',
    );
  }
  const many = Array.isArray(payload.orders);
  const single = payload.order !== undefined ? obj(payload.order) : 'line_items' in payload || 'state' in payload ? payload : undefined;
  if (!many && !single) {
    refuse(
      'Not a Square Order payload: send {orders: [Order]} as BatchRetrieveOrders or SearchOrders answer (COMPLETED orders with their line_items), {order: Order} as RetrieveOrder answers, or the Order itself',
      '',
      `found ${Object.keys(payload).slice(0, 5).join(', ') || 'no fields'}`,
    );
  }
  const orders = many ? (payload.orders as unknown[]).map(obj) : [single as Record<string, unknown>];
  const prefix = many ? 'orders' : payload.order === undefined ? '' : 'order';
  const at = (i: number, rest = '') => [prefix, many ? String(i) : '', rest].filter(Boolean).join('.');
  orders.forEach((o, i) => {
    if (typeof o.state !== 'string') {
      refuse(
        'A Square Order without its state: Merma stores COMPLETED orders only — send the orders as Square returns them',
        name(at(i, 'state')),
        'missing: OPEN, COMPLETED, CANCELED or DRAFT',
      );
    }
  });
  const fields = {
    product_id: name('catalog_object_id'),
    product_ref: name('catalog_object_id'),
    quantity: name('quantity'),
    sold_at: name('closed_at'),
    unit: name('quantity_unit'),
    external_id: name('uid'),
  };
  const sales: Record<string, unknown>[] = [];
  const origins: LineOrigin[] = [];
  const returns: ReturnLine[] = [];
  orders.forEach((o, i) => {
    if (o.state !== 'COMPLETED') return;
    // A return order's `returns`: each returned line, against the sale line it names.
    for (const ret of Array.isArray(o.returns) ? o.returns.map(obj) : []) {
      for (const item of Array.isArray(ret.return_line_items) ? ret.return_line_items.map(obj) : []) {
        const reading = squareMeasure(obj(obj(item.quantity_unit).measurement_unit));
        const quantity = typeof item.quantity === 'string' ? Number(item.quantity) : Number(item.quantity);
        // A return in a volume unit is left out, as one in an unreadable unit: returns are matched in kg or units.
        if (!reading.measure || reading.measure.kind === 'volume' || !Number.isFinite(quantity)) continue;
        const back = inStandard(quantity, reading.measure);
        returns.push({
          external_id: typeof o.id === 'string' && typeof item.uid === 'string' ? `${o.id}:${item.uid}` : undefined,
          original_ref:
            typeof ret.source_order_id === 'string' && typeof item.source_line_item_uid === 'string'
              ? `${ret.source_order_id}:${item.source_line_item_uid}`
              : undefined,
          product_ref: typeof item.catalog_object_id === 'string' ? item.catalog_object_id : undefined,
          quantity: back.quantity,
          unit: back.unit === 'kg' ? 'kg' : 'unit',
          returned_at: String(o.closed_at ?? o.created_at ?? ''),
        });
      }
    }
    const items = Array.isArray(o.line_items) ? o.line_items.map(obj) : [];
    items.forEach((item, j) => {
      const reading = squareMeasure(obj(obj(item.quantity_unit).measurement_unit));
      const origin: LineOrigin = { path: name(at(i, `line_items.${j}`)), fields };
      if (reading.problem) origin.problem = { path: 'unit', message: reading.problem };
      const quantity = typeof item.quantity === 'string' ? Number(item.quantity) : item.quantity;
      const measure = reading.measure ?? { kind: 'count', units: 1 };
      const amount = inStandard(typeof quantity === 'number' ? quantity : 0, measure);
      sales.push({
        external_id: typeof o.id === 'string' && typeof item.uid === 'string' ? `${o.id}:${item.uid}` : undefined,
        product_ref: item.catalog_object_id,
        quantity: typeof quantity === 'number' ? amount.quantity : quantity,
        unit: amount.unit,
        sold_at: o.closed_at ?? o.created_at,
      });
      origins.push(origin);
    });
  });
  return { payload: { source: 'square', sales }, origins, returns };
}

/**
 * Square Inventory API: an `InventoryAdjustment` moving stock to the `WASTE` state
 * (https://developer.squareup.com/reference/square/objects/InventoryAdjustment), sent as an
 * `InventoryChange` of BatchRetrieveInventoryChanges (`{ type: ADJUSTMENT, adjustment,
 * measurement_unit }` — the adjustment has no unit of its own: the change's `measurement_unit`
 * (a CatalogMeasurementUnit) says what `quantity` counts), as RetrieveInventoryAdjustment answers
 * (`{ adjustment }`) or as the adjustment itself. Fields used: `id` (the resend key), `to_state`
 * (must be WASTE), `catalog_object_id` (a product whose `pos_ref` is the variation id), `quantity`
 * (decimal string: a weight unit is turned into kg; a count — no unit, or `generic_unit: UNIT` —
 * into kg with the product's `unit_weight_kg`; a `volume_unit` into litres, then kg with the
 * product's `density_kg_per_l`), `occurred_at`. One change per event; a
 * notification (`inventory.count.updated`) is refused with what to send instead.
 */
function squareLoss(payload: Record<string, unknown>, name: (path: string) => string): Mapped {
  refuseNotification(payload, 'inventory.loss');
  if (Array.isArray(payload.changes)) {
    refuse(
      'Send one Square InventoryChange per inventory.loss event ({type: ADJUSTMENT, adjustment, measurement_unit}), not the whole BatchRetrieveInventoryChanges answer',
      name('changes'),
      `${payload.changes.length} changes`,
    );
  }
  const inner = obj(obj(payload.data).object);
  const [prefix, adjustment] =
    payload.adjustment !== undefined
      ? ['adjustment', obj(payload.adjustment)]
      : inner.inventory_adjustment !== undefined
        ? ['data.object.inventory_adjustment', obj(inner.inventory_adjustment)]
        : ['', payload];
  const at = (field: string) => name([prefix, field].filter(Boolean).join('.'));
  if (!('to_state' in adjustment) && !('catalog_object_id' in adjustment)) {
    refuse(
      'Not a Square inventory adjustment: send an InventoryChange of BatchRetrieveInventoryChanges ({type: ADJUSTMENT, adjustment, measurement_unit}), {adjustment} as RetrieveInventoryAdjustment answers, or the InventoryAdjustment itself',
      '',
      `found ${Object.keys(payload).slice(0, 5).join(', ') || 'no fields'}`,
    );
  }
  if (adjustment.to_state !== 'WASTE') {
    refuse(
      'Only Square adjustments to WASTE are losses',
      at('to_state'),
      `expected WASTE, got ${JSON.stringify(adjustment.to_state ?? null)}`,
    );
  }
  const unit = obj(obj(payload.measurement_unit).measurement_unit);
  const reading = squareMeasure(unit);
  if (!reading.measure) {
    refuse('The adjustment is in a unit Merma cannot weigh or count', name('measurement_unit.measurement_unit'), reading.problem);
  }
  const quantity = typeof adjustment.quantity === 'string' ? Number(adjustment.quantity) : adjustment.quantity;
  const { measure } = reading;
  const standard = inStandard(typeof quantity === 'number' ? quantity : 0, measure);
  const amount =
    standard.unit === 'kg'
      ? { quantity_kg: typeof quantity === 'number' ? standard.quantity : quantity }
      : { quantity: typeof quantity === 'number' ? standard.quantity : quantity, unit: standard.unit };
  return {
    payload: {
      source: 'square',
      external_id: adjustment.id,
      product_ref: adjustment.catalog_object_id,
      ...amount,
      reason: `Square: ${String(adjustment.from_state ?? 'IN_STOCK')} → WASTE`,
      occurred_at: adjustment.occurred_at,
    },
    fields: {
      external_id: at('id'),
      product_ref: at('catalog_object_id'),
      quantity_kg: at('quantity'),
      quantity: at('quantity'),
      weight_kg: at('quantity'),
      // A volume needs the product's density: its problem is the unit's; a count's, the quantity's.
      unit: standard.unit === 'l' ? name('measurement_unit.measurement_unit') : at('quantity'),
      occurred_at: at('occurred_at'),
    },
  };
}

export const squareConnector: Connector = {
  name: 'square',
  toStandard(event, raw) {
    const payload = snakeKeys(raw) as Record<string, unknown>;
    const camelCase = hasCamelKeys(raw);
    const name = (path: string) => (camelCase ? path.split('.').map(camel).join('.') : path);
    if (event === 'sales.recorded') return isStandardSale(raw) ? { payload: { ...raw, source: 'square' } } : squareSales(payload, name);
    if (event === 'inventory.loss') return squareLoss(payload, name);
    return { payload: { ...raw, source: 'square' } };
  },
};
