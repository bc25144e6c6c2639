import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendWebhook } from '../src/modules/webhooks/send.js';
import { isInternalAddress } from '../src/modules/webhooks/target.js';
import { createMember, DashboardBrowser, failure, PASSWORD } from './dashboard-client.js';
import { api, buildTestApp, createTenant, startTestApp, type Tenant, type TestContext, testConfig } from './helpers.js';

/**
 * The webhook SSRF guard and IPv6 addresses that carry an IPv4 address: NAT64, 6to4, Teredo,
 * IPv4-compatible, IPv4-mapped and IPv4-translated forms. The same classification serves the
 * creation of a subscription (API and dashboard) and every delivery's connection.
 */

/** A Teredo address (2001::/32): server IPv4 in bits 32–63, client IPv4 XOR-ed in the last 32. */
function teredo(server: string, client: string): string {
  const hex = (ip: string, xor = 0) => {
    const n = (ip.split('.').reduce((acc, o) => acc * 256 + Number(o), 0) ^ xor) >>> 0;
    return `${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  };
  return `2001:0:${hex(server)}:8000:0:${hex(client, 0xffffffff)}`;
}

const REFUSED: [string, string][] = [
  ['NAT64 of loopback', '64:ff9b::7f00:1'],
  ['NAT64 of loopback, dotted', '64:ff9b::127.0.0.1'],
  ['NAT64 of the metadata address', '64:ff9b::a9fe:a9fe'],
  ['NAT64 of a private network', '64:ff9b::a00:1'],
  ['NAT64 of carrier-grade NAT', '64:ff9b::6440:1'],
  ['NAT64 of 0.0.0.0', '64:ff9b::'],
  ['local-use NAT64 (64:ff9b:1::/48), even of a public address', '64:ff9b:1::808:808'],
  ['local-use NAT64 with its own prefix length', '64:ff9b:1:7f00:1::'],
  ['64:ff9b::/32 outside the well-known /96', '64:ff9b:0:1::808:808'],
  ['6to4 of loopback', '2002:7f00:1::'],
  ['6to4 of the metadata address', '2002:a9fe:a9fe::1'],
  ['6to4 of a private network', '2002:c0a8:101::1'],
  ['6to4 of a public address (reached through relays: refused whole)', '2002:808:808::1'],
  ['Teredo with client 127.0.0.1', teredo('65.54.227.120', '127.0.0.1')],
  ['Teredo with client 169.254.169.254', teredo('65.54.227.120', '169.254.169.254')],
  ['Teredo with server 10.0.0.1', teredo('10.0.0.1', '8.8.8.8')],
  ['Teredo between public addresses (refused whole)', teredo('65.54.227.120', '8.8.8.8')],
  ['IPv4-compatible loopback', '::7f00:1'],
  ['IPv4-compatible loopback, dotted', '::127.0.0.1'],
  ['IPv4-compatible metadata address', '::169.254.169.254'],
  ['IPv4-compatible public address (deprecated form: refused whole)', '::808:808'],
  ['IPv4-mapped loopback, hex', '::ffff:7f00:1'],
  ['IPv4-mapped metadata address, hex', '::ffff:a9fe:a9fe'],
  ['IPv4-mapped private address, upper case', '::FFFF:C0A8:0101'],
  ['IPv4-translated (SIIT) loopback', '::ffff:0:7f00:1'],
  ['IPv4-translated (SIIT) public address (refused whole)', '::ffff:0:808:808'],
  ['site-local (deprecated, internal by definition)', 'fec0::1'],
  ['discard-only (100::/64, RFC 6666)', '100::1'],
  ['discard-only, its last address', '100::ffff:ffff:ffff:ffff'],
  ['documentation (2001:db8::/32)', '2001:db8::1'],
  ['documentation, deep in the range', '2001:db8:ffff:1::8888'],
  ['documentation (3fff::/20, RFC 9637)', '3fff:fff::1'],
  ['benchmarking (2001:2::/48)', '2001:2::1'],
  ['written in full', '0064:ff9b:0000:0000:0000:0000:7f00:0001'],
  ['with a zone', 'fe80::1%eth0'],
  ['IPv6 loopback', '::1'],
  ['IPv6 unspecified', '::'],
  ['unique local', 'fd12:3456::1'],
  ['link-local', 'fe80::1'],
  ['loopback', '127.0.0.1'],
  ['not an address', 'example.com'],
];

const ALLOWED: [string, string][] = [
  ['NAT64 of a public address (DNS64 synthesises these for IPv4-only receivers)', '64:ff9b::808:808'],
  ['NAT64 of a public address, dotted', '64:ff9b::8.8.8.8'],
  ['IPv4-mapped public address', '::ffff:8.8.8.8'],
  ['IPv4-mapped public address, hex', '::ffff:808:808'],
  ['a public IPv6 address in 2001::/16 outside Teredo', '2001:4860:4860::8888'],
  ['beside the discard-only /64', '100:0:0:1::1'],
  ['beside the documentation /32', '2001:db9::1'],
  ['a public IPv6 address', '2606:4700:4700::1111'],
  ['a public IPv4 address', '93.184.216.34'],
];

describe('isInternalAddress', () => {
  it.each(REFUSED)('refuses %s (%s)', (_what, address) => {
    expect(isInternalAddress(address)).toBe(true);
  });
  it.each(ALLOWED)('allows %s (%s)', (_what, address) => {
    expect(isInternalAddress(address)).toBe(false);
  });
});

describe('webhook targets over HTTP, private targets not allowed', () => {
  let t: TestContext;
  let tenant: Tenant;
  beforeAll(async () => {
    t = await startTestApp({ config: { TRUST_PROXY: 'true', REDIS_URL: '' } });
    expect(t.config.webhooksAllowPrivate).toBe(false);
    tenant = await createTenant(t.db);
  });
  afterAll(() => t?.close());

  const LITERALS = [
    '64:ff9b::7f00:1',
    '64:ff9b::a9fe:a9fe',
    '64:ff9b:1::808:808',
    '2002:7f00:1::',
    '2002:a9fe:a9fe::1',
    teredo('65.54.227.120', '127.0.0.1'),
    '::7f00:1',
    '::ffff:7f00:1',
    '::ffff:0:7f00:1',
    '100::1',
    '2001:db8::1',
  ];

  it.each(LITERALS)('POST /api/v1/webhooks refuses https://[%s]/hook', async (address) => {
    const before = await t.db.webhookSubscription.count();
    const res = await api(t.app, tenant.key).post('/api/v1/webhooks', { url: `https://[${address}]/hook`, events: ['record.created'] });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({ code: 'validation_error', details: [{ path: 'url', message: 'internal address refused' }] });
    expect(await t.db.webhookSubscription.count()).toBe(before);
  });

  it('says, outside production, how to deliver to this machine', async () => {
    for (const url of ['http://127.0.0.1:4000/hook', 'http://localhost:4000/hook']) {
      const res = await api(t.app, tenant.key).post('/api/v1/webhooks', { url, events: ['record.created'] });
      expect(res.statusCode, url).toBe(400);
      expect(res.json().error, url).toMatch(/outside production, set WEBHOOKS_ALLOW_PRIVATE=true/);
      // The dashboard says it in its reader's language from the code and the setting's name.
      expect(res.json().details, url).toEqual([
        { path: 'url', message: 'internal address refused', code: 'internal_address', params: { setting: 'WEBHOOKS_ALLOW_PRIVATE' } },
      ]);
    }
  });

  it('accepts the NAT64 form of a public address, and PATCH refuses an internal one', async () => {
    const client = api(t.app, tenant.key);
    const created = await client.post('/api/v1/webhooks', { url: 'https://[64:ff9b::808:808]/hook', events: ['record.created'] });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().data.id as string;
    const patched = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/webhooks/${id}`,
      headers: { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ url: 'https://[2002:a9fe:a9fe::1]/hook' }),
    });
    expect(patched.statusCode, patched.body).toBe(400);
    expect((await t.db.webhookSubscription.findUniqueOrThrow({ where: { id } })).url).toBe('https://[64:ff9b::808:808]/hook');
  });

  it('the dashboard refuses the same addresses', async () => {
    const member = await createMember(t.db, tenant.organizationId, 'owner');
    const owner = new DashboardBrowser(t.app);
    await owner.signIn(member.email, PASSWORD);
    const scope = { establishment_id: tenant.establishmentId, livemode: false };
    for (const address of ['64:ff9b::7f00:1', '2002:7f00:1::', teredo('65.54.227.120', '127.0.0.1')]) {
      const refused = await failure(
        owner.mutate('webhooks.create', { ...scope, url: `https://[${address}]/hook`, events: ['record.created'] }),
      );
      expect(refused, address).toMatchObject({ status: 400, code: 'validation_error' });
    }
    // A receiver on this machine, outside production: the message says how to allow it, as the API's does.
    const local = await failure(
      owner.mutate('webhooks.create', { ...scope, url: 'http://localhost:4000/hook', events: ['record.created'] }),
    );
    expect(local).toMatchObject({ status: 400, code: 'validation_error' });
    expect(local.message).toMatch(/outside production, set WEBHOOKS_ALLOW_PRIVATE=true/);
  });

  it('in production (HTTPS required), https://[64:ff9b::7f00:1]/hook is refused as internal', async () => {
    const app = await buildTestApp({ config: testConfig({ NODE_ENV: 'production', TRUST_PROXY: 'loopback' }), db: t.db });
    try {
      const res = await api(app, tenant.key).post(
        '/api/v1/webhooks',
        { url: 'https://[64:ff9b::7f00:1]/hook', events: ['record.created'] },
        { headers: { 'x-forwarded-proto': 'https' } },
      );
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject({ code: 'validation_error' });
      // Production names no setting: nothing allows an internal address there.
      expect(res.json().details).toEqual([{ path: 'url', message: 'internal address refused', code: 'internal_address' }]);
    } finally {
      await app.close();
    }
  });
});

describe('at delivery time', () => {
  it('a subscription stored with an embedded internal address is refused before any connection', async () => {
    for (const address of ['64:ff9b::7f00:1', '2002:a9fe:a9fe::1', '::ffff:7f00:1', teredo('65.54.227.120', '127.0.0.1')]) {
      const result = await sendWebhook(`https://[${address}]/hook`, '{}', {}, { production: true, allowPrivate: false, timeoutMs: 2000 });
      expect(result, address).toMatchObject({ status: null, error: 'refused: internal address refused' });
    }
  });
});
