import { type Connector, isStandardSale, type Mapped, obj, refuse } from '../../../inbound/connectors/standard.js';
import { inStandard, odooMeasureByCategory, odooMeasureByName, type UnitReading } from '../../../inbound/connectors/units.js';
import type { ReturnLine } from '../../../sales/returns.js';
import type { LineOrigin } from '../../../sales/service.js';

/**
 * Odoo (odoo.com), in the two shapes Odoo itself writes:
 *
 * - an automation rule's "Send Webhook Notification" action (Odoo 17+, `_run_action_webhook` in
 *   `odoo/addons/base/models/ir_actions.py`): `{ _model, _id, _action }` and the rule's chosen
 *   fields as `record.read(fields, load=None)` gives them — a many2one is a bare id (or `false`), a
 *   one2many or many2many a list of ids, an empty value `false`, a datetime `"2026-11-22 19:45:12"`
 *   in UTC. A bare id names nothing: a unit of measure is read from a related field on its name
 *   (`x_uom_name` = product_uom_id.name, or Studio's `x_studio_uom_name`), or from its category and
 *   ratio (`x_uom_category` = product_uom_id.category_id.name, `x_uom_factor` = product_uom_id.factor;
 *   Studio's `x_studio_uom_category`, `x_studio_uom_factor`);
 * - `search_read` over JSON-RPC: records with `id`, a many2one as `[id, name]` (names in the
 *   context's language: English and Spanish unit names are read).
 *
 * A record's resend key is its model and id (`_id`, else `id`): `stock.scrap:128`, `pos.order.line:5031`.
 */
const many2one = (v: unknown): [unknown, unknown] => (Array.isArray(v) ? [v[0], v[1]] : [v === false ? undefined : v, undefined]);
const text = (v: unknown) => (typeof v === 'string' && v.trim() ? v : undefined);
const related = (record: Record<string, unknown>, field: string) => record[`x_${field}`] ?? record[`x_studio_${field}`];

/** Odoo writes datetimes in UTC as `YYYY-MM-DD HH:MM:SS`; `false` is no date. */
const odooTime = (v: unknown) => {
  const date = typeof v === 'string' ? v.replace(' ', 'T') : undefined;
  return date && !/[zZ]|[+-]\d\d:\d\d$/.test(date) ? `${date}Z` : date;
};

/** The record's id (`_id` of a webhook, `id` of search_read), or undefined. */
const recordId = (record: Record<string, unknown>) => {
  const id = record._id ?? record.id;
  return typeof id === 'number' || (typeof id === 'string' && id) ? String(id) : undefined;
};

/** What the record's `product_uom_id` is: by category and ratio when given, else by its name. */
function odooUnit(record: Record<string, unknown>): UnitReading {
  const category = text(related(record, 'uom_category'));
  const factor = related(record, 'uom_factor');
  if (category && typeof factor === 'number') return odooMeasureByCategory(category, factor);
  const [id, shown] = many2one(record.product_uom_id);
  const name = text(shown) ?? text(related(record, 'uom_name'));
  if (name) return odooMeasureByName(name);
  if (id === undefined) {
    return {
      problem: 'product_uom_id is missing: add it (with the related field x_uom_name) to say whether the quantity is counted or weighed',
    };
  }
  return {
    problem:
      "product_uom_id is a bare id (a webhook reads many2one fields as ids): add a related field on the unit's name to the webhook's fields — x_uom_name (Related field: Unit of Measure → Name), or the x_studio_uom_name Studio creates — or send [id, name] as search_read does",
  };
}

/**
 * An Odoo quantity in the standard format's terms: kg for a mass, units for a count, litres for a
 * volume (weighed with the product's density when stored); a quantity that is not a number is left
 * to validation.
 */
const inMerma = (qty: unknown, measure: NonNullable<UnitReading['measure']>) =>
  typeof qty !== 'number' ? { quantity: qty, unit: inStandard(0, measure).unit } : inStandard(qty, measure);

/**
 * `stock.scrap` (`addons/stock/models/stock_scrap.py`). Only a validated scrap (`state: "done"`) is
 * a loss, dated by `date_done`, which Odoo sets on validation. Decided: a draft scrap (or one
 * without `state`) is refused with 400 and is not remembered as received — an automation rule
 * that fires on save sends the draft first and the validated scrap later, and that later one must
 * be stored; the answer tells the sender to trigger on "State is set to Done". A scrap without
 * `state` or `date_done` among the webhook's fields is refused rather than guessed (never dated
 * "now"). Fields used: `_id`/`id`, `product_id` (a product whose `pos_ref` is Odoo's product id),
 * `scrap_qty` in `product_uom_id` (see `odooUnit`), `date_done`, and as notes the reason tags
 * (`scrap_reason_tag_ids`: names when given as `[id, name]` pairs or names; a webhook sends only
 * their ids, kept as "Odoo scrap reason tags 2, 5" so that the reason is not lost — an integration
 * that can read Odoo gives their names first, vendors/odoo/receive.ts), else `origin`.
 */
