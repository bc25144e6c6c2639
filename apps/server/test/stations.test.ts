import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importProducts } from '../src/admin/service.js';
import { createMember, DashboardBrowser, failure, PASSWORD, randomIp } from './dashboard-client.js';
import {
  api,
  CAUSA_CADUCIDAD,
  createTenant,
  DESTINO_DONATION,
  DESTINO_LANDFILL,
  recordAt,
  startTestApp,
  type Tenant,
  type TestContext,
  validRecord,
} from './helpers.js';

/**
 * Kitchen stations' devices (docs/decisions/0007-the-kitchen-station.md): an owner or admin pairs
 * a tablet with a one-time code; the tablet redeems it once for its token; the token answers for
 * its establishment and mode only; revoking it stops it on the next request. Codes and tokens are
 * stored as their hashes only.
 */

let now = new Date('2026-11-24T10:00:00.000Z');
let t: TestContext;
let tenant: Tenant;
let owner: DashboardBrowser;
let scope: { establishment_id: string; livemode: boolean };

beforeAll(async () => {
  // Each test's requests from addresses of their own (X-Forwarded-For, from the loopback proxy).
  t = await startTestApp({ config: { TRUST_PROXY: 'loopback' }, clock: () => now });
  tenant = await createTenant(t.db);
  scope = { establishment_id: tenant.establishmentId, livemode: false };
  const o = await createMember(t.db, tenant.organizationId, 'owner');
  owner = new DashboardBrowser(t.app);
  await owner.signIn(o.email, PASSWORD);
});
afterAll(() => t?.close());

const sha256 = (v: string) => createHash('sha256').update(v).digest('hex');

const pair = (code: unknown, ip = randomIp()) =>
  t.app.inject({
    method: 'POST',
    url: '/station/pair',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': ip },
    payload: JSON.stringify({ code }),
  });
const me = (token?: string) =>
  t.app.inject({ method: 'GET', url: '/station/me', headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });

const stored = (id: string) =>
  t.db.$queryRawUnsafe<{ name: string; pairing_code_hash: string | null; token_hash: string | null }[]>(
    'SELECT name, pairing_code_hash, token_hash FROM station_devices WHERE id = $1::uuid',
    id,
  );

