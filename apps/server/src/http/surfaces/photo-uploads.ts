import { API_VERSION_PREFIX, MAX_PHOTO_BYTES } from '@merma/schema';
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../context.js';
import { hasPermission } from '../../context.js';
import type { Sql } from '../../db/sql.js';
import { AppError } from '../../errors.js';
import type { PhotoSettings } from '../../modules/photos/service.js';
import { acceptImageBodies, answerPhotoUpload } from '../photo-body.js';

/**
 * `POST /api/v1/photos`: a photo's upload, the raw image as the body (http/photo-body.ts), so a
 * Fastify route of its own rather than a procedure (whose input is JSON). Registered inside the API
 * surface (surfaces/api.ts), it passes through its hooks (no-store, version, the key, the rate
 * limit). Answers 201 with the photo; its `url` is what a record's `photo_url` then holds. No
 * Idempotency-Key is needed: the same bytes sent again answer the same photo.
 */
export async function photoUploadRoutes(app: FastifyInstance, options: { sql: Sql; clock: Clock; photos: PhotoSettings }): Promise<void> {
  acceptImageBodies(app);
  app.post(
    `${API_VERSION_PREFIX}/photos`,
    { bodyLimit: MAX_PHOTO_BYTES, config: { bucket: 'records_create', procedure: 'photos.create' } },
    async (request, reply) => {
      if (!hasPermission(request.auth, 'records:write')) throw new AppError('forbidden', 'This API key lacks the permission records:write');
      return answerPhotoUpload(request, reply, options, request.auth);
    },
  );
}
