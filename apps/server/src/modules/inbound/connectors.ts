import { CreateRecordInput, FoodCategory, IsoDate, KG_PER_MASS_UNIT, ProductReference, Uuid, WasteStage } from '@merma/schema';
import { z } from 'zod';
import { validationError } from '../../errors.js';
import type { LineOrigin } from '../sales/service.js';

/**
 * Connectors turn a source system's own payload into the standard inbound format. The standard
 * format is the default; `connector` (or a `source` naming a registered connector) selects another.
 * Connectors for POS systems are added here, each with fixture tests.
 */
export const StandardWasteCreated = z.object({
  source: z.string().trim().min(1).max(100).describe('the system that sent the event, e.g. "sap-b1"'),
  external_id: z.string().trim().min(1).max(200).optional().describe('the id of the event in that system; a resend is a duplicate'),
  food_category: FoodCategory,
  weight_kg: z.number(),
  destino_id: Uuid,
  causa_id: Uuid.nullish(),
  product_name: z.string().nullish(),
  waste_stage: WasteStage.nullish(),
  shift_id: Uuid.nullish(),
  session_id: Uuid.nullish(),
  notes: z.string().nullish(),
  photo_url: z.string().nullish(),
  occurred_at: z.string().nullish().describe('when the waste happened (ISO 8601 with offset); when received by default'),
});

/**
 * `waste.updated`: a correction of a record — `record_id` and the fields that change. It is
 * appended to the chain as a new record that supersedes the original (see inbound/service.ts).
 */
const Changes = CreateRecordInput.shape;
export const StandardWasteUpdated = z
  .object({
    source: z.string().trim().min(1).max(100),
    external_id: z.string().trim().min(1).max(200).optional(),
    record_id: Uuid,
    food_category: Changes.food_category.optional(),
    weight_kg: Changes.weight_kg.optional(),
    destino_id: Changes.destino_id.optional(),
    causa_id: Changes.causa_id,
    product_name: Changes.product_name,
    waste_stage: Changes.waste_stage,
    notes: Changes.notes,
    photo_url: Changes.photo_url,
    occurred_at: Changes.occurred_at,
  })
  .refine((p) => Object.keys(p).some((k) => !['source', 'external_id', 'record_id'].includes(k)), {
    message: 'name at least one field to change',
    path: ['record_id'],
  });
export type StandardWasteUpdated = z.infer<typeof StandardWasteUpdated>;

const UNITS = { ...KG_PER_MASS_UNIT, unit: 0 } as const;

export const StandardInventoryLoss = z
  .object({
    source: z.string().trim().min(1).max(100),
    external_id: z.string().trim().min(1).max(200).optional(),
    ...ProductReference,
    quantity_kg: z.number().positive().optional(),
    quantity: z.number().positive().optional(),
    unit: z.enum(Object.keys(UNITS) as [keyof typeof UNITS, ...(keyof typeof UNITS)[]]).optional(),
    reason: z.string().max(500).optional(),
    occurred_at: IsoDate.or(z.iso.datetime({ offset: true })).optional(),
    destino_id: Uuid.optional().describe('where the loss went; disposal (landfill) when not given'),
    causa_id: Uuid.optional(),
  })
  .refine((p) => p.product_id || p.ean || p.product_ref, { message: 'product_id, ean or product_ref is required', path: ['product_id'] })
  .refine((p) => p.quantity_kg !== undefined || (p.quantity !== undefined && p.unit !== undefined), {
    message: 'quantity_kg, or quantity with unit (kg, g, lb, oz, or unit for products with a unit weight), is required',
    path: ['quantity_kg'],
  });
export type StandardInventoryLoss = z.infer<typeof StandardInventoryLoss>;

/** The loss in kg; `unit` counts use the product's unit weight (null when it has none). */
export function lossKilograms(p: StandardInventoryLoss, unitWeightKg: number | null): number | null {
  if (p.quantity_kg !== undefined) return p.quantity_kg;
  if (p.unit === 'unit') return unitWeightKg === null ? null : (p.quantity as number) * unitWeightKg;
  return (p.quantity as number) * UNITS[p.unit as keyof typeof UNITS];
}

