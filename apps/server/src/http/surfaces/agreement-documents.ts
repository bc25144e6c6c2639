import { API_VERSION_PREFIX, MAX_AGREEMENT_DOCUMENT_BYTES, type Permission } from '@merma/schema';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type Clock, hasPermission } from '../../context.js';
import type { Sql } from '../../db/sql.js';
import { AppError, validationError } from '../../errors.js';
import { getAgreement } from '../../modules/donations/agreements.js';
import { readAgreementDocument, storeAgreementDocument } from '../../modules/donations/documents.js';
import { liveOnly } from '../../modules/donations/service.js';
import { ok } from '../../trpc/trpc.js';
import { acceptPdfBodies, agreementIdParam, pdfBytes, sendAgreementDocument } from '../agreement-document.js';

/**
 * A donation agreement's signed document, `PUT` and `GET /api/v1/donation-agreements/{id}/document`:
 * the one pair of API routes whose body is not JSON (the raw PDF, up to 10 MiB), so they are Fastify
 * routes of their own rather than procedures, whose input is JSON. Registered inside the API surface
 * (surfaces/api.ts), they pass through its hooks (no-store, version, the key, the rate limit).
 *
 * `application/pdf` is parsed in this plugin only (http/agreement-document.ts, shared with the
 * dashboard's route: surfaces/dashboard-documents.ts): every other route keeps answering 415 to it.
 */

const PATH = `${API_VERSION_PREFIX}/donation-agreements/:id/document`;

function authorize(request: FastifyRequest, permission: Permission): string {
  if (!hasPermission(request.auth, permission)) throw new AppError('forbidden', `This API key lacks the permission ${permission}`);
  return agreementIdParam(request);
}

export async function agreementDocumentRoutes(app: FastifyInstance, options: { sql: Sql; clock: Clock }): Promise<void> {
  const { sql, clock } = options;
  // A JSON body is parsed as everywhere and refused by the handler (415) once the key, the
  // permission and the agreement are checked: a caller without them learns nothing from the body.
  acceptPdfBodies(app);

  app.put(
    PATH,
    { bodyLimit: MAX_AGREEMENT_DOCUMENT_BYTES, config: { bucket: 'general', procedure: 'donations.putAgreementDocument' } },
    async (request, reply) => {
      const id = authorize(request, 'donations:write');
      const { organizationId } = request.auth;
      // Another organisation's agreement is a 404 whatever the body.
      await getAgreement(sql, organizationId, id, clock());
      liveOnly(request.auth.livemode);
      await storeAgreementDocument(sql, organizationId, id, pdfBytes(request.body), clock());
      reply.type('application/json; charset=utf-8');
      return JSON.stringify(ok(await getAgreement(sql, organizationId, id, clock())));
    },
  );

  app.get(PATH, { config: { bucket: 'general', procedure: 'donations.getAgreementDocument' } }, async (request, reply) => {
    const id = authorize(request, 'donations:read');
    if (request.query && Object.keys(request.query as object).length > 0) {
      throw validationError('This route takes no query parameters', [
        { path: Object.keys(request.query as object)[0] ?? '', message: 'unknown' },
      ]);
    }
    const document = await readAgreementDocument(sql, request.auth.organizationId, id);
    return sendAgreementDocument(reply, id, document);
  });
}