describe('pairing a station', () => {
  it('shows a one-time code, which the tablet redeems once for a token of its establishment and mode', async () => {
    const started = await owner.mutate('stations.startPairing', { ...scope, name: 'Cocina — cubo 1' });
    expect(started.code).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/);
    expect(started.expires_at).toBe(new Date(now.getTime() + 10 * 60_000).toISOString());
    expect(started.device).toMatchObject({ name: 'Cocina — cubo 1', mode: 'test', status: 'pairing', paired_at: null });
    // Only the code's hash is kept, never the code.
    const [row] = await stored(started.device.id);
    expect(row?.pairing_code_hash).toBe(sha256(started.code.replace('-', '')));
    expect(JSON.stringify(row)).not.toContain(started.code.replace('-', ''));

    // Typed as a cook would: lower case, without the hyphen, an O for a 0.
    const typed = started.code.replace('-', ' ').toLowerCase().replace(/0/g, 'o');
    const res = await pair(typed);
    expect(res.statusCode, res.body).toBe(200);
    const redeemed = res.json().data;
    expect(redeemed.token).toMatch(/^stn_test_[0-9A-Za-z]{32}$/);
    expect(redeemed).toMatchObject({
      device: { id: started.device.id, name: 'Cocina — cubo 1' },
      establishment: { id: tenant.establishmentId, timezone: 'Europe/Madrid' },
      mode: 'test',
    });
    const [paired] = await stored(started.device.id);
    expect(paired).toMatchObject({ pairing_code_hash: null, token_hash: sha256(redeemed.token) });

    // Once only.
    const again = await pair(started.code);
    expect(again.statusCode).toBe(401);
    expect(again.json()).toMatchObject({ status: 401, code: 'unauthorized' });

    const who = await me(redeemed.token);
    expect(who.statusCode, who.body).toBe(200);
    expect(who.json().data).toEqual({ device: redeemed.device, establishment: redeemed.establishment, mode: 'test' });
    expect(who.headers['cache-control']).toBe('no-store');
    const listed = ((await owner.query('stations.list', scope)) as { id: string }[]).find((d) => d.id === started.device.id);
    expect(listed).toMatchObject({ id: started.device.id, status: 'active', last_used_at: expect.any(String) });
  });

  it('refuses a code once its 10 minutes are over, and an unknown or malformed one, all alike', async () => {
    const started = await owner.mutate('stations.startPairing', { ...scope, name: 'Barra' });
    now = new Date(now.getTime() + 10 * 60_000 + 1);
    try {
      const late = await pair(started.code);
      expect(late.statusCode).toBe(401);
      const device = ((await owner.query('stations.list', scope)) as { id: string }[]).find((d) => d.id === started.device.id);
      expect(device).toMatchObject({ id: started.device.id, status: 'expired' });
    } finally {
      now = new Date('2026-11-24T10:00:00.000Z');
    }
    for (const code of ['ZZZZ-ZZZZ', 'short', 'UUUU-UUUU']) {
      const res = await pair(code);
      expect(res.statusCode, code).toBe(401);
      expect(res.json().error).toBe('This pairing code is not valid: ask for a new one on the dashboard (Stations)');
    }
    expect((await pair(12345678)).statusCode).toBe(400);
  });

  it('stops a revoked device at its next request, and a device answers for its own establishment only', async () => {
    const started = await owner.mutate('stations.startPairing', { ...scope, name: 'Obrador' });
    const { token } = (await pair(started.code)).json().data;
    const other = await createTenant(t.db);
    const otherOwner = await createMember(t.db, other.organizationId, 'owner');
    const theirs = new DashboardBrowser(t.app);
    await theirs.signIn(otherOwner.email, PASSWORD);
    const otherScope = { establishment_id: other.establishmentId, livemode: false };
    // Another organisation neither sees nor revokes it.
    expect(await theirs.query('stations.list', otherScope)).toEqual([]);
    expect((await failure(theirs.mutate('stations.revoke', { ...otherScope, id: started.device.id }))).status).toBe(404);
    // Nor does this establishment's live mode.
    expect((await failure(owner.mutate('stations.revoke', { ...scope, livemode: true, id: started.device.id }))).status).toBe(404);
    expect((await me(token)).statusCode).toBe(200);

    const revoked = await owner.mutate('stations.revoke', { ...scope, id: started.device.id });
    expect(revoked).toMatchObject({ status: 'revoked', revoked_at: now.toISOString() });
    const refused = await me(token);
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toMatchObject({ code: 'unauthorized' });
    // A pairing revoked before it was used cannot be redeemed.
    const waiting = await owner.mutate('stations.startPairing', { ...scope, name: 'Cámara' });
    await owner.mutate('stations.revoke', { ...scope, id: waiting.device.id });
    expect((await pair(waiting.code)).statusCode).toBe(401);
    // Audited, without the code.
    const audit = await t.db.auditEvent.findMany({ where: { organization_id: tenant.organizationId, action: { startsWith: 'station.' } } });
    expect(audit.map((a) => a.action).sort()).toContain('station.revoked');
    expect(JSON.stringify(audit)).not.toContain(started.code);
  });

  it('refuses a missing, malformed or unknown token', async () => {
    expect((await me()).statusCode).toBe(401);
    expect((await me('svc_test_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa')).statusCode).toBe(401);
    expect((await me(`stn_test_${'a'.repeat(32)}`)).statusCode).toBe(401);
  });

  it('slows down guessing: past 30 attempts a minute from one address, even a right code is refused (429)', async () => {
    const ip = randomIp();
    for (let i = 0; i < 30; i++) expect((await pair('ZZZZ-ZZZZ', ip)).statusCode).toBe(401);
    const started = await owner.mutate('stations.startPairing', { ...scope, name: 'Tarde' });
    const limited = await pair(started.code, ip);
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBeTruthy();
    // From another address the same code still works: it was not spent.
    expect((await pair(started.code)).statusCode).toBe(200);
  });
});

