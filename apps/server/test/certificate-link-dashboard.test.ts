import { createHash } from 'node:crypto';
import type { Role } from '@merma/schema/dashboard';
import { deadline } from '@merma/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changedDigests, tableDigests } from './contract.js';
import { createMember, DashboardBrowser, failure, PASSWORD } from './dashboard-client.js';
import { signedAgreement, socialEntity } from './donation-fixtures.js';
import { addKey, createTenant, startTestApp, type Tenant, type TestContext } from './helpers.js';

/**
 * The entity's link to sign its certificate, made from the Donations page's tax pack
 * (`donations.createCertificateLink` at /trpc): owners and admins make it for one company's gifts of
 * the year to one entity, from the organisation's pack in the mode shown, at PUBLIC_URL; its token
 * opens the certificate at the link's door (`/donation-link/certificates/{id}`); the link acts in
 * the company's oldest establishment; the audit entry keeps the certificate and the expiry, never
 * the URL. Developers and viewers are refused, a certificate nothing was given for is a 404, bad
 * input a 400, nothing written.
 *
 * Organisation A (Enterprise, not Multi: the dashboard still reads every establishment) has two
 * companies: X, with two establishments (X1 gave; X0, the older, gave nothing), and Y; each gave one
 * food bank something in 2026, and X1 a test gift.
 */
const NOW = new Date('2026-11-20T10:00:00.000Z');
const YEAR = 2026;
const PUBLIC_URL = 'https://merma.example';
let now = NOW;
let t: TestContext;
let x: Tenant;
let xOlder: string;
let yEstablishment: string;
let bank: string;
const cif = { x: '', y: '' };
const browsers = {} as Record<Role | 'otherOwner', DashboardBrowser>;

const send = (key: string, method: 'POST', url: string, body?: unknown) =>
  t.app.inject({
    method,
    url: `/api/v1${url}`,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });

async function give(key: string, agreementId: string, description: string, bookValue: number) {
  const offered = await send(key, 'POST', '/donations', {
    agreement_id: agreementId,
    lines: [{ description, food_category: 'bakery', quantity: 5, unit: 'kg', book_value: bookValue, market_value: bookValue }],
  });
  expect(offered.statusCode, offered.body).toBe(201);
  const donation = offered.json().data;
  const decided = await send(key, 'POST', `/donations/${donation.id}/decision`, {
    lines: [{ line_id: donation.lines[0].id, decision: 'accepted' }],
  });
  expect(decided.statusCode, decided.body).toBe(200);
  expect((await send(key, 'POST', `/donations/${donation.id}/collect`)).statusCode).toBe(200);
}

const cifOf = async (establishmentId: string) =>
  (await t.db.$queryRawUnsafe<{ cif: string }[]>('SELECT cif FROM establishments WHERE id = $1::uuid', establishmentId))[0]?.cif as string;

beforeAll(async () => {
  t = await startTestApp({ config: { TRUST_PROXY: 'true', REDIS_URL: '', PUBLIC_URL }, clock: () => now });
  x = await createTenant(t.db);
  yEstablishment = (await createTenant(t.db, { organizationId: x.organizationId })).establishmentId;
  xOlder = (await createTenant(t.db, { organizationId: x.organizationId })).establishmentId;
  cif.x = await cifOf(x.establishmentId);
  cif.y = await cifOf(yEstablishment);
  // X0: another kitchen of company X (its CIF written as people write it), opened before X1.
  await t.db.$executeRawUnsafe(
    `UPDATE establishments SET cif = $2, created_at = '2020-01-01T00:00:00Z' WHERE id = $1::uuid`,
    xOlder,
    `${cif.x.slice(0, 1)}-${cif.x.slice(1)}`,
  );
  const xLive = (await addKey(t.db, x.establishmentId, 'live')).key;
  const yLive = (await addKey(t.db, yEstablishment, 'live')).key;
  bank = await socialEntity(t, xLive);
  const agreement = await signedAgreement(t, xLive, bank, [x.establishmentId, yEstablishment]);
  await give(xLive, agreement, 'Pan de X', 100);
  await give(yLive, agreement, 'Pan de Y', 40);
  await give(x.key, agreement, 'Pan de prueba', 999);
  const b = await createTenant(t.db);

  // Signed in at the real time, so that the session cookies outlive the test (the client drops an
  // expired cookie by the real clock); the server's clock is NOW again for everything else.
  const signedIn = async (organizationId: string, role: Role) => {
    const member = await createMember(t.db, organizationId, role);
    const browser = new DashboardBrowser(t.app);
    now = new Date();
    try {
      await browser.signIn(member.email, PASSWORD);
    } finally {
      now = NOW;
    }
    return browser;
  };
  for (const role of ['owner', 'admin', 'developer', 'viewer'] as const) browsers[role] = await signedIn(x.organizationId, role);
  browsers.otherOwner = await signedIn(b.organizationId, 'owner');
}, deadline(90_000));

