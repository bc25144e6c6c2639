import { createHash } from 'node:crypto';
import { AGREEMENT_TIMEZONE, type DonationSignedCertificate, MAX_SIGNED_CERTIFICATE_BYTES } from '@merma/schema';
import type { Clock } from '../../context.js';
import type { Db } from '../../db/client.js';
import { type Sql, sqlOfTransaction } from '../../db/sql.js';
import { AppError, validationError } from '../../errors.js';
import { type Actor, audited } from '../audit/service.js';
import { appendDocument } from '../records/documents.js';
import { getEntity } from './entities.js';
import { CIF_SQL, type TaxScope } from './tax-data.js';

/**
 * The certificates of Ley 49/2002 art. 24 that social entities signed for the donor: the entity
 * signs the pre-filled certificate (tax-pdf.ts), or issues its own, and the donor keeps it. One PDF
 * per organisation, mode, tax year, donor company (CIF) and entity, kept as sent with its SHA-256;
 * a new upload replaces it, and each upload's audit entry (`donation_certificate.uploaded`, in the
 * same transaction) keeps the hash it replaced. The tax pack says which it has received
 * (tax-data.ts reads them).
 *
 * **Which company.** A certificate certifies one company's gifts of the year to the entity, so the
 * company must be one the caller sees (an Enterprise Multi key or a dashboard member: any of the
 * organisation's; another key: its establishment's) and must have handed something over to the
 * entity that year, in the caller's mode, as the pre-filled certificate requires. Left out, it is
 * the one such company; with several, a 400 asks for `cif`. Another organisation's entity, or a
 * year with nothing given, is a 404, whatever the body.
 *
 * A body that is not a PDF (it must start with `%PDF-`) or is empty is a 400, one over
 * MAX_SIGNED_CERTIFICATE_BYTES a 413, and nothing is stored or audited.
 */

const PDF_MAGIC = Buffer.from('%PDF-', 'latin1');

/** Which certificate: the organisation's, in one mode, for one company's gifts of one year to one entity. */
export type CertificateKey = { organizationId: string; livemode: boolean; year: number; cif: string; entityId: string };

export type StoredCertificate = DonationSignedCertificate & { previous_sha256: string | null };

/** The companies (normalised CIF) the scope sees that handed something over to the entity in the year, in its mode. */
const GIVERS_SQL = `
SELECT DISTINCT ${CIF_SQL('e.cif')} AS cif
FROM donations d
JOIN establishments e ON e.id = d.establishment_id AND e.organization_id = $1::uuid
JOIN donation_agreements a ON a.id = d.agreement_id AND a.organization_id = $1::uuid
WHERE a.entity_id = $2::uuid AND d.livemode = $3 AND d.status IN ('collected', 'received')
  AND d.collected_at >= make_timestamptz($4, 1, 1, 0, 0, 0, $7)
  AND d.collected_at < make_timestamptz($4 + 1, 1, 1, 0, 0, 0, $7)
  AND ($5::uuid IS NULL OR ${CIF_SQL('e.cif')} = (
    SELECT ${CIF_SQL('k.cif')} FROM establishments k WHERE k.id = $5::uuid AND k.organization_id = $1::uuid))
  AND ($6::text IS NULL OR ${CIF_SQL('e.cif')} = $6)
ORDER BY 1`;

/** The certificate's key for `entityId` and `year` (see "Which company" above); the entity's name for the audit log. */
export async function certificateKey(
  sql: Sql,
  scope: TaxScope,
  entityId: string,
  year: number,
): Promise<{ key: CertificateKey; entityName: string }> {
  const entity = await getEntity(sql, scope.organizationId, entityId);
  const { rows } = await sql.query<{ cif: string }>(GIVERS_SQL, [
    scope.organizationId,
    entityId,
    scope.livemode,
    year,
    scope.onlyEstablishmentId,
    scope.cif,
    AGREEMENT_TIMEZONE,
  ]);
  const givers = rows.map((r) => r.cif);
  if (givers.length === 0) {
    const by = scope.cif ? `company ${scope.cif}` : 'the companies this caller sees';
    throw new AppError('not_found', `No donation to entity ${entityId} was handed over in ${year} by ${by}`);
  }
  if (givers.length > 1) {
    const message = `give the donor company: entity ${entityId} received gifts in ${year} from ${givers.length} companies (${givers.join(', ')})`;
    throw validationError(`cif: ${message}`, [{ path: 'cif', message }]);
  }
  const cif = givers[0] as string;
  return { key: { organizationId: scope.organizationId, livemode: scope.livemode, year, cif, entityId }, entityName: entity.name };
}

const KEY_WHERE = 'organization_id = $1::uuid AND livemode = $2 AND year = $3 AND cif = $4 AND entity_id = $5::uuid';
const keyValues = (key: CertificateKey) => [key.organizationId, key.livemode, key.year, key.cif, key.entityId];

/**
 * Stores `body` as the signed certificate of `key`, replacing the one stored, and answers it with
 * the SHA-256 it replaced. The one writer of `donation_certificates`; run inside a transaction
 * (its lock on the key is the transaction's), with the upload's audit entry. Its SHA-256 is
 * entered into the register's documents chain of every establishment of the company.
 */
