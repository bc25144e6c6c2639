import { createHash, createHmac } from 'node:crypto';
import { deadline } from '@merma/testing';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importProducts } from '../src/admin/service.js';
import { attempt } from '../src/modules/integrations/jobs.js';
import { loadSecretBox } from '../src/secrets/keys.js';
import { openColumn } from '../src/secrets/stored.js';
import { createMember, DashboardBrowser, failure, jobsDone, randomIp } from './dashboard-client.js';
import { startOdooRpc } from './fixtures/odoo-rpc.js';
import { createTenant, startTestApp, type Tenant, type TestContext } from './helpers.js';

/**
 * Integrations made in the dashboard, and their own URLs: Odoo's authenticated by the token in
 * its path, Square's by Square's signature. Everything over HTTP, asserted in the database.
 * (Square's fetch from its API, end to end, is in integrations-square.test.ts.)
 */
let t: TestContext;
let odoo: Awaited<ReturnType<typeof startOdooRpc>>;
/**
 * The app's clock: the machine's, unless a test holds it at an instant to try a window on both
 * sides of its edge (`heldClock`), without the real time a slow machine spends between requests.
 */
let heldAt: number | undefined;
const clock = () => new Date(heldAt ?? Date.now());
/** Runs `fn` with the app's clock held at now, which `fn` moves with `move(ms)`; lets it go after. */
async function heldClock(fn: (move: (ms: number) => void) => Promise<void>): Promise<void> {
  heldAt = Date.now();
  try {
    await fn((ms) => {
      heldAt = (heldAt ?? Date.now()) + ms;
    });
  } finally {
    heldAt = undefined;
  }
}
const CATALOGUE =
  'name;food_category;ean;pos_ref;unit_weight_kg\nTomate pera;fruit_veg;8410000000047;41;\nCroissant;bakery;8410000000023;57;0,06\n';

beforeAll(async () => {
  t = await startTestApp({ worker: true, clock, config: { WEBHOOKS_ALLOW_PRIVATE: 'true', PUBLIC_URL: 'https://merma.test' } });
  odoo = await startOdooRpc({ database: 'mycompany', login: 'merma@mycompany.es', apiKey: 'odoo-api-key-0123456789' });
});
afterAll(async () => {
  await odoo?.close();
  await t?.close();
});

type Shop = Tenant & { owner: DashboardBrowser; scope: { establishment_id: string; livemode: boolean } };

async function shop(): Promise<Shop> {
  const tenant = await createTenant(t.db);
  await importProducts(t.db, { org: tenant.organizationId, csv: CATALOGUE });
  const member = await createMember(t.db, tenant.organizationId, 'owner');
  const owner = new DashboardBrowser(t.app);
  await owner.signIn(member.email, 'correct horse battery staple');
  return { ...tenant, owner, scope: { establishment_id: tenant.establishmentId, livemode: false } };
}

/** An Odoo integration that reads the fixture Odoo's JSON-RPC (address, database, login and API key given). */
const odooReading = (s: Shop, fields: Record<string, unknown> = {}) =>
  s.owner.mutate('integrations.create', {
    ...s.scope,
    kind: 'odoo',
    name: 'Odoo TPV',
    odoo_url: odoo.url,
    database: 'mycompany',
    login: 'merma@mycompany.es',
    api_key: 'odoo-api-key-0123456789',
    ...fields,
  });

