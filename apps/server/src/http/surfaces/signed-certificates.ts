import { API_VERSION_PREFIX, DonationCertificateQuery, MAX_SIGNED_CERTIFICATE_BYTES, type Permission } from '@merma/schema';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type Clock, hasPermission } from '../../context.js';
import type { Db } from '../../db/client.js';
import type { Sql } from '../../db/sql.js';
import { AppError } from '../../errors.js';
import { certificateKey, readSignedCertificate, uploadSignedCertificate } from '../../modules/donations/certificates.js';
import { taxReportScope } from '../../modules/donations/tax-report.js';
import { ok } from '../../trpc/trpc.js';
import { acceptPdfBodies, pdfBytes } from '../agreement-document.js';
import { entityIdParam, sendSignedCertificate } from '../signed-certificate.js';

/**
 * A social entity's signed certificate of Ley 49/2002 art. 24 for the donor's gifts of a year,
 * `PUT` and `GET /api/v1/donations/tax-pack/certificates/{entity_id}/signed?year=&cif=`
 * (modules/donations/certificates.ts): the raw PDF up (up to 10 MiB) and down, so Fastify routes
 * of their own beside the tax pack's files (tax-pack-documents.ts), registered inside the API
 * surface (surfaces/api.ts) and passing through its hooks (no-store, version, the key, the rate
 * limit). The query is the pre-filled certificate's, checked by the same schema; the company the
 * key sees is resolved the way the pack resolves it (`taxReportScope`).
 *
 * A key of either mode stores its mode's certificate: a test key's is a rehearsal, never shown in
 * the live pack. Every upload is audited (`donation_certificate.uploaded`, with the key's id and
 * the hash it replaced). `application/pdf` is parsed in this plugin only.
 */

const PATH = `${API_VERSION_PREFIX}/donations/tax-pack/certificates/:entity_id/signed`;

function authorize(request: FastifyRequest, permission: Permission): void {
  if (!hasPermission(request.auth, permission)) throw new AppError('forbidden', `This API key lacks the permission ${permission}`);
}

export async function signedCertificateRoutes(app: FastifyInstance, options: { db: Db; sql: Sql; clock: Clock }): Promise<void> {
  const { db, sql, clock } = options;
  acceptPdfBodies(app);

  /** The certificate the request names; another organisation's entity or a year without gifts is a 404 whatever the body. */
  const keyOf = async (request: FastifyRequest) => {
    const entityId = entityIdParam(request);
    const query = DonationCertificateQuery.parse(request.query ?? {});
    return certificateKey(sql, taxReportScope(request.auth, query.cif), entityId, query.year);
  };

  app.put(
    PATH,
    { bodyLimit: MAX_SIGNED_CERTIFICATE_BYTES, config: { bucket: 'general', procedure: 'donations.putSignedCertificate' } },
    async (request, reply) => {
      authorize(request, 'donations:write');
      const { key, entityName } = await keyOf(request);
      const body = pdfBytes(request.body, 'the signed certificate');
      const stored = await uploadSignedCertificate(
        { db, clock },
        {
          key,
          entityName,
          body,
          uploader: {
            actor: null,
            establishmentId: request.auth.establishmentId,
            details: { api_key_id: request.auth.credential.id, ip: request.ip },
          },
        },
      );
      reply.type('application/json; charset=utf-8');
      return JSON.stringify(ok(stored));
    },
  );

  app.get(PATH, { config: { bucket: 'general', procedure: 'donations.getSignedCertificate' } }, async (request, reply) => {
    authorize(request, 'donations:read');
    const { key } = await keyOf(request);
    return sendSignedCertificate(reply, key, await readSignedCertificate(sql, key));
  });
}