function odooScrap(payload: Record<string, unknown>): Mapped {
  if (payload._model !== undefined && payload._model !== 'stock.scrap') {
    refuse(
      `A ${String(payload._model)} record is not a scrap: inventory.loss takes stock.scrap records`,
      '_model',
      `expected stock.scrap (an automation rule on stock.scrap), got ${JSON.stringify(payload._model)}`,
    );
  }
  const id = recordId(payload);
  if (!id) {
    refuse('The scrap has no id: send it as Odoo does (a webhook carries _id, search_read id)', 'id', 'required to recognise a resend');
  }
  if (!('state' in payload)) {
    refuse(
      "The scrap's state is missing: only validated scraps are losses",
      'state',
      "add the fields state and date_done to the webhook's fields (Send Webhook Notification → Fields)",
    );
  }
  if (payload.state !== 'done') {
    refuse(
      'Only validated (done) scraps are losses: this one is not stored, nor remembered, and will be stored when validated. Trigger the automation rule on "State is set to Done"',
      'state',
      `expected "done", got ${JSON.stringify(payload.state)}`,
    );
  }
  if (!text(payload.date_done)) {
    refuse('A validated scrap needs its date', 'date_done', "date_done is missing: add it to the webhook's fields");
  }
  const [productId] = many2one(payload.product_id);
  const unit = odooUnit(payload);
  if (!unit.measure) refuse('The scrap is in a unit Merma cannot weigh or count', 'product_uom_id', unit.problem);
  const tags = Array.isArray(payload.scrap_reason_tag_ids) ? payload.scrap_reason_tag_ids : [];
  const names = tags.map((t) => (Array.isArray(t) ? text(t[1]) : text(t))).filter((t) => t !== undefined);
  const ids = tags.filter((t) => typeof t === 'number');
  const reason = names.length
    ? names.join(', ')
    : ids.length
      ? `Odoo scrap reason tags ${ids.join(', ')}`
      : (text(payload.origin) ?? 'Odoo scrap');
  return {
    payload: {
      source: 'odoo',
      external_id: `stock.scrap:${id}`,
      product_ref: productId === undefined ? undefined : String(productId),
      ...(unit.measure.kind === 'mass'
        ? { quantity_kg: inMerma(payload.scrap_qty, unit.measure).quantity }
        : inMerma(payload.scrap_qty, unit.measure)),
      reason,
      occurred_at: odooTime(payload.date_done),
    },
    fields: {
      external_id: 'id',
      product_ref: 'product_id',
      quantity_kg: 'scrap_qty',
      quantity: 'scrap_qty',
      weight_kg: 'scrap_qty',
      unit: 'product_uom_id',
      occurred_at: 'date_done',
      reason: 'scrap_reason_tag_ids',
    },
  };
}

const SALE_FIELDS = {
  product_id: 'product_id',
  product_ref: 'product_id',
  quantity: 'qty',
  unit: 'product_uom_id',
  sold_at: 'create_date',
  external_id: 'id',
};
/** What to configure instead of a webhook on pos.order (whose lines it sends as ids). */
const LINE_AUTOMATION =
  'set up an automation rule on pos.order.line (trigger: On creation, filtered on order_id.state in paid, done, invoiced) whose webhook sends the fields qty, product_id, product_uom_id, create_date and the related field x_uom_name (product_uom_id.name) — or send the lines as search_read on pos.order.line returns them ({lines: [...]})';

/**
 * Odoo Point of Sale order lines (`pos.order.line`, `addons/point_of_sale/models/pos_order.py`):
 * one line sent by an automation rule's webhook, or a day's lines as `{ lines: [...] }` (the result
 * of `search_read` on `pos.order.line`; `{ lines: [] }` is an empty day, received). Send the lines
 * of paid orders only (`order_id.state` in paid, done, invoiced): a draft's line sent early is not
 * sent again when it changes. Fields used: the id (`pos.order.line:<id>`), `product_id`, `qty` in
 * `product_uom_id` (see `odooUnit`), `create_date` (UTC). Refund lines (negative `qty`) are
 * negative sales against the line they refund (`refunded_orderline_id`; sales/returns.ts). A `pos.order` webhook (its `lines` are ids) and a payload with no
 * line are refused with what to set up instead.
 */
