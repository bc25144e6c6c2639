import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMember, DashboardBrowser, failure, PASSWORD, randomIp } from './dashboard-client.js';
import {
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
