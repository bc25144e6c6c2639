import { readFileSync } from 'node:fs';
import {
  INBOUND_EVENT_TYPES,
  type InboundEventType,
  InventoryLossPayload,
  SaleLine,
  WasteCreatedPayload,
  WasteUpdatedPayload,
} from '@merma/schema';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { importProducts } from '../src/admin/service.js';
import { vendors } from '../src/modules/integrations/vendors/index.js';
import { changedDigests, errorBodyProblems, tableDigests } from './contract.js';
import {
  addKey,
  api,
  CAUSA_CADUCIDAD,
  createTenant,
  DESTINO_DONATION,
  DESTINO_LANDFILL,
  startTestApp,
  type Tenant,
  type TestContext,
  validRecord,
} from './helpers.js';

/**
 * The walls of POST /api/v1/webhooks/inbound, for every reference an event can carry: a product
 * (by id, EAN or POS ref) is the organisation's; a shift, registration session or record is the
 * establishment's, in the key's mode; causes and destinations are one catalogue for everyone; an
 * external id or Idempotency-Key recognises a resend of the same establishment and mode only.
 * Naming another organisation's, establishment's or mode's object is refused with a 4xx in the
 * contract's error shape and writes nothing anywhere (records, events, inbound events, sales);
 * the same event naming the key's own object is accepted, so the refusal is the wall's. The
 * references are read from each event type's payload schema: a new event type or reference
 * without a row below fails the first test.
 */
const NOW = new Date('2026-11-24T10:00:00.000Z');
let t: TestContext;

/** The standard payload of each event type (what every connector maps to). */
const PAYLOADS: Record<InboundEventType, z.ZodObject> = {
  'waste.created': WasteCreatedPayload,
  'waste.updated': WasteUpdatedPayload,
  'inventory.loss': InventoryLossPayload,
  'sales.recorded': SaleLine,
};
/** A field that names something: an id, an EAN, a reference in another system. */
const isReference = (field: string) => /(_id|_ref|^ean)$/.test(field);

/**
 * What each reference names: `product` (the organisation's catalogue), `shift`, `session`,
 * `record` (the establishment's, per mode), `catalogue` (causes and destinations, shared by all),
 * `resend` (the sender's event id: a duplicate only of the same establishment and mode), `device`
 * (the sender's own equipment, a scale's id: nothing stored in Merma, so no wall — any value is
 * the sender's to give, checked only for its length), `paper` (the sender's own document, a waste
 * transfer document's number: likewise no wall).
 */
type Kind = 'product' | 'shift' | 'session' | 'record' | 'catalogue' | 'resend' | 'device' | 'paper';
const WALLS: Record<InboundEventType, Record<string, Kind>> = {
  'waste.created': {
    external_id: 'resend',
    destino_id: 'catalogue',
    causa_id: 'catalogue',
    shift_id: 'shift',
    session_id: 'session',
    product_id: 'product',
    scale_id: 'device',
    transfer_document_ref: 'paper',
  },
  'waste.updated': {
    external_id: 'resend',
    record_id: 'record',
    destino_id: 'catalogue',
    causa_id: 'catalogue',
    shift_id: 'shift',
    session_id: 'session',
    product_id: 'product',
    scale_id: 'device',
    transfer_document_ref: 'paper',
  },
  'inventory.loss': {
    external_id: 'resend',
    product_id: 'product',
    ean: 'product',
    product_ref: 'product',
    destino_id: 'catalogue',
    causa_id: 'catalogue',
  },
  'sales.recorded': { external_id: 'resend', product_id: 'product', ean: 'product', product_ref: 'product' },
};

/** A key's place: its tenant and mode, the key, and the EAN of a product of its organisation. */
type Place = { name: string; tenant: Tenant; livemode: boolean; key: string; ean: string };
let a: Place;
/** Another organisation; the other mode of A's establishment; another establishment of A's organisation. */
let elsewhere: Place[];
let b: Place;

const A_CATALOGUE = 'name;food_category;ean;pos_ref;unit_weight_kg\nYogur natural;dairy;8410000810004;A-YOG-1;0,125\n';
// B's products carry the POS ids of the connectors' fixtures (Square catalog objects, Odoo product ids).
const B_CATALOGUE = [
  'name;food_category;ean;pos_ref;unit_weight_kg',
  'Croissant B;bakery;8410000000023;W62UWFY35CWMYGVWK6TWJDNI;0,06',
  'Pan de barra B;bakery;8410000000016;57;0,25',
  'Pollo asado B;prepared_meals;8410000000030;JXP6MJ3VN5QFUPHJ2K6NYWCA;1',
  'Pollo entero B;prepared_meals;8410000000047;58;1',
].join('\n');