/** The path of a URL the dashboard gave (the app is reached in-process). */
const pathOf = (url: string) => new URL(url).pathname;
/** A request from an address of its own: refused requests are limited per address (and outlast a run in Redis). */
const inject = (options: InjectOptions) => t.app.inject({ remoteAddress: randomIp(), ...options });
const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  inject({
    method: 'POST',
    url: pathOf(url),
    headers: { 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(body),
  });
const recordsOf = (s: Shop) => t.db.record.findMany({ where: { establishment_id: s.establishmentId }, orderBy: { created_at: 'asc' } });
const salesOf = (s: Shop) => t.db.sale.findMany({ where: { establishment_id: s.establishmentId }, orderBy: { external_ref: 'asc' } });

/** Odoo's date format, UTC: `str(datetime)` as the webhook action writes it. */
const odooTime = (d: Date) => d.toISOString().slice(0, 19).replace('T', ' ');

/**
 * A scrap as Odoo's "Send Webhook Notification" action sends it (odoo/addons/base/models/
 * ir_actions.py, `_run_action_webhook`: `_model`, `_id`, `_action` and the chosen fields read with
 * `load=None`, so many2one fields are bare ids), with the related field x_uom_name.
 */
const scrap = (id: number, fields: Record<string, unknown> = {}) => ({
  _model: 'stock.scrap',
  _id: id,
  _action: 'Merma: scrap done(#12)',
  id,
  product_id: 41,
  scrap_qty: 1.75,
  product_uom_id: 12,
  x_uom_name: 'kg',
  state: 'done',
  date_done: odooTime(new Date(Date.now() - 3600_000)),
  origin: false,
  ...fields,
});

describe('Odoo integrations', () => {
  it('are made in the dashboard: the URL is shown once, only its hash is kept, and the change is audited', async () => {
    const s = await shop();
    const made = await s.owner.mutate('integrations.create', { ...s.scope, kind: 'odoo', name: 'Odoo Tienda Centro' });
    expect(made.secret_url).toMatch(/^https:\/\/merma\.test\/api\/v1\/integrations\/odoo\/mit_[0-9A-Za-z]{32}$/);
    const token = made.secret_url.split('/').pop() as string;
    expect(made.url).toBe(`https://merma.test/api/v1/integrations/odoo/mit_…${token.slice(-4)}`);
    const listed = await s.owner.query('integrations.list', s.scope);
    expect(listed).toHaveLength(1);
    expect(JSON.stringify(listed)).not.toContain(token);
    expect(listed[0]).toMatchObject({ id: made.id, kind: 'odoo', status: 'active', url: made.url, api_credential_set: false });
    const row = await t.db.integration.findUniqueOrThrow({ where: { id: made.id } });
    expect(row.token_hash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(token);
    const audit = (await s.owner.query('audit.list', {})).entries.find((e: { action: string }) => e.action === 'integration.created');
    expect(audit).toMatchObject({
      target: 'odoo: Odoo Tienda Centro',
      details: { integration_id: made.id, kind: 'odoo', livemode: false },
    });
    expect(JSON.stringify(audit)).not.toContain(token);
  });

  it('are changed by builders only: a viewer reads them but cannot make one', async () => {
    const s = await shop();
    const member = await createMember(t.db, s.organizationId, 'viewer');
    const viewer = new DashboardBrowser(t.app);
    await viewer.signIn(member.email, 'correct horse battery staple');
    expect(await viewer.query('integrations.list', s.scope)).toEqual([]);
    const refused = await failure(viewer.mutate('integrations.create', { ...s.scope, kind: 'odoo', name: 'x' }));
    expect(refused.status).toBe(403);
    expect(await t.db.integration.count({ where: { establishment_id: s.establishmentId } })).toBe(0);
  });

  it('belong to their establishment and mode: another organisation, or the other mode, cannot see or change them', async () => {
    const s = await shop();
    const other = await shop();
    const made = await s.owner.mutate('integrations.create', { ...s.scope, kind: 'odoo', name: 'Odoo' });
    // Another organisation naming the integration under its own establishment, or under ours.
    for (const scope of [other.scope, s.scope]) {
      const res = await failure(other.owner.mutate('integrations.revoke', { ...scope, id: made.id }));
      expect([403, 404], JSON.stringify(scope)).toContain(res.status);
    }
    expect(await other.owner.query('integrations.list', other.scope)).toEqual([]);
    // The same establishment's live mode does not hold its test integration.
    expect(await s.owner.query('integrations.list', { ...s.scope, livemode: true })).toEqual([]);
    expect((await failure(s.owner.mutate('integrations.rotate', { ...s.scope, livemode: true, id: made.id }))).status).toBe(404);
    expect((await t.db.integration.findUniqueOrThrow({ where: { id: made.id } })).status).toBe('active');
  });

  it('store a done scrap sent to the URL, once, as a loss of the product in its unit', async () => {
    const s = await shop();
    const made = await s.owner.mutate('integrations.create', { ...s.scope, kind: 'odoo', name: 'Odoo' });
    const first = await post(made.secret_url, scrap(801));
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().data).toMatchObject({ status: 'processed' });
    const again = await post(made.secret_url, scrap(801));
    expect(again.json().data).toMatchObject({ status: 'duplicate' });
    const records = await recordsOf(s);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ product_name: 'Tomate pera', source: 'inbound:odoo' });
    expect(Number(records[0]?.weight_kg)).toBe(1.75);
    const row = await t.db.integration.findUniqueOrThrow({ where: { id: made.id } });
    expect(row.last_received_at).not.toBeNull();
    expect(row.last_error).toBeNull();
  });

  it('of a multi-company database take their own company’s records only, refusing the others with the reason', async () => {
    const s = await shop();
    const made = await s.owner.mutate('integrations.create', { ...s.scope, kind: 'odoo', name: 'Odoo', company_id: 1 });
    expect(made.settings).toEqual({ company_id: 1 });
    const other = await post(made.secret_url, scrap(811, { company_id: 2 }));
    expect(other.statusCode).toBe(400);
    expect(other.json().details).toEqual([{ path: 'company_id', message: 'expected 1, got 2' }]);
    expect((await t.db.integration.findUniqueOrThrow({ where: { id: made.id } })).last_error).toMatch(
      /company 2: this integration takes company 1 only/,
    );
    const unsaid = await post(made.secret_url, scrap(812));
    expect(unsaid.statusCode).toBe(400);
    expect(unsaid.json().details).toEqual([{ path: 'company_id', message: expect.stringMatching(/^missing: add company_id/) }]);
    // search_read's [id, name] and a webhook's bare id alike.
    expect((await post(made.secret_url, scrap(813, { company_id: [1, 'Mi Empresa'] }))).statusCode).toBe(200);
    expect((await post(made.secret_url, scrap(814, { company_id: 1 }))).statusCode).toBe(200);
    expect(await recordsOf(s)).toHaveLength(2);
    // Cleared: any company again.
    const cleared = await s.owner.mutate('integrations.update', { ...s.scope, id: made.id, company_id: null });
    expect(cleared.settings).toEqual({});
    expect((await post(made.secret_url, scrap(815, { company_id: 2 }))).statusCode).toBe(200);
  });

  it('name a scrap’s reason tags, sent as ids, by reading them from Odoo when the integration can read it', async () => {
    const s = await shop();
    odoo.tags.set(2, 'Caducado');
    odoo.tags.set(5, 'Envase roto');
    const made = await odooReading(s);
    expect((await post(made.secret_url, scrap(821, { scrap_reason_tag_ids: [2, 5] }))).statusCode).toBe(200);
    // A tag Odoo no longer has: the ids are kept, and the card says why.
    expect((await post(made.secret_url, scrap(822, { scrap_reason_tag_ids: [9] }))).statusCode).toBe(200);
    const notes = (await recordsOf(s)).map((r) => r.notes);
    expect(notes).toEqual(['Caducado, Envase roto', 'Odoo scrap reason tags 9']);
    expect((await t.db.integration.findUniqueOrThrow({ where: { id: made.id } })).last_error).toMatch(
      /reason tags' names could not be read: .*MissingError/,
    );
  });

  it('answer 401 to a token that is not an integration’s, and store nothing', async () => {
    const s = await shop();
    await s.owner.mutate('integrations.create', { ...s.scope, kind: 'odoo', name: 'Odoo' });
    for (const token of ['mit_0000000000000000000000000000000A', 'nope', `mit_${'a'.repeat(60)}`]) {
      const res = await post(`https://merma.test/api/v1/integrations/odoo/${token}`, scrap(802));
      expect(res.statusCode, token).toBe(401);
      expect(res.json()).toMatchObject({ code: 'unauthorized' });
    }
    expect(await recordsOf(s)).toHaveLength(0);
  });

  it('keep the replaced URL working for the grace period after a rotation, and none after revocation', async () => {
    const s = await shop();
    const made = await s.owner.mutate('integrations.create', { ...s.scope, kind: 'odoo', name: 'Odoo' });
    const rotated = await s.owner.mutate('integrations.rotate', { ...s.scope, id: made.id, grace_period_seconds: 3600 });
    expect(rotated.secret_url).not.toBe(made.secret_url);
    expect((await post(made.secret_url, scrap(803))).statusCode).toBe(200);
    expect((await post(rotated.secret_url, scrap(804))).statusCode).toBe(200);
    const row = await t.db.integration.findUniqueOrThrow({ where: { id: made.id } });
    expect(row.previous_token_hash).toBe(createHash('sha256').update(made.secret_url.split('/').pop()).digest('hex'));

    const now = await s.owner.mutate('integrations.rotate', { ...s.scope, id: made.id, grace_period_seconds: 0 });
    expect((await post(rotated.secret_url, scrap(805))).statusCode).toBe(401);
    expect((await post(now.secret_url, scrap(806))).statusCode).toBe(200);

    const revoked = await s.owner.mutate('integrations.revoke', { ...s.scope, id: made.id });
    expect(revoked.status).toBe('revoked');
    expect((await post(now.secret_url, scrap(807))).statusCode).toBe(401);
    expect((await recordsOf(s)).length).toBe(3);
    const actions = (await s.owner.query('audit.list', {})).entries.map((e: { action: string }) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['integration.secret_rotated', 'integration.revoked']));
    const gone = await t.db.integration.findUniqueOrThrow({ where: { id: made.id } });
    expect(gone).toMatchObject({ status: 'revoked', token_hash: null, previous_token_hash: null });
  });

  it('keep the replaced URL for exactly its grace period: a second before its end it stores, a second after it is a 401', async () => {
    const s = await shop();
    const made = await s.owner.mutate('integrations.create', { ...s.scope, kind: 'odoo', name: 'Odoo' });
    await heldClock(async (move) => {
      const rotated = await s.owner.mutate('integrations.rotate', { ...s.scope, id: made.id, grace_period_seconds: 600 });
      move(599_000);
      expect((await post(made.secret_url, scrap(820))).statusCode).toBe(200);
      move(2_000);
      const late = await post(made.secret_url, scrap(821));
      expect(late.statusCode).toBe(401);
      expect(late.json()).toMatchObject({ code: 'unauthorized' });
      expect((await post(rotated.secret_url, scrap(822))).statusCode).toBe(200);
    });
    // The refused line was never taken: the lines inside the grace period and on the new URL were.
    const events = await t.db.inboundEvent.findMany({ where: { establishment_id: s.establishmentId } });
    expect(events.map((e) => e.external_ref).sort()).toEqual(['stock.scrap:820', 'stock.scrap:822']);
    expect(await recordsOf(s)).toHaveLength(2);
  });

  it('note a refusal on the integration, naming the field to add, and store nothing', async () => {
    const s = await shop();
    const made = await s.owner.mutate('integrations.create', { ...s.scope, kind: 'odoo', name: 'Odoo' });
    const { x_uom_name: _, ...bare } = scrap(808);
    const res = await post(made.secret_url, bare);
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('x_uom_name');
    expect(await recordsOf(s)).toHaveLength(0);
    const [listed] = await s.owner.query('integrations.list', s.scope);
    expect(listed.last_error).toContain('x_uom_name');
  });

  it('fetch the lines of a pos.order sent with line ids through JSON-RPC, and store them as sales once', async () => {
    const s = await shop();
    const made = await odooReading(s);
    const created = odooTime(new Date(Date.now() - 2 * 3600_000));
    odoo.lines.push(
      { id: 9001, order_id: [77, 'Shop/0077'], product_id: [57, 'Croissant'], qty: 6, product_uom_id: [1, 'Units'], create_date: created },
      {
        id: 9002,
        order_id: [77, 'Shop/0077'],
        product_id: [41, 'Tomate pera'],
        qty: 0.5,
        product_uom_id: [12, 'kg'],
        create_date: created,
      },
    );
    // An automation rule on pos.order: `lines` is a one2many, sent as ids.
    const order = { _model: 'pos.order', _id: 77, id: 77, name: 'Shop/0077', state: 'paid', lines: [9001, 9002], date_order: created };
    const res = await post(made.secret_url, order);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ status: 'queued' });
    expect((await post(made.secret_url, order)).json().data).toMatchObject({ status: 'duplicate' });
    // Its own job: the wrong-key test's job may still be waiting for a retry, whatever the order.
    await jobsDone(t.db, 'integrations.odoo_order', 15_000, { integration_id: made.id });
    const sales = await salesOf(s);
    expect(sales.map((x) => [x.external_ref, Number(x.quantity), x.unit])).toEqual([
      ['pos.order.line:9001', 6, 'unit'],
      ['pos.order.line:9002', 0.5, 'kg'],
    ]);
    const authenticated = odoo.calls.filter((c) => c.method === 'authenticate');
    expect(authenticated.at(-1)?.args.slice(0, 2)).toEqual(['mycompany', 'merma@mycompany.es']);
    const row = await t.db.integration.findUniqueOrThrow({ where: { id: made.id } });
    expect(row.api_credential).not.toContain('odoo-api-key');
    expect(row.last_error).toBeNull();
  });

  it('note why a pos.order could not be read (a wrong API key), and retry it', async () => {
    const s = await shop();
    const made = await odooReading(s, { api_key: 'not-the-right-key-000' });
    const res = await post(made.secret_url, { _model: 'pos.order', _id: 78, id: 78, state: 'paid', lines: [9101] });
    expect(res.json().data).toMatchObject({ status: 'queued' });
    await expect
      .poll(async () => (await t.db.integration.findUniqueOrThrow({ where: { id: made.id } })).last_error, { timeout: deadline(10_000) })
      .toContain('did not accept the login');
    // Left in the queue to be tried again (graphile-worker's backoff), the failure recorded. The
    // worker records it on the job just after the task has noted it on the integration: wait for it.
    const jobOf = async () =>
      (
        await t.db.$queryRaw<{ attempts: number; max_attempts: number; last_error: string | null }[]>`
          SELECT j.attempts, j.max_attempts, j.last_error FROM graphile_worker.jobs j JOIN graphile_worker._private_jobs p ON p.id = j.id
          WHERE j.task_identifier = 'integrations.odoo_order' AND p.payload->>'integration_id' = ${made.id}`
      )[0];
    await expect.poll(async () => (await jobOf())?.last_error ?? null, { timeout: deadline(10_000) }).not.toBeNull();
    const job = await jobOf();
    expect(job).toMatchObject({ max_attempts: 15 });
    expect(job?.last_error).toContain('did not accept the login');
    expect(job?.attempts).toBeGreaterThanOrEqual(1);
    expect(await salesOf(s)).toHaveLength(0);
  });
});

