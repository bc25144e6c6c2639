import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMember, DashboardBrowser, PASSWORD, randomIp } from './dashboard-client.js';
import { addKey, createTenant, startTestApp, type Tenant, type TestContext } from './helpers.js';

/**
 * Donations at the kitchen station (surfaces/station.ts): the agreements in force for the device's
 * establishment, an offer written like a record (Idempotency-Key required, a replay answers the
 * same donation), the signing link for the volunteer's QR code, and the donation polled until the
 * entity has signed it — for the device's establishment and mode only.
 */

const now = new Date('2026-12-01T10:00:00.000Z');
let t: TestContext;

const PDF = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(256, 7), Buffer.from('\n%%EOF\n')]);

const api = (key: string, method: 'POST' | 'PUT', url: string, body: unknown, contentType = 'application/json') =>
  t.app.inject({
    method,
    url: `/api/v1${url}`,
    headers: { authorization: `Bearer ${key}`, 'content-type': contentType },
    payload: Buffer.isBuffer(body) ? body : JSON.stringify(body),
  });

/** An agreement in force for `tenant`'s establishment (signed document stored); its id. */
async function agreementFor(tenant: Tenant, options: { draft?: boolean; nif?: string } = {}): Promise<string> {
  const live = (await addKey(t.db, tenant.establishmentId, 'live')).key;
  const entity = await api(live, 'POST', '/social-entities', {
    name: 'Banco de Alimentos del Barrio',
    nif: options.nif ?? 'G28029643',
    address: 'Calle Mayor 1, Madrid',
    legal_form: 'banco_de_alimentos',
    ley_49_2002: { art2_entity: true, regime_opted_in: true },
    capacity: { cold_chain: true, vehicle: true },
  });
  expect(entity.statusCode, entity.body).toBe(201);
  const agreement = await api(live, 'POST', '/donation-agreements', {
    entity_id: entity.json().data.id,
    establishment_ids: [tenant.establishmentId],
    valid_from: '2026-01-01',
    valid_until: '2027-12-31',
    renewal: 'none',
    accepted_food_categories: ['bakery', 'fruit_veg'],
    conditions: { chilled: true, frozen: false, cooked: false, near_best_before: true },
    collection: { schedule: 'Lunes', weekdays: ['monday'], transport: 'entity' },
    storage_conditions: 'Seco',
    safety_responsibility_clause: 'Cada parte la suya',
    refusal_procedure: 'Por escrito',
  });
  expect(agreement.statusCode, agreement.body).toBe(201);
  const id = agreement.json().data.id as string;
  if (!options.draft) {
    expect((await api(live, 'PUT', `/donation-agreements/${id}/document`, PDF, 'application/pdf')).statusCode).toBe(200);
  }
  return id;
}

