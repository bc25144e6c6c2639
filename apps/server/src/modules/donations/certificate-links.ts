import { randomBytes, randomUUID } from 'node:crypto';
import type { CertificateToSign, CreateCertificateLinkParsed, SignCertificateParsed } from '@merma/schema';
import { hashToken } from '../../auth/tokens.js';
import { isoSql } from '../../calendar.js';
import type { Clock, Tenant } from '../../context.js';
import type { DbTx } from '../../db/client.js';
import { type Sql, sqlOfTransaction } from '../../db/sql.js';
import { inTransaction } from '../../db/transaction.js';
import { AppError, validationError } from '../../errors.js';
import { recordAudit } from '../audit/service.js';
import type { CertificateLinkRow } from '../tenancy/callers.js';
import { certificateContent } from './certificate-content.js';
import { type CertificateKey, certificateKey, storeSignedCertificate } from './certificates.js';
import { DONATION_LINK_PREFIX, linkRefusal } from './links.js';
import { CIF_SQL } from './tax-data.js';
import { certificatePdf } from './tax-pdf.js';
import { type TaxReportScope, taxReport } from './tax-report.js';

/**
 * The certificate of Ley 49/2002 art. 24 signed through a link, the same kind of credential as a
 * donation's (links.ts): the entity's representative opens it without an account, reads the
 * pre-filled certificate — the same content as its PDF (certificate-content.ts) — and signs it
 * once. Its door: http/surfaces/donation-link.ts (`/donation-link/certificates/{link_id}`).
 *
 * - **Made by the kitchen** (`POST /donations/tax-pack/certificates/{entity_id}/link`, or an owner
 *   or admin on the Donations page: `donations.createCertificateLink`, dashboard.ts) for one
 *   entity, year and donor company, as the certificate's PDF is: the company must have handed
 *   something over to the entity that year (certificates.ts, `certificateKey`: 404, or 400 asking
 *   for `cif` when the maker sees several). The link keeps what its maker saw (an Enterprise Multi
 *   key or a dashboard member the organisation, another key its company) and reads the pack again
 *   each time it is opened, so a donation collected after the link was made is on the certificate
 *   signed.
 * - **Signed once**: the certificate is rendered with the signer's name, identity document,
 *   position, place, time and signature, stored as the year's signed certificate (replacing one
 *   uploaded or signed before, whose hash the audit entry keeps), its SHA-256 entered into the
 *   documents chain of the company's establishments by the store, and the link marked used, in
 *   one transaction. A second signature, an expired or a replaced link is a 410.
 */

type Deps = { db: DbTx; clock: Clock; publicUrl: string };

/** The stored certificate a link signs. */
export const certificateKeyOfLink = (link: CertificateLinkRow): CertificateKey => ({
  organizationId: link.organization_id,
  livemode: link.livemode,
  year: link.year,
  cif: link.cif,
  entityId: link.entity_id,
});

const scopeOf = (link: CertificateLinkRow): TaxReportScope => ({
  scope: link.only_establishment_id ? 'establishment' : 'organisation',
  organizationId: link.organization_id,
  livemode: link.livemode,
  onlyEstablishmentId: link.only_establishment_id,
  cif: link.cif,
});

/**
 * Who makes a link and where it acts: the pack it reads (`scope`, the maker's view: the API key's,
 * or the organisation's in the mode a dashboard member shows) and the establishment it is attached
 * to, whose caller the link is at its door (tenancy/callers.ts). Null: the donor company's oldest
 * establishment, for a maker that is no establishment's (a dashboard member).
 */
export type CertificateLinkMaker = { scope: TaxReportScope; establishmentId: string | null };

/** The link made (`url` and `expires_at`, the token shown only there), the certificate it signs and the establishment it acts in. */
export type MadeCertificateLink = {
  link: { url: string; expires_at: string };
  key: CertificateKey;
  entityName: string;
  establishmentId: string;
};

/** The company's oldest establishment in the organisation: where a link made by no establishment acts. */
async function companyEstablishment(sql: Sql, key: CertificateKey): Promise<string> {
  const { rows } = await sql.query<{ id: string }>(
    `SELECT id::text FROM establishments WHERE organization_id = $1::uuid AND ${CIF_SQL('cif')} = $2 ORDER BY created_at, id LIMIT 1`,
    [key.organizationId, key.cif],
  );
  if (!rows[0]) throw new AppError('not_found', `No establishment of company ${key.cif} in this organisation`);
  return rows[0].id;
}

