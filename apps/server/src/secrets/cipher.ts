import { createCipheriv, createDecipheriv, createSecretKey, hkdfSync, type KeyObject, randomBytes } from 'node:crypto';

/**
 * Secrets kept at rest (webhook signing secrets), encrypted with AES-256-GCM from node:crypto.
 *
 * Stored format, one string per value:
 *
 *     enc:v1:<key id>:<base64 IV, 12 bytes>:<base64 ciphertext followed by the 16-byte GCM tag>
 *
 * The key id names which of the configured keys (MERMA_ENCRYPTION_KEY, first one current) sealed
 * the value, so keys can be rotated: new values use the current key, older ones still open with
 * the key they name until `merma-admin secrets reencrypt` moves them. `v1` leaves room for another
 * layout later without guessing from the bytes.
 *
 * The additional authenticated data is the header (`enc:v1:<key id>`) and a context naming where
 * the value lives (table, column and row id): a ciphertext copied to another row or column, or
 * given another key id, fails authentication instead of opening there. A fresh random IV per value
 * (96 bits, GCM's native size) keeps IV reuse out of reach for the number of values one key ever
 * seals here.
 */
export const SEALED_PREFIX = 'enc:';
const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
export const KEY_BYTES = 32;

/** A key and its id. The key bytes are not enumerable, so logging or serialising a config never prints them. */
export type EncryptionKey = { readonly id: string; readonly key: Buffer };

export function encryptionKey(id: string, key: Buffer): EncryptionKey {
  const k = { id } as EncryptionKey;
  Object.defineProperty(k, 'key', { value: key, enumerable: false });
  return k;
}

/** A value that cannot be opened: unknown key id, unknown format, wrong key or altered data. */
export class SecretError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretError';
  }
}

export type SecretBox = {
  /** The id of the key new values are sealed with (the first configured). */
  readonly currentKeyId: string;
  /** Every configured key id, the current one first. */
  readonly keyIds: readonly string[];
  /** Where the keys come from, for error messages ("MERMA_ENCRYPTION_KEY", or the key file). */
  readonly source: string;
  /** Encrypts `plain` with the current key, bound to `context` (where the value will be stored). */
  seal(plain: string, context: string): string;
  /** Decrypts a sealed value stored at `context`; throws SecretError when it cannot. */
  open(sealed: string, context: string): string;
  /**
   * 32 bytes derived from each key for another purpose (HKDF-SHA256, `purpose` as its info), the
   * current key's first: keys for other jobs without more configuration, none of them revealing
   * the encryption key or each other.
   */
  derive(purpose: string): { keyId: string; bytes: Buffer }[];
};

/** Whether a stored value is in the sealed format (anything else is a value stored before encryption). */
export const isSealed = (stored: string): boolean => stored.startsWith(SEALED_PREFIX);

/** The key id a sealed value names (undefined when it is not sealed). */
export function keyIdOf(stored: string): string | undefined {
  return isSealed(stored) ? stored.split(':')[2] : undefined;
}

/**
 * Random IVs drawn a pool at a time, as Node's randomUUID draws its randomness: one call into
 * OpenSSL's generator per 340 seals instead of one per seal (a sealed Idempotency-Key answer is
 * made on every keyed write). Each IV is still 12 fresh random bytes, used once.
 */
const IV_POOL_BYTES = IV_BYTES * 340;
let ivPool = Buffer.alloc(0);
let ivOffset = 0;
function nextIv(): Buffer {
  if (ivOffset + IV_BYTES > ivPool.length) {
    ivPool = randomBytes(IV_POOL_BYTES);
    ivOffset = 0;
  }
  const iv = ivPool.subarray(ivOffset, ivOffset + IV_BYTES);
  ivOffset += IV_BYTES;
  return iv;
}

const aad = (header: string, context: string) => Buffer.from(`${header}\n${context}`, 'utf8');

export function createSecretBox(keys: readonly EncryptionKey[], source: string): SecretBox {
  const first = keys[0];
  if (!first) throw new Error('createSecretBox needs at least one key');
  // Each key as a KeyObject made once: given as bytes, every cipher would build one of its own (a
  // sealed Idempotency-Key answer is made on every keyed write).
  const byId = new Map<string, KeyObject>(keys.map((k) => [k.id, createSecretKey(k.key)]));
  const current = byId.get(first.id) as KeyObject;
  const keyIds = keys.map((k) => k.id);
  return {
    currentKeyId: first.id,
    keyIds,
    source,
    derive(purpose) {
      return keys.map((k) => ({ keyId: k.id, bytes: Buffer.from(hkdfSync('sha256', k.key, Buffer.alloc(0), purpose, 32)) }));
    },
    seal(plain, context) {
      const header = `${SEALED_PREFIX}${VERSION}:${first.id}`;
      const iv = nextIv();
      const cipher = createCipheriv('aes-256-gcm', current, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(aad(header, context));
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      // Joined, not templated: a flat string, which pg measures and copies at once (a rope of three
      // pieces is walked piece by piece, and a stored answer can be a batch's 100 kB).
      return [header, iv.toString('base64'), body.toString('base64')].join(':');
    },
    open(sealed, context) {
      const parts = sealed.split(':');
      if (parts.length !== 5 || `${parts[0]}:` !== SEALED_PREFIX) {
        throw new SecretError(`${context} is not in the ${SEALED_PREFIX}${VERSION}:<key id>:<iv>:<data> format`);
      }
      const [, version, keyId, ivText, bodyText] = parts as [string, string, string, string, string];
      if (version !== VERSION) {
        throw new SecretError(`${context} is stored in format ${version}, which this version of the server cannot read`);
      }
      const key = byId.get(keyId);
      if (!key) {
        throw new SecretError(
          `${context} is encrypted with key "${keyId}", which ${source} does not hold (it holds ${keyIds.join(', ')}): add that key back after the current one`,
        );
      }
      const iv = Buffer.from(ivText, 'base64');
      const body = Buffer.from(bodyText, 'base64');
      if (iv.length !== IV_BYTES || body.length < TAG_BYTES) {
        throw new SecretError(`${context} is not a valid ${SEALED_PREFIX}${VERSION} value (truncated IV or data)`);
      }
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
        decipher.setAAD(aad(`${SEALED_PREFIX}${VERSION}:${keyId}`, context));
        decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
        return Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()]).toString('utf8');
      } catch {
        throw new SecretError(
          `${context} cannot be decrypted with key "${keyId}": that key is not the one it was encrypted with, or the value was altered or moved`,
        );
      }
    },
  };
}
