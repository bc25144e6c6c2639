import { randomUUID } from 'node:crypto';
import { addDays } from '@merma/schema';
import type { InjectOptions } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importProducts } from '../src/admin/service.js';
import { sendPasswordResetMail } from '../src/modules/accounts/service.js';
import { purgeExpired } from '../src/modules/retention/purge.js';
import { capturingMailer, createMember, DashboardBrowser, failure, NO_SESSION, PASSWORD, randomIp, tokenOf } from './dashboard-client.js';
import { api, createTenant, startTestApp, type TestContext, validRecord } from './helpers.js';

/**
 * Every expiring secret and window of the dashboard, the stations and the API, on both sides of its
 * edge, with the server's clock moved rather than waited for (as integration-windows.test.ts does for
 * the integrations): a login session idle for 7 days and one 30 days old, an invitation after 7 days,
 * a password-reset link after an hour, a station's pairing code after 10 minutes, a station's undo
 * after 5 minutes, and the sales kept by the retention purge across a UTC midnight. The replay window
 * of an Idempotency-Key is counted by the database's own clock (`now()` in http/idempotency.ts), which
 * the app's clock does not move: its stored row is moved back instead. The other retention cutoffs
 * (idempotency keys, events, inbound ids, account rows) are probed a second either side in
 * retention-job.test.ts; the integrations' windows in integration-windows.test.ts.
 */
const T0 = new Date('2027-03-01T09:00:00.000Z');
let now = T0;
let t: TestContext;
let pool: pg.Pool;
const mailer = capturingMailer();

beforeAll(async () => {
  t = await startTestApp({ clock: () => now, config: { TRUST_PROXY: 'loopback', PUBLIC_URL: 'https://merma.test' }, mailer });
  pool = new pg.Pool({ connectionString: t.database.url, max: 2 });
});
afterAll(async () => {
  await pool?.end();
  await t?.close();
});

const at = (ms: number) => new Date(T0.getTime() + ms);

// The edges, as the product promises them (written out here, so that a constant changed in src,
// minutes for hours, is caught rather than followed).
const MINUTE = 60_000;
const DAY = 86_400_000;
const LOGIN_SESSION_IDLE_MS = 7 * DAY;
const LOGIN_SESSION_MAX_MS = 30 * DAY;
const INVITATION_TTL_MS = 7 * DAY;
const RESET_TTL_MS = 60 * MINUTE;
const PAIRING_TTL_MS = 10 * MINUTE;
const STATION_UNDO_MS = 5 * MINUTE;
const IDEMPOTENCY_TTL_HOURS = 24;

const inject = (options: InjectOptions) => t.app.inject({ remoteAddress: randomIp(), ...options });

async function shop() {
  now = T0;
  const tenant = await createTenant(t.db);
  const member = await createMember(t.db, tenant.organizationId, 'owner');
  const owner = new DashboardBrowser(t.app);
  await owner.signIn(member.email, PASSWORD);
  return { ...tenant, member, owner, scope: { establishment_id: tenant.establishmentId, livemode: false } };
}

describe('a login session, idle for 7 days and 30 days after sign-in', () => {
  it('a session unused for 7 days less a millisecond still signs in; one unused for 7 days does not', async () => {
    const s = await shop();
    const kept = new DashboardBrowser(t.app);
    const left = new DashboardBrowser(t.app);
    await kept.signIn(s.member.email, PASSWORD);
    await left.signIn(s.member.email, PASSWORD);

    now = at(LOGIN_SESSION_IDLE_MS - 1);
    const inside = await kept.raw('query', 'accounts.me');
    expect(inside.statusCode, inside.body).toBe(200);
    expect(inside.json().result.data.user.email).toBe(s.member.email);
    now = at(LOGIN_SESSION_IDLE_MS);
    expect(await left.session()).toEqual(NO_SESSION);
    // The first one's use moved its end on by another 7 days; the second's row waits for the purge, ended.
    const rows = await t.db.userSession.findMany({ where: { user_id: s.member.id }, orderBy: { expires_at: 'asc' } });
    expect(rows.map((r) => r.expires_at.toISOString())).toEqual([
      at(LOGIN_SESSION_IDLE_MS).toISOString(), // the owner's, from shop(), unused since
      at(LOGIN_SESSION_IDLE_MS).toISOString(), // `left`
      at(2 * LOGIN_SESSION_IDLE_MS - 1).toISOString(), // `kept`, renewed at its use
    ]);
  });

  it('a session used every 6 days signs in until 30 days after sign-in less a millisecond, and not at 30 days', async () => {
    const s = await shop();
    for (const days of [6, 12, 18, 24]) {
      now = at(days * DAY);
      expect((await s.owner.raw('query', 'accounts.me')).json().result.data.user.email, `day ${days}`).toBe(s.member.email);
    }
    now = at(LOGIN_SESSION_MAX_MS - 1);
    const inside = await s.owner.raw('query', 'accounts.me');
    expect(inside.statusCode, inside.body).toBe(200);
    expect(inside.json().result.data.user.email).toBe(s.member.email);
    const [row] = await t.db.userSession.findMany({ where: { user_id: s.member.id } });
    expect(row?.expires_at.toISOString()).toBe(at(LOGIN_SESSION_MAX_MS).toISOString());
    now = at(LOGIN_SESSION_MAX_MS);
    expect(await s.owner.session()).toEqual(NO_SESSION);
  });
});