export type Connector = {
  name: string;
  /** Maps the system's payload for `event` to the standard payload (unvalidated). */
  toStandard(event: string, payload: Record<string, unknown>): Record<string, unknown>;
};

const standard: Connector = { name: 'standard', toStandard: (_event, payload) => payload };

const obj = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/** A sales payload already in the standard format (a `source` naming a connector selects it too). */
const isStandardSale = (payload: Record<string, unknown>) => 'sales' in payload || 'sold_at' in payload;

/** Standard sale lines, each with where it came from in the system's payload (`LineOrigin`). */
export type ConnectorSales = { source: string; sales: Record<string, unknown>[]; origins: LineOrigin[] };

/**
 * Square Orders API: `Order` objects (https://developer.squareup.com/reference/square/objects/Order)
 * as RetrieveOrder (`{ order }`), SearchOrders (`{ orders }`, e.g. a day's orders of one location
 * — filter the search by the location of the key's establishment; up to 2000 line items a call) or
 * the object itself. Only COMPLETED orders are sales; others are left out (a page without any is
 * received with nothing to store). Each line item becomes a sale line: the order `id` and the item
 * `uid` as the resend key, `catalog_object_id` (a product whose `pos_ref` is the variation id),
 * `quantity` (decimal string) in `quantity_unit.measurement_unit.weight_unit` when sold by weight
 * (another kind of measurement unit is refused for the line), else units, sold at the order's
 * `closed_at`. A line without a catalog object (a custom amount) is reported in `errors`; returns
 * are not sales.
 */
const SQUARE_WEIGHT: Record<string, string> = {
  METRIC_KILOGRAM: 'kg',
  METRIC_GRAM: 'g',
  IMPERIAL_POUND: 'lb',
  IMPERIAL_WEIGHT_OUNCE: 'oz',
};
const SQUARE_FIELDS = {
  product_id: 'catalog_object_id',
  product_ref: 'catalog_object_id',
  sold_at: 'closed_at',
  unit: 'quantity_unit',
  external_id: 'uid',
};

function squareSales(payload: Record<string, unknown>): ConnectorSales | Record<string, unknown> {
  if (isStandardSale(payload)) return { ...payload, source: 'square' };
  const many = Array.isArray(payload.orders);
  const orders = many ? (payload.orders as unknown[]).map(obj) : [obj(payload.order ?? payload)];
  const prefix = many ? 'orders' : payload.order === undefined ? '' : 'order';
  const sales: Record<string, unknown>[] = [];
  const origins: LineOrigin[] = [];
  orders.forEach((o, i) => {
    if (o.state !== 'COMPLETED') return;
    const items = Array.isArray(o.line_items) ? o.line_items.map(obj) : [];
    items.forEach((item, j) => {
      const measurement = obj(obj(item.quantity_unit).measurement_unit);
      const weight = typeof measurement.weight_unit === 'string' ? SQUARE_WEIGHT[measurement.weight_unit] : undefined;
      const origin: LineOrigin = {
        path: [prefix, many ? String(i) : '', `line_items.${j}`].filter(Boolean).join('.'),
        fields: SQUARE_FIELDS,
      };
      if (Object.keys(measurement).length > 0 && !weight) {
        origin.problem = { path: 'unit', message: `a unit Merma does not weigh or count: ${JSON.stringify(measurement).slice(0, 100)}` };
      }
      sales.push({
        external_id: typeof o.id === 'string' && typeof item.uid === 'string' ? `${o.id}:${item.uid}` : undefined,
        product_ref: item.catalog_object_id,
        quantity: typeof item.quantity === 'string' ? Number(item.quantity) : item.quantity,
        unit: weight ?? 'unit',
        sold_at: o.closed_at ?? o.created_at,
      });
      origins.push(origin);
    });
  });
  return { source: 'square', sales, origins };
}

