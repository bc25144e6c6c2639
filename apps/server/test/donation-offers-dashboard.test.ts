import { createHash } from 'node:crypto';
import type { Role } from '@merma/schema/dashboard';
import { deadline } from '@merma/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changedDigests, tableDigests } from './contract.js';
import { createMember, DashboardBrowser, failure, PASSWORD } from './dashboard-client.js';
import { addKey, createTenant, DESTINO_DONATION, DESTINO_LANDFILL, startTestApp, type Tenant, type TestContext } from './helpers.js';

/**
 * Donations from the dashboard (`donations.list`, `get`, `offer`, `decide`, `createLink`,
 * `collect`, `receive`, `rerouteLine` at /trpc, and the signed note at
 * /files/donations/{id}/note.pdf): the API's services in the establishment and mode the page
 * names. Every member reads; owners, admins and developers offer and follow a donation (viewers are
 * refused, nothing written); each write is audited in its transaction, the signing link's entry
 * without its URL; the link goes to PUBLIC_URL; another establishment's, mode's or organisation's
 * donation is a 404, nothing written.
 */
const NOW = new Date('2026-12-01T10:00:00.000Z'); // 11:00 in Madrid
const PUBLIC_URL = 'https://merma.example';
const DESTINO_HUMAN = '6e0879b0-91e3-4004-bef6-79b5dd18049b';
const DESTINO_COMPOST = '51a096c6-196d-41dd-a02a-968cbfa9803f';
const PDF = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(256, 7), Buffer.from('\n%%EOF\n')]);
/** A 1×1 PNG, as a signature pad sends a (very small) drawing. */
const PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

let t: TestContext;
let a: Tenant;
let aSecond: string;
let b: Tenant;
let agreement: string;
const browsers = {} as Record<Role | 'otherOwner', DashboardBrowser>;

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const send = (key: string, method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown, contentType = 'application/json') =>
  t.app.inject({
    method,
    url: `/api/v1${url}`,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': contentType }) },
    ...(body === undefined ? {} : { payload: Buffer.isBuffer(body) ? body : JSON.stringify(body) }),
  });

