import { hash, randomBytes } from 'node:crypto';
import { API_KEY_BODY_LENGTH, API_KEY_PATTERN, keyPrefix, type Mode } from '@merma/schema';

/**
 * API keys (their format: API_KEY_PATTERN in @merma/schema): `svc_live_` or `svc_test_` followed
 * by 32 base62 characters (190 bits of randomness). Only the SHA-256 of the full key is stored; a
 * fast hash is right here because the key is random and long, unlike a password. Lookups go by the
 * hash through a unique index, so the time taken does not depend on how much of a guess matches a
 * real key.
 */
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export function generateApiKey(mode: Mode): string {
  return randomToken(keyPrefix(mode));
}

/** `prefix` and 32 uniformly drawn base62 characters: API keys, integrations' URL tokens. */
export function randomToken(prefix: string): string {
  let body = '';
  // Rejection sampling keeps every character uniformly likely (248 = 4 * 62).
  while (body.length < API_KEY_BODY_LENGTH) {
    for (const byte of randomBytes(48)) {
      if (byte < 248 && body.length < API_KEY_BODY_LENGTH) body += ALPHABET[byte % 62];
    }
  }
  return prefix + body;
}

/** Node's one-shot hash: a third of createHash().update().digest()'s time, on every API request. */
export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}

/** Shape check before any lookup: a malformed key is refused without touching the database. */
export function isWellFormedKey(key: string): boolean {
  return API_KEY_PATTERN.test(key);
}
