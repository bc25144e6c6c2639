import { createHmac, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type IntegrationRow, signatureKeys } from '../src/modules/integrations/service.js';
import { odooLineIds, odooRefusedWhole } from '../src/modules/integrations/vendors/odoo/refused.js';
import { parseRetryAfter } from '../src/modules/integrations/vendors/square/api.js';
import { squareWorkOf } from '../src/modules/integrations/vendors/square/fetch.js';
import { squareLineIds, squareRefusedWhole } from '../src/modules/integrations/vendors/square/refused.js';
import { squareSignatureMatches } from '../src/modules/integrations/vendors/square/signature.js';
import { createSecretBox, encryptionKey } from '../src/secrets/cipher.js';
import { sealColumn } from '../src/secrets/stored.js';

/**
 * The integrations' pieces that need neither a database nor a server, each on both sides of its
 * edges: Square's signature check, its replaced key's grace period, Retry-After, what a stored
 * notification asks to fetch, and the ids a refused line is kept (and deduplicated) by. The same
 * pieces run end to end in integrations.test.ts, connectors.test.ts and square-api.test.ts; here
 * each branch has a test of its own, which is what the mutation run (stryker.config.mjs) scores.
 */
const fixture = (name: string) => JSON.parse(readFileSync(new URL(`./fixtures/square/${name}`, import.meta.url), 'utf8'));
const sign = (key: string, url: string, body: string) =>
  createHmac('sha256', key)
    .update(url + body)
    .digest('base64');

