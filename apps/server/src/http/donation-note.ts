import type { FastifyReply } from 'fastify';

/**
 * A donation's signed handover note (modules/donations/links.ts, `signedNotePdf`) as a download, as
 * both doors that serve it send it: the social entity's link (surfaces/donation-link.ts) and the
 * dashboard (surfaces/dashboard-documents.ts). Named after the donation, its SHA-256 as `Repr-Digest`
 * and ETag: the fingerprint the dashboard shows, so a downloaded copy can be checked against it.
 */
export function sendSignedNote(reply: FastifyReply, donationId: string, note: { pdf: Buffer; sha256: string }) {
  return reply
    .type('application/pdf')
    .header('content-disposition', `attachment; filename="albaran-donacion-${donationId}.pdf"`)
    .header('etag', `"${note.sha256}"`)
    .header('repr-digest', `sha-256=:${Buffer.from(note.sha256, 'hex').toString('base64')}:`)
    .send(note.pdf);
}