const square = (s: Shop, fields: Record<string, unknown> = {}) =>
  s.owner.mutate('integrations.create', {
    ...s.scope,
    kind: 'square',
    name: 'Square Madrid',
    signature_key: SQUARE_KEY,
    access_token: 'EAAAl-square-access-token-0001',
    location_id: 'L8X2QBJ4GMCYP',
    ...fields,
  });

const sign = (key: string, url: string, body: string) =>
  createHmac('sha256', key)
    .update(url + body)
    .digest('base64');

/** The signature key `square()` connects with. */
const SQUARE_KEY = 'sq-signature-key-AbC123xyz';

/**
 * POSTs `notification` to an integration's Square URL as Square does: signed with `key` over `url`
 * and the body (`signature` instead, when given: null sends none), from a random address unless
 * `remoteAddress` is given. The URL is both the one signed and the one posted to.
 */
const sendSquare = (
  url: string,
  notification: object,
  { key = SQUARE_KEY, signature, remoteAddress }: { key?: string; signature?: string | null; remoteAddress?: string } = {},
) => {
  const body = JSON.stringify(notification);
  const signed = signature === undefined ? sign(key, url, body) : signature;
  return inject({
    method: 'POST',
    url: pathOf(url),
    headers: { 'content-type': 'application/json', ...(signed === null ? {} : { 'x-square-hmacsha256-signature': signed }) },
    payload: body,
    ...(remoteAddress ? { remoteAddress } : {}),
  });
};

