import { Uuid } from '@merma/schema';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { validationError } from '../errors.js';
import type { CertificateKey } from '../modules/donations/certificates.js';

/**
 * A social entity's signed certificate over HTTP, as both doors that carry it share it: the API's
 * routes (surfaces/signed-certificates.ts, an API key) and the dashboard's
 * (surfaces/dashboard-tax-pack.ts, a login session). The body is the raw PDF, parsed as the signed
 * agreement's (agreement-document.ts); the storing and reading are modules/donations/certificates.ts.
 */

/** The entity's id from the route's `:entity_id`; a 400 when it is not a UUID. */
export function entityIdParam(request: FastifyRequest): string {
  const id = Uuid.safeParse((request.params as { entity_id?: unknown }).entity_id);
  if (!id.success) throw validationError('entity_id: must be a UUID', [{ path: 'entity_id', message: 'must be a UUID' }]);
  return id.data;
}

/** The stored PDF as a download named after its year, company and entity, with its SHA-256 as its ETag and `Repr-Digest`. */
export function sendSignedCertificate(reply: FastifyReply, key: CertificateKey, certificate: { content: Buffer; sha256: string }) {
  const cif = key.cif.replace(/[^A-Za-z0-9]/g, ''); // a name without quotes whatever the establishment's CIF holds
  const name = `certificado-donativos-firmado-${key.year}-${cif}-${key.entityId}${key.livemode ? '' : '-prueba'}.pdf`;
  return reply
    .type('application/pdf')
    .header('content-disposition', `attachment; filename="${name}"`)
    .header('etag', `"${certificate.sha256}"`)
    .header('repr-digest', `sha-256=:${Buffer.from(certificate.sha256, 'hex').toString('base64')}:`)
    .send(certificate.content);
}