afterAll(async () => {
  await t?.close();
});

type Made = { url: string; expires_at: string };
const make = (browser: DashboardBrowser, input: Record<string, unknown>) => browser.mutate<Made>('donations.createCertificateLink', input);
const partsOf = (url: string) => ({
  id: url.slice(url.indexOf('/certificate/') + '/certificate/'.length, url.indexOf('#')),
  token: url.slice(url.indexOf('#') + 1),
});
const door = (token: string, id: string) =>
  t.app.inject({ method: 'GET', url: `/donation-link/certificates/${id}`, headers: { authorization: `Bearer ${token}` } });
const linkRow = async (id: string) =>
  (
    await t.db.$queryRawUnsafe<Record<string, unknown>[]>(
      `SELECT establishment_id::text, only_establishment_id::text, livemode, entity_id::text, year, cif, token_hash, replaced_at
       FROM certificate_links WHERE id = $1::uuid`,
      id,
    )
  )[0];
const linkEntries = async () =>
  t.db.auditEvent.findMany({ where: { organization_id: x.organizationId, action: 'donation_certificate.link_created' } });

describe('the certificate’s signing link from the dashboard', () => {
  it('an owner makes it at PUBLIC_URL for one company’s gifts; its token opens that certificate; audited without the URL', async () => {
    const { url, expires_at } = await make(browsers.owner, { entity_id: bank, year: YEAR, cif: cif.y.toLowerCase(), livemode: true });
    const { id, token } = partsOf(url);
    expect(url).toMatch(new RegExp(`^${PUBLIC_URL}/dashboard/sign/certificate/${id}#dln_[A-Za-z0-9_-]{43}$`));
    expect(expires_at).toBe('2026-11-22T10:00:00.000Z');
    expect(await linkRow(id)).toEqual({
      establishment_id: yEstablishment,
      only_establishment_id: null,
      livemode: true,
      entity_id: bank,
      year: YEAR,
      cif: cif.y,
      token_hash: createHash('sha256').update(token).digest('hex'),
      replaced_at: null,
    });

    const opened = await door(token, id);
    expect(opened.statusCode, opened.body).toBe(200);
    expect(opened.json().data).toMatchObject({
      year: YEAR,
      livemode: true,
      expires_at,
      donor: { cif: cif.y },
      deliveries: [{ description: 'Pan de Y', net_kg: 5, value: 40 }],
      totals: { net_kg: 5, value: 40 },
      signed: null,
    });

    // The only live link of Y's certificate any test makes.
    const entries = (await linkEntries()).filter((e) => (e.details as { cif: string; livemode: boolean }).cif === cif.y);
    expect(entries).toHaveLength(1);
    const [entry] = entries;
    expect(entry).toMatchObject({
      actor_email: expect.stringMatching(/^owner-/),
      target: 'Banco de Alimentos del Barrio',
      establishment_id: yEstablishment,
      details: { entity_id: bank, year: YEAR, cif: cif.y, livemode: true, expires_at },
    });
    expect(JSON.stringify(entry)).not.toContain(token);
    expect(JSON.stringify(entry)).not.toContain(id);
  });

  it('an admin’s link acts in the company’s oldest establishment, lasts what it asks, and replaces the last one', async () => {
    const first = await make(browsers.admin, { entity_id: bank, year: YEAR, cif: cif.x, livemode: true });
    now = new Date(NOW.getTime() + 60_000);
    let second: Made;
    try {
      second = await make(browsers.admin, { entity_id: bank, year: YEAR, cif: cif.x, livemode: true, expires_in_hours: 6 });
    } finally {
      now = NOW;
    }
    expect(second.expires_at).toBe('2026-11-20T16:01:00.000Z');
    const [old, latest] = [partsOf(first.url), partsOf(second.url)];
    expect(await linkRow(latest.id)).toMatchObject({ establishment_id: xOlder, cif: cif.x, replaced_at: null });
    expect((await linkRow(old.id))?.replaced_at).not.toBeNull();
    expect((await door(old.token, old.id)).statusCode).toBe(410);
    const opened = await door(latest.token, latest.id);
    expect(opened.statusCode, opened.body).toBe(200);
    expect(opened.json().data.deliveries.map((d: { description: string }) => d.description)).toEqual(['Pan de X']);
  });

  it('in test mode, links the certificate of the test gifts', async () => {
    const { url } = await make(browsers.owner, { entity_id: bank, year: YEAR, cif: cif.x, livemode: false });
    const { id, token } = partsOf(url);
    const opened = await door(token, id);
    expect(opened.statusCode, opened.body).toBe(200);
    expect(opened.json().data).toMatchObject({ livemode: false, deliveries: [{ description: 'Pan de prueba' }] });
    const entries = (await linkEntries()).filter((e) => !(e.details as { livemode: boolean }).livemode);
    expect(entries.map((e) => e.details)).toEqual([expect.objectContaining({ cif: cif.x, livemode: false })]);
  });

  it('refuses developers and viewers (403) and a call without a session (401); nothing written', async () => {
    const input = { entity_id: bank, year: YEAR, cif: cif.x, livemode: true };
    const before = await tableDigests(t.db);
    expect(await failure(make(browsers.developer, input))).toMatchObject({ status: 403, code: 'forbidden' });
    expect(await failure(make(browsers.viewer, input))).toMatchObject({ status: 403, code: 'forbidden' });
    expect(await failure(make(new DashboardBrowser(t.app), input))).toMatchObject({ status: 401, code: 'unauthorized' });
    expect(changedDigests(before, await tableDigests(t.db))).toEqual([]);
  });

  it('answers 404 for a certificate nothing was given for, 400 for bad input; nothing written', async () => {
    const input = { entity_id: bank, year: YEAR, cif: cif.x, livemode: true };
    const before = await tableDigests(t.db);
    for (const [name, call, status, code] of [
      ['a year without gifts', { ...input, year: 2025 }, 404, 'not_found'],
      ['a company that gave nothing in test mode', { ...input, cif: cif.y, livemode: false }, 404, 'not_found'],
      ['a company of another organisation', { ...input, cif: 'B99999999' }, 404, 'not_found'],
      ['another organisation’s entity', { ...input, entity_id: bank, by: 'otherOwner' }, 404, 'not_found'],
      ['no company', { entity_id: bank, year: YEAR, livemode: true }, 400, 'validation_error'],
      ['an empty company', { ...input, cif: ' ' }, 400, 'validation_error'],
      ['no mode', { entity_id: bank, year: YEAR, cif: cif.x }, 400, 'validation_error'],
      ['a year out of range', { ...input, year: 1999 }, 400, 'validation_error'],
      ['too long a life', { ...input, expires_in_hours: 169 }, 400, 'validation_error'],
      ['not a UUID', { ...input, entity_id: 'banco' }, 400, 'validation_error'],
      ['an unknown field', { ...input, establishment_id: x.establishmentId }, 400, 'validation_error'],
    ] as const) {
      const { by, ...body } = call as Record<string, unknown> & { by?: 'otherOwner' };
      expect(await failure(make(browsers[by ?? 'owner'], body)), name).toMatchObject({ status, code });
    }
    expect(changedDigests(before, await tableDigests(t.db))).toEqual([]);
  });
});
