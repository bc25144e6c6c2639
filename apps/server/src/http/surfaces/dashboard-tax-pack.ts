import { MAX_SIGNED_CERTIFICATE_BYTES } from '@merma/schema';
import { DashboardTaxCertificateQuery, DashboardTaxPackFileQuery } from '@merma/schema/dashboard';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { issueDetails, validationError } from '../../errors.js';
import type { SignedInUser } from '../../modules/accounts/login-sessions.js';
import { certificateKey, readSignedCertificate, uploadSignedCertificate } from '../../modules/donations/certificates.js';
import { taxPackCsv, taxPackFileName } from '../../modules/donations/tax-csv.js';
import { certificatePdf, taxPackPdf } from '../../modules/donations/tax-pdf.js';
import { organisationTaxScope, taxReport } from '../../modules/donations/tax-report.js';
import { actorOf } from '../../trpc/dashboard-base.js';
import { pdfBytes } from '../agreement-document.js';
import { entityIdParam, sendSignedCertificate } from '../signed-certificate.js';
import { type DashboardFilesOptions, guardMemberFiles } from './dashboard-files.js';

/** The dashboard's tax pack files, under one prefix. */
export const DASHBOARD_TAX_PACK_PATH = '/files/donations/tax-pack';
/** A signed certificate, up (`PUT`) and down (`GET`), `?year=&mode=&cif=`. */
export const DASHBOARD_SIGNED_CERTIFICATE_PATH = `${DASHBOARD_TAX_PACK_PATH}/certificates/:entity_id/signed`;

export type DashboardTaxPackOptions = DashboardFilesOptions;

/**
 * The donations page's tax pack as files, for a login session: the pack's CSV and PDF
 * (`GET /files/donations/tax-pack.csv` and `.pdf?year=&mode=`), an entity's pre-filled art. 24
 * certificate (`GET …/certificates/{entity_id}.pdf?year=&mode=&cif=`) and the certificate it signed
 * (`PUT` and `GET …/certificates/{entity_id}/signed?year=&mode=&cif=`). The API's routes
 * (tax-pack-documents.ts, signed-certificates.ts) over the same functions, for the organisation in
 * the page's mode (`organisationTaxScope`), as the page's `donations.taxPack` reads it. Registered
 * inside the dashboard surface (surfaces/dashboard.ts), whose hooks have already refused a
 * cross-site request and, for the upload, a missing or wrong CSRF header.
 *
 * Every member downloads; owners and admins upload, as they hold the organisation's entities and
 * agreements (modules/donations/dashboard.ts). Who is asking is settled before the body is read: a
 * request without a session or from another role is refused before 10 MiB are received. Another
 * organisation's entity, or a company that gave it nothing that year, is a 404; a body that is not
 * a PDF a 400 (JSON: 415), one over 10 MiB a 413, nothing stored. An upload and its audit entry
 * (`donation_certificate.uploaded`, with the SHA-256 and the one it replaced) are one transaction.
 * Every route counts against the member's `heavy` limit, as the records' CSV export does.
 */
export async function dashboardTaxPackRoutes(app: FastifyInstance, options: DashboardTaxPackOptions): Promise<void> {
  const { db, sql, clock } = options;
  const member = guardMemberFiles(app, options, (request) => request.routeOptions.config?.procedure ?? 'taxPackFile');

  function query<T extends z.ZodType>(schema: T, request: FastifyRequest): z.output<T> {
    const parsed = schema.safeParse(request.query);
    if (!parsed.success) throw validationError('Invalid query', issueDetails(parsed.error));
    return parsed.data;
  }
  const attachment = (reply: FastifyReply, type: string, name: string) =>
    reply.type(type).header('content-disposition', `attachment; filename="${name}"`);
  const report = (user: SignedInUser, q: { year: number; mode: 'test' | 'live'; cif?: string }) => {
    const generatedAt = clock();
    const scope = organisationTaxScope(user.organizationId, q.mode === 'live', q.cif ?? null);
    return taxReport(sql, scope, { year: q.year, generatedAt }).then((r) => ({ report: r, generatedAt }));
  };
  /** The signed certificate the request names: another organisation's entity, or a company that gave it nothing that year, is a 404. */
  const keyOf = (user: SignedInUser, request: FastifyRequest) => {
    const entityId = entityIdParam(request);
    const q = query(DashboardTaxCertificateQuery, request);
    return certificateKey(sql, organisationTaxScope(user.organizationId, q.mode === 'live', q.cif), entityId, q.year);
  };

  app.get(`${DASHBOARD_TAX_PACK_PATH}.csv`, { config: { procedure: 'taxPackCsv' } }, async (request, reply) => {
    const { report: r } = await report(member(request), query(DashboardTaxPackFileQuery, request));
    return attachment(reply, 'text/csv; charset=utf-8', taxPackFileName(r.pack, 'csv')).send(await taxPackCsv(r));
  });

  app.get(`${DASHBOARD_TAX_PACK_PATH}.pdf`, { config: { procedure: 'taxPackPdf' } }, async (request, reply) => {
    const { report: r, generatedAt } = await report(member(request), query(DashboardTaxPackFileQuery, request));
    return attachment(reply, 'application/pdf', taxPackFileName(r.pack, 'pdf')).send(await taxPackPdf(r, { createdAt: generatedAt }));
  });

  app.get(`${DASHBOARD_TAX_PACK_PATH}/certificates/:entity_id.pdf`, { config: { procedure: 'taxCertificate' } }, async (request, reply) => {
    const user = member(request);
    const entityId = entityIdParam(request);
    const { report: r, generatedAt } = await report(user, query(DashboardTaxCertificateQuery, request));
    const pdf = await certificatePdf(r, entityId, { createdAt: generatedAt });
    const name = `certificado-donativos-${r.pack.year}-${entityId}${r.pack.livemode ? '' : '-prueba'}.pdf`;
    return attachment(reply, 'application/pdf', name).send(pdf);
  });

  app.put(
    DASHBOARD_SIGNED_CERTIFICATE_PATH,
    { bodyLimit: MAX_SIGNED_CERTIFICATE_BYTES, config: { procedure: 'uploadSignedCertificate' } },
    async (request, reply) => {
      const user = member(request);
      const { key, entityName } = await keyOf(user, request); // a 404 whatever the body
      const body = pdfBytes(request.body, 'the signed certificate');
      const stored = await uploadSignedCertificate(
        { db, clock },
        {
          key,
          entityName,
          body,
          uploader: {
            actor: actorOf({ user, client: { ip: request.ip, userAgent: request.headers['user-agent'] ?? null } }),
            establishmentId: null,
          },
        },
      );
      return reply.type('application/json; charset=utf-8').send(JSON.stringify(stored));
    },
  );

  app.get(DASHBOARD_SIGNED_CERTIFICATE_PATH, { config: { procedure: 'downloadSignedCertificate' } }, async (request, reply) => {
    const { key } = await keyOf(member(request), request);
    return sendSignedCertificate(reply, key, await readSignedCertificate(sql, key));
  });
}
