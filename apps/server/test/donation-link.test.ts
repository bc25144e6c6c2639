import { createHash } from 'node:crypto';
import { WebhookEvent } from '@merma/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderDonationNote } from '../src/modules/donations/note-pdf.js';
import { parseCsv } from './csv.js';
import { signedAgreement, socialEntity } from './donation-fixtures.js';
import { addKey, createTenant, startTestApp, type Tenant, type TestContext } from './helpers.js';
import { pdfText } from './pdf.js';

/**
 * The social entity's signing link, the fifth kind of caller: made by the kitchen for an offered
 * donation (`POST /api/v1/donations/{id}/link`), used by a volunteer without an account at its own
 * door (`/donation-link/donations/{id}`): the lines without values, one signature (the answer per
 * line, name, identity document, drawn or typed signature), the signed note as PDF (its SHA-256
 * stored) and CSV, and the refusals — an unknown token (401), another donation's id (404), a second
 * signature, a replaced link or one past its expiry (410, both sides of the edge on a moved clock).
 */

let now = new Date('2026-12-01T10:00:00.000Z');
let t: TestContext;
let a: Tenant;
let b: Tenant;
let agreementA: string;
let agreementB: string;

const api = (key: string, method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown, contentType = 'application/json') =>
  t.app.inject({
    method,
    url: `/api/v1${url}`,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': contentType }) },
    ...(body === undefined ? {} : { payload: Buffer.isBuffer(body) ? body : JSON.stringify(body) }),
  });
const door = (token: string | null, method: 'GET' | 'POST', url: string, body?: unknown) =>
  t.app.inject({
    method,
    url: `/donation-link/donations/${url}`,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      'user-agent': 'Volunteer phone',
    },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });

/** A 1×1 transparent PNG, as a signature pad would send a (very small) drawing. */
const PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

async function agreementFor(tenant: Tenant) {
  const live = (await addKey(t.db, tenant.establishmentId, 'live')).key;
  return signedAgreement(t, live, await socialEntity(t, live), [tenant.establishmentId], {
    valid_until: '2027-12-31',
    conditions: { chilled: true, frozen: false, cooked: false, near_best_before: true },
  });
}

beforeAll(async () => {
  t = await startTestApp({ clock: () => now });
  a = await createTenant(t.db);
  b = await createTenant(t.db);
  agreementA = await agreementFor(a);
  agreementB = await agreementFor(b);
});
afterAll(() => t?.close());