/** A device of `tenant`'s establishment in `mode`, paired; its token. */
async function stationOf(tenant: Tenant, mode: 'live' | 'test'): Promise<string> {
  const o = await createMember(t.db, tenant.organizationId, 'owner');
  const owner = new DashboardBrowser(t.app);
  await owner.signIn(o.email, PASSWORD);
  const started = await owner.mutate('stations.startPairing', {
    establishment_id: tenant.establishmentId,
    livemode: mode === 'live',
    name: 'Cocina',
  });
  const res = await t.app.inject({
    method: 'POST',
    url: '/station/pair',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': randomIp() },
    payload: JSON.stringify({ code: started.code }),
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data.token as string;
}

const station = (token: string, method: 'GET' | 'POST', url: string, body?: unknown, key: string | null = randomUUID()) =>
  t.app.inject({
    method,
    url: `/station${url}`,
    headers: {
      authorization: `Bearer ${token}`,
      ...(key && method === 'POST' ? { 'idempotency-key': key } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });

const offer = (agreementId: string) => ({
  agreement_id: agreementId,
  lines: [
    { description: 'Pan de barra', food_category: 'bakery', quantity: 3, unit: 'kg' },
    { description: 'Manzanas', food_category: 'fruit_veg', quantity: 12, unit: 'unit', net_kg: 2.4, best_before: '2026-12-20' },
  ],
});

let kitchen: Tenant;
let agreement: string;
let liveStation: string;

beforeAll(async () => {
  t = await startTestApp({ config: { TRUST_PROXY: 'loopback' }, clock: () => now });
  kitchen = await createTenant(t.db);
  agreement = await agreementFor(kitchen);
  liveStation = await stationOf(kitchen, 'live');
});
afterAll(() => t?.close());

describe('donations at the station', () => {
  it('lists the agreements in force for its establishment only', async () => {
    const other = await createTenant(t.db);
    await agreementFor(other);
    // A draft (no signed document) of this kitchen is not in force.
    await agreementFor(kitchen, { draft: true, nif: 'G28029650' });
    const res = await station(liveStation, 'GET', '/donations/agreements');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.json().data).toEqual([
      {
        id: agreement,
        entity_name: 'Banco de Alimentos del Barrio',
        accepted_food_categories: ['bakery', 'fruit_veg'],
        conditions: { chilled: true, frozen: false, cooked: false, near_best_before: true },
        valid_until: '2027-12-31',
      },
    ]);
  });

  it('offers a donation once per Idempotency-Key, makes its signing link and shows it signed', async () => {
    const key = randomUUID();
    const res = await station(liveStation, 'POST', '/donations', offer(agreement), key);
    expect(res.statusCode, res.body).toBe(201);
    const donation = res.json().data;
    expect(donation).toMatchObject({ establishment_id: kitchen.establishmentId, livemode: true, status: 'offered' });
    // Sent again (no answer reached the tablet): the same donation, not a second one.
    const again = await station(liveStation, 'POST', '/donations', offer(agreement), key);
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().data.id).toBe(donation.id);
    const [count] = await t.db.$queryRawUnsafe<{ n: number }[]>(
      'SELECT count(*)::int AS n FROM donations WHERE establishment_id = $1::uuid AND livemode',
      kitchen.establishmentId,
    );
    expect(count?.n).toBe(1);

    const link = await station(liveStation, 'POST', `/donations/${donation.id}/link`, {});
    expect(link.statusCode, link.body).toBe(201);
    const { url, expires_at } = link.json().data;
    expect(url).toMatch(new RegExp(`^http://[^/]+/dashboard/sign/${donation.id}#dln_[A-Za-z0-9_-]{43}$`));
    expect(new Date(expires_at).getTime()).toBeGreaterThan(now.getTime());

    const before = await station(liveStation, 'GET', `/donations/${donation.id}`);
    expect(before.statusCode, before.body).toBe(200);
    expect(before.json().data).toMatchObject({
      id: donation.id,
      status: 'offered',
      signed: null,
      entity_name: 'Banco de Alimentos del Barrio',
    });
    expect(before.json().data.lines).toEqual([
      expect.objectContaining({ description: 'Pan de barra', quantity: 3, unit: 'kg', status: 'offered' }),
      expect.objectContaining({ description: 'Manzanas', quantity: 12, unit: 'unit', net_kg: 2.4, status: 'offered' }),
    ]);

    const token = url.slice(url.indexOf('#') + 1);
    const lines = before.json().data.lines as { id: string }[];
    const signed = await t.app.inject({
      method: 'POST',
      url: `/donation-link/donations/${donation.id}/signature`,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: JSON.stringify({
        lines: lines.map((l) => ({ line_id: l.id, decision: 'accepted' })),
        signer: { name: 'Lucía Pérez', id_document: '12345678Z', signature: { kind: 'typed', text: 'Lucía Pérez' } },
      }),
    });
    expect(signed.statusCode, signed.body).toBe(200);
    const after = await station(liveStation, 'GET', `/donations/${donation.id}`);
    expect(after.json().data).toMatchObject({ status: 'accepted', signed: { name: 'Lucía Pérez', signed_at: now.toISOString() } });
  });

  it("answers 404 for another establishment's donation or an unknown one", async () => {
    const other = await createTenant(t.db);
    const otherStation = await stationOf(other, 'live');
    const theirs = (await station(otherStation, 'POST', '/donations', offer(await agreementFor(other)))).json().data;
    expect(theirs.id).toBeTruthy();
    expect((await station(liveStation, 'GET', `/donations/${theirs.id}`)).statusCode).toBe(404);
    const link = await station(liveStation, 'POST', `/donations/${theirs.id}/link`, {});
    expect(link.statusCode).toBe(404);
    expect((await station(liveStation, 'GET', `/donations/${randomUUID()}`)).statusCode).toBe(404);
    expect((await station(liveStation, 'GET', '/donations/not-a-uuid')).statusCode).toBe(400);
  });

  it('needs an Idempotency-Key for an offer and for a link', async () => {
    const res = await station(liveStation, 'POST', '/donations', offer(agreement), null);
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toEqual([expect.objectContaining({ path: 'Idempotency-Key' })]);
    const link = await station(liveStation, 'POST', `/donations/${randomUUID()}/link`, {}, null);
    expect(link.statusCode).toBe(400);
  });

  it("a test-mode device offers test donations under the organisation's agreements", async () => {
    const testStation = await stationOf(kitchen, 'test');
    expect((await station(testStation, 'GET', '/donations/agreements')).json().data).toEqual([expect.objectContaining({ id: agreement })]);
    const res = await station(testStation, 'POST', '/donations', offer(agreement));
    expect(res.statusCode, res.body).toBe(201);
    const donation = res.json().data;
    expect(donation.livemode).toBe(false);
    expect((await station(testStation, 'GET', `/donations/${donation.id}`)).json().data).toMatchObject({ status: 'offered' });
    // The live device of the same kitchen does not see it.
    expect((await station(liveStation, 'GET', `/donations/${donation.id}`)).statusCode).toBe(404);
    expect((await station(testStation, 'POST', `/donations/${donation.id}/link`, { expires_in_hours: 2 })).statusCode).toBe(201);
  });
});
