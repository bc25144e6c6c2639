import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { AwsClient } from 'aws4fetch';
import type { Config } from '../../config.js';
import { AppError } from '../../errors.js';
import type { SecretBox } from '../../secrets/cipher.js';

/**
 * Where a photo's bytes are kept: the object storage behind modules/photos/service.ts.
 *
 * - **An S3-compatible bucket** (PHOTOS_S3_URL, its keys in the URL; AWS S3, MinIO, Cloudflare R2,
 *   Scaleway…): objects written with a signed PUT and read through presigned GET URLs (AWS
 *   Signature V4, made by `aws4fetch`), so the bytes go from the bucket to the browser without
 *   passing through Merma.
 * - **Files under DATA_DIR/photos** (the default, beside the embedded database): written to a
 *   temporary name, flushed to disk and renamed, so a photo answered 201 survives a crash and a
 *   reader never sees half a file; read through Merma's own signed link (`/files/photos/{id}`,
 *   http/surfaces/photo-files.ts), an HMAC-SHA256 of the photo's id and the link's expiry under a
 *   key derived from the encryption key (every replica derives the same; a rotated key's links
 *   stop working with it).
 *
 * A link carries its expiry in its query, and the signature covers it: changing either is a
 * 404 (for files) or the bucket's 403. Both kinds of link live PHOTO_LINK_TTL_SECONDS.
 */

export type StoredObject = { storage: 'file' | 's3'; key: string };

export interface PhotoStorage {
  readonly kind: 'file' | 's3';
  /** Writes the object durably (answered only once it is on disk, or the bucket said 200). */
  put(key: string, bytes: Buffer, contentType: string): Promise<void>;
  /** A URL the bytes can be fetched from without a key from `now` until `expiresAt`. */
  link(photoId: string, object: StoredObject, now: Date, expiresAt: Date): Promise<string>;
}

/** The purpose the links' HMAC key is derived for (secrets/cipher.ts `derive`). */
const LINK_KEY_PURPOSE = 'merma photo links v1';

/** The signature of a file link: HMAC-SHA256 of `<photo id>\n<expiry in Unix seconds>`, base64url. */
function linkSignature(key: Buffer, photoId: string, expires: number): string {
  return createHmac('sha256', key).update(`${photoId}\n${expires}`).digest('base64url');
}

/**
 * Checks a file link's query: true when its signature is one of the current keys' over this id and
 * expiry, and the expiry is still ahead of `now` (at the second it names, the link has expired).
 */
export function fileLinkValid(
  secrets: Pick<SecretBox, 'derive'>,
  photoId: string,
  query: { expires?: unknown; signature?: unknown },
  now: Date,
): boolean {
  const { expires, signature } = query;
  if (typeof expires !== 'string' || !/^\d{1,12}$/.test(expires) || typeof signature !== 'string') return false;
  if (Number(expires) * 1000 <= now.getTime()) return false;
  const given = Buffer.from(signature, 'utf8');
  return secrets.derive(LINK_KEY_PURPOSE).some(({ bytes }) => {
    const expected = Buffer.from(linkSignature(bytes, photoId, Number(expires)), 'utf8');
    return expected.length === given.length && timingSafeEqual(expected, given);
  });
}

export class FilePhotoStorage implements PhotoStorage {
  readonly kind = 'file' as const;
  constructor(
    private readonly dir: string,
    private readonly publicUrl: string,
    private readonly secrets: Pick<SecretBox, 'derive'>,
  ) {}

  async put(key: string, bytes: Buffer): Promise<void> {
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true });
    const temporary = `${path}.${randomUUID()}.part`;
    const file = await open(temporary, 'wx', 0o600);
    try {
      await file.writeFile(bytes);
      await file.sync();
    } finally {
      await file.close();
    }
    try {
      // Content-addressed: a file already there holds the same bytes, and the rename replaces it whole.
      await rename(temporary, path);
    } catch (err) {
      await rm(temporary, { force: true });
      throw err;
    }
  }

  async link(photoId: string, _object: StoredObject, _now: Date, expiresAt: Date): Promise<string> {
    const [current] = this.secrets.derive(LINK_KEY_PURPOSE);
    if (!current) throw new Error('no key to sign photo links with');
    const expires = Math.floor(expiresAt.getTime() / 1000);
    const query = new URLSearchParams({ expires: String(expires), signature: linkSignature(current.bytes, photoId, expires) });
    return `${this.publicUrl}/files/photos/${photoId}?${query}`;
  }

  /** The stored bytes; a 404 when the file is gone (removed by hand, or a lost volume). */
  async read(key: string): Promise<Buffer> {
    try {
      return await readFile(this.pathOf(key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new AppError('not_found', 'This photo’s file is missing from storage');
      throw err;
    }
  }

  private pathOf(key: string): string {
    // Keys are made by service.ts from ids and hex digests only; this guards the join all the same.
    if (!/^[0-9a-f-]{36}\/(live|test)\/[0-9a-f]{64}\.(jpg|png|webp)$/.test(key)) throw new Error(`unexpected photo key ${key}`);
    return join(this.dir, key);
  }
}

export class S3PhotoStorage implements PhotoStorage {
  readonly kind = 's3' as const;
  private readonly client: AwsClient;
  constructor(
    private readonly bucketUrl: string,
    credentials: { accessKeyId: string; secretAccessKey: string; region: string },
  ) {
    this.client = new AwsClient({ ...credentials, service: 's3', retries: 2 });
  }

  async put(key: string, bytes: Buffer, contentType: string): Promise<void> {
    const response = await this.client.fetch(`${this.bucketUrl}/${key}`, {
      method: 'PUT',
      body: new Uint8Array(bytes),
      headers: { 'content-type': contentType, 'content-length': String(bytes.length) },
    });
    if (!response.ok) {
      const detail = (await response.text().catch(() => '')).slice(0, 300);
      throw new Error(`The photo bucket answered ${response.status} to a PUT: ${detail}`);
    }
    await response.body?.cancel();
  }

  async link(_photoId: string, object: StoredObject, now: Date, expiresAt: Date): Promise<string> {
    // The bucket counts X-Amz-Expires from the signature's own date, which is `now`.
    const seconds = Math.max(1, Math.round((expiresAt.getTime() - now.getTime()) / 1000));
    const url = new URL(`${this.bucketUrl}/${object.key}`);
    url.searchParams.set('X-Amz-Expires', String(seconds));
    const datetime = now.toISOString().replace(/[:-]|\.\d{3}/g, '');
    const signed = await this.client.sign(url.toString(), { method: 'GET', aws: { signQuery: true, datetime } });
    return signed.url;
  }
}

export function photoStorage(config: Pick<Config, 'photos' | 'publicUrl'>, secrets: Pick<SecretBox, 'derive'>): PhotoStorage {
  const { storage } = config.photos;
  return storage.kind === 's3'
    ? new S3PhotoStorage(storage.bucketUrl, storage)
    : new FilePhotoStorage(storage.dir, config.publicUrl, secrets);
}
