import { Uuid } from '@merma/schema';
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../context.js';
import type { Sql } from '../../db/sql.js';
import { AppError } from '../../errors.js';
import { photoFile } from '../../modules/photos/service.js';
import { type FilePhotoStorage, fileLinkValid } from '../../modules/photos/storage.js';
import type { SecretBox } from '../../secrets/cipher.js';

/**
 * `GET /files/photos/{id}?expires=…&signature=…`: a photo's bytes by the short-lived link
 * `GET /api/v1/photos/{id}` hands out, when photos are files under DATA_DIR (with a bucket, the link
 * is the bucket's own presigned URL and this route finds nothing). No caller: the link's signature
 * is the permission (modules/photos/storage.ts), and a link that is expired, altered or for another
 * photo is a 404 that says no more.
 *
 * Served as an image any page may show (`Cross-Origin-Resource-Policy: cross-origin`, so an
 * integrator's page on its own origin can put it in an `<img>`), under the policy of every answer
 * that is not a page (http/page-policy.ts) and nosniff, and cached by the browser alone until the
 * link expires.
 */
export async function photoFileRoutes(
  app: FastifyInstance,
  options: { sql: Sql; clock: Clock; secrets: Pick<SecretBox, 'derive'>; storage: FilePhotoStorage | undefined },
): Promise<void> {
  app.get('/files/photos/:id', async (request, reply) => {
    const notFound = new AppError('not_found', 'No such photo, or the link has expired: ask the API for a new one');
    const id = Uuid.safeParse((request.params as { id?: unknown }).id);
    const query = request.query as { expires?: unknown; signature?: unknown };
    const now = options.clock();
    if (!options.storage || !id.success || !fileLinkValid(options.secrets, id.data, query, now)) throw notFound;
    const file = await photoFile(options.sql, id.data);
    if (!file) throw notFound;
    const bytes = await options.storage.read(file.key);
    const seconds = Math.max(0, Number(query.expires) - Math.floor(now.getTime() / 1000));
    return reply
      .type(file.contentType)
      .header('cache-control', `private, max-age=${seconds}`)
      .header('etag', `"${file.sha256}"`)
      .header('cross-origin-resource-policy', 'cross-origin')
      .send(bytes);
  });
}