async function offered(tenant = a, agreement = agreementA) {
  const res = await api(tenant.key, 'POST', '/donations', {
    agreement_id: agreement,
    lines: [
      {
        description: 'Pan de barra',
        food_category: 'bakery',
        quantity: 3,
        unit: 'kg',
        lot: '=1+1',
        book_value: 4.5,
        allergens: ['gluten'],
      },
      { description: 'Manzanas', food_category: 'fruit_veg', quantity: 2.5, unit: 'kg', best_before: '2026-12-20' },
    ],
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { id: string; lines: { id: string }[] };
}

async function linkFor(donationId: string, tenant = a, hours?: number) {
  const res = await api(tenant.key, 'POST', `/donations/${donationId}/link`, hours === undefined ? {} : { expires_in_hours: hours });
  expect(res.statusCode, res.body).toBe(201);
  const { url, expires_at } = res.json().data as { url: string; expires_at: string };
  const token = url.slice(url.indexOf('#') + 1);
  return { url, token, expires_at };
}

const answer = (donation: { lines: { id: string }[] }, signature: unknown = { kind: 'drawn', png: PNG }) => ({
  lines: [
    { line_id: donation.lines[0]?.id, decision: 'accepted' },
    { line_id: donation.lines[1]?.id, decision: 'refused', reason: 'Golpeadas' },
  ],
  signer: { name: 'Lucía Pérez', id_document: '12345678Z', signature },
});

describe('the signing link', () => {
  it('opens the donation without values, takes one signature and serves the signed note as PDF and CSV', async () => {
    const donation = await offered();
    const { url, token, expires_at } = await linkFor(donation.id);
    expect(url).toMatch(new RegExp(`^http://[^/]+/dashboard/sign/${donation.id}#dln_[A-Za-z0-9_-]{43}$`));
    expect(expires_at).toBe('2026-12-03T10:00:00.000Z');
    // Only the token's hash is stored.
    const [stored] = await t.db.$queryRawUnsafe<{ token_hash: string }[]>(
      'SELECT token_hash FROM donation_links WHERE donation_id = $1::uuid',
      donation.id,
    );
    expect(stored?.token_hash).toBe(createHash('sha256').update(token).digest('hex'));

    const view = await door(token, 'GET', donation.id);
    expect(view.statusCode, view.body).toBe(200);
    expect(view.headers['cache-control']).toBe('no-store');
    const note = view.json().data;
    expect(note).toMatchObject({ donation_id: donation.id, status: 'offered', entity: { nif: 'G28029643' }, signed: null });
    expect(note.lines).toHaveLength(2);
    expect(JSON.stringify(note)).not.toMatch(/book_value|market_value/);
    // No signed note yet.
    expect((await door(token, 'GET', `${donation.id}/note.pdf`)).statusCode).toBe(404);

    // A refusal without its reason: 400, nothing changes.
    const bad = answer(donation) as { lines: Record<string, unknown>[] };
    bad.lines[1] = { line_id: donation.lines[1]?.id, decision: 'refused' };
    expect((await door(token, 'POST', `${donation.id}/signature`, bad)).statusCode).toBe(400);
    const notPng = await door(
      token,
      'POST',
      `${donation.id}/signature`,
      answer(donation, { kind: 'drawn', png: 'data:image/png;base64,AAAA' }),
    );
    expect(notPng.statusCode, notPng.body).toBe(400);
    expect(await t.db.$queryRawUnsafe('SELECT 1 FROM donation_notes WHERE donation_id = $1::uuid', donation.id)).toEqual([]);

    const signed = await door(token, 'POST', `${donation.id}/signature`, answer(donation));
    expect(signed.statusCode, signed.body).toBe(200);
    const after = signed.json().data;
    expect(after).toMatchObject({ status: 'accepted', signed: { name: 'Lucía Pérez', signed_at: now.toISOString() } });
    expect(after.lines.map((l: { status: string }) => l.status)).toEqual(['accepted', 'refused']);
    const [row] = await t.db.$queryRawUnsafe<{ sha256: string; ip: string; user_agent: string; signature_kind: string; pdf: Buffer }[]>(
      'SELECT sha256, ip, user_agent, signature_kind, pdf FROM donation_notes WHERE donation_id = $1::uuid',
      donation.id,
    );
    expect(row).toMatchObject({ ip: '127.0.0.1', user_agent: 'Volunteer phone', signature_kind: 'drawn', sha256: after.signed.sha256 });
    expect(
      createHash('sha256')
        .update(row?.pdf as Buffer)
        .digest('hex'),
    ).toBe(after.signed.sha256);

    // The kitchen's view agrees, and its webhook went out in the donation's mode.
    expect((await api(a.key, 'GET', `/donations/${donation.id}`)).json().data).toMatchObject({ status: 'accepted', awaiting_reroute: 1 });
    const events = await t.db.$queryRawUnsafe<{ type: string; payload: unknown }[]>(
      `SELECT type, payload FROM events WHERE payload->'data'->>'donation_id' = $1 ORDER BY type`,
      donation.id,
    );
    expect(events.map((e) => [e.type, WebhookEvent.safeParse(e.payload).success])).toEqual([
      ['donation.accepted', true],
      ['donation.offered', true],
    ]);

    const pdf = await door(token, 'GET', `${donation.id}/note.pdf`);
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    expect(createHash('sha256').update(pdf.rawPayload).digest('hex')).toBe(after.signed.sha256);
    expect(pdf.headers['repr-digest']).toBe(`sha-256=:${Buffer.from(after.signed.sha256, 'hex').toString('base64')}:`);

    // The stored note is what the renderer makes of this answer and signature (same inputs, same
    // bytes), and it reads as the note: the answer per line, the reason, who signed.
    const signer = { name: 'Lucía Pérez', id_document: '12345678Z', signature: { kind: 'drawn' as const, png: PNG }, png: null };
    const png = Buffer.from(PNG.slice(PNG.indexOf(',') + 1), 'base64');
    const again = await renderDonationNote({ note: after, signer: { ...signer, png }, signedAt: now.toISOString(), ip: '127.0.0.1' });
    expect(again.equals(pdf.rawPayload)).toBe(true);
    const text = pdfText(pdf.rawPayload);
    for (const phrase of [
      'Albarán de entrega de donación de alimentos',
      '1. Pan de barra — Aceptada',
      '2. Manzanas — Rechazada',
      'Motivo del rechazo: Golpeadas',
      'Lucía Pérez',
      '12345678Z',
      'G28029643',
    ]) {
      expect(text).toContain(phrase);
    }

    const csv = await door(token, 'GET', `${donation.id}/note.csv`);
    expect(csv.statusCode).toBe(200);
    expect(csv.rawPayload.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    const rows = parseCsv(csv.body, ';');
    expect(rows.map((r) => [r.Línea, r.Descripción, r['Peso neto (kg)'], r.Estado, r['Motivo del rechazo'], r.Lote])).toEqual([
      ['1', 'Pan de barra', '3', 'Aceptada', '', "'=1+1"],
      ['2', 'Manzanas', '2,5', 'Rechazada', 'Golpeadas', ''],
    ]);
    expect(rows[1]?.['Consumo preferente']).toBe('20/12/2026');
    expect(rows[0]?.['SHA-256 del albarán (PDF)']).toBe(after.signed.sha256);

    // Used: a second signature is a 410, and nothing changes.
    const twice = await door(token, 'POST', `${donation.id}/signature`, answer(donation, { kind: 'typed', text: 'Otra' }));
    expect(twice.statusCode).toBe(410);
    expect(twice.json()).toMatchObject({ status: 410, code: 'gone', details: [{ path: 'link.used_at' }] });
    const [kept] = await t.db.$queryRawUnsafe<{ signature_kind: string }[]>(
      'SELECT signature_kind FROM donation_notes WHERE donation_id = $1::uuid',
      donation.id,
    );
    expect(kept?.signature_kind).toBe('drawn');
    // …while the note can still be read.
    expect((await door(token, 'GET', donation.id)).statusCode).toBe(200);
  });

  it('works until its expiry and is gone from it, on a moved clock', async () => {
    const donation = await offered();
    const { token, expires_at } = await linkFor(donation.id, a, 1);
    const start = now;
    try {
      now = new Date(Date.parse(expires_at) - 1);
      expect((await door(token, 'GET', donation.id)).statusCode).toBe(200);
      now = new Date(expires_at);
      const gone = await door(token, 'GET', donation.id);
      expect(gone.statusCode).toBe(410);
      expect(gone.json().error).toContain('expired');
      expect(gone.json().details).toEqual([{ path: 'link.expires_at', message: 'has passed' }]);
      expect((await door(token, 'POST', `${donation.id}/signature`, answer(donation))).statusCode).toBe(410);
      expect((await api(a.key, 'GET', `/donations/${donation.id}`)).json().data.status).toBe('offered');
    } finally {
      now = start;
    }
  });

  it('is replaced by a newer link, and made for an offered donation only', async () => {
    const donation = await offered();
    const first = await linkFor(donation.id);
    const second = await linkFor(donation.id);
    const replaced = await door(first.token, 'GET', donation.id);
    expect(replaced.statusCode).toBe(410);
    expect(replaced.json().details).toEqual([{ path: 'link.replaced_at', message: 'a newer link was made' }]);
    expect(
      (await door(second.token, 'POST', `${donation.id}/signature`, answer(donation, { kind: 'typed', text: 'Lucía Pérez' }))).statusCode,
    ).toBe(200);
    const late = await api(a.key, 'POST', `/donations/${donation.id}/link`, {});
    expect(late.statusCode).toBe(409);
    // Another establishment's donation: 404; too long a link: 400.
    expect((await api(b.key, 'POST', `/donations/${donation.id}/link`, {})).statusCode).toBe(404);
    expect((await api(a.key, 'POST', `/donations/${(await offered()).id}/link`, { expires_in_hours: 169 })).statusCode).toBe(400);
  });

  it('answers 401 to no token and an unknown one, and 404 to another donation’s id', async () => {
    const mine = await offered();
    const theirs = await offered(b, agreementB);
    const { token } = await linkFor(mine.id);
    expect((await door(null, 'GET', mine.id)).statusCode).toBe(401);
    expect((await door('dln_unknown', 'GET', mine.id)).statusCode).toBe(401);
    expect((await door(a.key, 'GET', mine.id)).statusCode).toBe(401); // an API key is not a link
    const other = await door(token, 'POST', `${theirs.id}/signature`, answer(theirs));
    expect(other.statusCode).toBe(404);
    expect((await door(token, 'GET', theirs.id)).statusCode).toBe(404);
    expect((await door(token, 'GET', 'not-a-uuid')).statusCode).toBe(404);
    expect((await api(b.key, 'GET', `/donations/${theirs.id}`)).json().data.status).toBe('offered');
  });

  it('keeps the register intact: the chain verifies after signing', async () => {
    const donation = await offered();
    const { token } = await linkFor(donation.id);
    expect((await door(token, 'POST', `${donation.id}/signature`, answer(donation))).statusCode).toBe(200);
    const verify = (await api(a.key, 'GET', '/records/verify?full=true')).json().data;
    expect(verify).toMatchObject({ valid: true, first_invalid: null });
  });
});