function odooSales(payload: Record<string, unknown>): Mapped {
  if (payload._model === 'pos.order') {
    refuse(
      `A pos.order webhook sends its lines as ids (${JSON.stringify(payload.lines ?? [])}), not the lines themselves`,
      'lines',
      LINE_AUTOMATION,
    );
  }
  if (payload._model !== undefined && payload._model !== 'pos.order.line') {
    refuse(`A ${String(payload._model)} record is not a sale line: sales.recorded takes pos.order.line records`, '_model', LINE_AUTOMATION);
  }
  const many = Array.isArray(payload.lines);
  const lines = many ? (payload.lines as unknown[]) : 'qty' in payload || payload._model === 'pos.order.line' ? [payload] : [];
  if (!many && lines.length === 0) {
    refuse(
      'Not an Odoo pos.order.line payload: send one pos.order.line record, or {lines: [...]} as search_read returns them',
      '',
      LINE_AUTOMATION,
    );
  }
  const notRecord = lines.findIndex((l) => !l || typeof l !== 'object' || Array.isArray(l));
  if (notRecord >= 0) {
    refuse('The lines are not pos.order.line records (ids, as pos.order reads its lines?)', `lines.${notRecord}`, LINE_AUTOMATION);
  }
  const sales: Record<string, unknown>[] = [];
  const origins: LineOrigin[] = [];
  const returns: ReturnLine[] = [];
  lines.map(obj).forEach((line, i) => {
    if (typeof line.qty === 'number' && line.qty < 0) {
      // A refund: a negative sale against the line it refunds (`refunded_orderline_id`, Odoo 16+).
      const unit = odooUnit(line);
      const [productId] = many2one(line.product_id);
      const [refunded] = many2one(line.refunded_orderline_id);
      const id = recordId(line);
      // A refund in a volume unit is left out, as one in an unreadable unit: returns are matched in kg or units.
      if (unit.measure && unit.measure.kind !== 'volume') {
        const back = inStandard(-line.qty, unit.measure);
        returns.push({
          external_id: id === undefined ? undefined : `pos.order.line:${id}`,
          original_ref: refunded === undefined || refunded === false ? undefined : `pos.order.line:${String(refunded)}`,
          product_ref: productId === undefined ? undefined : String(productId),
          quantity: back.quantity,
          unit: back.unit === 'kg' ? 'kg' : 'unit',
          returned_at: odooTime(line.create_date ?? line.date_order),
        });
      }
      return;
    }
    const [productId] = many2one(line.product_id);
    const unit = odooUnit(line);
    const id = recordId(line);
    const origin: LineOrigin = { path: many ? `lines.${i}` : '', fields: SALE_FIELDS };
    if (unit.problem) origin.problem = { path: 'unit', message: unit.problem };
    else if (!id) origin.problem = { path: 'external_id', message: 'the line has no id (_id or id): required to recognise a resend' };
    else if (!text(line.create_date) && !text(line.date_order)) {
      // As for a scrap's date_done: never dated "now", the field to add is named.
      origin.problem = {
        path: 'sold_at',
        message: "create_date is missing: add it to the webhook's fields (Send Webhook Notification → Fields)",
      };
    }
    sales.push({
      external_id: id === undefined ? undefined : `pos.order.line:${id}`,
      product_ref: productId === undefined ? undefined : String(productId),
      ...(unit.measure ? inMerma(line.qty, unit.measure) : { quantity: line.qty, unit: 'unit' }),
      sold_at: odooTime(line.create_date ?? line.date_order),
    });
    origins.push(origin);
  });
  return { payload: { source: 'odoo', sales }, origins, returns };
}

/** The inbound event an Odoo webhook body is, by its model (`_model`); undefined for another model. */
export function odooEventOf(payload: Record<string, unknown>): 'inventory.loss' | 'sales.recorded' | undefined {
  if (payload._model === 'stock.scrap') return 'inventory.loss';
  if (payload._model === 'pos.order.line' || payload._model === 'pos.order') return 'sales.recorded';
  return undefined;
}

export const odooConnector: Connector = {
  name: 'odoo',
  toStandard(event, payload) {
    if (event === 'sales.recorded') return isStandardSale(payload) ? { payload: { ...payload, source: 'odoo' } } : odooSales(payload);
    if (event === 'inventory.loss') return odooScrap(payload);
    return { payload: { ...payload, source: 'odoo' } };
  },
};
