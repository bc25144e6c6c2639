import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Config } from '../config.js';
import type { Log } from '../context.js';
import { createSecretBox, type EncryptionKey, encryptionKey, KEY_BYTES, type SecretBox } from './cipher.js';

/**
 * The keys that encrypt secrets at rest, and where they come from.
 *
 * `MERMA_ENCRYPTION_KEY` is a comma-separated list of `<id>:<key>`, the key new values use first:
 * `k2:<new>,k1:<old>`. A key is 32 random bytes (AES-256) written as base64 (`openssl rand -base64
 * 32`) or as 64 hex digits (`openssl rand -hex 32`); an id is 1-32 letters, digits, `-` or `_`, and
 * is stored beside every value it encrypts, so it must stay the same for as long as the key is used.
 *
 * It is required in production (config.ts refuses to start without it). Elsewhere, when it is
 * unset, a key is generated on first start and kept in `DATA_DIR/encryption.key` (mode 0600), in
 * the variable's own syntax so it can be moved into MERMA_ENCRYPTION_KEY as it is — also when
 * DATABASE_URL points at a PostgreSQL server: a developer's database is then unreadable without
 * that file, which the boot log says. Its id is random (`local-…`), so a database reached from two
 * checkouts with different key files fails by naming the key it lacks, not with a wrong-key error.
 */
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;
export const KEY_FILE = 'encryption.key';

/**
 * The bytes of a key written in hex (any even number of hex digits: the length check follows) or
 * in base64 (standard or URL alphabet, padding optional); undefined when it is neither.
 */
function decodeKey(text: string): Buffer | undefined {
  if (/^(?:[0-9a-fA-F]{2})+$/.test(text)) return Buffer.from(text, 'hex');
  const b64 = text.replaceAll('-', '+').replaceAll('_', '/').replace(/=+$/, '');
  if (!/^[A-Za-z0-9+/]+$/.test(b64)) return undefined;
  const bytes = Buffer.from(b64, 'base64');
  // Round trip: refuses text Node's lenient decoder would silently truncate.
  return bytes.toString('base64').replace(/=+$/, '') === b64 ? bytes : undefined;
}

/** Parses `<id>:<key>[,<id>:<key>…]`; throws an Error whose message never contains key material. */
export function parseEncryptionKeys(value: string): EncryptionKey[] {
  const entries = value
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  if (entries.length === 0) throw new Error('no key given: write it as <id>:<key>, e.g. k1:<output of openssl rand -base64 32>');
  const seen = new Set<string>();
  return entries.map((entry, i) => {
    const colon = entry.indexOf(':');
    if (colon < 0) {
      throw new Error(`key ${i + 1} has no id: write each key as <id>:<key>, e.g. k1:<output of openssl rand -base64 32>`);
    }
    const id = entry.slice(0, colon);
    if (!KEY_ID.test(id)) throw new Error(`key id "${id.slice(0, 40)}" must be 1-32 letters, digits, "-" or "_"`);
    if (seen.has(id)) throw new Error(`key id "${id}" is given twice`);
    seen.add(id);
    const key = decodeKey(entry.slice(colon + 1));
    if (!key || key.length !== KEY_BYTES) {
      const size = key ? `is ${key.length} bytes` : 'is neither base64 nor hex';
      throw new Error(
        `key "${id}" ${size}: AES-256 needs ${KEY_BYTES} random bytes as base64 (openssl rand -base64 32) or 64 hex digits (openssl rand -hex 32)`,
      );
    }
    return encryptionKey(id, key);
  });
}

/**
 * The configured keys, or (outside production, MERMA_ENCRYPTION_KEY unset) the key kept under
 * DATA_DIR, generated when absent. Every process that reads or writes secrets (server, worker,
 * merma-admin) calls this with the same configuration and gets the same keys.
 */
export function loadSecretBox(config: Pick<Config, 'env' | 'dataDir' | 'encryptionKeys'>, log?: Pick<Log, 'info'>): SecretBox {
  if (config.encryptionKeys) return createSecretBox(config.encryptionKeys, 'MERMA_ENCRYPTION_KEY');
  if (config.env === 'production') throw new Error('MERMA_ENCRYPTION_KEY is required in production');
  const dir = resolve(config.dataDir);
  const file = join(dir, KEY_FILE);
  let generated = false;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    mkdirSync(dir, { recursive: true });
    // Written whole to a temporary file, then linked into place: link fails if another process
    // (the server and merma-admin starting together) created the file first, and then its key is
    // the one everybody uses; a reader never sees a half-written file.
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, `local-${randomBytes(4).toString('hex')}:${randomBytes(KEY_BYTES).toString('base64')}\n`, {
      mode: 0o600,
      flag: 'w',
    });
    try {
      linkSync(tmp, file);
      generated = true;
    } catch (linkErr) {
      if ((linkErr as NodeJS.ErrnoException).code !== 'EEXIST') throw linkErr;
    } finally {
      rmSync(tmp, { force: true });
    }
    text = readFileSync(file, 'utf8');
  }
  let keys: EncryptionKey[];
  try {
    keys = parseEncryptionKeys(text.trim());
  } catch (err) {
    throw new Error(`${file}: ${(err as Error).message}`);
  }
  const box = createSecretBox(keys, file);
  log?.info(
    { keyFile: file, keyId: box.currentKeyId },
    generated
      ? 'MERMA_ENCRYPTION_KEY is not set: generated the key that encrypts webhook secrets; keep this file with the database (without it their secrets cannot be read)'
      : 'MERMA_ENCRYPTION_KEY is not set: webhook secrets are encrypted with the key kept in DATA_DIR',
  );
  return box;
}
