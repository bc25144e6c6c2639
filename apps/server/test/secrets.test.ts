import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { createSecretBox, encryptionKey, isSealed, keyIdOf, SecretError } from '../src/secrets/cipher.js';
import { KEY_FILE, loadSecretBox, parseEncryptionKeys } from '../src/secrets/keys.js';
import { secretContext } from '../src/secrets/stored.js';

/**
 * The cipher of secrets at rest (AES-256-GCM, `enc:v1:<key id>:<iv>:<data>`), the parsing of
 * MERMA_ENCRYPTION_KEY and the development key kept under DATA_DIR. The database side (the API,
 * deliveries, the boot step, `merma-admin secrets reencrypt`) is in webhook-secrets.test.ts.
 */
const k1 = encryptionKey('k1', randomBytes(32));
const k2 = encryptionKey('k2', randomBytes(32));
const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const HERE = secretContext('7d4f2c59-0b8e-4f43-9d6a-2f1c5e3a9b10', 'secret');
const tmp = mkdtempSync(join(tmpdir(), 'merma-secrets-'));
const SERVER_DIR = resolve(import.meta.dirname, '..');
const exec = promisify(execFile);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('the cipher', () => {
  const box = createSecretBox([k1], 'MERMA_ENCRYPTION_KEY');

  it('round-trips, in the documented format, without the secret or its base64 body in the output', () => {
    const sealed = box.seal(SECRET, HERE);
    expect(sealed).toMatch(/^enc:v1:k1:[A-Za-z0-9+/]{16}:[A-Za-z0-9+/=]+$/);
    expect(sealed).not.toContain(SECRET.slice(6));
    expect(Buffer.from(sealed.split(':')[4] as string, 'base64')).toHaveLength(SECRET.length + 16); // data + GCM tag
    expect(isSealed(sealed)).toBe(true);
    expect(keyIdOf(sealed)).toBe('k1');
    expect(box.open(sealed, HERE)).toBe(SECRET);
    // A fresh IV each time: the same secret never gives the same stored value.
    expect(box.seal(SECRET, HERE)).not.toBe(sealed);
  });

  it('never uses an IV twice, across the pools the IVs are drawn from', () => {
    const ivs = Array.from({ length: 1_000 }, () => Buffer.from(box.seal(SECRET, HERE).split(':')[3] as string, 'base64'));
    expect(ivs.every((iv) => iv.length === 12)).toBe(true);
    expect(new Set(ivs.map((iv) => iv.toString('hex'))).size).toBe(1_000);
  });

  it('does not open a value under another context (row or column)', () => {
    const sealed = box.seal(SECRET, HERE);
    const otherRow = secretContext('0b3c1a2e-5d4f-4e6a-8b7c-9d0e1f2a3b4c', 'secret');
    const otherColumn = secretContext('7d4f2c59-0b8e-4f43-9d6a-2f1c5e3a9b10', 'previous_secret');
    for (const context of [otherRow, otherColumn]) {
      expect(() => box.open(sealed, context)).toThrow(SecretError);
      expect(() => box.open(sealed, context)).toThrow(/cannot be decrypted with key "k1"/);
    }
    // The id is compared as PostgreSQL prints it (lower case), whatever case the caller used.
    expect(box.open(sealed, secretContext('7D4F2C59-0B8E-4F43-9D6A-2F1C5E3A9B10', 'secret'))).toBe(SECRET);
  });

  it('names a key id it does not hold', () => {
    const sealed = createSecretBox([k2], 'MERMA_ENCRYPTION_KEY').seal(SECRET, HERE);
    expect(() => box.open(sealed, HERE)).toThrow(
      `${HERE} is encrypted with key "k2", which MERMA_ENCRYPTION_KEY does not hold (it holds k1): add that key back after the current one`,
    );
  });

  it('refuses altered values: ciphertext, tag, IV, key id, version, layout', () => {
    const sealed = box.seal(SECRET, HERE);
    const [prefix, version, keyId, iv, data] = sealed.split(':') as [string, string, string, string, string];
    const flip = (b64: string, at: number) => {
      const bytes = Buffer.from(b64, 'base64');
      bytes[at] = (bytes[at] as number) ^ 0x01;
      return bytes.toString('base64');
    };
    const bytes = Buffer.from(data, 'base64').length;
    for (const altered of [
      [prefix, version, keyId, iv, flip(data, 0)], // ciphertext
      [prefix, version, keyId, iv, flip(data, bytes - 1)], // tag
      [prefix, version, keyId, flip(iv, 0), data],
    ]) {
      expect(() => box.open(altered.join(':'), HERE)).toThrow(/cannot be decrypted with key "k1".*altered/);
    }
    // The same bytes under another key id of the box: the header is authenticated too.
    const both = createSecretBox([k1, encryptionKey('k9', k1.key)], 'MERMA_ENCRYPTION_KEY');
    expect(() => both.open([prefix, version, 'k9', iv, data].join(':'), HERE)).toThrow(/cannot be decrypted with key "k9"/);
    expect(() => box.open([prefix, 'v2', keyId, iv, data].join(':'), HERE)).toThrow(/format v2, which this version/);
    expect(() => box.open(`${sealed}:extra`, HERE)).toThrow(/is not in the enc:v1:<key id>:<iv>:<data> format/);
    expect(() => box.open([prefix, version, keyId, iv, data.slice(0, 8)].join(':'), HERE)).toThrow(/truncated/);
  });

  it('seals with the first key and opens with any', () => {
    const old = createSecretBox([k1], 'MERMA_ENCRYPTION_KEY').seal(SECRET, HERE);
    const rotated = createSecretBox([k2, k1], 'MERMA_ENCRYPTION_KEY');
    expect(rotated.currentKeyId).toBe('k2');
    expect(rotated.open(old, HERE)).toBe(SECRET);
    expect(keyIdOf(rotated.seal(SECRET, HERE))).toBe('k2');
  });

  it('never shows key bytes when a key or a configuration is printed', () => {
    expect(JSON.stringify(k1)).toBe('{"id":"k1"}');
    const config = loadConfig({ MERMA_ENCRYPTION_KEY: `k1:${k1.key.toString('base64')}` });
    expect(JSON.stringify(config)).not.toContain(k1.key.toString('base64'));
    expect(config.encryptionKeys?.[0]?.key.equals(k1.key)).toBe(true);
  });
});