const send = (key: string, body: unknown, headers: Record<string, string> = {}) =>
  api(t.app, key).post('/api/v1/webhooks/inbound', body, { headers });

async function created(place: Place, path: string, body: unknown): Promise<string> {
  const res = await api(t.app, place.key).post(`/api/v1${path}`, body);
  if (res.statusCode !== 201) throw new Error(`${place.name}: POST ${path} answered ${res.statusCode}: ${res.body}`);
  return res.json().data.id;
}
let counter = 0;
/** A fresh object of a place's establishment and mode. */
const make = {
  shift: (p: Place) => created(p, '/shifts', { name: `Noche ${++counter}`, start_time: '22:00', end_time: '06:00' }),
  session: (p: Place) => created(p, '/sessions', { name: `Cierre ${++counter}` }),
  record: (p: Place) => created(p, '/records', validRecord()),
};
async function product(place: Place) {
  return t.db.product.findFirstOrThrow({ where: { organization_id: place.tenant.organizationId, ean: place.ean } });
}

/** A valid event of each type for a place, without an external id. */
const BASE: Record<InboundEventType, (p: Place) => Promise<Record<string, unknown>>> = {
  'waste.created': async () => ({ source: 'walls', food_category: 'meat', weight_kg: 1, destino_id: DESTINO_DONATION }),
  'waste.updated': async (p) => ({ source: 'walls', record_id: await make.record(p), weight_kg: 2 }),
  'inventory.loss': async (p) => ({ source: 'walls', ean: p.ean, quantity_kg: 1 }),
  'sales.recorded': async (p) => ({ source: 'walls', ean: p.ean, quantity: 1, sold_at: '2026-11-23' }),
};
const withoutProduct = ({ product_id: _i, ean: _e, product_ref: _r, ...rest }: Record<string, unknown>) => rest;

/** The value of a reference naming `place`'s object of `kind` (a fresh one where it is used up). */
async function referenceTo(kind: Kind, field: string, place: Place): Promise<string> {
  if (kind === 'product') {
    const p = await product(place);
    return (field === 'product_id' ? p.id : field === 'ean' ? p.ean : p.pos_ref) as string;
  }
  if (kind === 'shift' || kind === 'session' || kind === 'record') return make[kind](place);
  throw new Error(`no object of kind ${kind}`);
}

/** The call must be refused with `status` in the contract's error shape, and write nothing anywhere. */
async function refused(key: string, body: unknown, status: 400 | 404, path: string | null, label: string) {
  const before = await tableDigests(t.db);
  const res = await send(key, body);
  const said = `${label} → ${res.statusCode} ${res.body.slice(0, 300)}`;
  expect(res.statusCode, said).toBe(status);
  expect(errorBodyProblems(res), said).toEqual([]);
  expect(res.json().code, said).toBe(status === 404 ? 'not_found' : 'validation_error');
  if (path) expect(res.json().details?.map((d: { path: string }) => d.path) ?? [], said).toContain(path);
  expect(changedDigests(before, await tableDigests(t.db)), `${label} wrote`).toEqual([]);
  return res;
}

function accepted(res: LightMyRequestResponse, label: string) {
  const said = `${label} → ${res.statusCode} ${res.body.slice(0, 300)}`;
  expect(res.statusCode, said).toBe(200);
  return res.json().data as { event_id: string; status: string; record_id: string | null; sales?: { stored: number; duplicates: number } };
}

/** The tables an inbound event writes. */
const INBOUND_TABLES = ['records', 'record_chain_heads', 'events', 'inbound_events', 'sales', 'sale_day_totals'] as const;

/** A digest of a place's rows (its establishment and mode) in the tables an inbound event writes. */
async function rowsOf(place: Place): Promise<Record<string, string>> {
  const parts = INBOUND_TABLES.map(
    (table) =>
      `(SELECT count(*) || ':' || md5(coalesce(string_agg(x::text, '|' ORDER BY x::text), '')) FROM ${table} x
        WHERE x.establishment_id = $1::uuid AND x.livemode = $2) AS ${table}`,
  );
  const [digest] = await t.db.$queryRawUnsafe<Record<string, string>[]>(
    `SELECT ${parts.join(', ')}`,
    place.tenant.establishmentId,
    place.livemode,
  );
  return digest as Record<string, string>;
}