/** An order.updated notification (Square's webhook reference: data.object.order_updated). */
const orderUpdated = (eventId: string, state = 'COMPLETED', createdAt = new Date().toISOString()) => ({
  merchant_id: 'ML3D8VBJ4NXKG',
  type: 'order.updated',
  event_id: eventId,
  created_at: createdAt,
  data: {
    type: 'order_updated',
    id: 'eA3vssLHKJrv9H0IdJCM3gNqfdcZY',
    object: {
      order_updated: {
        created_at: createdAt,
        location_id: 'L8X2QBJ4GMCYP',
        order_id: 'eA3vssLHKJrv9H0IdJCM3gNqfdcZY',
        state,
        updated_at: createdAt,
        version: 3,
      },
    },
  },
});

describe('Square integrations', () => {
  it('keep the signature key and access token sealed, never answered', async () => {
    const s = await shop();
    const made = await square(s);
    expect(made).toMatchObject({
      kind: 'square',
      signature_key_set: true,
      api_credential_set: true,
      settings: { location_id: 'L8X2QBJ4GMCYP' },
    });
    expect(made.url).toBe(`https://merma.test/api/v1/integrations/square/${made.id}`);
    expect(made.secret_url).toBeNull();
    expect(JSON.stringify(made)).not.toMatch(/sq-signature-key|EAAAl-square/);
    const row = await t.db.integration.findUniqueOrThrow({ where: { id: made.id } });
    expect(row.signature_key).toMatch(/^enc:v1:/);
    expect(row.api_credential).toMatch(/^enc:v1:/);
    const box = loadSecretBox(t.config);
    expect(openColumn(box, 'integrations', made.id, 'signature_key', row.signature_key as string)).toBe('sq-signature-key-AbC123xyz');
    expect(openColumn(box, 'integrations', made.id, 'api_credential', row.api_credential as string)).toBe('EAAAl-square-access-token-0001');
    // Sealed to its column: the key copied into another column does not open.
    expect(() => openColumn(box, 'integrations', made.id, 'api_credential', row.signature_key as string)).toThrow();
  });

  it('refuse a Square setting on an Odoo integration and the other way round', async () => {
    const s = await shop();
    const res = await failure(s.owner.mutate('integrations.create', { ...s.scope, kind: 'odoo', name: 'x', access_token: 'abcdefghijk' }));
    expect(res.status).toBe(400);
    const made = await square(s);
    const bad = await failure(s.owner.mutate('integrations.update', { ...s.scope, id: made.id, api_key: 'abcdefghijkl' }));
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('api_key');
  });

  it('answer 401 to a notification without Square’s signature or with a wrong one, and store nothing', async () => {
    const s = await shop();
    const made = await square(s);
    const notification = orderUpdated('evt-401');
    const body = JSON.stringify(notification);
    const cases: Record<string, string | null> = {
      missing: null,
      'another key': sign('another-key', made.url, body),
      'another URL': sign(SQUARE_KEY, `${made.url}/`, body),
      'not base64': 'not-a-signature',
    };
    for (const [name, signature] of Object.entries(cases)) {
      const res = await sendSquare(made.url, notification, { signature });
      expect(res.statusCode, name).toBe(401);
    }
    expect(await t.db.inboundEvent.count({ where: { establishment_id: s.establishmentId } })).toBe(0);
  });

  it('accept a signed notification once, and the replaced key during its grace period', async () => {
    const s = await shop();
    const made = await square(s);
    const send = (key: string, n: object) => sendSquare(made.url, n, { key });
    const first = await send('sq-signature-key-AbC123xyz', orderUpdated('evt-1', 'OPEN'));
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().data).toMatchObject({ status: 'ignored' });
    expect((await send('sq-signature-key-AbC123xyz', orderUpdated('evt-1', 'OPEN'))).json().data).toMatchObject({ status: 'duplicate' });

    await s.owner.mutate('integrations.rotate', {
      ...s.scope,
      id: made.id,
      signature_key: 'sq-signature-key-NEW456',
      grace_period_seconds: 600,
    });
    expect((await send('sq-signature-key-AbC123xyz', orderUpdated('evt-2', 'OPEN'))).statusCode).toBe(200);
    expect((await send('sq-signature-key-NEW456', orderUpdated('evt-3', 'OPEN'))).statusCode).toBe(200);
    await s.owner.mutate('integrations.rotate', {
      ...s.scope,
      id: made.id,
      signature_key: 'sq-signature-key-THIRD789',
      grace_period_seconds: 0,
    });
    expect((await send('sq-signature-key-NEW456', orderUpdated('evt-4', 'OPEN'))).statusCode).toBe(401);
    const refs = (
      await t.db.inboundEvent.findMany({ where: { establishment_id: s.establishmentId }, orderBy: { external_ref: 'asc' } })
    ).map((e) => e.external_ref);
    expect(refs).toEqual(['notification:evt-1', 'notification:evt-2', 'notification:evt-3']);
  });

  it('accept the replaced signature key for exactly its grace period: a second before its end, not a second after', async () => {
    const s = await shop();
    const made = await square(s);
    const send = (key: string, n: object) => sendSquare(made.url, n, { key });
    await heldClock(async (move) => {
      await s.owner.mutate('integrations.rotate', {
        ...s.scope,
        id: made.id,
        signature_key: 'sq-signature-key-NEW456',
        grace_period_seconds: 600,
      });
      move(599_000);
      const inside = await send(SQUARE_KEY, orderUpdated('evt-grace-in', 'OPEN', clock().toISOString()));
      expect(inside.statusCode, inside.body).toBe(200);
      move(2_000);
      const after = await send(SQUARE_KEY, orderUpdated('evt-grace-out', 'OPEN', clock().toISOString()));
      expect(after.statusCode).toBe(401);
      expect((await send('sq-signature-key-NEW456', orderUpdated('evt-grace-new', 'OPEN', clock().toISOString()))).statusCode).toBe(200);
    });
    const refs = (await t.db.inboundEvent.findMany({ where: { establishment_id: s.establishmentId } })).map((e) => e.external_ref).sort();
    expect(refs).toEqual(['notification:evt-grace-in', 'notification:evt-grace-new']);
  });

  it('take a notification created a second inside the 30-day dedupe window, and refuse one a second outside it', async () => {
    const s = await shop();
    const made = await square(s);
    const DAYS_30 = 30 * 86_400_000;
    await heldClock(async () => {
      const now = clock().getTime();
      // Square retries an undelivered notification for days: one a day old is no replay.
      const dayOld = await sendSquare(made.url, orderUpdated('evt-day-old', 'OPEN', new Date(now - 86_400_000).toISOString()));
      expect(dayOld.statusCode, dayOld.body).toBe(200);
      const inside = await sendSquare(made.url, orderUpdated('evt-inside', 'OPEN', new Date(now - DAYS_30 + 1_000).toISOString()));
      expect(inside.statusCode, inside.body).toBe(200);
      const outside = await sendSquare(made.url, orderUpdated('evt-outside', 'OPEN', new Date(now - DAYS_30 - 1_000).toISOString()));
      expect(outside.statusCode).toBe(400);
      expect(outside.json().details).toEqual([{ path: 'created_at', message: 'too old' }]);
    });
    const refs = (await t.db.inboundEvent.findMany({ where: { establishment_id: s.establishmentId } })).map((e) => e.external_ref).sort();
    expect(refs).toEqual(['notification:evt-day-old', 'notification:evt-inside']);
  });

  it('refuse a notification older than the dedupe window as a replay', async () => {
    const s = await shop();
    const made = await square(s);
    const res = await sendSquare(made.url, orderUpdated('evt-old', 'COMPLETED', new Date(Date.now() - 31 * 86_400_000).toISOString()));
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toEqual([{ path: 'created_at', message: 'too old' }]);
    expect(await t.db.inboundEvent.count({ where: { establishment_id: s.establishmentId } })).toBe(0);
  });

  it('refuse every notification until the signature key is pasted, writing nothing', async () => {
    const s = await shop();
    const made = await square(s, { signature_key: undefined });
    const res = await sendSquare(made.url, orderUpdated('evt-nokey'), { key: 'anything' });
    expect(res.statusCode).toBe(401);
    expect(res.json().error).toMatch(/no signature key yet/);
    // The page's checklist says what is missing; an unauthenticated request writes nothing.
    const [listed] = await s.owner.query('integrations.list', s.scope);
    expect(listed).toMatchObject({ signature_key_set: false, last_error: null, last_received_at: null });
  });
});