describe('an invitation, 7 days', () => {
  it('is accepted 7 days less a millisecond after it was sent, and refused at 7 days, creating no one', async () => {
    const s = await shop();
    const early = `early-${randomUUID().slice(0, 8)}@example.com`;
    const late = `late-${randomUUID().slice(0, 8)}@example.com`;
    for (const email of [early, late]) await s.owner.mutate('team.invite', { email, role: 'viewer' });
    const tokens = { early: tokenOf(mailer.linkTo(early)), late: tokenOf(mailer.linkTo(late)) };
    const stored = await t.db.invitation.findMany({ where: { organization_id: s.organizationId } });
    expect(stored.map((i) => i.expires_at.toISOString())).toEqual([
      at(INVITATION_TTL_MS).toISOString(),
      at(INVITATION_TTL_MS).toISOString(),
    ]);

    now = at(INVITATION_TTL_MS - 1);
    const invitee = new DashboardBrowser(t.app);
    expect(await invitee.query('accounts.invitation', { token: tokens.early })).toMatchObject({ email: early, role: 'viewer' });
    const joined = await invitee.mutate('accounts.acceptInvitation', { token: tokens.early, name: 'Early Cook', password: PASSWORD });
    expect(joined.user.email).toBe(early);
    expect(joined).toMatchObject({ organization: { id: s.organizationId }, role: 'viewer' });

    now = at(INVITATION_TTL_MS);
    const stranger = new DashboardBrowser(t.app);
    const preview = await failure(stranger.query('accounts.invitation', { token: tokens.late }));
    expect(preview).toMatchObject({ status: 404 });
    const accept = await failure(
      stranger.mutate('accounts.acceptInvitation', { token: tokens.late, name: 'Late Cook', password: PASSWORD }),
    );
    expect(accept).toMatchObject({ status: 404 });
    expect(accept.message).toMatch(/has expired/);
    expect(await t.db.user.count({ where: { email: late } })).toBe(0);
    const members = await t.db.membership.findMany({ where: { organization_id: s.organizationId }, include: { user: true } });
    expect(members.map((m) => m.user.email).sort()).toEqual([early, s.member.email].sort());
    expect(await t.db.invitation.count({ where: { email: late, accepted_at: null } })).toBe(1);
  });
});

