import { describe, expect, it } from 'vitest';
import { type CheckpointKeySet, checkpointMessage, verifyCheckpoint } from '../src/index.js';

/** verifyCheckpoint with a key made here (Web Crypto Ed25519), as the service signs. */
async function signed(documents: { documents_seq: number; documents_head_hash: string } | Record<string, never> = {}) {
  const pair = (await crypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify'])) as CryptoKeyPair;
  const jwk = await crypto.subtle.exportKey('jwk', pair.publicKey);
  const unsigned = {
    establishment_id: '6ccf7d29-f6d9-403d-a9b0-2f907f15477b',
    livemode: false,
    seq: 42,
    head_hash: 'ab'.repeat(32),
    ...documents,
    signed_at: '2026-11-24T06:00:00.000Z',
  };
  const sig = new Uint8Array(
    await crypto.subtle.sign({ name: 'Ed25519' }, pair.privateKey, new TextEncoder().encode(checkpointMessage(unsigned))),
  );
  const signature = btoa(String.fromCharCode(...sig))
    .replaceAll('+', '-')
    .replaceAll('/', '_')
    .replace(/=+$/, '');
  const keys: CheckpointKeySet = { keys: [{ kty: 'OKP', crv: 'Ed25519', x: jwk.x as string, kid: 'k1' }] };
  return { checkpoint: { ...unsigned, key_id: 'k1', signature }, keys };
}

describe('verifyCheckpoint', () => {
  it('accepts a checkpoint signed by a published key', async () => {
    const { checkpoint, keys } = await signed();
    expect(checkpointMessage(checkpoint)).toBe(
      'merma-checkpoint:v1|6ccf7d29-f6d9-403d-a9b0-2f907f15477b|test|42|abababababababababababababababababababababababababababababababab|2026-11-24T06:00:00.000Z',
    );
    expect(await verifyCheckpoint(checkpoint, keys)).toBe(true);
  });

  it('refuses an altered field, another mode, an unknown key and a malformed signature', async () => {
    const { checkpoint, keys } = await signed();
    expect(await verifyCheckpoint({ ...checkpoint, seq: 43 }, keys)).toBe(false);
    expect(await verifyCheckpoint({ ...checkpoint, livemode: true }, keys)).toBe(false);
    expect(await verifyCheckpoint({ ...checkpoint, signed_at: '2026-11-25T06:00:00.000Z' }, keys)).toBe(false);
    expect(await verifyCheckpoint({ ...checkpoint, key_id: 'k2' }, keys)).toBe(false);
    expect(await verifyCheckpoint({ ...checkpoint, signature: '!!!' }, keys)).toBe(false);
    const other = await signed();
    expect(await verifyCheckpoint(checkpoint, other.keys)).toBe(false);
  });

  it('checks the v2 message of a checkpoint that signs the documents chain too', async () => {
    const { checkpoint, keys } = await signed({ documents_seq: 3, documents_head_hash: 'cd'.repeat(32) });
    expect(checkpointMessage(checkpoint)).toBe(
      `merma-checkpoint:v2|6ccf7d29-f6d9-403d-a9b0-2f907f15477b|test|42|${'ab'.repeat(32)}|3|${'cd'.repeat(32)}|2026-11-24T06:00:00.000Z`,
    );
    expect(await verifyCheckpoint(checkpoint, keys)).toBe(true);
    expect(await verifyCheckpoint({ ...checkpoint, documents_seq: 2 }, keys)).toBe(false);
    expect(await verifyCheckpoint({ ...checkpoint, documents_head_hash: 'ce'.repeat(32) }, keys)).toBe(false);
    // Read as v1 (the documents dropped), the signature does not hold.
    const {
      documents_seq: _seq,
      documents_head_hash: _hash,
      ...v1
    } = checkpoint as typeof checkpoint & { documents_seq?: number; documents_head_hash?: string };
    expect(await verifyCheckpoint(v1, keys)).toBe(false);
  });
});
