import { API_VERSION_PREFIX, DonationCertificateQuery, DonationTaxPackQuery, Uuid } from '@merma/schema';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type Clock, hasPermission } from '../../context.js';
import type { Sql } from '../../db/sql.js';
import { AppError, validationError } from '../../errors.js';
import { taxPackCsv, taxPackFileName } from '../../modules/donations/tax-csv.js';
import { certificatePdf, taxPackPdf } from '../../modules/donations/tax-pdf.js';
import { taxReport, taxReportScope } from '../../modules/donations/tax-report.js';

/**
 * The donations' tax pack as files, `GET /api/v1/donations/tax-pack.csv`, `.pdf` and an entity's
 * certificate `GET /api/v1/donations/tax-pack/certificates/{entity_id}.pdf`: the same figures as
 * the procedure `GET /donations/tax-pack` (modules/donations/tax-report.ts), answered as a file
 * rather than JSON, so Fastify routes of their own inside the API surface (surfaces/api.ts), with
 * its hooks (no-store, version, the key, the rate limit). Their query is the procedure's, checked
 * by the same schema.
 *
 * Rendering a PDF is synchronous work on the event loop (src/pdf/document.ts), some 15–20 ms a
 * page: a year of a few hundred donations is a few pages; a certificate lists every line given to
 * the entity, so thousands of lines a year would hold the loop for about a second.
 */

const BASE = `${API_VERSION_PREFIX}/donations/tax-pack`;

function authorize(request: FastifyRequest): void {
  if (!hasPermission(request.auth, 'donations:read')) throw new AppError('forbidden', 'This API key lacks the permission donations:read');
}

const attachment = (reply: FastifyReply, type: string, name: string) =>
  reply.type(type).header('content-disposition', `attachment; filename="${name}"`);

export async function taxPackDocumentRoutes(app: FastifyInstance, options: { sql: Sql; clock: Clock }): Promise<void> {
  const { sql, clock } = options;
  const report = async (request: FastifyRequest) => {
    authorize(request);
    const query = DonationTaxPackQuery.parse(request.query ?? {});
    const generatedAt = clock();
    return {
      generatedAt,
      report: await taxReport(sql, taxReportScope(request.auth, query.cif), {
        year: query.year,
        taxableBase: query.taxable_base,
        generatedAt,
      }),
    };
  };

  app.get(`${BASE}.csv`, { config: { bucket: 'general', procedure: 'donations.getTaxPackCsv' } }, async (request, reply) => {
    const { report: r } = await report(request);
    return attachment(reply, 'text/csv; charset=utf-8', taxPackFileName(r.pack, 'csv')).send(await taxPackCsv(r));
  });

  app.get(`${BASE}.pdf`, { config: { bucket: 'general', procedure: 'donations.getTaxPackPdf' } }, async (request, reply) => {
    const { report: r, generatedAt } = await report(request);
    return attachment(reply, 'application/pdf', taxPackFileName(r.pack, 'pdf')).send(await taxPackPdf(r, { createdAt: generatedAt }));
  });

  app.get(
    `${BASE}/certificates/:entity_id.pdf`,
    { config: { bucket: 'general', procedure: 'donations.getTaxCertificate' } },
    async (request, reply) => {
      authorize(request);
      const entityId = Uuid.safeParse((request.params as { entity_id?: unknown }).entity_id);
      if (!entityId.success) throw validationError('entity_id: must be a UUID', [{ path: 'entity_id', message: 'must be a UUID' }]);
      const query = DonationCertificateQuery.parse(request.query ?? {});
      const generatedAt = clock();
      const r = await taxReport(sql, taxReportScope(request.auth, query.cif), { year: query.year, generatedAt });
      const pdf = await certificatePdf(r, entityId.data, { createdAt: generatedAt });
      return attachment(
        reply,
        'application/pdf',
        `certificado-donativos-${r.pack.year}-${entityId.data}${r.pack.livemode ? '' : '-prueba'}.pdf`,
      ).send(pdf);
    },
  );
}
