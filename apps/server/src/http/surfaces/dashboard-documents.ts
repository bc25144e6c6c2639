import { MAX_AGREEMENT_DOCUMENT_BYTES, Uuid } from '@merma/schema';
import { DonationNoteQuery } from '@merma/schema/dashboard';
import type { FastifyInstance } from 'fastify';
import { sqlOfTransaction } from '../../db/sql.js';
import { issueDetails, validationError } from '../../errors.js';
import { audited } from '../../modules/audit/service.js';
import { expiresInDays, getAgreement } from '../../modules/donations/agreements.js';
import { readAgreementDocument, storeAgreementDocument } from '../../modules/donations/documents.js';
import { getDonation } from '../../modules/donations/donations.js';
import { signedNotePdf } from '../../modules/donations/links.js';
import { findEstablishment, tenantOf } from '../../modules/tenancy/callers.js';
import { actorOf } from '../../trpc/dashboard-base.js';
import { agreementIdParam, pdfBytes, sendAgreementDocument } from '../agreement-document.js';
import { sendSignedNote } from '../donation-note.js';
import { type DashboardFilesOptions, guardMemberFiles } from './dashboard-files.js';

/** Where the dashboard uploads (`PUT`) and downloads (`GET`) an agreement's signed PDF. */
export const DASHBOARD_AGREEMENT_DOCUMENT_PATH = '/files/donation-agreements/:id/document';
/** Where the dashboard downloads a donation's signed handover note (`?establishment_id=&mode=`). */
export const DASHBOARD_DONATION_NOTE_PATH = '/files/donations/:id/note.pdf';

export type DashboardDocumentsOptions = DashboardFilesOptions;

/**
 * A donation agreement's signed PDF from the dashboard: the API's document routes
 * (surfaces/agreement-documents.ts) for a login session, registered inside the dashboard surface
 * (surfaces/dashboard.ts), whose hooks have already refused a cross-site request and, for the
 * upload, a missing or wrong CSRF header. The body parser, the 10 MiB limit and the download's
 * headers are the API's (http/agreement-document.ts); the storing and reading are the same service
 * functions (modules/donations/documents.ts).
 *
 * Every member downloads; owners and admins upload, as they change agreements on the dashboard
 * (modules/donations/dashboard.ts, which says why neither depends on the page's mode). Who is asking
 * is settled before the body is read: a request without a session or from another role is refused
 * before 10 MiB are received. Another organisation's agreement is a 404; a body that is not a PDF a
 * 400 (JSON: 415), one over 10 MiB a 413, nothing stored. An upload and its audit entry
 * (`donation_agreement.document_uploaded`, with the SHA-256) are one transaction. Both count against
 * the member's `heavy` limit, as the records' CSV export does.
 *
 * And a donation's signed handover note (`GET /files/donations/{id}/note.pdf`), the PDF the
 * social entity signed through its link (modules/donations/links.ts, `signedNotePdf`), for every
 * member, under the same limit; a 404 until it is signed.
 */
export async function dashboardDocumentRoutes(app: FastifyInstance, options: DashboardDocumentsOptions): Promise<void> {
  const { db, sql, clock } = options;
  const member = guardMemberFiles(app, options, (request) =>
    request.routeOptions.url === DASHBOARD_DONATION_NOTE_PATH
      ? 'downloadNote'
      : request.method === 'GET'
        ? 'downloadDocument'
        : 'uploadDocument',
  );

  app.put(DASHBOARD_AGREEMENT_DOCUMENT_PATH, { bodyLimit: MAX_AGREEMENT_DOCUMENT_BYTES }, async (request, reply) => {
    const user = member(request);
    const id = agreementIdParam(request);
    const agreement = await getAgreement(sql, user.organizationId, id, clock()); // another organisation's: 404 whatever the body
    const bytes = pdfBytes(request.body);
    await audited(
      { db, clock },
      (tx, now) => storeAgreementDocument(sqlOfTransaction(tx), user.organizationId, id, bytes, now),
      (document) => ({
        organizationId: user.organizationId,
        actor: actorOf({ user, client: { ip: request.ip, userAgent: request.headers['user-agent'] ?? null } }),
        action: 'donation_agreement.document_uploaded',
        target: agreement.entity_name,
        details: { agreement_id: id, sha256: document.sha256, size_bytes: document.size_bytes },
      }),
    );
    // The agreement as the page lists it (`DashboardDonationAgreement`): signed now, it may have left `draft`.
    const now = clock();
    const stored = await getAgreement(sql, user.organizationId, id, now);
    return reply.type('application/json; charset=utf-8').send(JSON.stringify({ ...stored, expires_in_days: expiresInDays(stored, now) }));
  });

  app.get(DASHBOARD_AGREEMENT_DOCUMENT_PATH, async (request, reply) => {
    const user = member(request);
    const id = agreementIdParam(request);
    return sendAgreementDocument(reply, id, await readAgreementDocument(sql, user.organizationId, id));
  });

  // A donation's signed note: an establishment's data of one mode, named as the records' export
  // names them; another establishment's or mode's donation is a 404, as on /trpc.
  app.get(DASHBOARD_DONATION_NOTE_PATH, async (request, reply) => {
    const user = member(request);
    const id = Uuid.safeParse((request.params as { id?: unknown }).id);
    if (!id.success) throw validationError('id: must be a UUID', [{ path: 'id', message: 'must be a UUID' }]);
    const query = DonationNoteQuery.safeParse(request.query);
    if (!query.success) throw validationError('Invalid query', issueDetails(query.error));
    const establishment = await findEstablishment(db, user.organizationId, query.data.establishment_id);
    await getDonation(sql, tenantOf(establishment, query.data.mode === 'live'), id.data);
    return sendSignedNote(reply, id.data, await signedNotePdf(sql, id.data));
  });
}
