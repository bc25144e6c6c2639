import { MAX_PHOTO_BYTES, PHOTO_CONTENT_TYPES } from '@merma/schema';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../context.js';
import type { Sql } from '../db/sql.js';
import { AppError } from '../errors.js';
import { type PhotoScope, type PhotoSettings, photoContentType, storePhoto } from '../modules/photos/service.js';
import { ok } from '../trpc/trpc.js';
import { RawBody } from './raw-body.js';

/**
 * A photo's upload over HTTP, as the doors that take one share it: the API (surfaces/photo-uploads.ts,
 * an API key) and the station (surfaces/station.ts, a device). The body is the raw image, up to
 * MAX_PHOTO_BYTES; the checks and the storing are modules/photos/service.ts.
 */

/** A parsed image body. */
export class ImageBody extends RawBody {}

/**
 * Parses `image/jpeg`, `image/png` and `image/webp` bodies (a larger one than MAX_PHOTO_BYTES is a
 * 413) into an `ImageBody`, in the plugin `app` only: Fastify encapsulates content-type parsers, so
 * every other route keeps answering 415 to an image.
 */
export function acceptImageBodies(app: FastifyInstance): void {
  app.addContentTypeParser([...PHOTO_CONTENT_TYPES], { parseAs: 'buffer', bodyLimit: MAX_PHOTO_BYTES }, (_request, body, done) =>
    done(null, new ImageBody(body as Buffer)),
  );
}

/**
 * The image's bytes; a 415 for any other body (a JSON one is parsed as everywhere, then refused
 * here). No body at all under an image type is an empty photo (refused as such by the service).
 */
export function imageBytes(body: unknown): Buffer {
  if (body === undefined || body === null) return Buffer.alloc(0);
  if (!(body instanceof ImageBody)) {
    throw new AppError('unsupported_media_type', `Send the photo as the raw body, with Content-Type: ${PHOTO_CONTENT_TYPES.join(', ')}`);
  }
  return body.bytes;
}

/** Stores the request's image for `scope` and answers 201 with the photo: what both doors do once they know who asks. */
export async function answerPhotoUpload(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: { photos: PhotoSettings; sql: Sql; clock: Clock },
  scope: PhotoScope,
) {
  const type = photoContentType(request.headers['content-type']);
  const photo = await storePhoto({ ...deps.photos, sql: deps.sql, clock: deps.clock }, scope, type, imageBytes(request.body));
  return reply
    .code(201)
    .type('application/json; charset=utf-8')
    .send(JSON.stringify(ok(photo)));
}
