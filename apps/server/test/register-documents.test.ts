import { createHash, createPublicKey, verify } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedAgreement, socialEntity } from './donation-fixtures.js';
import { addKey, createTenant, startTestApp, type Tenant, type TestContext } from './helpers.js';

/**
 * The register's documents chain: a donation's signed handover note is entered, as it is stored,
 * into a hash chain of its own per establishment and mode (modules/records/documents.ts), which
 * `GET /records/verify` walks beside the records — re-hashing every stored note — and every
 * checkpoint signs (the v2 message). A note changed in the database, bytes and shown hash alike, a
 * note removed, an entry removed at the end, or the entries rewritten with recomputed hashes after
 * a checkpoint: each is found, and no checkpoint is signed over it.
 */

const now = new Date('2026-12-01T10:00:00.000Z');
let t: TestContext;

const PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

const api = (key: string, method: 'GET' | 'POST', url: string, body?: unknown) =>
  t.app.inject({
    method,
    url: `/api/v1${url}`,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });

beforeAll(async () => {
  t = await startTestApp({ clock: () => now });
});
afterAll(() => t?.close());

/** A kitchen of its own (tests run shuffled), with an agreement for its establishment. */
async function kitchen(mode: 'test' | 'live' = 'test') {
  const tenant = await createTenant(t.db, { mode });
  const live = mode === 'live' ? tenant.key : (await addKey(t.db, tenant.establishmentId, 'live')).key;
  const agreement = await signedAgreement(t, live, await socialEntity(t, live), [tenant.establishmentId], {
    valid_until: '2027-12-31',
    conditions: { chilled: true, frozen: false, cooked: false, near_best_before: true },
  });
  return { tenant, agreement };
}

/** Offers a donation of one line and has the entity sign it through the link: the note's SHA-256. */
async function signedNote(tenant: Tenant, agreement: string): Promise<{ donationId: string; sha: string }> {
  const offered = await api(tenant.key, 'POST', '/donations', {
    agreement_id: agreement,
    lines: [{ description: 'Pan de barra', food_category: 'bakery', quantity: 3, unit: 'kg' }],
  });
  expect(offered.statusCode, offered.body).toBe(201);
  const donation = offered.json().data as { id: string; lines: { id: string }[] };
  const link = await api(tenant.key, 'POST', `/donations/${donation.id}/link`, {});
  expect(link.statusCode, link.body).toBe(201);
  const url = link.json().data.url as string;
  const signed = await t.app.inject({
    method: 'POST',
    url: `/donation-link/donations/${donation.id}/signature`,
    headers: { authorization: `Bearer ${url.slice(url.indexOf('#') + 1)}`, 'content-type': 'application/json' },
    payload: JSON.stringify({
      lines: [{ line_id: donation.lines[0]?.id, decision: 'accepted' }],
      signer: { name: 'Lucía Pérez', id_document: '12345678Z', signature: { kind: 'drawn', png: PNG } },
    }),
  });
  expect(signed.statusCode, signed.body).toBe(200);
  return { donationId: donation.id, sha: signed.json().data.signed.sha256 };
}

type Entry = {
  id: string;
  seq: string;
  kind: string;
  subject_id: string;
  sha256: string;
  created_at: Date;
  prev_hash: string;
  entry_hash: string;
};
const entriesOf = (tenant: Tenant) =>
  t.db.$queryRawUnsafe<Entry[]>(
    `SELECT id::text, seq::text, kind, subject_id::text, sha256, created_at, prev_hash, entry_hash FROM register_documents
     WHERE establishment_id = $1::uuid ORDER BY seq`,
    tenant.establishmentId,
  );
