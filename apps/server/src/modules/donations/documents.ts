import { createHash } from 'node:crypto';
import { MAX_AGREEMENT_DOCUMENT_BYTES } from '@merma/schema';
import type { Sql } from '../../db/sql.js';
import { AppError, validationError } from '../../errors.js';

/**
 * The signed agreement document: one PDF per agreement (a new upload replaces it), kept in the
 * database as it was sent, with its SHA-256 in hexadecimal, which the agreement shows. A body that
 * is not a PDF (it must start with `%PDF-`) or is empty is refused and nothing is stored.
 */

const PDF_MAGIC = Buffer.from('%PDF-', 'latin1');

export type StoredDocument = { sha256: string; size_bytes: number; uploaded_at: string };

/** A 404 unless the agreement is the organisation's. */
async function checkAgreement(sql: Sql, organizationId: string, agreementId: string): Promise<void> {
  const { rows } = await sql.query('SELECT 1 FROM donation_agreements WHERE id = $1::uuid AND organization_id = $2::uuid', [
    agreementId,
    organizationId,
  ]);
  if (rows.length === 0) throw new AppError('not_found', `No donation agreement ${agreementId} in this organisation`);
}

export async function storeAgreementDocument(
  sql: Sql,
  organizationId: string,
  agreementId: string,
  body: Buffer,
  now: Date,
): Promise<StoredDocument> {
  await checkAgreement(sql, organizationId, agreementId);
  if (body.length === 0 || !body.subarray(0, PDF_MAGIC.length).equals(PDF_MAGIC)) {
    throw validationError('The document is not a PDF: its body must start with %PDF-', [{ path: 'body', message: 'not a PDF' }]);
  }
  if (body.length > MAX_AGREEMENT_DOCUMENT_BYTES) {
    throw new AppError('payload_too_large', `The document is larger than ${MAX_AGREEMENT_DOCUMENT_BYTES} bytes`);
  }
  const sha256 = createHash('sha256').update(body).digest('hex');
  const uploadedAt = now.toISOString();
  await sql.query(
    `INSERT INTO donation_agreement_documents (agreement_id, content, sha256, size_bytes, uploaded_at)
     VALUES ($1::uuid, $2::bytea, $3, $4, $5::timestamptz)
     ON CONFLICT (agreement_id) DO UPDATE SET content = excluded.content, sha256 = excluded.sha256, size_bytes = excluded.size_bytes,
       uploaded_at = excluded.uploaded_at`,
    [agreementId, body, sha256, body.length, uploadedAt],
  );
  await sql.query('UPDATE donation_agreements SET updated_at = $2::timestamptz WHERE id = $1::uuid', [agreementId, uploadedAt]);
  return { sha256, size_bytes: body.length, uploaded_at: uploadedAt };
}

/** The stored PDF and its hash; a 404 when the agreement is another's or has none yet. */
export async function readAgreementDocument(
  sql: Sql,
  organizationId: string,
  agreementId: string,
): Promise<{ content: Buffer; sha256: string }> {
  await checkAgreement(sql, organizationId, agreementId);
  const { rows } = await sql.query<{ content: Buffer; sha256: string }>(
    'SELECT content, sha256 FROM donation_agreement_documents WHERE agreement_id = $1::uuid',
    [agreementId],
  );
  if (!rows[0]) throw new AppError('not_found', `The donation agreement ${agreementId} has no signed document yet`);
  return { content: Buffer.from(rows[0].content), sha256: rows[0].sha256 };
}