/**
 * Square (squareup.com), Inventory API: an `InventoryAdjustment` moving stock to the `WASTE` state,
 * as returned by BatchRetrieveInventoryChanges or sent inside an `inventory.adjustment` object —
 * https://developer.squareup.com/reference/square/objects/InventoryAdjustment. Fields used: `id`
 * (the resend key), `to_state` (must be WASTE), `catalog_object_id` (the item variation: a product
 * whose `pos_ref` is that id), `quantity` (decimal string; units of the variation, turned into kg
 * with the product's `unit_weight_kg`), `occurred_at`. Accepted as the payload itself, or wrapped
 * as `{ adjustment }`, `{ inventory_adjustment }` or a webhook body `{ data: { object: … } }`.
 */
const square: Connector = {
  name: 'square',
  toStandard(event, payload) {
    if (event === 'sales.recorded') return squareSales(payload);
    if (event !== 'inventory.loss') return { ...payload, source: 'square' };
    const inner = obj(obj(obj(payload.data).object));
    const adj = obj(payload.adjustment ?? payload.inventory_adjustment ?? inner.inventory_adjustment ?? inner.adjustment ?? payload);
    if (adj.to_state !== 'WASTE') {
      throw validationError('Only Square adjustments to WASTE are losses', [
        { path: 'payload.to_state', message: `expected WASTE, got ${JSON.stringify(adj.to_state ?? null)}` },
      ]);
    }
    const quantity = typeof adj.quantity === 'string' ? Number(adj.quantity) : adj.quantity;
    return {
      source: 'square',
      external_id: adj.id,
      product_ref: adj.catalog_object_id,
      quantity,
      unit: 'unit',
      reason: `Square: ${String(adj.from_state ?? 'IN_STOCK')} → WASTE`,
      occurred_at: adj.occurred_at,
    };
  },
};

/** Odoo's units of measure by name. */
const UOM: Record<string, string> = { kg: 'kg', g: 'g', lb: 'lb', lbs: 'lb', oz: 'oz', units: 'unit', unit: 'unit', 'unit(s)': 'unit' };
const many2one = (v: unknown) => (Array.isArray(v) ? v : [v, undefined]) as [unknown, unknown];
/** The unit of measure's id and name: `product_uom_id` as `[id, name]`, or its bare id and `x_uom_name` (see odooSales). */
const uomOf = (record: Record<string, unknown>): [unknown, unknown] => {
  const [id, name] = many2one(record.product_uom_id);
  return [id, name ?? record.x_uom_name];
};
/** Odoo writes datetimes in UTC as `YYYY-MM-DD HH:MM:SS`. */
const odooTime = (v: unknown) => {
  const date = typeof v === 'string' ? v.replace(' ', 'T') : undefined;
  return date && !/[zZ]|[+-]\d\d:\d\d$/.test(date) ? `${date}Z` : date;
};

/**
 * Odoo Point of Sale order lines (`pos.order.line`): one line sent by an automation rule's webhook
 * (`_model`, `_id` and the chosen fields), or a day's lines as `{ lines: [...] }` (the result of
 * `search_read` on `pos.order.line`, whose records carry `id`). Send the lines of paid orders only
 * (`order_id.state` in paid, done, invoiced): a draft's line sent early is not sent again when it
 * changes. Fields used: the id (the resend key, `pos.order.line:<id>`), `product_id` (a product
 * whose `pos_ref` is Odoo's product id; `[id, name]` or the bare id), `qty`, the unit of measure by
 * its name (`"Units"`, `"kg"`, `"g"`, `"lb"`, `"oz"`; read with `context: {lang: "en_US"}`) — from
 * `product_uom_id` as `search_read` returns it (`[id, name]`) or, since a webhook sends many2one
 * fields as bare ids (Odoo reads them with `load=None`), from a related field `x_uom_name`
 * (Unit of Measure → Name, added in Studio and chosen among the webhook's fields); without a name
 * the line cannot say whether it is counted or weighed and is refused — and `create_date` (UTC).
 * Refund lines (negative `qty`) are returns, not sales: left out.
 */
const ODOO_FIELDS = {
  product_id: 'product_id',
  product_ref: 'product_id',
  quantity: 'qty',
  unit: 'product_uom_id',
  sold_at: 'create_date',
  external_id: 'id',
};

