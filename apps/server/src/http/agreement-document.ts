import { MAX_AGREEMENT_DOCUMENT_BYTES, Uuid } from '@merma/schema';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, validationError } from '../errors.js';
import { RawBody } from './raw-body.js';

/**
 * A donation agreement's signed document over HTTP, as both doors that carry it share it: the API's
 * routes (surfaces/agreement-documents.ts, an API key) and the dashboard's (surfaces/dashboard-documents.ts,
 * a login session). The body is the raw PDF, up to 10 MiB; the storing and reading are
 * modules/donations/documents.ts.
 */

/** A parsed `application/pdf` body. */
export class PdfBody extends RawBody {}

/**
 * Parses `application/pdf` bodies (up to MAX_AGREEMENT_DOCUMENT_BYTES; a larger one is a 413) into a
 * `PdfBody`, in the plugin `app` only: Fastify encapsulates content-type parsers, so every other
 * route keeps answering 415 to a PDF.
 */
export function acceptPdfBodies(app: FastifyInstance): void {
  app.addContentTypeParser('application/pdf', { parseAs: 'buffer', bodyLimit: MAX_AGREEMENT_DOCUMENT_BYTES }, (_request, body, done) =>
    done(null, new PdfBody(body as Buffer)),
  );
}

/** The PDF's bytes; a 415 for any other body (a JSON one is parsed as everywhere, then refused here). */
export function pdfBytes(body: unknown, what = 'the signed agreement'): Buffer {
  if (!(body instanceof PdfBody)) {
    throw new AppError('unsupported_media_type', `Send ${what} as the raw body, with Content-Type: application/pdf`);
  }
  return body.bytes;
}

/** The agreement's id from the route's `:id`; a 400 when it is not a UUID. */
export function agreementIdParam(request: FastifyRequest): string {
  const id = Uuid.safeParse((request.params as { id?: unknown }).id);
  if (!id.success) throw validationError('id: must be a UUID', [{ path: 'id', message: 'must be a UUID' }]);
  return id.data;
}

/** The stored PDF as a download, named after the agreement, with its SHA-256 as its ETag and `Repr-Digest`. */
export function sendAgreementDocument(reply: FastifyReply, agreementId: string, document: { content: Buffer; sha256: string }) {
  return reply
    .type('application/pdf')
    .header('content-disposition', `attachment; filename="donation-agreement-${agreementId}.pdf"`)
    .header('etag', `"${document.sha256}"`)
    .header('repr-digest', `sha-256=:${Buffer.from(document.sha256, 'hex').toString('base64')}:`)
    .send(document.content);
}
