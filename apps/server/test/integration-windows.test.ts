import { createHmac } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { createMember, DashboardBrowser, randomIp } from './dashboard-client.js';
import { createTenant, startTestApp, type TestContext } from './helpers.js';

/**
 * The windows of the vendor integrations, on both sides of each edge, with the server's clock
 * moved rather than waited for: a replaced Square signature key and a replaced Odoo URL token keep
 * working until the end of their grace period and not a second after; a Square notification is
 * taken up to the dedupe window's age (Square retries an event for days) and refused as a replay
 * past it.
 */
const T0 = new Date('2026-11-24T10:00:00.000Z');
let now = T0;
let t: TestContext;
const DEDUPE_DAYS = loadConfig({}).retention.inboundDedupeDays;

beforeAll(async () => {
  t = await startTestApp({ clock: () => now, config: { PUBLIC_URL: 'https://merma.test' } });
});
afterAll(() => t?.close());

async function shop() {
  now = T0;
  const tenant = await createTenant(t.db);
  const member = await createMember(t.db, tenant.organizationId, 'owner');
  const owner = new DashboardBrowser(t.app);
  await owner.signIn(member.email, 'correct horse battery staple');
  return { ...tenant, owner, scope: { establishment_id: tenant.establishmentId, livemode: false } };
}

const inject = (options: InjectOptions) => t.app.inject({ remoteAddress: randomIp(), ...options });
const pathOf = (url: string) => new URL(url).pathname;
const at = (ms: number) => new Date(T0.getTime() + ms);

const sendSquare = (url: string, notification: object, key: string) => {
  const body = JSON.stringify(notification);
  const signature = createHmac('sha256', key)
    .update(url + body)
    .digest('base64');
  return inject({
    method: 'POST',
    url: pathOf(url),
    headers: { 'content-type': 'application/json', 'x-square-hmacsha256-signature': signature },
    payload: body,
  });
};
const orderUpdated = (eventId: string, createdAt: Date) => ({
  merchant_id: 'ML3D8VBJ4NXKG',
  type: 'order.updated',
  event_id: eventId,
  created_at: createdAt.toISOString(),
  data: {
    type: 'order_updated',
    id: 'eA3vssLHKJrv9H0IdJCM3gNqfdcZY',
    object: { order_updated: { order_id: 'eA3vssLHKJrv9H0IdJCM3gNqfdcZY', location_id: 'L8X2QBJ4GMCYP', state: 'OPEN', version: 3 } },
  },
});
const square = (s: Awaited<ReturnType<typeof shop>>, signatureKey: string) =>
  s.owner.mutate('integrations.create', {
    ...s.scope,
    kind: 'square',
    name: 'Square Madrid',
    signature_key: signatureKey,
    access_token: 'EAAAl-square-access-token-0001',
    location_id: 'L8X2QBJ4GMCYP',
  });

describe('grace periods of replaced credentials, on both sides of their end', () => {
  it('a replaced Square signature key verifies until its grace period ends, and not a second after', async () => {
    const s = await shop();
    const made = await square(s, 'sq-signature-key-OLD111');
    await s.owner.mutate('integrations.rotate', {
      ...s.scope,
      id: made.id,
      signature_key: 'sq-signature-key-NEW222',
      grace_period_seconds: 600,
    });

    now = at(599_000);
    const inside = await sendSquare(made.url, orderUpdated('evt-grace-inside', now), 'sq-signature-key-OLD111');
    expect(inside.statusCode, inside.body).toBe(200);
    now = at(601_000);
    const past = await sendSquare(made.url, orderUpdated('evt-grace-past', now), 'sq-signature-key-OLD111');
    expect(past.statusCode, past.body).toBe(401);
    // The new key, of course, still does.
    expect((await sendSquare(made.url, orderUpdated('evt-new-key', now), 'sq-signature-key-NEW222')).statusCode).toBe(200);
    const refs = (await t.db.inboundEvent.findMany({ where: { establishment_id: s.establishmentId } })).map((e) => e.external_ref).sort();
    expect(refs).toEqual(['notification:evt-grace-inside', 'notification:evt-new-key']);
  });

  it('a replaced Odoo URL token works until its grace period ends, and not a second after', async () => {
    const s = await shop();
    const made = await s.owner.mutate('integrations.create', { ...s.scope, kind: 'odoo', name: 'Odoo' });
    const rotated = await s.owner.mutate('integrations.rotate', { ...s.scope, id: made.id, grace_period_seconds: 3600 });
    const line = (id: number) => ({
      _model: 'stock.scrap',
      _id: id,
      id,
      product_id: 41,
      scrap_qty: 1.5,
      x_uom_name: 'kg',
      state: 'done',
      date_done: now.toISOString().slice(0, 19).replace('T', ' '),
    });
    const post = (url: string, id: number) =>
      inject({ method: 'POST', url: pathOf(url), headers: { 'content-type': 'application/json' }, payload: JSON.stringify(line(id)) });

    now = at(3_599_000);
    expect((await post(made.secret_url, 901)).statusCode).not.toBe(401);
    now = at(3_601_000);
    const past = await post(made.secret_url, 902);
    expect(past.statusCode, past.body).toBe(401);
    expect((await post(rotated.secret_url, 903)).statusCode).not.toBe(401);
  });
});

describe("Square's replay window, on both sides of its edge", () => {
  it(`takes a notification a day old and one just inside ${DEDUPE_DAYS} days, and refuses one just past`, async () => {
    const s = await shop();
    const made = await square(s, 'sq-signature-key-REPLAY1');
    const day = 86_400_000;
    now = T0;
    const send = (id: string, createdAt: Date) => sendSquare(made.url, orderUpdated(id, createdAt), 'sq-signature-key-REPLAY1');

    const retried = await send('evt-a-day-old', new Date(T0.getTime() - day));
    expect(retried.statusCode, retried.body).toBe(200);
    const inside = await send('evt-just-inside', new Date(T0.getTime() - DEDUPE_DAYS * day + 60_000));
    expect(inside.statusCode, inside.body).toBe(200);
    const past = await send('evt-just-past', new Date(T0.getTime() - DEDUPE_DAYS * day - 60_000));
    expect(past.statusCode, past.body).toBe(400);
    expect(past.json().details).toEqual([{ path: 'created_at', message: 'too old' }]);
    const refs = (await t.db.inboundEvent.findMany({ where: { establishment_id: s.establishmentId } })).map((e) => e.external_ref).sort();
    expect(refs).toEqual(['notification:evt-a-day-old', 'notification:evt-just-inside']);
  });
});