function odooSales(payload: Record<string, unknown>): ConnectorSales | Record<string, unknown> {
  if (isStandardSale(payload)) return { ...payload, source: 'odoo' };
  const many = Array.isArray(payload.lines);
  const lines = many ? (payload.lines as unknown[]).map(obj) : [payload];
  const sales: Record<string, unknown>[] = [];
  const origins: LineOrigin[] = [];
  lines.forEach((line, i) => {
    if (typeof line.qty === 'number' && line.qty < 0) return; // a refund
    const [productId] = many2one(line.product_id);
    const [uomId, uomName] = uomOf(line);
    const unit = typeof uomName === 'string' ? UOM[uomName.trim().toLowerCase()] : undefined;
    const origin: LineOrigin = { path: many ? `lines.${i}` : '', fields: ODOO_FIELDS };
    if (!unit) {
      origin.problem = {
        path: 'unit',
        message:
          uomId === undefined
            ? 'product_uom_id is missing: send it as [id, name] to say whether the line is counted or weighed'
            : typeof uomName === 'string'
              ? `unknown unit of measure "${uomName}" (units, kg, g, lb or oz; read the lines with lang en_US)`
              : 'product_uom_id is a bare id (as a webhook sends it): add the related field x_uom_name to the webhook, or send [id, name] (search_read), to say whether the line is counted or weighed',
      };
    }
    const id = line._id ?? line.id;
    sales.push({
      external_id: id === undefined ? undefined : `pos.order.line:${String(id)}`,
      product_ref: productId === undefined ? undefined : String(productId),
      quantity: line.qty,
      unit: unit ?? 'unit',
      sold_at: odooTime(line.create_date ?? line.date_order),
    });
    origins.push(origin);
  });
  return { source: 'odoo', sales, origins };
}

/**
 * Odoo (odoo.com) Inventory/Point of Sale: a scrap order (`stock.scrap`) sent by an automation
 * rule's "Send Webhook Notification" action (Odoo 17+), whose body carries `_model`, `_id` and the
 * chosen fields — https://www.odoo.com/documentation/17.0/applications/studio/automated_actions.html.
 * Fields used: `_id` (the resend key, as `stock.scrap:<id>`), `product_id` (Odoo's id, or `[id, name]`:
 * a product whose `pos_ref` is that id), `scrap_qty` with `product_uom_id` (`[id, "kg"]`, `"g"`,
 * `"lb"`, `"oz"`, or `"Units"`), `date_done`, `scrap_reason_tag_ids` or `origin` as the reason.
 * Sales: see `odooSales`.
 */
const odoo: Connector = {
  name: 'odoo',
  toStandard(event, payload) {
    if (event === 'sales.recorded') return odooSales(payload);
    if (event !== 'inventory.loss') return { ...payload, source: 'odoo' };
    const [productId] = many2one(payload.product_id);
    const [, uomName] = uomOf(payload);
    const unit = typeof uomName === 'string' ? UOM[uomName.trim().toLowerCase()] : undefined;
    const tags = Array.isArray(payload.scrap_reason_tag_ids)
      ? payload.scrap_reason_tag_ids.map((t) => (Array.isArray(t) ? t[1] : t)).filter((t) => typeof t === 'string')
      : [];
    return {
      source: 'odoo',
      external_id: payload._id === undefined ? undefined : `${String(payload._model ?? 'stock.scrap')}:${String(payload._id)}`,
      product_ref: productId === undefined ? undefined : String(productId),
      quantity: payload.scrap_qty,
      unit: unit ?? uomName,
      reason: tags.length ? tags.join(', ') : typeof payload.origin === 'string' ? payload.origin : 'Odoo scrap',
      occurred_at: odooTime(payload.date_done),
    };
  },
};

export const CONNECTORS = new Map<string, Connector>([standard, square, odoo].map((c) => [c.name, c]));

export function connectorFor(connector: string | undefined, payload: Record<string, unknown>): Connector | undefined {
  if (connector) return CONNECTORS.get(connector);
  const source = typeof payload.source === 'string' ? payload.source : undefined;
  return (source && CONNECTORS.get(source)) || standard;
}