export async function createCertificateLink(
  deps: Deps,
  maker: CertificateLinkMaker,
  input: CreateCertificateLinkParsed,
): Promise<MadeCertificateLink> {
  const now = deps.clock();
  const { scope } = maker;
  const token = `${DONATION_LINK_PREFIX}${randomBytes(32).toString('base64url')}`;
  const expires = new Date(now.getTime() + input.expires_in_hours * 3_600_000);
  const id = randomUUID();
  const made = await inTransaction(deps.db, async (tx) => {
    const sql = sqlOfTransaction(tx);
    const { key, entityName } = await certificateKey(sql, scope, input.entity_id, input.year);
    const establishmentId = maker.establishmentId ?? (await companyEstablishment(sql, key));
    await sql.query(
      `UPDATE certificate_links SET replaced_at = $6::timestamptz
       WHERE organization_id = $1::uuid AND livemode = $2 AND year = $3 AND cif = $4 AND entity_id = $5::uuid AND replaced_at IS NULL`,
      [key.organizationId, key.livemode, key.year, key.cif, key.entityId, now.toISOString()],
    );
    await sql.query(
      `INSERT INTO certificate_links (id, organization_id, establishment_id, livemode, only_establishment_id, entity_id, year, cif, token_hash,
         created_at, expires_at)
       VALUES ($1::uuid, $2::uuid, $3::uuid, $4, $5::uuid, $6::uuid, $7, $8, $9, $10::timestamptz, $11::timestamptz)`,
      [
        id,
        key.organizationId,
        establishmentId,
        key.livemode,
        scope.onlyEstablishmentId,
        key.entityId,
        key.year,
        key.cif,
        hashToken(token),
        now.toISOString(),
        expires.toISOString(),
      ],
    );
    return { key, entityName, establishmentId };
  });
  const url = `${deps.publicUrl.replace(/\/$/, '')}/dashboard/sign/certificate/${id}#${token}`;
  return { link: { url, expires_at: expires.toISOString() }, ...made };
}

type Signed = { signer_name: string; signer_role: string; signed_at: string; sha256: string };

/** The certificate as the link shows it: the pack of its year read now, and who signed it through this link. */
export async function certificateToSign(sql: Sql, link: CertificateLinkRow, now: Date): Promise<CertificateToSign> {
  const [report, signed] = await Promise.all([
    taxReport(sql, scopeOf(link), { year: link.year, generatedAt: now }),
    sql.query<Signed>(
      `SELECT signer_name, signer_role, ${isoSql('used_at')} AS signed_at, sha256 FROM certificate_links WHERE id = $1::uuid AND used_at IS NOT NULL`,
      [link.id],
    ),
  ]);
  const content = certificateContent(report, link.entity_id);
  const giver = content.givers.find((g) => g.cif === link.cif);
  if (!giver) throw new AppError('not_found', `Company ${link.cif} handed nothing over to this entity in ${link.year}`);
  const s = signed.rows[0];
  return {
    year: content.year,
    livemode: content.livemode,
    expires_at: link.expires_at,
    entity: { name: content.entity.name, nif: content.entity.nif, regime_opted_in: content.entity.ley_49_2002.regime_opted_in },
    donor: { name: content.organisation, cif: giver.cif, establishments: giver.establishments },
    deliveries: giver.deliveries.map((d) => ({
      handed_over_on: d.handed_over_on,
      description: d.description,
      net_kg: d.net_kg,
      value: d.value_cents / 100,
    })),
    totals: { net_kg: giver.totals.grams / 1000, value: giver.totals.cents / 100 },
    signed: s ? { name: s.signer_name, role: s.signer_role, signed_at: s.signed_at, sha256: s.sha256 } : null,
  };
}

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * The representative's signature, once: the link's row locked first, so two signatures sent at
 * once cannot both land (the second is a 410); the certificate rendered with the signature, stored
 * as the year's signed certificate with its audit entry, the link marked used with who signed.
 */