describe("a station's setup", () => {
  it('orders the categories and causes its kitchen uses most first, the destinations by the Ley, with the shift, sessions and today', async () => {
    const kitchen = await createTenant(t.db);
    const key = api(t.app, kitchen.key);
    expect((await key.post('/api/v1/shifts', { name: 'Mañana', start_time: '07:00', end_time: '15:00' })).statusCode).toBe(201);
    const session = (await key.post('/api/v1/sessions', { name: 'Cierre' })).json().data;
    const records = [
      validRecord({ food_category: 'fish', weight_kg: 1.25, destino_id: DESTINO_LANDFILL, causa_id: CAUSA_CADUCIDAD }),
      validRecord({ food_category: 'fish', weight_kg: 0.5, destino_id: DESTINO_LANDFILL }),
      validRecord({ food_category: 'bakery', weight_kg: 2, destino_id: DESTINO_DONATION, causa_id: CAUSA_CADUCIDAD }),
      // Ten days ago: counts for the order, not for today.
      validRecord({ food_category: 'fish', weight_kg: 3, occurred_at: '2026-11-14T10:00:00.000Z' }),
    ];
    expect((await key.post('/api/v1/records/batch', { records })).statusCode).toBe(200);
    const ownerOf = await createMember(t.db, kitchen.organizationId, 'owner');
    const admin = new DashboardBrowser(t.app);
    await admin.signIn(ownerOf.email, PASSWORD);
    const started = await admin.mutate('stations.startPairing', {
      establishment_id: kitchen.establishmentId,
      livemode: false,
      name: 'Cubo',
    });
    const { token } = (await pair(started.code)).json().data;

    const res = await t.app.inject({ method: 'GET', url: '/station/setup', headers: { authorization: `Bearer ${token}` } });
    expect(res.statusCode, res.body).toBe(200);
    const setup = res.json().data;
    expect(setup.station).toMatchObject({ device: { name: 'Cubo' }, establishment: { id: kitchen.establishmentId }, mode: 'test' });
    expect(setup.categories.slice(0, 2)).toEqual([
      { food_category: 'fish', uses: 3 },
      { food_category: 'bakery', uses: 1 },
    ]);
    expect(setup.categories).toHaveLength(9);
    expect(setup.categories.slice(2).every((c: { uses: number }) => c.uses === 0)).toBe(true);
    expect(setup.causes[0]).toMatchObject({ id: CAUSA_CADUCIDAD, uses: 2 });
    // The Ley's order, whatever is used most (landfill was used twice, donation once).
    const orders = setup.destinations.map((d: { orden: number }) => d.orden);
    expect(orders).toEqual([...orders].sort((a, b) => a - b));
    expect(setup.destinations.find((d: { id: string }) => d.id === DESTINO_LANDFILL).uses).toBe(2);
    expect(setup.current_shift_id).toBe(setup.shifts[0].id);
    expect(setup.sessions.map((s: { id: string }) => s.id)).toEqual([session.id]);
    expect(setup.today).toEqual({ day: '2026-11-24', records: 3, kg: 3.75 });

    // Another establishment's device sees its own, empty kitchen; a revoked one nothing.
    const bare = await owner.mutate('stations.startPairing', { ...scope, name: 'Otra' });
    const other = (await pair(bare.code)).json().data.token;
    const theirs = (await t.app.inject({ method: 'GET', url: '/station/setup', headers: { authorization: `Bearer ${other}` } })).json()
      .data;
    expect(theirs.today.records).toBe(0);
    expect(theirs.sessions).toEqual([]);
    await admin.mutate('stations.revoke', { establishment_id: kitchen.establishmentId, livemode: false, id: started.device.id });
    expect((await t.app.inject({ method: 'GET', url: '/station/setup', headers: { authorization: `Bearer ${token}` } })).statusCode).toBe(
      401,
    );
  });
});