describe('a password-reset link, an hour', () => {
  it('sets a new password an hour less a millisecond after it was mailed, and is refused at the hour, the old password kept', async () => {
    const s = await shop();
    const early = await createMember(t.db, s.organizationId, 'viewer');
    const late = await createMember(t.db, s.organizationId, 'viewer');
    const deps = { db: t.db, clock: () => now, mailer, publicUrl: 'https://merma.test' };
    await sendPasswordResetMail(deps, { email: early.email });
    await sendPasswordResetMail(deps, { email: late.email });
    const tokens = { early: tokenOf(mailer.linkTo(early.email)), late: tokenOf(mailer.linkTo(late.email)) };
    const stored = await t.db.userToken.findMany({ where: { user_id: { in: [early.id, late.id] } } });
    expect(stored.map((r) => [r.purpose, r.expires_at.toISOString()])).toEqual([
      ['password_reset', at(RESET_TTL_MS).toISOString()],
      ['password_reset', at(RESET_TTL_MS).toISOString()],
    ]);

    now = at(RESET_TTL_MS - 1);
    const reset = await new DashboardBrowser(t.app).mutate('accounts.resetPassword', {
      token: tokens.early,
      password: 'a brand new larder phrase',
    });
    expect(reset.user.email).toBe(early.email);
    expect((await new DashboardBrowser(t.app).signIn(early.email, 'a brand new larder phrase')).user.email).toBe(early.email);

    now = at(RESET_TTL_MS);
    const refused = await failure(
      new DashboardBrowser(t.app).mutate('accounts.resetPassword', { token: tokens.late, password: 'a brand new pantry phrase' }),
    );
    expect(refused).toMatchObject({ status: 404 });
    expect((await new DashboardBrowser(t.app).signIn(late.email, PASSWORD)).user.email).toBe(late.email);
    expect(await failure(new DashboardBrowser(t.app).signIn(late.email, 'a brand new pantry phrase'))).toMatchObject({ status: 401 });
    expect(await t.db.userToken.count({ where: { user_id: late.id, used_at: null } })).toBe(1);
  });
});

const pair = (code: string) =>
  inject({ method: 'POST', url: '/station/pair', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ code }) });

describe("a station's pairing code, 10 minutes", () => {
  it('pairs 10 minutes less a millisecond after it was shown, and is refused at 10 minutes, the device left expired', async () => {
    const s = await shop();
    const early = await s.owner.mutate('stations.startPairing', { ...s.scope, name: 'Cubo pronto' });
    const late = await s.owner.mutate('stations.startPairing', { ...s.scope, name: 'Cubo tarde' });
    expect(early.expires_at).toBe(at(PAIRING_TTL_MS).toISOString());

    now = at(PAIRING_TTL_MS - 1);
    const paired = await pair(early.code);
    expect(paired.statusCode, paired.body).toBe(200);
    expect(paired.json().data.token).toMatch(/^stn_test_/);

    now = at(PAIRING_TTL_MS);
    const refused = await pair(late.code);
    expect(refused.statusCode, refused.body).toBe(401);
    expect(refused.json().error).toBe('This pairing code is not valid: ask for a new one on the dashboard (Stations)');
    const devices = (await s.owner.query('stations.list', s.scope)) as { id: string; status: string }[];
    expect(Object.fromEntries(devices.map((d) => [d.id, d.status]))).toEqual({ [early.device.id]: 'active', [late.device.id]: 'expired' });
    const rows = await t.db.$queryRawUnsafe<{ id: string; token_hash: string | null; paired_at: Date | null }[]>(
      'SELECT id::text, token_hash, paired_at FROM station_devices WHERE id = $1::uuid',
      late.device.id,
    );
    expect(rows).toEqual([{ id: late.device.id, token_hash: null, paired_at: null }]);
  });
});

describe("a station's undo, 5 minutes", () => {
  it('undoes a record 5 minutes after it was stored, and refuses a millisecond later, the record kept', async () => {
    const s = await shop();
    const started = await s.owner.mutate('stations.startPairing', { ...s.scope, name: 'Cubo' });
    const { token } = (await pair(started.code)).json().data;
    const send = (url: string, body: unknown) =>
      inject({
        method: 'POST',
        url,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
        payload: JSON.stringify(body),
      });
    const first = (await send('/station/records', validRecord({ weight_kg: 2 }))).json().data;
    const second = (await send('/station/records', validRecord({ weight_kg: 3 }))).json().data;

    now = at(STATION_UNDO_MS);
    const undone = await send(`/station/records/${first.id}/undo`, {});
    expect(undone.statusCode, undone.body).toBe(200);
    expect(undone.json().data).toMatchObject({ supersedes_id: first.id, voided: true });

    now = at(STATION_UNDO_MS + 1);
    const refused = await send(`/station/records/${second.id}/undo`, {});
    expect(refused.statusCode, refused.body).toBe(409);
    expect(refused.json().error).toBe(
      'A record can be undone at the station for 5 minutes after it is stored; correct it from the dashboard (Records)',
    );
    const rows = await t.db.$queryRawUnsafe<{ id: string; superseded: boolean }[]>(
      'SELECT id::text, superseded_by IS NOT NULL AS superseded FROM records WHERE id = ANY($1::uuid[]) ORDER BY weight_kg',
      [first.id, second.id],
    );
    expect(rows).toEqual([
      { id: first.id, superseded: true },
      { id: second.id, superseded: false },
    ]);
  });
});

