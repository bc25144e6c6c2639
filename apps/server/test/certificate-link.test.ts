import { createHash } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedAgreement, socialEntity } from './donation-fixtures.js';
import { addKey, createTenant, startTestApp, type TestContext } from './helpers.js';
import { pdfText } from './pdf.js';

/**
 * The certificate of Ley 49/2002 art. 24 signed through the entity's link: made by the kitchen
 * (`POST /api/v1/donations/tax-pack/certificates/{entity_id}/link`), read and signed by the
 * entity's representative at the link's door (`/donation-link/certificates/{link_id}`), stored as
 * the year's signed certificate (the API's `…/signed` serves the same bytes; the pack shows it; the
 * audit log says who signed; the documents chain of the company's establishment holds its hash,
 * and a later upload's too). Refused: a certificate nothing was given for (404), a bad year (400),
 * a bad signature (400, nothing stored), a second signature, a replaced link and one past its
 * expiry (410, both sides of the edge on a moved clock), another link's id (404), no token (401).
 */

let now = new Date('2026-11-20T10:00:00.000Z');
let t: TestContext;

const PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

const send = (key: string, method: 'GET' | 'POST' | 'PUT', url: string, body?: Buffer | object) =>
  t.app.inject({
    method,
    url: `/api/v1${url}`,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': Buffer.isBuffer(body) ? 'application/pdf' : 'application/json' }),
    },
    ...(body === undefined ? {} : { payload: Buffer.isBuffer(body) ? body : JSON.stringify(body) }),
  });
