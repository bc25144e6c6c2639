import { PhotoIdParams, PhotoWithDownloadResponse } from '@merma/schema';
import { apiProcedure, ok, router } from '../../trpc/trpc.js';
import { type PhotoSettings, photoWithDownload } from './service.js';

/**
 * A photo over the API: `GET /photos/{id}` answers it with a short-lived `download_url`. Its
 * upload, `POST /photos`, takes a raw image body and is a Fastify route of its own
 * (http/surfaces/photo-uploads.ts). Read from the primary: a photo is read right after its upload.
 */
export const photosRouter = (settings: PhotoSettings) =>
  router({
    retrieve: apiProcedure
      .meta({
        openapi: {
          method: 'GET',
          path: '/photos/{id}',
          tags: ['photos'],
          summary: 'A photo, with a short-lived download link',
          description:
            "The photo a record's `photo_url` names (that URL is this route), with `download_url`: the image itself, usable without a key (in an `<img>`, or handed to someone) until `download_expires_at` (PHOTO_LINK_TTL_SECONDS after this answer, 5 minutes by default). Ask again for a fresh link; the photo's `url` never changes. Another organisation's photo, or the other mode's, is a 404.",
          operationId: 'getPhoto',
        },
        permission: 'records:read',
      })
      .input(PhotoIdParams)
      .output(PhotoWithDownloadResponse)
      .query(async ({ ctx, input }) => ok(await photoWithDownload({ ...settings, sql: ctx.sql, clock: ctx.clock }, ctx.auth, input.id))),
  });