beforeAll(async () => {
  t = await startTestApp({ clock: () => NOW });
  const tenantA = await createTenant(t.db);
  const tenantB = await createTenant(t.db);
  const sibling = await createTenant(t.db, { organizationId: tenantA.organizationId });
  await importProducts(t.db, { org: tenantA.organizationId, csv: A_CATALOGUE });
  await importProducts(t.db, { org: tenantB.organizationId, csv: B_CATALOGUE });
  a = { name: 'A', tenant: tenantA, livemode: false, key: tenantA.key, ean: '8410000810004' };
  b = { name: 'another organisation', tenant: tenantB, livemode: false, key: tenantB.key, ean: '8410000000023' };
  const live = (await addKey(t.db, tenantA.establishmentId, 'live')).key;
  elsewhere = [
    b,
    { name: 'the other mode', tenant: tenantA, livemode: true, key: live, ean: a.ean },
    { name: 'another establishment of the organisation', tenant: sibling, livemode: false, key: sibling.key, ean: a.ean },
  ];
});
afterAll(() => t?.close());

const CASES = Object.entries(WALLS).flatMap(([event, fields]) =>
  Object.entries(fields).map(([field, kind]) => ({ event: event as InboundEventType, field, kind })),
);

describe('inbound walls', () => {
  it('has a wall for every reference of every event type', () => {
    expect(Object.keys(PAYLOADS).sort()).toEqual([...INBOUND_EVENT_TYPES].sort());
    expect(Object.keys(WALLS).sort()).toEqual([...INBOUND_EVENT_TYPES].sort());
    for (const event of INBOUND_EVENT_TYPES) {
      const references = Object.keys(PAYLOADS[event].shape).filter(isReference).sort();
      expect(references.length, event).toBeGreaterThan(0);
      expect(Object.keys(WALLS[event]).sort(), `the references of ${event}`).toEqual(references);
    }
  });

  it.each(CASES.filter((c) => c.kind === 'product'))(
    "$event: $field of another organisation's product is unknown (400), of its own accepted",
    async ({ event, field, kind }) => {
      const base = withoutProduct(await BASE[event](a));
      const body = (place: Place) => referenceTo(kind, field, place).then((value) => ({ event, payload: { ...base, [field]: value } }));
      const foreign = await body(b);
      const res = await refused(a.key, foreign, 400, `payload.${field}`, `${event} naming B's product by ${field}`);
      expect(res.body).not.toContain((await product(b)).name); // nor says whose it is
      accepted(await send(a.key, await body(a)), `${event} naming A's own product by ${field}`);
    },
  );

  it.each(CASES.filter((c) => ['shift', 'session', 'record'].includes(c.kind)))(
    "$event: $field of another organisation's, establishment's or mode's $kind is refused, of its own accepted",
    async ({ event, field, kind }) => {
      // A record named by id is a path of its own (404); a shift or session in a record's body is invalid input (400).
      const [status, path] = kind === 'record' ? ([404, null] as const) : ([400, `payload.${field}`] as const);
      for (const place of elsewhere) {
        const payload = { ...(await BASE[event](a)), [field]: await referenceTo(kind, field, place) };
        await refused(a.key, { event, payload }, status, path, `${event} naming the ${kind} of ${place.name} by ${field}`);
      }
      const own = { ...(await BASE[event](a)), [field]: await referenceTo(kind, field, a) };
      const data = accepted(await send(a.key, { event, payload: own }), `${event} naming A's own ${kind}`);
      const stored = await t.db.record.findUniqueOrThrow({ where: { id: data.record_id as string } });
      expect(stored).toMatchObject({ establishment_id: a.tenant.establishmentId, livemode: false });
      if (kind !== 'record') expect(stored[field as 'shift_id' | 'session_id']).toBe(own[field]);
      else expect(stored.supersedes_id).toBe(own[field]);
    },
  );

  it.each(CASES.filter((c) => c.kind === 'catalogue'))(
    '$event: $field is one catalogue for everyone: an id not in it is refused (400), one in it accepted',
    async ({ event, field }) => {
      const unknown = { ...(await BASE[event](a)), [field]: '0f3a3c5e-0000-4000-8000-000000000000' };
      await refused(a.key, { event, payload: unknown }, 400, `payload.${field}`, `${event} naming no ${field}`);
      const known = { ...(await BASE[event](a)), [field]: field === 'destino_id' ? DESTINO_LANDFILL : CAUSA_CADUCIDAD };
      const data = accepted(await send(a.key, { event, payload: known }), `${event} naming a catalogue ${field}`);
      expect(await t.db.record.findUniqueOrThrow({ where: { id: data.record_id as string } })).toMatchObject({ [field]: known[field] });
    },
  );

  it.each(CASES.filter((c) => c.kind === 'resend'))(
    '$event: an $field that another organisation, establishment or mode sent is not a resend of ours',
    async ({ event, field }) => {
      for (const place of elsewhere) {
        const external = `walls-${++counter}`;
        const theirs = accepted(
          await send(place.key, { event, payload: { ...(await BASE[event](place)), [field]: external } }),
          `${place.name} sending ${event}`,
        );
        const payload = { ...(await BASE[event](a)), [field]: external };
        const before = await rowsOf(place);
        const ours = accepted(await send(a.key, { event, payload }), `A sending ${event} with the ${field} of ${place.name}`);
        expect(ours.status, `A's ${event} after ${place.name}'s with the same ${field}`).toBe('processed');
        expect(ours.event_id).not.toBe(theirs.event_id);
        if (event === 'sales.recorded') expect(ours.sales).toMatchObject({ stored: 1, duplicates: 0 });
        else expect(ours.record_id).not.toBe(theirs.record_id);
        expect(changedDigests(before, await rowsOf(place)), `A's ${event} wrote to ${place.name}`).toEqual([]);
        // While a resend of A's own is one.
        expect(accepted(await send(a.key, { event, payload }), `A resending ${event}`).status).toBe('duplicate');
      }
    },
  );

  it.each([...INBOUND_EVENT_TYPES])(
    '%s: an Idempotency-Key that another organisation, establishment or mode used is not a resend of ours',
    async (event) => {
      for (const place of elsewhere) {
        const key = `walls-key-${++counter}`;
        const theirs = accepted(
          await send(place.key, { event, payload: await BASE[event](place) }, { 'idempotency-key': key }),
          `${place.name}`,
        );
        const before = await rowsOf(place);
        const ours = accepted(await send(a.key, { event, payload: await BASE[event](a) }, { 'idempotency-key': key }), 'A');
        expect(ours.status, `A's ${event} after ${place.name}'s with the same Idempotency-Key`).toBe('processed');
        expect(ours.event_id).not.toBe(theirs.event_id);
        expect(changedDigests(before, await rowsOf(place)), `A's ${event} wrote to ${place.name}`).toEqual([]);
      }
    },
  );

  /** Each connector's fixtures, naming products by their id in the POS: B's catalogue has them, A's none. */
  const fixture = (name: string) => JSON.parse(readFileSync(new URL(`./fixtures/pos/${name}`, import.meta.url), 'utf8'));
  const CONNECTOR_EVENTS: Record<string, Partial<Record<InboundEventType, string>>> = {
    square: { 'inventory.loss': 'square-inventory-adjustment.json', 'sales.recorded': 'square-search-orders.json' },
    odoo: { 'inventory.loss': 'odoo-stock-scrap.json', 'sales.recorded': 'odoo-pos-order-lines.json' },
  };

  it('has fixtures for every connector', () => {
    expect(Object.keys(CONNECTOR_EVENTS).sort()).toEqual(
      vendors()
        .map((v) => v.connector.name)
        .sort(),
    );
  });

  it.each(
    Object.entries(CONNECTOR_EVENTS).flatMap(([connector, events]) =>
      Object.entries(events).map(([event, file]) => ({ connector, event, file })),
    ),
  )(
    "$connector $event: products of another organisation's catalogue are unknown (400); its own sender's are stored",
    async ({ connector, event, file }) => {
      const body = { event, connector, payload: fixture(file) };
      const res = await refused(a.key, body, 400, null, `${connector} ${event} from A naming B's products`);
      // Named where the sender's payload has them.
      const details = res.json().details as { path: string; message: string }[];
      expect(details.map((d) => d.message)).toContain('no product of this organisation');
      expect(details.filter((d) => !d.path.startsWith('payload.'))).toEqual([]);
      const data = accepted(await send(b.key, body), `${connector} ${event} from B`);
      if (event === 'sales.recorded') expect(data.sales?.stored).toBeGreaterThan(0);
      else expect(data.record_id).not.toBeNull();
    },
  );
});