const door = (token: string | null, method: 'GET' | 'POST', url: string, body?: unknown) =>
  t.app.inject({
    method,
    url: `/donation-link/certificates/${url}`,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      'user-agent': 'Representative laptop',
    },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
const ok = (res: LightMyRequestResponse, status = 200) => {
  expect(res.statusCode, res.body.slice(0, 500)).toBe(status);
  return res;
};

beforeAll(async () => {
  t = await startTestApp({ clock: () => now });
});
afterAll(() => t?.close());

/** A kitchen (its own organisation: tests run shuffled) that gave a food bank two lines in 2026, collected on 12 March and 3 October. */
async function scene() {
  const tenant = await createTenant(t.db, { mode: 'live' });
  const key = tenant.key;
  const entityId = await socialEntity(t, key);
  const agreementId = await signedAgreement(t, key, entityId, [tenant.establishmentId], {
    valid_from: '2026-01-01',
    valid_until: '2027-12-31',
  });
  const saved = now;
  try {
    for (const [at, description, value] of [
      ['2026-03-12T09:00:00.000Z', 'Pan de barra', 12.5],
      ['2026-10-03T09:00:00.000Z', 'Manzanas', 30],
    ] as const) {
      now = new Date(at);
      const offered = ok(
        await send(key, 'POST', '/donations', {
          agreement_id: agreementId,
          lines: [{ description, food_category: 'bakery', quantity: 4, unit: 'kg', book_value: value, market_value: value }],
        }),
        201,
      ).json().data;
      ok(await send(key, 'POST', `/donations/${offered.id}/decision`, { lines: [{ line_id: offered.lines[0].id, decision: 'accepted' }] }));
      ok(await send(key, 'POST', `/donations/${offered.id}/collect`));
    }
  } finally {
    now = saved;
  }
  const [{ cif }] = (await t.db.$queryRawUnsafe<{ cif: string }[]>(
    'SELECT cif FROM establishments WHERE id = $1::uuid',
    tenant.establishmentId,
  )) as [{ cif: string }];
  return { tenant, key, entityId, cif };
}

async function linkFor(key: string, entityId: string, body: object = { year: 2026 }) {
  const res = ok(await send(key, 'POST', `/donations/tax-pack/certificates/${entityId}/link`, body), 201);
  const { url, expires_at } = res.json().data as { url: string; expires_at: string };
  const id = url.slice(url.indexOf('/certificate/') + '/certificate/'.length, url.indexOf('#'));
  return { url, id, token: url.slice(url.indexOf('#') + 1), expires_at };
}

const signature = (over: Record<string, unknown> = {}) => ({
  signer: { name: 'Marta Ruiz', id_document: '12345678Z', role: 'Presidenta', signature: { kind: 'drawn', png: PNG } },
  place: 'Madrid',
  ...over,
});

describe('the certificate signed through a link', () => {
  it('shows the pre-filled certificate, takes one signature, and stores the signed PDF as the year’s certificate', async () => {
    const { tenant, key, entityId, cif } = await scene();
    const { url, id, token, expires_at } = await linkFor(key, entityId);
    expect(url).toMatch(new RegExp(`^http://[^/]+/dashboard/sign/certificate/${id}#dln_[A-Za-z0-9_-]{43}$`));
    expect(expires_at).toBe('2026-11-22T10:00:00.000Z');
    const [stored] = await t.db.$queryRawUnsafe<{ token_hash: string; cif: string; year: number }[]>(
      'SELECT token_hash, cif, year FROM certificate_links WHERE id = $1::uuid',
      id,
    );
    expect(stored).toEqual({ token_hash: createHash('sha256').update(token).digest('hex'), cif, year: 2026 });

    const view = ok(await door(token, 'GET', id));
    expect(view.headers['cache-control']).toBe('no-store');
    expect(view.json().data).toEqual({
      year: 2026,
      livemode: true,
      expires_at,
      entity: { name: expect.any(String), nif: 'G28029643', regime_opted_in: true },
      donor: { name: expect.any(String), cif, establishments: [expect.any(String)] },
      deliveries: [
        { handed_over_on: '2026-03-12', description: 'Pan de barra', net_kg: 4, value: 12.5 },
        { handed_over_on: '2026-10-03', description: 'Manzanas', net_kg: 4, value: 30 },
      ],
      totals: { net_kg: 8, value: 42.5 },
      signed: null,
    });
    expect((await door(token, 'GET', `${id}/certificate.pdf`)).statusCode).toBe(404);

    // Without a position, or with a drawing that is not a PNG: 400, nothing stored.
    const noRole = await door(token, 'POST', `${id}/signature`, { ...signature(), signer: { ...signature().signer, role: '' } });
    expect(noRole.statusCode, noRole.body).toBe(400);
    expect(noRole.json().details).toEqual([expect.objectContaining({ path: 'signer.role' })]);
    const notPng = await door(token, 'POST', `${id}/signature`, {
      ...signature(),
      signer: { ...signature().signer, signature: { kind: 'drawn', png: 'data:image/png;base64,AAAA' } },
    });
    expect(notPng.statusCode, notPng.body).toBe(400);
    expect(await t.db.$queryRawUnsafe('SELECT 1 FROM donation_certificates WHERE entity_id = $1::uuid', entityId)).toEqual([]);

    const signed = ok(await door(token, 'POST', `${id}/signature`, signature()));
    const after = signed.json().data;
    expect(after.signed).toEqual({
      name: 'Marta Ruiz',
      role: 'Presidenta',
      signed_at: now.toISOString(),
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });

    const pdf = ok(await door(token, 'GET', `${id}/certificate.pdf`));
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(sha256(pdf.rawPayload)).toBe(after.signed.sha256);
    expect(pdf.headers['repr-digest']).toBe(`sha-256=:${Buffer.from(after.signed.sha256, 'hex').toString('base64')}:`);
    const text = pdfText(pdf.rawPayload).replace(/\s*\n\s*/g, ' ');
    for (const phrase of [
      'Certificado de donaciones recibidas',
      'Pan de barra',
      'Manzanas',
      'En Madrid, a 20/11/2026.',
      'Marta Ruiz',
      'Presidenta',
      '12345678Z',
    ]) {
      expect(text).toContain(phrase);
    }
    expect(text).not.toContain('Nombre: ____');

    // The API's signed certificate is those bytes, the pack says it is in, the audit log says who signed.
    const viaApi = ok(await send(key, 'GET', `/donations/tax-pack/certificates/${entityId}/signed?year=2026`));
    expect(viaApi.rawPayload.equals(pdf.rawPayload)).toBe(true);
    const pack = ok(await send(key, 'GET', '/donations/tax-pack?year=2026')).json().data;
    expect(pack.taxpayers[0].entities[0].signed_certificate).toEqual({ sha256: after.signed.sha256, uploaded_at: now.toISOString() });
    const [audit] = await t.db.$queryRawUnsafe<{ action: string; actor_user_id: string | null; details: Record<string, unknown> }[]>(
      `SELECT action, actor_user_id, details FROM audit_events WHERE organization_id = $1::uuid AND action LIKE 'donation_certificate.%'`,
      tenant.organizationId,
    );
    expect(audit).toMatchObject({
      action: 'donation_certificate.signed',
      actor_user_id: null,
      details: { certificate_link_id: id, signer_name: 'Marta Ruiz', sha256: after.signed.sha256, replaced_sha256: null, year: 2026, cif },
    });

    // Its hash is in the establishment's documents chain, and the register verifies.
    const entries = await t.db.$queryRawUnsafe<{ kind: string; sha256: string }[]>(
      'SELECT kind, sha256 FROM register_documents WHERE establishment_id = $1::uuid AND livemode = true ORDER BY seq',
      tenant.establishmentId,
    );
    expect(entries).toEqual([{ kind: 'donation_certificate', sha256: after.signed.sha256 }]);
    expect(ok(await send(key, 'GET', '/records/verify')).json().data).toMatchObject({
      valid: true,
      documents: { valid: true, checked: 1 },
    });

    // A second signature is a 410; the link still shows the signed certificate.
    const again = await door(token, 'POST', `${id}/signature`, signature());
    expect(again.statusCode).toBe(410);
    expect(again.json().details).toEqual([{ path: 'link.used_at', message: 'the certificate was signed through this link' }]);
    expect(ok(await door(token, 'GET', id)).json().data.signed.name).toBe('Marta Ruiz');
  });

  it('keeps a later upload in the chain too, and finds the stored certificate changed in the database', async () => {
    const { tenant, key, entityId } = await scene();
    const { id, token } = await linkFor(key, entityId);
    const signed = ok(
      await door(token, 'POST', `${id}/signature`, {
        ...signature(),
        signer: { ...signature().signer, signature: { kind: 'typed', text: 'Marta Ruiz' } },
      }),
    );
    const own = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(128, 3), Buffer.from('\n%%EOF\n')]);
    ok(await send(key, 'PUT', `/donations/tax-pack/certificates/${entityId}/signed?year=2026`, own));
    const entries = await t.db.$queryRawUnsafe<{ sha256: string }[]>(
      'SELECT sha256 FROM register_documents WHERE establishment_id = $1::uuid ORDER BY seq',
      tenant.establishmentId,
    );
    expect(entries.map((e) => e.sha256)).toEqual([signed.json().data.signed.sha256, sha256(own)]);
    expect(ok(await send(key, 'GET', '/records/verify')).json().data.documents).toMatchObject({ valid: true, checked: 2 });
    // The link's download is of what it signed: replaced since, it is gone.
    expect((await door(token, 'GET', `${id}/certificate.pdf`)).statusCode).toBe(404);

    const forged = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(128, 4), Buffer.from('\n%%EOF\n')]);
    await t.db.$executeRawUnsafe(
      'UPDATE donation_certificates SET content = $2, sha256 = $3 WHERE entity_id = $1::uuid',
      entityId,
      forged,
      sha256(forged),
    );
    expect(ok(await send(key, 'GET', '/records/verify')).json().data).toMatchObject({
      valid: false,
      documents: { valid: false, first_invalid: { seq: 2, reason: 'document_changed' } },
    });
  });

  it('takes one of two signatures sent at once; the other is a 410 and stores nothing', async () => {
    const { tenant, key, entityId } = await scene();
    const { id, token } = await linkFor(key, entityId);
    const answers = await Promise.all([
      door(token, 'POST', `${id}/signature`, signature()),
      door(token, 'POST', `${id}/signature`, { ...signature(), place: 'Getafe' }),
    ]);
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 410]);
    const entries = await t.db.$queryRawUnsafe<{ sha256: string }[]>(
      'SELECT sha256 FROM register_documents WHERE establishment_id = $1::uuid',
      tenant.establishmentId,
    );
    expect(entries).toHaveLength(1);
    const audits = await t.db.$queryRawUnsafe(
      'SELECT 1 FROM audit_events WHERE organization_id = $1::uuid AND action = $2',
      tenant.organizationId,
      'donation_certificate.signed',
    );
    expect(audits).toHaveLength(1);
  });

  it('is refused once replaced or expired (both sides of the edge), and for another link’s id or no token', async () => {
    const { key, entityId } = await scene();
    const first = await linkFor(key, entityId, { year: 2026, expires_in_hours: 1 });
    const second = await linkFor(key, entityId, { year: 2026, expires_in_hours: 1 });
    const replaced = await door(first.token, 'GET', first.id);
    expect(replaced.statusCode).toBe(410);
    expect(replaced.json().details).toEqual([{ path: 'link.replaced_at', message: 'a newer link was made' }]);
    expect((await door(second.token, 'GET', first.id)).statusCode).toBe(404);
    expect((await door(null, 'GET', second.id)).statusCode).toBe(401);
    expect((await door('dln_nope', 'GET', second.id)).statusCode).toBe(401);

    const saved = now;
    try {
      now = new Date(saved.getTime() + 3_600_000 - 1);
      ok(await door(second.token, 'GET', second.id));
      now = new Date(saved.getTime() + 3_600_000);
      const expired = await door(second.token, 'POST', `${second.id}/signature`, signature());
      expect(expired.statusCode).toBe(410);
      expect(expired.json().details).toEqual([{ path: 'link.expires_at', message: 'has passed' }]);
    } finally {
      now = saved;
    }
    expect(await t.db.$queryRawUnsafe('SELECT 1 FROM donation_certificates WHERE entity_id = $1::uuid', entityId)).toEqual([]);
  });

  it('is made only for a certificate there is: a year without gifts, another organisation’s entity, a bad year', async () => {
    const { key, entityId } = await scene();
    const other = await scene();
    expect((await send(key, 'POST', `/donations/tax-pack/certificates/${entityId}/link`, { year: 2025 })).statusCode).toBe(404);
    expect((await send(key, 'POST', `/donations/tax-pack/certificates/${other.entityId}/link`, { year: 2026 })).statusCode).toBe(404);
    const bad = await send(key, 'POST', `/donations/tax-pack/certificates/${entityId}/link`, { year: 1999 });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details).toEqual([expect.objectContaining({ path: 'year' })]);
    const testKey = (await addKey(t.db, other.tenant.establishmentId, 'test')).key;
    expect((await send(testKey, 'POST', `/donations/tax-pack/certificates/${other.entityId}/link`, { year: 2026 })).statusCode).toBe(404);
    expect(
      await t.db.$queryRawUnsafe('SELECT 1 FROM certificate_links WHERE entity_id = ANY($1::uuid[])', [entityId, other.entityId]),
    ).toEqual([]);
  });
});