export async function signCertificate(
  deps: { db: DbTx; clock: Clock },
  tenant: Tenant,
  linkId: string,
  input: SignCertificateParsed,
  from: { ip: string; userAgent: string | null },
): Promise<CertificateToSign> {
  const now = deps.clock();
  const { signature } = input.signer;
  const png = signature.kind === 'drawn' ? Buffer.from(signature.png.slice(signature.png.indexOf(',') + 1), 'base64') : null;
  if (png && !png.subarray(0, 8).equals(PNG_MAGIC)) {
    throw validationError('signer.signature.png: is not a PNG image', [{ path: 'signer.signature.png', message: 'is not a PNG image' }]);
  }
  return inTransaction(deps.db, async (tx) => {
    const sql = sqlOfTransaction(tx);
    const { rows } = await sql.query<CertificateLinkRow & { entity_name: string }>(
      `SELECT c.id::text, c.organization_id::text, c.livemode, c.only_establishment_id::text, c.entity_id::text, c.year, c.cif,
         ${isoSql('c.expires_at')} AS expires_at, ${isoSql('c.used_at')} AS used_at, ${isoSql('c.replaced_at')} AS replaced_at, e.name AS entity_name
       FROM certificate_links c JOIN social_entities e ON e.id = c.entity_id WHERE c.id = $1::uuid FOR UPDATE OF c`,
      [linkId],
    );
    const row = rows[0];
    if (!row) throw new AppError('not_found', 'No such link');
    const { entity_name: entityName, ...link } = row;
    const refusal = linkRefusal(link, now, 'sign', 'certificate');
    if (refusal) throw refusal;
    const signedAt = now.toISOString();
    const report = await taxReport(sql, scopeOf(link), { year: link.year, generatedAt: now });
    const pdf = await certificatePdf(report, link.entity_id, {
      createdAt: now,
      signed: {
        cif: link.cif,
        name: input.signer.name,
        idDocument: input.signer.id_document,
        role: input.signer.role,
        place: input.place,
        signedAt,
        ip: from.ip,
        signature: signature.kind === 'drawn' ? { png: png as Buffer } : { text: signature.text },
      },
    });
    const stored = await storeSignedCertificate(sql, certificateKeyOfLink(link), pdf, now);
    await sql.query(
      `UPDATE certificate_links SET used_at = $2::timestamptz, signer_name = $3, signer_id_document = $4, signer_role = $5, place = $6,
         signature_kind = $7, signature_png = $8, signature_text = $9, ip = $10, user_agent = $11, sha256 = $12
       WHERE id = $1::uuid`,
      [
        link.id,
        signedAt,
        input.signer.name,
        input.signer.id_document,
        input.signer.role,
        input.place,
        signature.kind,
        png,
        signature.kind === 'typed' ? signature.text : null,
        from.ip,
        from.userAgent?.slice(0, 500) ?? null,
        stored.sha256,
      ],
    );
    await recordAudit(tx, {
      organizationId: link.organization_id,
      actor: null,
      action: 'donation_certificate.signed',
      target: entityName,
      establishmentId: tenant.establishmentId,
      details: {
        entity_id: link.entity_id,
        year: link.year,
        cif: link.cif,
        livemode: link.livemode,
        sha256: stored.sha256,
        size_bytes: stored.size_bytes,
        replaced_sha256: stored.previous_sha256,
        certificate_link_id: link.id,
        signer_name: input.signer.name,
        signer_role: input.signer.role,
      },
      now,
    });
    return certificateToSign(sql, { ...link, used_at: signedAt }, now);
  });
}

/** The certificate signed through this link, as stored; a 404 until it is signed. */
export async function signedCertificateOfLink(sql: Sql, link: CertificateLinkRow): Promise<{ content: Buffer; sha256: string }> {
  const { rows } = await sql.query<{ content: Buffer; sha256: string }>(
    `SELECT d.content, d.sha256 FROM certificate_links c
     JOIN donation_certificates d ON d.organization_id = c.organization_id AND d.livemode = c.livemode AND d.year = c.year AND d.cif = c.cif
       AND d.entity_id = c.entity_id AND d.sha256 = c.sha256
     WHERE c.id = $1::uuid`,
    [link.id],
  );
  if (!rows[0]) throw new AppError('not_found', 'This certificate has not been signed through this link, or a newer one replaced it');
  return { content: Buffer.from(rows[0].content), sha256: rows[0].sha256 };
}
