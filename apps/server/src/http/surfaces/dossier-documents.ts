import { createHash } from 'node:crypto';
import { API_VERSION_PREFIX, DossierQuery, EsrsE5CsvQuery } from '@merma/schema';
import type { FastifyInstance } from 'fastify';
import { type Clock, hasPermission } from '../../context.js';
import type { Db } from '../../db/client.js';
import type { Sql } from '../../db/sql.js';
import { AppError, issueDetails, validationError } from '../../errors.js';
import type { CatalogCache } from '../../modules/catalog/service.js';
import { buildDossier } from '../../modules/compliance/dossier.js';
import { esrsE5 } from '../../modules/compliance/esrs.js';
import { esrsE5Csv, esrsFileName } from '../../modules/compliance/esrs-csv.js';
import type { CheckpointSigner } from '../../secrets/signing.js';

export const DOSSIER_PATH = `${API_VERSION_PREFIX}/compliance/dossier.zip`;
export const ESRS_CSV_PATH = `${API_VERSION_PREFIX}/compliance/esrs-e5.csv`;

/**
 * The inspection dossier as a file, `GET /api/v1/compliance/dossier.zip?year=&lang=`
 * (modules/compliance/dossier.ts): a ZIP, so a Fastify route of its own inside the API surface
 * (surfaces/api.ts), with its hooks (no-store, version, the key, the rate limit of `analytics`, the
 * heaviest bucket: it walks the whole chain and reads a year of records). It needs `records:read`
 * and `analytics:read`; the agreements are in it when the key also has `donations:read`.
 * `ETag` and `Repr-Digest` carry the ZIP's SHA-256, which is the same on every download while
 * nothing in the register changed.
 *
 * Beside it, `GET /api/v1/compliance/esrs-e5.csv?year=&lang=`: the figures of `GET
 * /compliance/esrs-e5` as a spreadsheet's CSV (modules/compliance/esrs-csv.ts), `analytics:read`.
 */
export async function dossierRoutes(
  app: FastifyInstance,
  options: { db: Db; sql: Sql; clock: Clock; catalog: CatalogCache; signer: Pick<CheckpointSigner, 'jwks'> },
): Promise<void> {
  app.get(DOSSIER_PATH, { config: { bucket: 'analytics', procedure: 'compliance.getDossier' } }, async (request, reply) => {
    for (const permission of ['records:read', 'analytics:read'] as const) {
      if (!hasPermission(request.auth, permission)) throw new AppError('forbidden', `This API key lacks the permission ${permission}`);
    }
    const parsed = DossierQuery.safeParse(request.query ?? {});
    if (!parsed.success) throw validationError('Invalid query', issueDetails(parsed.error));
    const dossier = await buildDossier(options, request.auth, {
      ...parsed.data,
      agreements: hasPermission(request.auth, 'donations:read'),
    });
    const digest = createHash('sha256').update(dossier.bytes).digest();
    return reply
      .type('application/zip')
      .header('content-disposition', `attachment; filename="${dossier.fileName}"`)
      .header('etag', `"${digest.toString('hex')}"`)
      .header('repr-digest', `sha-256=:${digest.toString('base64')}:`)
      .send(Buffer.from(dossier.bytes.buffer, dossier.bytes.byteOffset, dossier.bytes.byteLength));
  });

  app.get(ESRS_CSV_PATH, { config: { bucket: 'general', procedure: 'compliance.getEsrsE5Csv' } }, async (request, reply) => {
    if (!hasPermission(request.auth, 'analytics:read')) throw new AppError('forbidden', 'This API key lacks the permission analytics:read');
    const parsed = EsrsE5CsvQuery.safeParse(request.query ?? {});
    if (!parsed.success) throw validationError('Invalid query', issueDetails(parsed.error));
    const figures = await esrsE5(options.sql, request.auth, parsed.data.year, options.clock());
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${esrsFileName(figures, parsed.data.lang)}"`)
      .send(await esrsE5Csv(figures, parsed.data.lang));
  });
}