describe('MERMA_ENCRYPTION_KEY', () => {
  const b64 = randomBytes(32).toString('base64');
  const configError = (env: Record<string, string>) => {
    try {
      loadConfig(env);
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return (err as Error).message;
    }
    throw new Error('loadConfig accepted the configuration');
  };

  it('takes id:key pairs, the current first, as base64 (either alphabet, padding optional) or hex', () => {
    const hex = randomBytes(32).toString('hex');
    const url = randomBytes(32).toString('base64url');
    const keys = parseEncryptionKeys(` k2:${b64} , old-1:${hex},x_3:${url}`);
    expect(keys.map((k) => k.id)).toEqual(['k2', 'old-1', 'x_3']);
    expect(keys[0]?.key.toString('base64')).toBe(b64);
    expect(keys[1]?.key.toString('hex')).toBe(hex);
    expect(keys[2]?.key.toString('base64url')).toBe(url);
    expect(parseEncryptionKeys(`k1:${b64.replace(/=+$/, '')}`)[0]?.key.toString('base64')).toBe(b64);
  });

  it('is required in production, with a message saying how to make one', () => {
    expect(
      configError({
        NODE_ENV: 'production',
        DATABASE_URL: 'postgresql://db/merma',
        PUBLIC_URL: 'https://merma.test',
        MAIL_TO_LOG: 'true',
        TRUST_PROXY: 'loopback',
      }),
    ).toBe(
      'Invalid configuration:\n  MERMA_ENCRYPTION_KEY: required when NODE_ENV=production (webhook signing secrets are encrypted with it): generate a key with `openssl rand -base64 32` and set MERMA_ENCRYPTION_KEY=k1:<that key>',
    );
    expect(
      loadConfig({
        NODE_ENV: 'production',
        DATABASE_URL: 'postgresql://db/merma',
        PUBLIC_URL: 'https://merma.test',
        MAIL_TO_LOG: 'true',
        TRUST_PROXY: 'loopback',
        MERMA_ENCRYPTION_KEY: `k1:${b64}`,
      }).encryptionKeys?.map((k) => k.id),
    ).toEqual(['k1']);
    expect(loadConfig({ NODE_ENV: 'development' }).encryptionKeys).toBeUndefined();
  });

  it('refuses malformed keys, naming the problem and never echoing the key', () => {
    const short = randomBytes(24).toString('base64');
    const cases: [string, RegExp][] = [
      [b64, /MERMA_ENCRYPTION_KEY: key 1 has no id: write each key as <id>:<key>/],
      [`k1:${short}`, /key "k1" is 24 bytes: AES-256 needs 32 random bytes as base64 \(openssl rand -base64 32\) or 64 hex digits/],
      [`k1:${'ab'.repeat(31)}`, /key "k1" is 31 bytes/],
      [`k1:not base64!`, /key "k1" is neither base64 nor hex/],
      [`k1:${b64},k1:${b64}`, /key id "k1" is given twice/],
      [`bad id:${b64}`, /key id "bad id" must be 1-32 letters, digits, "-" or "_"/],
      [`:${b64}`, /key id "" must be/],
      [',', /no key given/],
    ];
    for (const [value, message] of cases) {
      const text = configError({ MERMA_ENCRYPTION_KEY: value });
      expect(text).toMatch(message);
      expect(text).not.toContain(short);
      expect(text.includes(b64)).toBe(false);
    }
  });
});

