import { createHash, randomUUID } from 'node:crypto';
import {
  API_VERSION_PREFIX,
  MAX_PHOTO_BYTES,
  PHOTO_CONTENT_TYPES,
  PHOTO_PATH_PATTERN,
  type Photo,
  type PhotoContentType,
  type PhotoWithDownload,
} from '@merma/schema';
import type { Clock } from '../../context.js';
import type { Sql } from '../../db/sql.js';
import { AppError, validationError } from '../../errors.js';
import type { PhotoStorage, StoredObject } from './storage.js';

/**
 * The waste's photos (packages/schema/src/photos.ts says what a caller sees): stored from a raw
 * image body, named by a stable URL that a record's `photo_url` holds, and answered with a
 * short-lived download link.
 *
 * **Decided:**
 * - A photo belongs to an organisation and a mode, not to one establishment: a station's photo may
 *   be linked by the organisation's ERP key of another site, never by another organisation or the
 *   other mode (404, and a record naming it is a 400).
 * - The bytes are checked to be the image their Content-Type says (magic number), since the link
 *   serves them under that type to a browser; they are kept as sent (no re-encoding: the evidence
 *   is the file the camera made; the station itself downsizes before sending).
 * - **Retention**: a photo is evidence for its record and is kept as long as the organisation's
 *   records are (the register is never purged: modules/retention/purge.ts purges sales and events
 *   only). A photo uploaded and never named by a record is kept as well (it is still the
 *   organisation's upload); deleting the organisation deletes the rows with it (ON DELETE
 *   CASCADE), and its files or objects are the operator's to remove with the bucket's lifecycle
 *   rules (docs/deploying.md).
 */

/** What the photos need besides a request's: the storage, its links' lifetime, and the service's address. */
export type PhotoSettings = { storage: PhotoStorage; linkTtlSeconds: number; publicUrl: string };
export type PhotoDeps = PhotoSettings & { sql: Sql; clock: Clock };
export type PhotoScope = { organizationId: string; livemode: boolean };

const EXTENSIONS: Record<PhotoContentType, string> = { 'image/jpeg': 'jpg', 'image/png': 'png', 'image/webp': 'webp' };

/** Whether `bytes` start as the image type says: JPEG's SOI marker, PNG's signature, a RIFF WEBP. */
function looksLike(type: PhotoContentType, bytes: Buffer): boolean {
  switch (type) {
    case 'image/jpeg':
      return bytes.length > 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;
    case 'image/png':
      return bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    case 'image/webp':
      return bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP';
  }
}

/** The content type a request declared, without parameters; a 415 unless it is one of the three. */
export function photoContentType(header: string | undefined): PhotoContentType {
  const type = header?.split(';')[0]?.trim().toLowerCase();
  const found = PHOTO_CONTENT_TYPES.find((t) => t === type);
  if (!found) {
    throw new AppError('unsupported_media_type', `Send the photo as the raw body, with Content-Type: ${PHOTO_CONTENT_TYPES.join(', ')}`);
  }
  return found;
}

type PhotoRow = {
  id: string;
  livemode: boolean;
  content_type: PhotoContentType;
  size_bytes: number;
  sha256: string;
  storage: 'file' | 's3';
  storage_key: string;
  created_at: Date;
};

const COLUMNS = 'id, livemode, content_type, size_bytes, sha256, storage, storage_key, created_at';

export function photoUrl(publicUrl: string, id: string): string {
  return `${publicUrl}${API_VERSION_PREFIX}/photos/${id}`;
}

function photoOf(publicUrl: string, row: PhotoRow): Photo {
  return {
    id: row.id,
    object: 'photo',
    url: photoUrl(publicUrl, row.id),
    content_type: row.content_type,
    size_bytes: row.size_bytes,
    sha256: row.sha256,
    livemode: row.livemode,
    created_at: row.created_at.toISOString(),
  };
}

/**
 * Stores a photo: checked, written to the storage (durably) before its row, so a row always names
 * bytes that are there. The same bytes again (a retried upload) answer the photo stored first.
 */
