import type { ChainCheckpoint } from './generated/api-types.js';

/**
 * Checking a signed checkpoint of the record chain (`GET /api/v1/records/checkpoints`, or the
 * `checkpoint` of `records.verify()`) against the service's published keys, with Web Crypto's
 * Ed25519 only: Node 22+, Deno, Bun, current browsers and edge runtimes.
 *
 * A valid signature proves the service said, at `signed_at`, that the chain of this establishment
 * and mode had `seq` records ending in `head_hash` — and, once the register holds documents (a
 * donation's signed handover note), that its documents chain had `documents_seq` entries ending in
 * `documents_head_hash`. Keep checkpoints you fetched: if the register is ever rewritten, the
 * hashes it shows no longer match what was signed.
 *
 * The keys are a JSON Web Key Set at `<base URL>/.well-known/merma-checkpoint-keys.json`:
 *
 *     const keys = await (await fetch('https://api.merma.app/.well-known/merma-checkpoint-keys.json')).json();
 *     const ok = await verifyCheckpoint(checkpoint, keys);
 */

/** One public key of the set (`kty: 'OKP'`, `crv: 'Ed25519'`, `x`, `kid`). */
export type CheckpointKey = { kty: string; crv: string; x: string; kid: string; alg?: string; use?: string };
export type CheckpointKeySet = { keys: CheckpointKey[] };

/**
 * The exact text the service signs for a checkpoint (UTF-8): v1 for a register of records only,
 * v2 when the checkpoint also signs the documents chain's head.
 */
export function checkpointMessage(
  c: Pick<ChainCheckpoint, 'establishment_id' | 'livemode' | 'seq' | 'head_hash' | 'signed_at' | 'documents_seq' | 'documents_head_hash'>,
): string {
  const mode = c.livemode ? 'live' : 'test';
  if (c.documents_seq && c.documents_head_hash) {
    return `merma-checkpoint:v2|${c.establishment_id}|${mode}|${c.seq}|${c.head_hash}|${c.documents_seq}|${c.documents_head_hash}|${c.signed_at}`;
  }
  return `merma-checkpoint:v1|${c.establishment_id}|${mode}|${c.seq}|${c.head_hash}|${c.signed_at}`;
}

function base64url(text: string): Uint8Array<ArrayBuffer> {
  const b64 = text
    .replaceAll('-', '+')
    .replaceAll('_', '/')
    .padEnd(Math.ceil(text.length / 4) * 4, '=');
  const bin = atob(b64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return bytes;
}

/**
 * Whether the checkpoint carries a valid signature of a key in `keys` (the one its `key_id`
 * names). False for a wrong signature, an altered field or an unknown key; never throws for those.
 */
export async function verifyCheckpoint(checkpoint: ChainCheckpoint, keys: CheckpointKeySet): Promise<boolean> {
  const jwk = keys.keys.find((k) => k.kid === checkpoint.key_id && k.kty === 'OKP' && k.crv === 'Ed25519');
  if (!jwk) return false;
  let signature: Uint8Array<ArrayBuffer>;
  try {
    signature = base64url(checkpoint.signature);
  } catch {
    return false;
  }
  const key = await crypto.subtle.importKey('jwk', { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, { name: 'Ed25519' }, false, ['verify']);
  return crypto.subtle.verify({ name: 'Ed25519' }, key, signature, new TextEncoder().encode(checkpointMessage(checkpoint)));
}
