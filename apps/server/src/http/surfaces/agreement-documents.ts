import { API_VERSION_PREFIX, MAX_AGREEMENT_DOCUMENT_BYTES, type Permission, Uuid } from '@merma/schema';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type Clock, hasPermission } from '../../context.js';
import type { Sql } from '../../db/sql.js';
import { AppError, validationError } from '../../errors.js';
import { getAgreement } from '../../modules/donations/agreements.js';
import { readAgreementDocument, storeAgreementDocument } from '../../modules/donations/documents.js';
import { liveOnly } from '../../modules/donations/service.js';
import { ok } from '../../trpc/trpc.js';

/**
 * A donation agreement's signed document, `PUT` and `GET /api/v1/donation-agreements/{id}/document`:
 * the one pair of API routes whose body is not JSON (the raw PDF, up to 10 MiB), so they are Fastify
 * routes of their own rather than procedures, whose input is JSON. Registered inside the API surface
 * (surfaces/api.ts), they pass through its hooks (no-store, version, the key, the rate limit).
 *
 * `application/pdf` is parsed in this plugin only (Fastify encapsulates content-type parsers): every
 * other route keeps answering 415 to it. The parsed body is a `PdfBody`, whose bytes are not
 * enumerable, so the surface's storable-JSON check (hooks.ts) does not walk 10 MiB byte by byte.
 */
class PdfBody {
  readonly #bytes: Buffer;
  constructor(bytes: Buffer) {
    this.#bytes = bytes;
  }
  get bytes(): Buffer {
    return this.#bytes;
  }
}

const PATH = `${API_VERSION_PREFIX}/donation-agreements/:id/document`;

function authorize(request: FastifyRequest, permission: Permission): string {
  if (!hasPermission(request.auth, permission)) throw new AppError('forbidden', `This API key lacks the permission ${permission}`);
  const id = Uuid.safeParse((request.params as { id?: unknown }).id);
  if (!id.success) throw validationError('id: must be a UUID', [{ path: 'id', message: 'must be a UUID' }]);
  return id.data;
}

export async function agreementDocumentRoutes(app: FastifyInstance, options: { sql: Sql; clock: Clock }): Promise<void> {
  const { sql, clock } = options;
  // A JSON body is parsed as everywhere and refused by the handler (415) once the key, the
  // permission and the agreement are checked: a caller without them learns nothing from the body.
  app.addContentTypeParser('application/pdf', { parseAs: 'buffer', bodyLimit: MAX_AGREEMENT_DOCUMENT_BYTES }, (_request, body, done) =>
    done(null, new PdfBody(body as Buffer)),
  );

  app.put(
    PATH,
    { bodyLimit: MAX_AGREEMENT_DOCUMENT_BYTES, config: { bucket: 'general', procedure: 'donations.putAgreementDocument' } },
    async (request, reply) => {
      const id = authorize(request, 'donations:write');
      const { organizationId } = request.auth;
      // Another organisation's agreement is a 404 whatever the body.
      await getAgreement(sql, organizationId, id, clock());
      liveOnly(request.auth.livemode);
      if (!(request.body instanceof PdfBody)) {
        throw new AppError('unsupported_media_type', 'Send the signed agreement as the raw body, with Content-Type: application/pdf');
      }
      await storeAgreementDocument(sql, organizationId, id, request.body.bytes, clock());
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
    return reply
      .type('application/pdf')
      .header('content-disposition', `attachment; filename="donation-agreement-${id}.pdf"`)
      .header('etag', `"${document.sha256}"`)
      .header('repr-digest', `sha-256=:${Buffer.from(document.sha256, 'hex').toString('base64')}:`)
      .send(document.content);
  });
}