describe("an Idempotency-Key's 24 hours (counted by the database's clock)", () => {
  it('replays the answer stored 24 hours less a second ago, and runs the request anew once it is 24 hours and a second old', async () => {
    const s = await shop();
    const client = api(t.app, s.key);
    const key = `edge-${randomUUID()}`;
    const post = () => client.post('/api/v1/records', validRecord({ weight_kg: 1.25 }), { headers: { 'idempotency-key': key } });
    const age = (interval: string) =>
      pool.query(`UPDATE idempotency_keys SET created_at = now() - make_interval(hours => $2) + $3::interval WHERE key = $1`, [
        key,
        IDEMPOTENCY_TTL_HOURS,
        interval,
      ]);
    const first = await post();
    expect(first.statusCode, first.body).toBe(201);

    await age('1 second');
    const replayed = await post();
    expect(replayed.statusCode, replayed.body).toBe(201);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.json().data.id).toBe(first.json().data.id);
    expect(await t.db.record.count({ where: { establishment_id: s.establishmentId } })).toBe(1);

    await age('-1 second');
    const anew = await post();
    expect(anew.statusCode, anew.body).toBe(201);
    expect(anew.headers['idempotent-replayed']).toBeUndefined();
    expect(anew.json().data.id).not.toBe(first.json().data.id);
    expect(await t.db.record.count({ where: { establishment_id: s.establishmentId } })).toBe(2);
    const { rows } = await pool.query<{ fresh: boolean }>(
      `SELECT created_at > now() - interval '1 minute' AS fresh FROM idempotency_keys WHERE key = $1`,
      [key],
    );
    expect(rows).toEqual([{ fresh: true }]);
  });
});

describe('the sales kept by the retention purge, across a UTC midnight', () => {
  it('keeps a day 401 days back until midnight UTC, and purges it at midnight', async () => {
    const s = await shop();
    const salesDays = 400;
    await importProducts(t.db, { org: s.organizationId, csv: 'name;food_category;ean\nPan;bakery;8410000000016\n' });
    const product = (await t.db.product.findFirstOrThrow({ where: { organization_id: s.organizationId } })).id;
    const today = T0.toISOString().slice(0, 10);
    const oldest = addDays(today, -(salesDays + 1));
    await t.db
      .$executeRaw`INSERT INTO sales (id, establishment_id, livemode, product_id, source, external_ref, quantity, unit, sold_at, day)
      VALUES (${randomUUID()}::uuid, ${s.establishmentId}::uuid, false, ${product}::uuid, 'tpv', 'edge-sale', 3, 'unit',
        ${new Date(`${oldest}T12:00:00Z`)}, ${oldest}::date)`;
    await t.db.$executeRaw`INSERT INTO sale_day_totals (establishment_id, livemode, product_id, day, units, kg, lines)
      VALUES (${s.establishmentId}::uuid, false, ${product}::uuid, ${oldest}::date, 3, 0, 1)`;
    const settings = { eventDays: 30, inboundDedupeDays: 30, salesDays };
    const left = async () => ({
      sales: Number((await pool.query('SELECT count(*) AS n FROM sales WHERE establishment_id = $1::uuid', [s.establishmentId])).rows[0].n),
      totals: Number(
        (await pool.query('SELECT count(*) AS n FROM sale_day_totals WHERE establishment_id = $1::uuid', [s.establishmentId])).rows[0].n,
      ),
    });

    const midnight = new Date(`${addDays(today, 1)}T00:00:00.000Z`);
    const kept = await purgeExpired({ pool, clock: () => new Date(midnight.getTime() - 1) }, settings);
    expect(kept).toMatchObject({ sales: 0, sale_day_totals: 0 });
    expect(await left()).toEqual({ sales: 1, totals: 1 });

    const purged = await purgeExpired({ pool, clock: () => midnight }, settings);
    expect(purged).toMatchObject({ sales: 1, sale_day_totals: 1 });
    expect(await left()).toEqual({ sales: 0, totals: 0 });
  });
});