describe('integrations under load and attack', () => {
  it('take a busy shop’s Odoo lines without a 429 (Odoo never resends what is refused)', async () => {
    const s = await shop();
    const made = await s.owner.mutate('integrations.create', { ...s.scope, kind: 'odoo', name: 'Odoo' });
    const sold = odooTime(new Date(Date.now() - 3600_000));
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        post(made.secret_url, {
          _model: 'pos.order.line',
          _id: 5000 + i,
          id: 5000 + i,
          product_id: 57,
          qty: 1,
          product_uom_id: 1,
          x_uom_name: 'Units',
          create_date: sold,
        }),
      ),
    );
    expect(answers.map((a) => `${a.statusCode}${a.statusCode === 200 ? '' : ` ${a.body}`}`)).toEqual(Array(40).fill('200'));
    expect(await salesOf(s)).toHaveLength(40);
  });

  it('answer 429 to an address past 30 refused attempts a minute, yet take what it sends that is signed', async () => {
    const s = await shop();
    const made = await square(s);
    const attacker = randomIp();
    const unsigned = orderUpdated('evt-attack', 'OPEN');
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) {
      const res = await sendSquare(made.url, unsigned, { key: 'guess', remoteAddress: attacker });
      statuses.push(res.statusCode);
    }
    expect(statuses.slice(0, 30)).toEqual(Array(30).fill(401));
    expect(statuses[30]).toBe(429);
    // A signed notification from the same address (vendors send many customers' requests from
    // shared addresses) and from another one still get through.
    for (const remoteAddress of [attacker, randomIp()]) {
      const genuine = await sendSquare(made.url, orderUpdated(`evt-genuine-${remoteAddress}`, 'OPEN'), { remoteAddress });
      expect(genuine.statusCode, remoteAddress).toBe(200);
    }
  });

  it('accept Square’s signature of the URL as configured there, with a trailing slash too', async () => {
    const s = await shop();
    const made = await square(s);
    const res = await sendSquare(`${made.url}/`, orderUpdated('evt-slash', 'OPEN'));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('say nothing of the organisation’s plan to a request that is not Square’s', async () => {
    const s = await shop();
    const made = await square(s);
    await t.db.organization.update({ where: { id: s.organizationId }, data: { canceled_at: new Date() } });
    const notification = orderUpdated('evt-plan', 'COMPLETED');
    const send = (key: string) => sendSquare(made.url, notification, { key });
    expect((await send('not-the-key')).statusCode).toBe(401);
    expect((await send('sq-signature-key-AbC123xyz')).statusCode).toBe(403);
    expect(await t.db.inboundEvent.count({ where: { establishment_id: s.establishmentId } })).toBe(0);
  });

  it('keep only the type and id of a notification Merma does not read (it may carry personal data)', async () => {
    const s = await shop();
    const made = await square(s);
    const payment = {
      ...orderUpdated('evt-payment'),
      type: 'customer.created',
      data: { type: 'customer', id: 'C1', object: { customer: { email_address: 'ana@example.com' } } },
    };
    const res = await sendSquare(made.url, payment);
    expect(res.json().data).toMatchObject({ status: 'ignored' });
    const [stored] = await t.db.inboundEvent.findMany({ where: { establishment_id: s.establishmentId } });
    expect(JSON.stringify(stored?.payload)).not.toContain('ana@example.com');
    expect(stored?.payload).toMatchObject({ type: 'customer.created', event_id: 'evt-payment' });
  });

  it('allow one active integration of each vendor per establishment and mode', async () => {
    const s = await shop();
    await s.owner.mutate('integrations.create', { ...s.scope, kind: 'odoo', name: 'Odoo A' });
    const second = await failure(s.owner.mutate('integrations.create', { ...s.scope, kind: 'odoo', name: 'Odoo B' }));
    expect(second.status).toBe(409);
    expect(await s.owner.mutate('integrations.create', { ...s.scope, livemode: true, kind: 'odoo', name: 'Odoo live' })).toMatchObject({
      livemode: true,
    });
    expect(await t.db.integration.count({ where: { establishment_id: s.establishmentId } })).toBe(2);
  });

  it('refuse an Odoo URL with credentials or a query, and a pos.order without its id', async () => {
    const s = await shop();
    for (const odoo_url of ['https://user:secret@mycompany.odoo.com', 'https://mycompany.odoo.com/?db=x']) {
      const refused = await failure(s.owner.mutate('integrations.create', { ...s.scope, kind: 'odoo', name: 'Odoo', odoo_url }));
      expect(refused.status, odoo_url).toBe(400);
    }
    const made = await odooReading(s, { name: 'Odoo' });
    const res = await post(made.secret_url, { _model: 'pos.order', state: 'paid', lines: [1, 2] });
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toEqual([{ path: '_id', message: expect.stringContaining('required') }]);
    expect(await t.db.inboundEvent.count({ where: { establishment_id: s.establishmentId } })).toBe(0);
  });

  it('count a notification lost for good when its last attempt fails, and keep the count after a success', async () => {
    const s = await shop();
    const made = await square(s);
    const deps = { db: t.db, clock: () => new Date() } as unknown as Parameters<typeof attempt>[0];
    const job = { integration_id: made.id, inbound_event_id: made.id };
    const fail = () => Promise.reject(new Error('Square answered 503'));
    await expect(attempt(deps, job, { job: { attempts: 3, max_attempts: 15 } }, fail)).rejects.toThrow('503');
    expect((await t.db.integration.findUniqueOrThrow({ where: { id: made.id } })).failed_count).toBe(0);
    await expect(attempt(deps, job, { job: { attempts: 15, max_attempts: 15 } }, fail)).rejects.toThrow('503');
    const row = await t.db.integration.findUniqueOrThrow({ where: { id: made.id } });
    expect(row).toMatchObject({ failed_count: 1, last_error: 'Gave up after 15 attempts: Square answered 503' });
    const [listed] = await s.owner.query('integrations.list', s.scope);
    expect(listed.failed_count).toBe(1);
  });
});