export async function storePhoto(deps: PhotoDeps, scope: PhotoScope, type: PhotoContentType, bytes: Buffer): Promise<Photo> {
  if (bytes.length === 0) throw validationError('The photo is empty', [{ path: 'body', message: 'empty' }]);
  if (bytes.length > MAX_PHOTO_BYTES) throw new AppError('payload_too_large', `The photo is larger than ${MAX_PHOTO_BYTES} bytes`);
  if (!looksLike(type, bytes)) {
    throw validationError(`The body is not a ${EXTENSIONS[type].toUpperCase()} image, as its Content-Type (${type}) says`, [
      { path: 'body', message: `not ${type}` },
    ]);
  }
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const existing = await findByContent(deps.sql, scope, sha256);
  if (existing) return photoOf(deps.publicUrl, existing);

  const key = `${scope.organizationId}/${scope.livemode ? 'live' : 'test'}/${sha256}.${EXTENSIONS[type]}`;
  await deps.storage.put(key, bytes, type);
  const { rows } = await deps.sql.query<PhotoRow>(
    `INSERT INTO photos (id, organization_id, livemode, content_type, size_bytes, sha256, storage, storage_key, created_at)
     VALUES ($1::uuid, $2::uuid, $3, $4, $5, $6, $7, $8, $9::timestamptz)
     ON CONFLICT (organization_id, livemode, sha256) DO NOTHING
     RETURNING ${COLUMNS}`,
    [randomUUID(), scope.organizationId, scope.livemode, type, bytes.length, sha256, deps.storage.kind, key, deps.clock().toISOString()],
  );
  // Two uploads of the same bytes at once: the other stored the row; its photo is this one.
  const row = rows[0] ?? (await findByContent(deps.sql, scope, sha256));
  if (!row) throw new Error('photo row neither inserted nor found');
  return photoOf(deps.publicUrl, row);
}

async function findByContent(sql: Sql, scope: PhotoScope, sha256: string): Promise<PhotoRow | undefined> {
  const { rows } = await sql.query<PhotoRow>(
    `SELECT ${COLUMNS} FROM photos WHERE organization_id = $1::uuid AND livemode = $2 AND sha256 = $3`,
    [scope.organizationId, scope.livemode, sha256],
  );
  return rows[0];
}

async function photoRow(sql: Sql, scope: PhotoScope, id: string): Promise<PhotoRow> {
  const { rows } = await sql.query<PhotoRow>(
    `SELECT ${COLUMNS} FROM photos WHERE id = $1::uuid AND organization_id = $2::uuid AND livemode = $3`,
    [id, scope.organizationId, scope.livemode],
  );
  const row = rows[0];
  if (!row) throw new AppError('not_found', `No photo ${id}`);
  return row;
}

/** The photo with a download link that works for PHOTO_LINK_TTL_SECONDS from now; 404 for another organisation's or mode's. */
export async function photoWithDownload(deps: PhotoDeps, scope: PhotoScope, id: string): Promise<PhotoWithDownload> {
  const row = await photoRow(deps.sql, scope, id);
  const now = deps.clock();
  // Whole seconds: the link names its expiry in seconds, and the answer says the same instant.
  const expiresAt = new Date((Math.floor(now.getTime() / 1000) + deps.linkTtlSeconds) * 1000);
  const object: StoredObject = { storage: row.storage, key: row.storage_key };
  return {
    ...photoOf(deps.publicUrl, row),
    download_url: await deps.storage.link(row.id, object, now, expiresAt),
    download_expires_at: expiresAt.toISOString(),
  };
}

/** A stored file's key and type, by id alone: the signed link already proved who may read it. */
export async function photoFile(sql: Sql, id: string): Promise<{ key: string; contentType: PhotoContentType; sha256: string } | undefined> {
  const { rows } = await sql.query<{ storage_key: string; content_type: PhotoContentType; sha256: string }>(
    `SELECT storage_key, content_type, sha256 FROM photos WHERE id = $1::uuid AND storage = 'file'`,
    [id],
  );
  const row = rows[0];
  return row && { key: row.storage_key, contentType: row.content_type, sha256: row.sha256 };
}

/** The photo id a record's `photo_url` names, when it is one of Merma's photo addresses. */
export function photoIdOf(url: string | null | undefined): string | undefined {
  if (!url) return undefined;
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return undefined;
  }
  return PHOTO_PATH_PATTERN.exec(path)?.[1];
}