/** An agreement in force (its signed PDF stored) for both of A's establishments, accepting bakery and fruit. */
async function agreementInForce(tenant: Tenant, establishmentIds: string[]) {
  const live = (await addKey(t.db, tenant.establishmentId, 'live')).key;
  const entity = await send(live, 'POST', '/social-entities', {
    name: 'Banco de Alimentos del Barrio',
    nif: 'G28029643',
    address: 'Calle Mayor 1, Madrid',
    legal_form: 'banco_de_alimentos',
    ley_49_2002: { art2_entity: true, regime_opted_in: true },
    capacity: { cold_chain: true, vehicle: true },
  });
  expect(entity.statusCode, entity.body).toBe(201);
  const created = await send(live, 'POST', '/donation-agreements', {
    entity_id: entity.json().data.id,
    establishment_ids: establishmentIds,
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
  const id = created.json().data.id as string;
  expect((await send(live, 'PUT', `/donation-agreements/${id}/document`, PDF, 'application/pdf')).statusCode).toBe(200);
  return id;
}

beforeAll(async () => {
  t = await startTestApp({ config: { TRUST_PROXY: 'true', REDIS_URL: '', PUBLIC_URL }, clock: () => NOW });
  a = await createTenant(t.db);
  aSecond = (await createTenant(t.db, { organizationId: a.organizationId })).establishmentId;
  b = await createTenant(t.db);
  agreement = await agreementInForce(a, [a.establishmentId, aSecond]);
  const signedIn = async (organizationId: string, role: Role) => {
    const member = await createMember(t.db, organizationId, role);
    const browser = new DashboardBrowser(t.app);
    await browser.signIn(member.email, PASSWORD);
    return browser;
  };
  for (const role of ['owner', 'admin', 'developer', 'viewer'] as const) browsers[role] = await signedIn(a.organizationId, role);
  browsers.otherOwner = await signedIn(b.organizationId, 'owner');
}, deadline(60_000));

afterAll(async () => {
  await t?.close();
});

const testMode = (establishment_id = a.establishmentId) => ({ establishment_id, livemode: false });
const LINES = [
  { description: 'Pan de barra', food_category: 'bakery', quantity: 3, unit: 'kg', lot: 'L-12', allergens: ['gluten'], book_value: 4.5 },
  { description: 'Manzanas', food_category: 'fruit_veg', quantity: 2.5, unit: 'kg', best_before: '2026-12-20' },
];
type Offered = { id: string; lines: { id: string; record_id: string; position: number }[] };
const offer = (who: Role = 'developer', lines: unknown[] = LINES) =>
  browsers[who].mutate<Offered>('donations.offer', { ...testMode(), agreement_id: agreement, lines });

const auditAbout = async (action: string, donationId: string) =>
  (await t.db.auditEvent.findMany({ where: { organization_id: a.organizationId, action }, orderBy: { created_at: 'asc' } })).filter(
    (e) => (e.details as Record<string, unknown>).donation_id === donationId,
  );

/** The signed note as the page downloads it: a GET with the session's cookies. */
function downloadNote(
  browser: DashboardBrowser,
  id: string,
  query: Record<string, string> = { establishment_id: a.establishmentId, mode: 'test' },
) {
  const headers: Record<string, string> = { 'sec-fetch-site': 'same-origin', 'x-forwarded-for': browser.ip };
  if (browser.cookies.size) headers.cookie = [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  return t.app.inject({ method: 'GET', url: `/files/donations/${id}/note.pdf`, query, headers });
}

/** The volunteer's signature through the link's own door, every line accepted. */
async function signThroughLink(donation: Offered, token: string) {
  const signed = await t.app.inject({
    method: 'POST',
    url: `/donation-link/donations/${donation.id}/signature`,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    payload: JSON.stringify({
      lines: donation.lines.map((l) => ({ line_id: l.id, decision: 'accepted' })),
      signer: { name: 'Lucía Pérez', id_document: '12345678Z', signature: { kind: 'drawn', png: PNG } },
    }),
  });
  expect(signed.statusCode, signed.body).toBe(200);
}

describe('offering a donation from the dashboard', () => {
  it('offers it in the mode shown (one record per line), audited; every member lists and reads it, the other mode none', async () => {
    const donation = await offer('developer');
    expect(donation).toMatchObject({
      status: 'offered',
      livemode: false,
      establishment_id: a.establishmentId,
      entity_id: expect.any(String),
    });
    expect(donation.lines.map((l) => l.position)).toEqual([1, 2]);
    const records = await t.db.record.findMany({ where: { id: { in: donation.lines.map((l) => l.record_id) } } });
    expect(records.map((r) => [r.destino_id, r.livemode, r.source])).toEqual([
      [DESTINO_DONATION, false, 'donation'],
      [DESTINO_DONATION, false, 'donation'],
    ]);
    const [entry] = await auditAbout('donation.offered', donation.id);
    expect(entry).toMatchObject({
      target: 'Banco de Alimentos del Barrio',
      establishment_id: a.establishmentId,
      actor_email: expect.stringMatching(/^developer-/),
      details: { donation_id: donation.id, livemode: false, agreement_id: agreement, lines: 2, net_kg: 5.5 },
    });

    const listed = await browsers.viewer.query('donations.list', testMode());
    expect(listed.items.map((d: { id: string }) => d.id)).toContain(donation.id);
    expect(listed.total).toBeGreaterThanOrEqual(1);
    const got = await browsers.viewer.query('donations.get', { ...testMode(), id: donation.id });
    expect(got).toMatchObject({
      id: donation.id,
      note: null,
      link: null,
      lines: [{ description: 'Pan de barra' }, { description: 'Manzanas' }],
    });
    // Live mode and the other establishment list none of it.
    expect((await browsers.viewer.query('donations.list', { ...testMode(), livemode: true })).items).toEqual([]);
    expect((await browsers.viewer.query('donations.list', testMode(aSecond))).items).toEqual([]);
  });

  it("refuses what the API refuses with the API's details, under the field they name; nothing written", async () => {
    const before = await tableDigests(t.db);
    const bad = await failure(
      offer('owner', [
        { ...LINES[0], food_category: 'meat' },
        { ...LINES[1], use_by: '2026-11-30' },
      ]),
    );
    expect(bad).toMatchObject({ status: 400, code: 'validation_error' });
    expect(bad.body.error.data.details.map((d: { path: string }) => d.path)).toEqual(['lines.0.food_category', 'lines.1.use_by']);
    // The input's own shape is checked as the API checks it, paths as the form has them.
    const shape = await failure(offer('owner', [{ ...LINES[0], quantity: -1 }]));
    expect(shape).toMatchObject({ status: 400, code: 'validation_error' });
    expect(shape.body.error.data.details.map((d: { path: string }) => d.path)).toEqual(['lines.0.quantity']);
    expect(changedDigests(before, await tableDigests(t.db))).toEqual([]);
  });
});

describe('following a donation from the dashboard', () => {
  it("records the entity's answer from paper, sends the refused line below donation only, then collected and received, each audited", async () => {
    const donation = await offer('admin');
    const [bread, apples] = donation.lines as [Offered['lines'][0], Offered['lines'][0]];
    const answered = await browsers.developer.mutate('donations.decide', {
      ...testMode(),
      id: donation.id,
      lines: [
        { line_id: bread.id, decision: 'accepted' },
        { line_id: apples.id, decision: 'refused', reason: 'Golpeadas' },
      ],
    });
    expect(answered).toMatchObject({ status: 'accepted', awaiting_reroute: 1 });
    expect((await auditAbout('donation.answer_recorded', donation.id))[0]?.details).toEqual({
      donation_id: donation.id,
      livemode: false,
      status: 'accepted',
      accepted: [1],
      refused: [{ position: 2, reason: 'Golpeadas' }],
    });

    // The refused line waits, counted whatever the filter, and the filter finds its donation.
    const waiting = await browsers.viewer.query('donations.list', { ...testMode(), awaiting_reroute: true });
    expect(waiting.items.map((d: { id: string }) => d.id)).toContain(donation.id);
    expect(waiting.awaiting_reroute.lines).toBeGreaterThanOrEqual(1);
    const offeredOnly = await browsers.viewer.query('donations.list', { ...testMode(), status: 'offered' });
    expect(offeredOnly.items.map((d: { id: string }) => d.id)).not.toContain(donation.id);
    expect(offeredOnly.awaiting_reroute).toEqual(waiting.awaiting_reroute);

    // Not above donation nor donation itself; nothing written.
    const before = await tableDigests(t.db);
    for (const destino_id of [DESTINO_HUMAN, DESTINO_DONATION]) {
      const refused = await failure(
        browsers.owner.mutate('donations.rerouteLine', { ...testMode(), id: donation.id, line_id: apples.id, destino_id }),
      );
      expect(refused).toMatchObject({ status: 400, code: 'validation_error' });
      expect(refused.body.error.data.details[0].path).toBe('destino_id');
    }
    expect(changedDigests(before, await tableDigests(t.db))).toEqual([]);
    const rerouted = await browsers.owner.mutate('donations.rerouteLine', {
      ...testMode(),
      id: donation.id,
      line_id: apples.id,
      destino_id: DESTINO_COMPOST,
      note: 'Al compost',
    });
    const line = rerouted.lines[1];
    expect(line.rerouted).toMatchObject({ destino_id: DESTINO_COMPOST });
    expect(rerouted.awaiting_reroute).toBe(0);
    expect((await auditAbout('donation.line_rerouted', donation.id))[0]?.details).toEqual({
      donation_id: donation.id,
      livemode: false,
      line_id: apples.id,
      position: 2,
      destino_id: DESTINO_COMPOST,
      record_id: line.rerouted.record_id,
      supersedes_id: apples.record_id,
    });
    // Once per line: the API's 409.
    expect(
      await failure(
        browsers.owner.mutate('donations.rerouteLine', {
          ...testMode(),
          id: donation.id,
          line_id: apples.id,
          destino_id: DESTINO_LANDFILL,
        }),
      ),
    ).toMatchObject({ status: 409, code: 'conflict' });

    expect(await failure(browsers.developer.mutate('donations.receive', { ...testMode(), id: donation.id }))).toMatchObject({
      status: 409,
    });
    expect(await browsers.developer.mutate('donations.collect', { ...testMode(), id: donation.id })).toMatchObject({ status: 'collected' });
    expect(await browsers.developer.mutate('donations.receive', { ...testMode(), id: donation.id })).toMatchObject({ status: 'received' });
    expect((await auditAbout('donation.collected', donation.id)).map((e) => e.details)).toEqual([
      { donation_id: donation.id, livemode: false, accepted_kg: 3 },
    ]);
    expect(await auditAbout('donation.received', donation.id)).toHaveLength(1);
  });

  it('makes the signing link at PUBLIC_URL, audited without it; once signed through it, shows the SHA-256 and downloads the note', async () => {
    const donation = await offer('developer');
    const { url, expires_at } = await browsers.developer.mutate('donations.createLink', {
      ...testMode(),
      id: donation.id,
      expires_in_hours: 24,
    });
    expect(url).toMatch(new RegExp(`^${PUBLIC_URL}/dashboard/sign/${donation.id}#dln_[A-Za-z0-9_-]{43}$`));
    expect(expires_at).toBe('2026-12-02T10:00:00.000Z');
    const token = url.slice(url.indexOf('#') + 1);
    const [entry] = await auditAbout('donation.link_created', donation.id);
    expect(entry?.details).toEqual({ donation_id: donation.id, livemode: false, expires_at });
    expect(JSON.stringify(entry)).not.toContain(token);

    const before = await browsers.viewer.query('donations.get', { ...testMode(), id: donation.id });
    expect(before).toMatchObject({ note: null, link: { created_at: NOW.toISOString(), expires_at, used_at: null } });
    expect((await downloadNote(browsers.viewer, donation.id)).statusCode).toBe(404);

    // The volunteer signs through the link's own door.
    await signThroughLink(donation, token);

    const after = await browsers.viewer.query('donations.get', { ...testMode(), id: donation.id });
    expect(after).toMatchObject({
      status: 'accepted',
      note: { signer_name: 'Lucía Pérez', signed_at: NOW.toISOString(), sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
      link: { used_at: NOW.toISOString() },
    });
    const pdf = await downloadNote(browsers.viewer, donation.id);
    expect(pdf.statusCode, pdf.body.slice(0, 200)).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.headers['content-disposition']).toBe(`attachment; filename="albaran-donacion-${donation.id}.pdf"`);
    expect(pdf.headers.etag).toBe(`"${after.note.sha256}"`);
    expect(sha256(pdf.rawPayload)).toBe(after.note.sha256);
    // A link for a donation that is no longer offered: the API's 409.
    expect(await failure(browsers.developer.mutate('donations.createLink', { ...testMode(), id: donation.id }))).toMatchObject({
      status: 409,
      code: 'conflict',
    });
  });
});

describe('who may, and whose', () => {
  it('refuses a viewer every write (403, nothing written)', async () => {
    const donation = await offer('owner');
    const before = await tableDigests(t.db);
    const id = { ...testMode(), id: donation.id };
    for (const [path, input] of [
      ['donations.offer', { ...testMode(), agreement_id: agreement, lines: LINES }],
      ['donations.decide', { ...id, lines: donation.lines.map((l) => ({ line_id: l.id, decision: 'accepted' })) }],
      ['donations.createLink', id],
      ['donations.collect', id],
      ['donations.receive', id],
      ['donations.rerouteLine', { ...id, line_id: donation.lines[0]?.id, destino_id: DESTINO_COMPOST }],
    ] as const) {
      expect(await failure(browsers.viewer.mutate(path, input)), path).toMatchObject({ status: 403, code: 'forbidden' });
    }
    expect(changedDigests(before, await tableDigests(t.db))).toEqual([]);
  });

  it('answers 404 for a donation of another establishment, mode or organisation, and writes nothing', async () => {
    // Signed, so that its note downloads for whoever may see it.
    const donation = await offer('owner');
    const { url } = await browsers.owner.mutate('donations.createLink', { ...testMode(), id: donation.id });
    await signThroughLink(donation, url.slice(url.indexOf('#') + 1));
    expect((await downloadNote(browsers.viewer, donation.id)).statusCode).toBe(200);
    const before = await tableDigests(t.db);
    const decide = { lines: donation.lines.map((l) => ({ line_id: l.id, decision: 'accepted' })) };
    const calls = (scope: { establishment_id: string; livemode: boolean }) =>
      [
        ['query', 'donations.get', { ...scope, id: donation.id }],
        ['mutation', 'donations.decide', { ...scope, id: donation.id, ...decide }],
        ['mutation', 'donations.createLink', { ...scope, id: donation.id }],
        ['mutation', 'donations.collect', { ...scope, id: donation.id }],
        ['mutation', 'donations.receive', { ...scope, id: donation.id }],
        ['mutation', 'donations.rerouteLine', { ...scope, id: donation.id, line_id: donation.lines[0]?.id, destino_id: DESTINO_COMPOST }],
      ] as const;
    for (const [who, browser, scope] of [
      ['the owner, naming the other establishment', browsers.owner, testMode(aSecond)],
      ['the owner, in live mode', browsers.owner, { ...testMode(), livemode: true }],
      ["organisation B, naming A's establishment", browsers.otherOwner, testMode()],
      ['organisation B, from its own establishment', browsers.otherOwner, testMode(b.establishmentId)],
    ] as const) {
      for (const [kind, path, input] of calls(scope)) {
        const call = kind === 'query' ? browser.query(path, input) : browser.mutate(path, input);
        expect(await failure(call), `${who}: ${path}`).toMatchObject({ status: 404, code: 'not_found' });
      }
      const note = await downloadNote(browser, donation.id, {
        establishment_id: scope.establishment_id,
        mode: scope.livemode ? 'live' : 'test',
      });
      expect([note.statusCode, note.json().code], `${who}: note.pdf`).toEqual([404, 'not_found']);
    }
    // B's list shows nothing of A's.
    expect(JSON.stringify(await browsers.otherOwner.query('donations.list', testMode(b.establishmentId)))).not.toContain(donation.id);
    expect(changedDigests(before, await tableDigests(t.db))).toEqual([]);
    // Without a session, the note is a 401.
    expect((await downloadNote(new DashboardBrowser(t.app), donation.id)).statusCode).toBe(401);
  });
});