describe('integrations in production', () => {
  let p: TestContext;
  beforeAll(async () => {
    p = await startTestApp({ config: { NODE_ENV: 'production', TRUST_PROXY: 'loopback' } });
  });
  afterAll(() => p?.close());

  it('refuse an Odoo URL on an internal address or over plain HTTP when it is saved', async () => {
    const tenant = await createTenant(p.db);
    const member = await createMember(p.db, tenant.organizationId, 'owner');
    const owner = new DashboardBrowser(p.app);
    const https = { headers: { 'x-forwarded-proto': 'https' } };
    const signedIn = await owner.raw(
      'mutation',
      'accounts.signIn',
      { email: member.email, password: 'correct horse battery staple' },
      https,
    );
    expect(signedIn.statusCode).toBe(200);
    for (const odoo_url of [
      'https://169.254.169.254',
      'https://10.0.0.5',
      'http://mycompany.odoo.com',
      'https://localhost',
      'https://localhost:8069',
    ]) {
      const input = { establishment_id: tenant.establishmentId, livemode: false, kind: 'odoo', name: 'O', odoo_url };
      const refused = await owner.raw('mutation', 'integrations.create', input, https);
      expect(refused.statusCode, odoo_url).toBe(400);
      expect(refused.body).toContain('odoo_url');
      // Each refusal carries its detail code, for the dashboard to word it in the reader's language.
      expect(refused.json().error.data.details[0].code, odoo_url).toMatch(/^(internal_address|https_required|host_not_found)$/);
    }
    expect(await p.db.integration.count()).toBe(0);

    // Saved without a URL, then changed to one naming this machine: refused on the change too.
    const made = await owner.raw(
      'mutation',
      'integrations.create',
      { establishment_id: tenant.establishmentId, livemode: false, kind: 'odoo', name: 'O' },
      https,
    );
    expect(made.statusCode, made.body).toBe(200);
    const id = made.json().result.data.id;
    const changed = await owner.raw(
      'mutation',
      'integrations.update',
      { establishment_id: tenant.establishmentId, livemode: false, id, odoo_url: 'https://localhost' },
      https,
    );
    expect(changed.statusCode).toBe(400);
    expect(changed.json().error.data.details).toEqual([
      expect.objectContaining({ path: 'odoo_url', message: 'internal address refused', code: expect.any(String) }),
    ]);
    expect((await p.db.integration.findUniqueOrThrow({ where: { id } })).settings).toEqual({});
  });
});