describe('the development key under DATA_DIR', () => {
  const dev = (dataDir: string) => ({ env: 'development' as const, dataDir, encryptionKeys: undefined });

  it('is generated on first use (mode 0600), logged, and reused afterwards', () => {
    const dataDir = join(tmp, 'fresh', 'data');
    const lines: string[] = [];
    const log = { info: (_obj: object, msg?: string) => lines.push(msg ?? '') };
    const first = loadSecretBox(dev(dataDir), log);
    const file = join(dataDir, KEY_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(first.currentKeyId).toMatch(/^local-[0-9a-f]{8}$/);
    expect(first.source).toBe(file);
    expect(lines).toEqual([expect.stringMatching(/^MERMA_ENCRYPTION_KEY is not set: generated the key/)]);

    const again = loadSecretBox(dev(dataDir), log);
    expect(again.currentKeyId).toBe(first.currentKeyId);
    expect(again.open(first.seal(SECRET, HERE), HERE)).toBe(SECRET);
    expect(lines[1]).toMatch(/encrypted with the key kept in DATA_DIR/);
    // In MERMA_ENCRYPTION_KEY's syntax, so it can be moved there as it is.
    const moved = createSecretBox(parseEncryptionKeys(readFileSync(file, 'utf8').trim()), 'MERMA_ENCRYPTION_KEY');
    expect(moved.open(first.seal(SECRET, HERE), HERE)).toBe(SECRET);
  });

  it('is the same key for processes starting together (a server and merma-admin)', async () => {
    const dataDir = join(tmp, 'together');
    const script = `import('./src/secrets/keys.ts').then((m) => process.stdout.write(
      m.loadSecretBox({ env: 'development', dataDir: process.argv[1], encryptionKeys: undefined }).currentKeyId))`;
    const ids = await Promise.all(
      Array.from({ length: 6 }, async () => {
        const { stdout } = await exec(process.execPath, ['--import', 'tsx', '-e', script, dataDir], { cwd: SERVER_DIR });
        return stdout;
      }),
    );
    expect(ids[0]).toMatch(/^local-[0-9a-f]{8}$/);
    expect(new Set(ids)).toEqual(new Set([ids[0]]));
    expect(loadSecretBox(dev(dataDir)).currentKeyId).toBe(ids[0]);
  });

  it('is not used when MERMA_ENCRYPTION_KEY is set, nor ever in production', () => {
    const dataDir = join(tmp, 'configured');
    const box = loadSecretBox({ env: 'development', dataDir, encryptionKeys: [k2, k1] });
    expect(box).toMatchObject({ currentKeyId: 'k2', keyIds: ['k2', 'k1'], source: 'MERMA_ENCRYPTION_KEY' });
    expect(() => statSync(join(dataDir, KEY_FILE))).toThrow();
    expect(() => loadSecretBox({ env: 'production', dataDir, encryptionKeys: undefined })).toThrow(/required in production/);
  });

  it('stops the boot, naming the file, when the file is damaged', () => {
    const dataDir = join(tmp, 'damaged');
    loadSecretBox(dev(dataDir));
    writeFileSync(join(dataDir, KEY_FILE), 'local-1:c2hvcnQ=\n');
    expect(() => loadSecretBox(dev(dataDir))).toThrow(`${join(dataDir, KEY_FILE)}: key "local-1" is 5 bytes`);
  });
});