/** A paired device of a new kitchen, with its owner's API key to look at what it stored. */
async function pairedKitchen(name = 'Cubo') {
  const kitchen = await createTenant(t.db);
  const ownerOf = await createMember(t.db, kitchen.organizationId, 'owner');
  const admin = new DashboardBrowser(t.app);
  await admin.signIn(ownerOf.email, PASSWORD);
  const started = await admin.mutate('stations.startPairing', { establishment_id: kitchen.establishmentId, livemode: false, name });
  const { token, device } = (await pair(started.code)).json().data;
  const send = (url: string, body: unknown, key: string | null = randomUUID()) =>
    t.app.inject({
      method: 'POST',
      url,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
      payload: JSON.stringify(body),
    });
  const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
  return { kitchen, admin, token, device: device as { id: string }, send, get, key: api(t.app, kitchen.key) };
}

const countRecords = (establishmentId: string) =>
  t.db.$queryRawUnsafe<{ n: number; counting: number }[]>(
    'SELECT count(*)::int AS n, count(*) FILTER (WHERE superseded_by IS NULL)::int AS counting FROM records WHERE establishment_id = $1::uuid',
    establishmentId,
  );

describe("a station's records", () => {
  it('stores a record once per Idempotency-Key, with its tap time and its device as source, in the register and the totals', async () => {
    const s = await pairedKitchen();
    const tap = new Date(now.getTime() - 90_000).toISOString();
    const body = validRecord({ food_category: 'bakery', weight_kg: 0.75, causa_id: CAUSA_CADUCIDAD, occurred_at: tap });
    const key = randomUUID();
    const first = await s.send('/station/records', body, key);
    expect(first.statusCode, first.body).toBe(201);
    const record = first.json().data;
    expect(record).toMatchObject({ food_category: 'bakery', weight_kg: 0.75, occurred_at: tap, source: `station:${s.device.id}` });
    // Sent again (the answer was lost on the way): the same record, not a second one.
    const again = await s.send('/station/records', body, key);
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    // The key names the record (its statement claimed it) and keeps nothing of it.
    const [claim] = await t.db.idempotencyKey.findMany({ where: { establishment_id: s.kitchen.establishmentId } });
    expect(claim).toMatchObject({ key, status_code: 201, record_id: record.id, response_body: '' });
    // The same key with another record is refused, and stores nothing.
    expect((await s.send('/station/records', { ...body, weight_kg: 2 }, key)).statusCode).toBe(409);
    expect(await countRecords(s.kitchen.establishmentId)).toEqual([{ n: 1, counting: 1 }]);
    // The API sees it, and the chain holds.
    const listed = (await s.key.get('/api/v1/records')).json().data;
    expect(listed.map((r: { id: string }) => r.id)).toEqual([record.id]);
    expect((await s.key.get('/api/v1/records/verify')).json().data).toMatchObject({ valid: true, checked: 1 });
    const recent = (await s.get('/station/records')).json().data;
    expect(recent.records.map((r: { id: string }) => r.id)).toEqual([record.id]);
    expect(recent.today).toEqual({ day: '2026-11-24', records: 1, kg: 0.75 });
  });

  it('refuses bad input with a clear message and stores nothing', async () => {
    const s = await pairedKitchen();
    const cases: [unknown, RegExp][] = [
      [validRecord({ weight_kg: 0 }), /weight_kg/],
      [validRecord({ weight_kg: -1 }), /weight_kg/],
      [validRecord({ weight_kg: 1_000_001 }), /weight_kg/],
      // A station's own limit, under the API's: 500 kg.
      [validRecord({ weight_kg: 500.001 }), /weight_kg: at most 500 kg from a station/],
      [validRecord({ food_category: 'gravel' }), /food_category/],
      [validRecord({ destino_id: randomUUID() }), /destino_id: no destination has this id/],
      [validRecord({ session_id: randomUUID() }), /session_id/],
    ];
    for (const [body, message] of cases) {
      const res = await s.send('/station/records', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json()).toMatchObject({ code: 'validation_error' });
      expect(res.json().error).toMatch(message);
    }
    const unkeyed = await s.send('/station/records', validRecord(), null);
    expect(unkeyed.statusCode).toBe(400);
    expect(unkeyed.json().details).toEqual([{ path: 'Idempotency-Key', message: expect.stringContaining('required') }]);
    expect(await countRecords(s.kitchen.establishmentId)).toEqual([{ n: 0, counting: 0 }]);
  });

  it('undoes its own last record by a voiding correction, within the window only; the chain stays whole', async () => {
    const s = await pairedKitchen();
    const kept = (await s.send('/station/records', validRecord({ weight_kg: 1 }))).json().data;
    const wrong = (await s.send('/station/records', validRecord({ weight_kg: 4.2 }))).json().data;
    const undoKey = randomUUID();
    const undo = await s.send(`/station/records/${wrong.id}/undo`, {}, undoKey);
    expect(undo.statusCode, undo.body).toBe(200);
    const voiding = undo.json().data;
    expect(voiding).toMatchObject({ supersedes_id: wrong.id, voided: true, weight_kg: 4.2, source: `station:${s.device.id}` });
    // Sent twice (no answer the first time): the same undo.
    expect((await s.send(`/station/records/${wrong.id}/undo`, {}, undoKey)).json().data.id).toBe(voiding.id);
    // A second undo under a new key: already undone.
    expect((await s.send(`/station/records/${wrong.id}/undo`, {})).statusCode).toBe(409);
    // Neither counts; the register keeps all three; the chain verifies.
    expect(await countRecords(s.kitchen.establishmentId)).toEqual([{ n: 3, counting: 1 }]);
    expect((await s.key.get('/api/v1/records')).json().data.map((r: { id: string }) => r.id)).toEqual([kept.id]);
    expect((await s.get('/station/records')).json().data.today).toEqual({ day: '2026-11-24', records: 1, kg: 1 });
    const day = (await s.key.get('/api/v1/analytics', { query: { from: '2026-11-24', to: '2026-11-24' } })).json().data;
    expect(day.total_kg).toBe(1);
    expect((await s.key.get('/api/v1/records/verify')).json().data).toMatchObject({ valid: true, checked: 3 });
    // The void is in its hash: clearing it breaks the chain.
    await t.db.$executeRawUnsafe('UPDATE records SET voided = false WHERE id = $1::uuid', voiding.id);
    const tampered = (await s.key.get('/api/v1/records/verify', { query: { full: 'true' } })).json().data;
    expect(tampered).toMatchObject({ valid: false, first_invalid: { id: voiding.id, reason: 'hash_mismatch' } });
    await t.db.$executeRawUnsafe('UPDATE records SET voided = true WHERE id = $1::uuid', voiding.id);

    // Past the window: corrected from the dashboard instead.
    const late = (await s.send('/station/records', validRecord({ weight_kg: 2 }))).json().data;
    now = new Date(now.getTime() + 301_000);
    try {
      const refused = await s.send(`/station/records/${late.id}/undo`, {});
      expect(refused.statusCode).toBe(409);
      expect(refused.json().error).toMatch(/5 minutes.*dashboard/);
    } finally {
      now = new Date(now.getTime() - 301_000);
    }
    // Another source's record is not the station's to undo.
    const fromApi = (await s.key.post('/api/v1/records', validRecord())).json().data;
    expect((await s.send(`/station/records/${fromApi.id}/undo`, {})).statusCode).toBe(404);
  });

  it('starts and completes a registration session: its records carry it, and session.completed fires', async () => {
    const s = await pairedKitchen();
    const started = await s.send('/station/sessions', { name: 'Recuento de cierre' });
    expect(started.statusCode, started.body).toBe(201);
    const session = started.json().data;
    expect(session).toMatchObject({ name: 'Recuento de cierre', status: 'open' });
    expect((await s.send('/station/records', validRecord({ weight_kg: 1.5, session_id: session.id }))).statusCode).toBe(201);
    expect((await s.get('/station/setup')).json().data.sessions.map((x: { id: string }) => x.id)).toEqual([session.id]);
    const done = await s.send(`/station/sessions/${session.id}/complete`, {});
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json().data).toMatchObject({ status: 'completed', record_count: 1, total_kg: 1.5 });
    const events = await t.db.event.findMany({ where: { establishment_id: s.kitchen.establishmentId, type: 'session.completed' } });
    expect(events).toHaveLength(1);
    // A completed session takes no more records.
    expect((await s.send('/station/records', validRecord({ session_id: session.id }))).statusCode).toBe(400);
  });

  it('writes to its own establishment only, and stops writing once revoked', async () => {
    const a = await pairedKitchen('A');
    const b = await pairedKitchen('B');
    // B's session, shift and records are not A's to use.
    const theirs = (await b.send('/station/sessions', { name: 'B' })).json().data;
    expect((await a.send('/station/records', validRecord({ session_id: theirs.id }))).statusCode).toBe(400);
    expect((await a.send(`/station/sessions/${theirs.id}/complete`, {})).statusCode).toBe(404);
    const bRecord = (await b.send('/station/records', validRecord())).json().data;
    expect((await a.send(`/station/records/${bRecord.id}/undo`, {})).statusCode).toBe(404);
    expect(await countRecords(a.kitchen.establishmentId)).toEqual([{ n: 0, counting: 0 }]);

    // A device's token is not an API key, nor an API key a device's token.
    expect((await api(t.app, a.token).post('/api/v1/records', validRecord())).statusCode).toBe(401);
    const withKey = await t.app.inject({
      method: 'POST',
      url: '/station/records',
      headers: { authorization: `Bearer ${a.kitchen.key}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      payload: JSON.stringify(validRecord()),
    });
    expect(withKey.statusCode).toBe(401);
    expect(await countRecords(a.kitchen.establishmentId)).toEqual([{ n: 0, counting: 0 }]);

    await a.admin.mutate('stations.revoke', { establishment_id: a.kitchen.establishmentId, livemode: false, id: a.device.id });
    const key = randomUUID();
    const refused = await a.send('/station/records', validRecord(), key);
    expect(refused.statusCode).toBe(401);
    expect(await countRecords(a.kitchen.establishmentId)).toEqual([{ n: 0, counting: 0 }]);
  });
});

describe("a station's allowance", () => {
  it("is an API key's allowance of record writes, per device: past it 429 with Retry-After, and nothing stored", async () => {
    const limited = await startTestApp({ config: { RATE_LIMIT_RECORDS_PER_MINUTE: '3' }, clock: () => now });
    try {
      const kitchen = await createTenant(limited.db);
      const o = await createMember(limited.db, kitchen.organizationId, 'owner');
      const admin = new DashboardBrowser(limited.app);
      await admin.signIn(o.email, PASSWORD);
      const scope = { establishment_id: kitchen.establishmentId, livemode: false };
      const tokenOf = async (name: string) => {
        const started = await admin.mutate('stations.startPairing', { ...scope, name });
        const res = await limited.app.inject({
          method: 'POST',
          url: '/station/pair',
          headers: { 'content-type': 'application/json' },
          payload: JSON.stringify({ code: started.code }),
        });
        return res.json().data.token as string;
      };
      const send = (token: string) =>
        limited.app.inject({
          method: 'POST',
          url: '/station/records',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
          payload: JSON.stringify(validRecord()),
        });
      const first = await tokenOf('Uno');
      for (let i = 0; i < 3; i++) expect((await send(first)).statusCode).toBe(201);
      const refused = await send(first);
      expect(refused.statusCode).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      // Another device of the same kitchen has its own allowance.
      expect((await send(await tokenOf('Dos'))).statusCode).toBe(201);
      const [count] = await limited.db.$queryRawUnsafe<{ n: number }[]>(
        'SELECT count(*)::int AS n FROM records WHERE establishment_id = $1::uuid',
        kitchen.establishmentId,
      );
      expect(count?.n).toBe(4);
    } finally {
      await limited.close();
    }
  });
});

describe("the kitchen's containers for the tare", () => {
  it('are named by an owner or admin, each audited, listed by name, and offered to every station of the establishment', async () => {
    const s = await pairedKitchen();
    const est = { establishment_id: s.kitchen.establishmentId };
    const audited = () =>
      t.db.auditEvent.count({
        where: { organization_id: s.kitchen.organizationId, action: { in: ['tare_preset.created', 'tare_preset.deleted'] } },
      });
    expect((await s.get('/station/setup')).json().data.tare_presets).toEqual([]);
    const bin = await s.admin.mutate('stations.addTarePreset', { ...est, name: '  Cubo azul ', tare_kg: 0.35 });
    expect(bin).toEqual({ id: expect.any(String), name: 'Cubo azul', tare_kg: 0.35 });
    await s.admin.mutate('stations.addTarePreset', { ...est, name: 'Bandeja GN 1/1', tare_kg: 1.2 });
    expect((await s.admin.query('stations.tarePresets', est)).map((p: { name: string }) => p.name)).toEqual([
      'Bandeja GN 1/1',
      'Cubo azul',
    ]);
    expect((await s.get('/station/setup')).json().data.tare_presets).toEqual([
      { id: expect.any(String), name: 'Bandeja GN 1/1', tare_kg: 1.2 },
      { id: bin.id, name: 'Cubo azul', tare_kg: 0.35 },
    ]);
    const gone = await s.admin.mutate('stations.deleteTarePreset', { ...est, id: bin.id });
    expect(gone.name).toBe('Cubo azul');
    expect((await s.get('/station/setup')).json().data.tare_presets.map((p: { name: string }) => p.name)).toEqual(['Bandeja GN 1/1']);
    expect(await audited()).toBe(3);
  });

  it('refuses a blank name, a weight out of bounds or finer than a gram, a name taken, a 21st container and other roles, writing nothing', async () => {
    const s = await pairedKitchen();
    const est = { establishment_id: s.kitchen.establishmentId };
    const rows = async () =>
      (
        await t.db.$queryRawUnsafe<{ n: number }[]>(
          'SELECT count(*)::int AS n FROM tare_presets WHERE establishment_id = $1::uuid',
          est.establishment_id,
        )
      )[0]?.n;
    await s.admin.mutate('stations.addTarePreset', { ...est, name: 'Cubo azul', tare_kg: 0.35 });
    for (const [bad, status] of [
      [{ name: '', tare_kg: 1 }, 400],
      [{ name: '   ', tare_kg: 1 }, 400],
      [{ name: 'x'.repeat(61), tare_kg: 1 }, 400],
      [{ name: 'Cubo', tare_kg: 0 }, 400],
      [{ name: 'Cubo', tare_kg: -1 }, 400],
      [{ name: 'Cubo', tare_kg: 100.001 }, 400],
      [{ name: 'Cubo', tare_kg: 0.0005 }, 400],
      [{ name: 'cubo AZUL', tare_kg: 0.4 }, 409],
    ] as const) {
      expect(await failure(s.admin.mutate('stations.addTarePreset', { ...est, ...bad })), JSON.stringify(bad)).toMatchObject({ status });
    }
    // 100 kg exactly is a container; the 20th is taken and the 21st refused.
    await s.admin.mutate('stations.addTarePreset', { ...est, name: 'Contenedor 100', tare_kg: 100 });
    for (let i = 3; i <= 20; i++) await s.admin.mutate('stations.addTarePreset', { ...est, name: `Caja ${i}`, tare_kg: 0.5 });
    expect(await rows()).toBe(20);
    expect(await failure(s.admin.mutate('stations.addTarePreset', { ...est, name: 'Caja 21', tare_kg: 0.5 }))).toMatchObject({
      status: 400,
    });
    for (const role of ['developer', 'viewer'] as const) {
      const m = await createMember(t.db, s.kitchen.organizationId, role);
      const b = new DashboardBrowser(t.app);
      await b.signIn(m.email, PASSWORD);
      expect(await failure(b.mutate('stations.addTarePreset', { ...est, name: `De ${role}`, tare_kg: 1 }))).toMatchObject({ status: 403 });
    }
    expect(await rows()).toBe(20);
    // Another establishment's container is not this one's to delete.
    const other = await pairedKitchen();
    const theirs = await other.admin.mutate('stations.addTarePreset', {
      establishment_id: other.kitchen.establishmentId,
      name: 'Suyo',
      tare_kg: 1,
    });
    expect(await failure(s.admin.mutate('stations.deleteTarePreset', { ...est, id: theirs.id }))).toMatchObject({ status: 404 });
    expect((await other.admin.query('stations.tarePresets', { establishment_id: other.kitchen.establishmentId })).length).toBe(1);
  });
});

describe("the station's quick buttons", () => {
  it('offer the products thrown most in the last 90 days that have a unit weight, most first, and a tap is stored counted', async () => {
    const s = await pairedKitchen();
    await importProducts(t.db, {
      org: s.kitchen.organizationId,
      csv: [
        'name;food_category;ean;unit_weight_kg',
        'Croissant;bakery;8410000000023;0,06',
        'Yogur;dairy;8410000810004;0,125',
        'Pan a granel;bakery;8410000000030;',
        'Tarta;bakery;8410000000047;1,2',
        'Zumo;beverages;8410000000054;0,25',
      ].join('\n'),
    });
    const products = Object.fromEntries(
      (await t.db.product.findMany({ where: { organization_id: s.kitchen.organizationId } })).map((p) => [p.name, p.id]),
    );
    const DAY = 86_400_000;
    const at = (msAgo: number) => new Date(now.getTime() - msAgo).toISOString();
    const thrown = async (name: string, msAgo: number, options: { livemode?: boolean } = {}) =>
      recordAt(t.db, s.kitchen, at(msAgo), { food_category: 'bakery', weight_kg: 1, product_id: products[name] }, options);
    for (let i = 0; i < 3; i++) await thrown('Croissant', DAY);
    await thrown('Yogur', 2 * DAY);
    // Just inside the 90 days, and just outside them.
    await thrown('Tarta', 90 * DAY - 60_000);
    for (let i = 0; i < 4; i++) await thrown('Zumo', 90 * DAY + 60_000);
    // No unit weight: it cannot be counted. Another mode's records are that mode's.
    for (let i = 0; i < 5; i++) await thrown('Pan a granel', DAY);
    for (let i = 0; i < 5; i++) await thrown('Yogur', DAY, { livemode: true });

    const setup = (await s.get('/station/setup')).json().data;
    expect(setup.quick_products).toEqual([
      { id: products.Croissant, name: 'Croissant', food_category: 'bakery', unit_weight_kg: 0.06, uses: 3 },
      { id: products.Tarta, name: 'Tarta', food_category: 'bakery', unit_weight_kg: 1.2, uses: 1 },
      { id: products.Yogur, name: 'Yogur', food_category: 'dairy', unit_weight_kg: 0.125, uses: 1 },
    ]);
    // A deactivated product has no button.
    await t.db.product.update({ where: { id: products.Croissant as string }, data: { deactivated_at: now } });
    expect((await s.get('/station/setup')).json().data.quick_products.map((p: { name: string }) => p.name)).toEqual(['Tarta', 'Yogur']);

    // 12 yogurts counted at the bin: 1,5 kg, by counting, of that product.
    const counted = await s.send('/station/records', {
      food_category: 'dairy',
      weight_kg: 1.5,
      destino_id: DESTINO_LANDFILL,
      product_id: products.Yogur,
      product_name: 'Yogur',
      measurement_method: 'counting',
    });
    expect(counted.statusCode, counted.body).toBe(201);
    expect(counted.json().data).toMatchObject({ measurement_method: 'counting', estimated: false, product_id: products.Yogur });
  });
});
