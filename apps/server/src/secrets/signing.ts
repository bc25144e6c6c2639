import { createHash, createPrivateKey, createPublicKey, type KeyObject, sign } from 'node:crypto';
import type { SecretBox } from './cipher.js';

/**
 * Ed25519 keys that sign the record chain's checkpoints (modules/records/checkpoints.ts), derived
 * from the encryption keys (MERMA_ENCRYPTION_KEY, or the development key under DATA_DIR) with
 * HKDF under their own purpose: no other configuration, and a deployment that keeps its
 * encryption keys keeps its signing keys. The current encryption key signs; the public keys of
 * all of them are published (GET /.well-known/merma-checkpoint-keys.json, a JWKS), so a checkpoint
 * signed before a key rotation still verifies while the old key is configured.
 */
const PURPOSE = 'merma checkpoint signing v1';
// The fixed PKCS#8 header of an Ed25519 private key, before its 32-byte seed (RFC 8410).
const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');

export type PublicJwk = { kty: 'OKP'; crv: 'Ed25519'; x: string; kid: string; alg: 'EdDSA'; use: 'sig' };
export type CheckpointSigner = {
  /** The id of the key that signs now. */
  readonly keyId: string;
  sign(message: string): { keyId: string; signature: string };
  /** The public keys, the signing one first. */
  jwks(): { keys: PublicJwk[] };
};

type SigningKey = { kid: string; privateKey: KeyObject; jwk: PublicJwk };

function signingKey(seed: Buffer): SigningKey {
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, seed]), format: 'der', type: 'pkcs8' });
  const { x } = createPublicKey(privateKey).export({ format: 'jwk' }) as { x: string };
  // The key id names the public key itself (so it is the same wherever the key is configured).
  const kid = `ed25519-${createHash('sha256').update(Buffer.from(x, 'base64url')).digest('hex').slice(0, 16)}`;
  return { kid, privateKey, jwk: { kty: 'OKP', crv: 'Ed25519', x, kid, alg: 'EdDSA', use: 'sig' } };
}

export function createCheckpointSigner(box: Pick<SecretBox, 'derive'>): CheckpointSigner {
  const keys = box.derive(PURPOSE).map((k) => signingKey(k.bytes));
  const current = keys[0];
  if (!current) throw new Error('no key to sign checkpoints with');
  return {
    keyId: current.kid,
    sign: (message) => ({
      keyId: current.kid,
      signature: sign(null, Buffer.from(message, 'utf8'), current.privateKey).toString('base64url'),
    }),
    jwks: () => ({ keys: keys.map((k) => k.jwk) }),
  };
}