export async function storeSignedCertificate(sql: Sql, key: CertificateKey, body: Buffer, now: Date): Promise<StoredCertificate> {
  if (body.length === 0 || !body.subarray(0, PDF_MAGIC.length).equals(PDF_MAGIC)) {
    throw validationError('The certificate is not a PDF: its body must start with %PDF-', [{ path: 'body', message: 'not a PDF' }]);
  }
  if (body.length > MAX_SIGNED_CERTIFICATE_BYTES) {
    throw new AppError('payload_too_large', `The certificate is larger than ${MAX_SIGNED_CERTIFICATE_BYTES} bytes`);
  }
  const sha256 = createHash('sha256').update(body).digest('hex');
  const uploadedAt = now.toISOString();
  // Two uploads for the same key at once: the second waits, and records the first's hash as the one it replaced.
  await sql.query('SELECT true AS locked FROM (SELECT pg_advisory_xact_lock(hashtextextended($1, 0))) AS lock', [
    `donation_certificate:${keyValues(key).join(':')}`,
  ]);
  const { rows } = await sql.query<{ sha256: string }>(`SELECT sha256 FROM donation_certificates WHERE ${KEY_WHERE}`, keyValues(key));
  const stored = await sql.query<{ id: string }>(
    `INSERT INTO donation_certificates (organization_id, livemode, year, cif, entity_id, content, sha256, size_bytes, uploaded_at)
     VALUES ($1::uuid, $2, $3, $4, $5::uuid, $6::bytea, $7, $8, $9::timestamptz)
     ON CONFLICT (organization_id, livemode, year, cif, entity_id) DO UPDATE SET content = excluded.content,
       sha256 = excluded.sha256, size_bytes = excluded.size_bytes, uploaded_at = excluded.uploaded_at
     RETURNING id::text`,
    [...keyValues(key), body, sha256, body.length, uploadedAt],
  );
  // Entered into the documents chain of each of the company's establishments, in this mode: each
  // register vouches for the certificate of the gifts it holds (records/documents.ts).
  const establishments = await sql.query<{ id: string }>(
    `SELECT id::text FROM establishments WHERE organization_id = $1::uuid AND ${CIF_SQL('cif')} = $2 ORDER BY id`,
    [key.organizationId, key.cif],
  );
  for (const establishment of establishments.rows) {
    await appendDocument(
      sql,
      { establishmentId: establishment.id, livemode: key.livemode },
      { kind: 'donation_certificate', subjectId: stored.rows[0]?.id as string, sha256, createdAt: uploadedAt },
    );
  }
  return {
    entity_id: key.entityId,
    year: key.year,
    cif: key.cif,
    sha256,
    size_bytes: body.length,
    uploaded_at: uploadedAt,
    previous_sha256: rows[0]?.sha256 ?? null,
  };
}

/** The stored PDF of `key`; a 404 while none is. */
export async function readSignedCertificate(
  sql: Sql,
  key: CertificateKey,
): Promise<{ content: Buffer; sha256: string; uploadedAt: string }> {
  const { rows } = await sql.query<{ content: Buffer; sha256: string; uploaded_at: Date }>(
    `SELECT content, sha256, uploaded_at FROM donation_certificates WHERE ${KEY_WHERE}`,
    keyValues(key),
  );
  const row = rows[0];
  if (!row) {
    throw new AppError('not_found', `No signed certificate of entity ${key.entityId} for ${key.cif}'s gifts of ${key.year} is stored yet`);
  }
  return { content: Buffer.from(row.content), sha256: row.sha256, uploadedAt: new Date(row.uploaded_at).toISOString() };
}

/** Who uploads, for the audit entry: a member (`actor`) or an API key (`details.api_key_id`), and from which establishment. */
export type CertificateUploader = { actor: Actor | null; establishmentId: string | null; details?: Record<string, unknown> };

/**
 * An upload from either door (http/surfaces/signed-certificates.ts, an API key;
 * dashboard-tax-pack.ts, a member), once the door has resolved the key (`certificateKey`) and read
 * the body: the PDF stored and its audit entry written in one transaction.
 */
export async function uploadSignedCertificate(
  deps: { db: Db; clock: Clock },
  upload: { key: CertificateKey; entityName: string; body: Buffer; uploader: CertificateUploader },
): Promise<DonationSignedCertificate> {
  const { key, uploader } = upload;
  const { previous_sha256: _previous, ...stored } = await audited(
    deps,
    (tx, now) => storeSignedCertificate(sqlOfTransaction(tx), key, upload.body, now),
    (certificate) => ({
      organizationId: key.organizationId,
      actor: uploader.actor,
      action: 'donation_certificate.uploaded',
      target: upload.entityName,
      establishmentId: uploader.establishmentId,
      details: {
        entity_id: key.entityId,
        year: key.year,
        cif: key.cif,
        livemode: key.livemode,
        sha256: certificate.sha256,
        size_bytes: certificate.size_bytes,
        replaced_sha256: certificate.previous_sha256,
        ...uploader.details,
      },
    }),
  );
  return stored;
}