const verifyOf = async (tenant: Tenant, full = false) => {
  const res = await api(tenant.key, 'GET', `/records/verify${full ? '?full=true' : ''}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
};
const checkpointsOf = async (tenant: Tenant) =>
  (await api(tenant.key, 'GET', '/records/checkpoints')).json().data as Record<string, unknown>[];

/** The entry's hash as documented: SHA-256 of the previous hash and the sorted canonical JSON. */
const entryHash = (prev: string, e: Entry, tenant: Tenant, livemode: boolean, sha = e.sha256) =>
  sha256(
    prev +
      JSON.stringify({
        created_at: e.created_at.toISOString(),
        establishment_id: tenant.establishmentId,
        id: e.id,
        kind: e.kind,
        livemode,
        sha256: sha,
        subject_id: e.subject_id,
      }),
  );

describe('the documents chain', () => {
  it('enters each signed note, and the checkpoint signs both heads (v2), the next note moving the documents head alone', async () => {
    const { tenant, agreement } = await kitchen();
    const first = await signedNote(tenant, agreement);
    const [entry] = await entriesOf(tenant);
    expect(entry).toMatchObject({
      seq: '1',
      kind: 'donation_note',
      subject_id: first.donationId,
      sha256: first.sha,
      prev_hash: '0'.repeat(64),
    });
    expect(entry?.entry_hash).toBe(entryHash('0'.repeat(64), entry as Entry, tenant, false));

    const checked = await verifyOf(tenant);
    expect(checked).toMatchObject({
      valid: true,
      first_invalid: null,
      documents: { valid: true, checked: 1, head_hash: entry?.entry_hash, first_invalid: null },
    });
    const c = checked.checkpoint;
    expect(c).toMatchObject({
      seq: checked.checked,
      head_hash: checked.head_hash,
      documents_seq: 1,
      documents_head_hash: entry?.entry_hash,
    });

    // The signature holds over the documented v2 message, with the published key.
    const keys = (await t.app.inject({ method: 'GET', url: '/.well-known/merma-checkpoint-keys.json' })).json();
    const publicKey = createPublicKey({ key: keys.keys.find((k: { kid: string }) => k.kid === c.key_id), format: 'jwk' });
    const message = `merma-checkpoint:v2|${tenant.establishmentId}|test|${c.seq}|${c.head_hash}|1|${c.documents_head_hash}|${c.signed_at}`;
    expect(verify(null, Buffer.from(message), publicKey, Buffer.from(c.signature, 'base64url'))).toBe(true);
    expect(verify(null, Buffer.from(message.replace('|1|', '|2|')), publicKey, Buffer.from(c.signature, 'base64url'))).toBe(false);

    // Nothing new: no new checkpoint. A second note (its one line accepted: no record changes
    // after the offer's) moves the documents head: a new checkpoint over the same records.
    await verifyOf(tenant);
    expect(await checkpointsOf(tenant)).toHaveLength(1);
    const second = await signedNote(tenant, agreement);
    const entries = await entriesOf(tenant);
    expect(entries.map((e) => [e.seq, e.subject_id, e.prev_hash])).toEqual([
      ['1', first.donationId, '0'.repeat(64)],
      ['2', second.donationId, entry?.entry_hash],
    ]);
    const again = await verifyOf(tenant, true);
    expect(again).toMatchObject({ valid: true, documents: { valid: true, checked: 2 } });
    expect(again.checkpoint).toMatchObject({ documents_seq: 2, documents_head_hash: entries[1]?.entry_hash });
    const listed = await checkpointsOf(tenant);
    expect(listed.map((k) => [k.seq, k.documents_seq])).toEqual([
      [again.checkpoint.seq, 2],
      [c.seq, 1],
    ]);
  });

  it('finds a note whose PDF and stored hash were both changed, and signs nothing over it', async () => {
    const { tenant, agreement } = await kitchen();
    await signedNote(tenant, agreement);
    const changed = await signedNote(tenant, agreement);
    await signedNote(tenant, agreement);
    const forged = Buffer.from('%PDF-1.7\nforged\n%%EOF\n');
    await t.db.$executeRawUnsafe(
      'UPDATE donation_notes SET pdf = $2, sha256 = $3 WHERE donation_id = $1::uuid',
      changed.donationId,
      forged,
      sha256(forged),
    );
    const [, entry] = await entriesOf(tenant);
    const result = await verifyOf(tenant, true);
    expect(result).toMatchObject({
      valid: false,
      first_invalid: null,
      documents: { valid: false, checked: 1, first_invalid: { id: entry?.id, seq: 2, reason: 'document_changed' } },
    });
    expect(await checkpointsOf(tenant)).toEqual([]);

    // The hash the product shows changed alone (the bytes intact): found too.
    const { tenant: other, agreement: otherAgreement } = await kitchen();
    const note = await signedNote(other, otherAgreement);
    await t.db.$executeRawUnsafe('UPDATE donation_notes SET sha256 = $2 WHERE donation_id = $1::uuid', note.donationId, 'a'.repeat(64));
    expect((await verifyOf(other)).documents).toMatchObject({ valid: false, first_invalid: { seq: 1, reason: 'document_changed' } });
  });

  it('finds a removed note, a removed last entry, and entries rewritten after a checkpoint', async () => {
    const removed = await kitchen();
    const gone = await signedNote(removed.tenant, removed.agreement);
    await t.db.$executeRawUnsafe('DELETE FROM donation_notes WHERE donation_id = $1::uuid', gone.donationId);
    expect((await verifyOf(removed.tenant)).documents).toMatchObject({
      valid: false,
      first_invalid: { seq: 1, reason: 'document_missing' },
    });

    const cut = await kitchen();
    await signedNote(cut.tenant, cut.agreement);
    const last = await signedNote(cut.tenant, cut.agreement);
    await t.db.$executeRawUnsafe('DELETE FROM register_documents WHERE subject_id = $1::uuid', last.donationId);
    expect((await verifyOf(cut.tenant)).documents).toMatchObject({
      valid: false,
      checked: 1,
      first_invalid: { id: null, seq: 2, reason: 'truncated' },
    });

    // Signed, then the note swapped and its entry and the head recomputed to match: the chain is
    // self-consistent again, but the checkpoint signed the old head.
    const rewritten = await kitchen();
    const swapped = await signedNote(rewritten.tenant, rewritten.agreement);
    expect((await verifyOf(rewritten.tenant)).checkpoint).toMatchObject({ documents_seq: 1 });
    const forged = Buffer.from('%PDF-1.7\nanother note\n%%EOF\n');
    const [entry] = await entriesOf(rewritten.tenant);
    const forgedHash = entryHash('0'.repeat(64), entry as Entry, rewritten.tenant, false, sha256(forged));
    await t.db.$executeRawUnsafe(
      'UPDATE donation_notes SET pdf = $2, sha256 = $3 WHERE donation_id = $1::uuid',
      swapped.donationId,
      forged,
      sha256(forged),
    );
    await t.db.$executeRawUnsafe(
      'UPDATE register_documents SET sha256 = $2, entry_hash = $3 WHERE id = $1::uuid',
      entry?.id,
      sha256(forged),
      forgedHash,
    );
    await t.db.$executeRawUnsafe(
      'UPDATE register_document_heads SET last_hash = $2 WHERE establishment_id = $1::uuid',
      rewritten.tenant.establishmentId,
      forgedHash,
    );
    expect((await verifyOf(rewritten.tenant)).documents).toMatchObject({
      valid: false,
      first_invalid: { id: entry?.id, seq: 1, reason: 'checkpoint_mismatch' },
    });
  });

  it('keeps each mode and establishment to its own chain', async () => {
    const testKitchen = await kitchen('test');
    const liveKey = (await addKey(t.db, testKitchen.tenant.establishmentId, 'live')).key;
    await signedNote(testKitchen.tenant, testKitchen.agreement);
    const live = (await api(liveKey, 'GET', '/records/verify')).json().data;
    expect(live.documents).toEqual({ valid: true, checked: 0, head_hash: null, first_invalid: null });
    const liveKitchen = await kitchen('live');
    await signedNote(liveKitchen.tenant, liveKitchen.agreement);
    const [entry] = await entriesOf(liveKitchen.tenant);
    expect(entry?.entry_hash).toBe(entryHash('0'.repeat(64), entry as Entry, liveKitchen.tenant, true));
    expect((await verifyOf(liveKitchen.tenant)).documents).toMatchObject({ valid: true, checked: 1 });
    expect((await verifyOf(testKitchen.tenant)).documents).toMatchObject({ valid: true, checked: 1 });
    // A register without documents keeps the v1 checkpoint: no documents fields.
    const plain = await createTenant(t.db);
    await api(plain.key, 'POST', '/records', { food_category: 'bakery', weight_kg: 1, destino_id: '261568e0-0830-4971-bb56-4a6153297696' });
    const checkpoint = (await verifyOf(plain)).checkpoint;
    expect(checkpoint).not.toHaveProperty('documents_seq');
    expect(checkpoint).not.toHaveProperty('documents_head_hash');
  });
});