describe("Square's signature", () => {
  const url = 'https://merma.example/api/v1/integrations/square/5c7d';
  const body = '{"type":"order.created"}';

  it('matches under the current key or a replaced one, whichever signed', () => {
    expect(squareSignatureMatches(['current'], url, body, sign('current', url, body))).toBe(true);
    expect(squareSignatureMatches(['current', 'replaced'], url, body, sign('replaced', url, body))).toBe(true);
    expect(squareSignatureMatches(['current', 'replaced'], url, body, sign('current', url, body))).toBe(true);
  });

  it('matches nothing under another key, another URL, another body, or no key at all', () => {
    expect(squareSignatureMatches(['current'], url, body, sign('other', url, body))).toBe(false);
    expect(squareSignatureMatches(['current'], url, body, sign('current', `${url}/`, body))).toBe(false);
    expect(squareSignatureMatches(['current'], url, body, sign('current', url, `${body} `))).toBe(false);
    expect(squareSignatureMatches([], url, body, sign('current', url, body))).toBe(false);
  });

  it('refuses a header that is not 32 bytes of base64 before comparing anything', () => {
    const good = sign('current', url, body);
    expect(squareSignatureMatches(['current'], url, body, undefined)).toBe(false);
    expect(squareSignatureMatches(['current'], url, body, '')).toBe(false);
    expect(squareSignatureMatches(['current'], url, body, good.slice(0, -1))).toBe(false);
    expect(squareSignatureMatches(['current'], url, body, `${good}=`)).toBe(false);
    expect(squareSignatureMatches(['current'], url, body, ` ${good}`)).toBe(false);
    // base64url's alphabet is not Square's.
    expect(squareSignatureMatches(['current'], url, body, good.replace(/\+/g, '-').replace(/\//g, '_'))).toBe(!/[+/]/.test(good));
  });
});

describe("a replaced signature key's grace period", () => {
  const box = createSecretBox([encryptionKey('k1', randomBytes(32))], 'test');
  const id = '0b3f5a8e-6f5e-4e43-9a6b-1c2d3e4f5a6b';
  const expiresAt = new Date('2026-11-30T10:10:00.000Z');
  const row = (over: Partial<IntegrationRow>) =>
    ({
      id,
      signature_key: sealColumn(box, 'integrations', id, 'signature_key', 'current'),
      previous_signature_key: sealColumn(box, 'integrations', id, 'previous_signature_key', 'replaced'),
      previous_signature_key_expires_at: expiresAt,
      ...over,
    }) as IntegrationRow;
  const at = (ms: number) => new Date(expiresAt.getTime() + ms);

  it('keeps the replaced key up to the last millisecond before it expires, and not at or after it', () => {
    expect(signatureKeys(box, row({}), at(-1))).toEqual(['current', 'replaced']);
    expect(signatureKeys(box, row({}), at(0))).toEqual(['current']);
    expect(signatureKeys(box, row({}), at(1))).toEqual(['current']);
  });

  it('has no replaced key without its expiry, and no current key once none is set', () => {
    expect(signatureKeys(box, row({ previous_signature_key_expires_at: null }), at(-60_000))).toEqual(['current']);
    expect(signatureKeys(box, row({ previous_signature_key: null }), at(-60_000))).toEqual(['current']);
    expect(signatureKeys(box, row({ signature_key: null }), at(-60_000))).toEqual(['replaced']);
    expect(signatureKeys(box, row({ signature_key: null, previous_signature_key: null }), at(-60_000))).toEqual([]);
  });
});

describe('Retry-After', () => {
  const now = Date.parse('2026-11-30T10:00:00.000Z');

  it('reads seconds, trimmed', () => {
    expect(parseRetryAfter('0', now)).toBe(0);
    expect(parseRetryAfter('120', now)).toBe(120);
    expect(parseRetryAfter(' 7 ', now)).toBe(7);
  });

  it('reads an HTTP date as the seconds until it, rounded up, and a date past as 0', () => {
    expect(parseRetryAfter('Mon, 30 Nov 2026 10:01:00 GMT', now)).toBe(60);
    expect(parseRetryAfter('Mon, 30 Nov 2026 10:00:01 GMT', now - 1)).toBe(2);
    expect(parseRetryAfter('Mon, 30 Nov 2026 10:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('Mon, 30 Nov 2026 09:59:00 GMT', now)).toBe(0);
  });

  it('is null when absent or unreadable', () => {
    expect(parseRetryAfter(null, now)).toBeNull();
    expect(parseRetryAfter('soon', now)).toBeNull();
    // Date.parse alone reads both as dates: the year 5 BC (so "now"), and a day of 2001.
    expect(parseRetryAfter('-5', now)).toBeNull();
    expect(parseRetryAfter('12 1', now)).toBeNull();
  });

  it("reads the obsolete forms RFC 9110 still asks for, asctime's as GMT whatever the server's zone", () => {
    const zone = process.env.TZ;
    process.env.TZ = 'Europe/Madrid';
    try {
      expect(parseRetryAfter('Monday, 30-Nov-26 10:00:30 GMT', now)).toBe(30);
      expect(parseRetryAfter('Mon Nov 30 10:00:30 2026', now)).toBe(30);
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });
});

describe('what a stored Square notification asks to fetch', () => {
  it('an order notification names its order, location, version and state', () => {
    expect(squareWorkOf(fixture('order-created-event.json'))).toEqual({
      kind: 'order',
      orderId: 'eA3vssLHKJrv9H0IdJCM3gNqfdcZY',
      locationId: 'FPYCBCHYMXFK1',
      version: 1,
      state: 'OPEN',
    });
    expect(squareWorkOf(fixture('order-updated-event.json'))).toMatchObject({ kind: 'order', version: 2 });
    expect(squareWorkOf(fixture('order-fulfillment-updated-event.json'))).toMatchObject({ kind: 'order', orderId: expect.any(String) });
  });

  it("falls back to the event's data id, and leaves out what is not of the right type", () => {
    expect(squareWorkOf({ type: 'order.updated', data: { id: 'ORDER-1', object: {} } })).toEqual({
      kind: 'order',
      orderId: 'ORDER-1',
      locationId: undefined,
    });
    expect(
      squareWorkOf({
        type: 'order.updated',
        data: { object: { order_updated: { order_id: 'O', location_id: 5, version: '2', state: 1 } } },
      }),
    ).toEqual({ kind: 'order', orderId: 'O', locationId: undefined });
    expect(squareWorkOf({ type: 'order.updated', data: { object: { order_updated: { order_id: 42 } } } })).toBeUndefined();
    expect(squareWorkOf({ type: 'order.updated' })).toBeUndefined();
  });

  it('a count names its variations and locations once each, from an hour before the earliest count', () => {
    expect(squareWorkOf(fixture('inventory-count-updated-event.json'))).toEqual({
      kind: 'inventory',
      catalogObjectIds: ['FGQ5JJWT2PYTHF35CKZ2DSKP'],
      locationIds: ['YYQR03DGCTXA4'],
      updatedAfter: '2019-10-29T17:38:45.102Z',
    });
    const counts = [
      { catalog_object_id: 'A', location_id: 'L1', calculated_at: '2026-11-30T09:00:00.000Z' },
      { catalog_object_id: 'B', location_id: 'L1', calculated_at: '2026-11-30T08:30:00.000Z' },
      { catalog_object_id: 'A', location_id: 'L2', calculated_at: 'not a time' },
      { catalog_object_id: 7, location_id: null },
    ];
    expect(squareWorkOf({ type: 'inventory.count.updated', data: { object: { inventory_counts: counts } } })).toEqual({
      kind: 'inventory',
      catalogObjectIds: ['A', 'B'],
      locationIds: ['L1', 'L2'],
      updatedAfter: '2026-11-30T07:30:00.000Z',
    });
  });

  it("takes the event's time when no count has one, and asks nothing without a variation or a time", () => {
    const noTimes = { inventory_counts: [{ catalog_object_id: 'A', location_id: 'L' }] };
    expect(
      squareWorkOf({ type: 'inventory.count.updated', created_at: '2026-11-30T10:00:00.000Z', data: { object: noTimes } }),
    ).toMatchObject({
      updatedAfter: '2026-11-30T09:00:00.000Z',
    });
    expect(squareWorkOf({ type: 'inventory.count.updated', data: { object: noTimes } })).toBeUndefined();
    expect(
      squareWorkOf({ type: 'inventory.count.updated', created_at: '2026-11-30T10:00:00.000Z', data: { object: { inventory_counts: [] } } }),
    ).toBeUndefined();
    expect(
      squareWorkOf({
        type: 'inventory.count.updated',
        created_at: '2026-11-30T10:00:00.000Z',
        data: { object: { inventory_counts: 'x' } },
      }),
    ).toBeUndefined();
  });
});

describe('the ids a refused line is kept by', () => {
  const orders = {
    orders: [
      {
        id: 'ORDER-1',
        line_items: [{ uid: 'LINE-A', catalog_object_id: 'VAR-1', name: 'Croissant', variation_name: 'Grande' }, { name: 'Importe libre' }],
      },
    ],
  };

  it('Square: the order, the line (the order and its uid), the variation and the name', () => {
    expect(squareLineIds(orders, 'orders.0.line_items.0', {}, 'evt')).toEqual({
      order_ref: 'ORDER-1',
      line_ref: 'ORDER-1:LINE-A',
      item_ref: 'VAR-1',
      item_name: 'Croissant · Grande',
    });
    // A line without a uid is named by its place; one the standard format already named, by that name.
    expect(squareLineIds(orders, 'orders.0.line_items.1', {}, 'evt')).toEqual({
      order_ref: 'ORDER-1',
      line_ref: 'ORDER-1:orders.0.line_items.1',
      item_ref: null,
      item_name: 'Importe libre',
    });
    expect(squareLineIds(orders, 'orders.0.line_items.0', { external_id: 'X:1' }, 'evt').line_ref).toBe('X:1');
    // An order without an id: the event's reference stands for it.
    expect(squareLineIds({ orders: [{ line_items: [{ uid: 'U' }] }] }, 'orders.0.line_items.0', {}, 'evt')).toEqual({
      order_ref: null,
      line_ref: 'evt:U',
      item_ref: null,
      item_name: null,
    });
  });

  it('Square: an order refused whole is one kept line per order, never mappable', () => {
    expect(squareRefusedWhole({ orders: [{ id: 'A' }, {}] }, 'no state', 'evt')).toEqual([
      { order_ref: 'A', line_ref: 'order:A', item_ref: null, item_name: null, reason: 'no state', mappable: false, line: null },
      { order_ref: null, line_ref: 'order:evt:1', item_ref: null, item_name: null, reason: 'no state', mappable: false, line: null },
    ]);
    expect(squareRefusedWhole({ id: 'B', line_items: [] }, 'why', 'evt')).toEqual([
      { order_ref: 'B', line_ref: 'order:B', item_ref: null, item_name: null, reason: 'why', mappable: false, line: null },
    ]);
  });

  it("Odoo: the order and product of a search_read line (many2one pairs), or the webhook's ids", () => {
    const lines = {
      lines: [
        { order_id: [12, 'Shop/0012'], product_id: [57, 'Pan de barra'] },
        { order_id: 13, product_id: 58, full_product_name: 'Huevos' },
      ],
    };
    expect(odooLineIds(lines, 'lines.0', {}, 'evt')).toEqual({
      order_ref: '12',
      line_ref: 'evt:lines.0',
      item_ref: '57',
      item_name: 'Pan de barra',
    });
    expect(odooLineIds(lines, 'lines.1', { external_id: 'odoo:99' }, 'evt')).toEqual({
      order_ref: '13',
      line_ref: 'odoo:99',
      item_ref: '58',
      item_name: 'Huevos',
    });
    expect(odooLineIds({}, '', {}, 'evt')).toEqual({ order_ref: null, line_ref: 'evt:0', item_ref: null, item_name: null });
    expect(odooRefusedWhole({ id: 1 }, 'why', 'evt')).toEqual([]);
  });
});
