import { z } from 'zod';
import { Timestamp, Uuid } from './common.js';
import { Envelope } from './envelope.js';

/**
 * A photo of the waste, taken at the bin (the station's camera) or sent by an integration: the
 * evidence behind a record, kept in object storage (an S3-compatible bucket when configured, files
 * under `DATA_DIR` otherwise) and named by the record's `photo_url`.
 *
 * - `url` is the photo's stable address, `{PUBLIC_URL}/api/v1/photos/{id}`: it is what a record's
 *   `photo_url` holds (and hashes), so it never changes and never expires. Asked for with an API
 *   key (`GET`), it answers the photo with a `download_url`.
 * - `download_url` is short-lived (PHOTO_LINK_TTL_SECONDS, 5 minutes by default): the bytes
 *   themselves, signed by Merma (files) or presigned by the bucket (S3), usable in an `<img>` or
 *   by anyone the caller hands it to until `download_expires_at`.
 * - Photos are content-addressed per organisation and mode: sending the same bytes again answers
 *   the same photo (an upload retried after a lost answer stores nothing twice).
 * - Only JPEG, PNG and WebP are taken, up to MAX_PHOTO_BYTES, and the bytes must be what the
 *   Content-Type says (their magic number is checked): anything else is refused, nothing stored.
 */

/** Largest photo accepted, in bytes (a phone's full-size JPEG; the station sends about 300 kB). */
export const MAX_PHOTO_BYTES = 8 * 1024 * 1024;

export const PHOTO_CONTENT_TYPES = ['image/jpeg', 'image/png', 'image/webp'] as const;
export const PhotoContentType = z.enum(PHOTO_CONTENT_TYPES);
export type PhotoContentType = z.infer<typeof PhotoContentType>;

/** The path of a photo's stable address under the API: a record's `photo_url` ends with it. */
export const PHOTO_PATH_PATTERN = /\/api\/v1\/photos\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

export const Photo = z
  .object({
    id: Uuid,
    object: z.literal('photo'),
    url: z.string().meta({ description: 'The stable address to put in a record’s `photo_url`.' }),
    content_type: PhotoContentType,
    size_bytes: z.number().int().positive(),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    livemode: z.boolean(),
    created_at: Timestamp,
  })
  .meta({ id: 'Photo' });
export type Photo = z.infer<typeof Photo>;

export const PhotoWithDownload = Photo.extend({
  download_url: z.string().meta({ description: 'The photo’s bytes, usable without a key until `download_expires_at`.' }),
  download_expires_at: Timestamp,
}).meta({ id: 'PhotoWithDownload' });
export type PhotoWithDownload = z.infer<typeof PhotoWithDownload>;

export const PhotoIdParams = z.object({ id: Uuid }).strict();

export const PhotoResponse = Envelope(Photo);
export const PhotoWithDownloadResponse = Envelope(PhotoWithDownload);
