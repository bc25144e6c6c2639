import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { DonationNote, SignDonationParsed } from '@merma/schema';
import { hashToken } from '../../auth/tokens.js';
import { isoSql } from '../../calendar.js';
import type { Clock, Tenant } from '../../context.js';
import type { DbTx } from '../../db/client.js';
import { type Sql, sqlOfTransaction } from '../../db/sql.js';
import { inTransaction } from '../../db/transaction.js';
import { AppError, validationError } from '../../errors.js';
import { appendDocument } from '../records/documents.js';
import type { DonationLinkRow } from '../tenancy/callers.js';
import { type DonationDeps, decideDonation, getDonation } from './donations.js';
import { renderDonationNote } from './note-pdf.js';

/**
 * The social entity's signing link: a one-time, expiring credential for one donation, the fifth
 * kind of caller (its resolver: `findDonationLinkCaller` in tenancy/callers.ts; its door:
 * http/surfaces/donation-link.ts).
 *
 * - **Made by the kitchen** (`createDonationLink`: the API, the dashboard, the station) for an
 *   offered donation. The token (`dln_` + 32 random bytes) is returned once, in the URL's fragment;
 *   only its SHA-256 is stored. A new link replaces the donation's last one.
 * - **Used once**: the signature (`signDonation`) records the entity's answer through the same
 *   path as the API's (donations.ts, `decideDonation`), the signer (typed name, identity document,
 *   a drawn or typed signature, the time, the address and the browser), renders the handover note
 *   as a PDF and stores it with its SHA-256, all in one transaction. A second signature is a 410.
 * - **Until it expires** the link still opens the donation and, once signed, downloads the note
 *   (PDF and CSV) for the entity's own entry register. After `expires_at` every use is a 410.
 */

export const DONATION_LINK_PREFIX = 'dln_';

export async function createDonationLink(
  deps: { db: DbTx; clock: Clock; publicUrl: string },
  tenant: Tenant,
  input: { id: string; expires_in_hours: number },
): Promise<{ url: string; expires_at: string }> {
  const now = deps.clock();
  const token = `${DONATION_LINK_PREFIX}${randomBytes(32).toString('base64url')}`;
  const expires = new Date(now.getTime() + input.expires_in_hours * 3_600_000);
  await inTransaction(deps.db, async (tx) => {
    const sql = sqlOfTransaction(tx);
    const { rows } = await sql.query<{ status: string }>(
      'SELECT status FROM donations WHERE id = $1::uuid AND establishment_id = $2::uuid AND livemode = $3 FOR UPDATE',
      [input.id, tenant.establishmentId, tenant.livemode],
    );
    if (!rows[0]) throw new AppError('not_found', `No donation ${input.id} in this establishment`);
    if (rows[0].status !== 'offered') {
      throw new AppError('conflict', `Donation ${input.id} is ${rows[0].status}: a signing link is made for an offered donation only`);
    }
    await sql.query('UPDATE donation_links SET replaced_at = $2::timestamptz WHERE donation_id = $1::uuid AND replaced_at IS NULL', [
      input.id,
      now.toISOString(),
    ]);
    await sql.query(
      `INSERT INTO donation_links (id, donation_id, establishment_id, livemode, token_hash, created_at, expires_at)
       VALUES ($1::uuid, $2::uuid, $3::uuid, $4, $5, $6::timestamptz, $7::timestamptz)`,
      [randomUUID(), input.id, tenant.establishmentId, tenant.livemode, hashToken(token), now.toISOString(), expires.toISOString()],
    );
  });
  return { url: `${deps.publicUrl.replace(/\/$/, '')}/dashboard/sign/${input.id}#${token}`, expires_at: expires.toISOString() };
}

/**
 * Why a link can no longer be used for `use` (410), or null. A replaced link is a dead one. The
 * error's one detail names the link's field that ends it (`link.replaced_at`, `link.expires_at`,
 * `link.used_at`), so the signing page can say which in the volunteer's language.
 */
export function linkRefusal(
  link: Pick<DonationLinkRow, 'expires_at' | 'used_at' | 'replaced_at'>,
  now: Date,
  use: 'read' | 'sign',
  subject: 'donation' | 'certificate' = 'donation',
): AppError | null {
  const gone = (field: 'replaced_at' | 'expires_at' | 'used_at', detail: string, message: string) =>
    new AppError('gone', message, [{ path: `link.${field}`, message: detail }]);
  if (link.replaced_at !== null)
    return gone('replaced_at', 'a newer link was made', 'This link was replaced by a newer one: ask the kitchen for the latest');
  if (new Date(link.expires_at).getTime() <= now.getTime())
    return gone('expires_at', 'has passed', 'This link has expired: ask the kitchen for a new one');
  if (use === 'sign' && link.used_at !== null)
    return gone('used_at', `the ${subject} was signed through this link`, `This ${subject} was already signed through this link`);
  return null;
}

type NoteHeaderRow = {
  organization: string;
  cif: string | null;
  establishment: string;
  entity_name: string;
  entity_nif: string;
  signer_name: string | null;
  signed_at: string | null;
  sha256: string | null;
};

/** The donation as the entity sees it through its link: the lines, no book or market values. */
export async function donationNote(sql: Sql, tenant: Tenant, link: DonationLinkRow): Promise<DonationNote> {
  const donation = await getDonation(sql, tenant, link.donation_id);
  const { rows } = await sql.query<NoteHeaderRow>(
    `SELECT o.name AS organization, est.cif, est.name AS establishment, e.name AS entity_name, e.nif AS entity_nif,
       n.signer_name, ${isoSql('n.signed_at')} AS signed_at, n.sha256
     FROM donations d JOIN establishments est ON est.id = d.establishment_id JOIN organizations o ON o.id = est.organization_id
     JOIN donation_agreements a ON a.id = d.agreement_id JOIN social_entities e ON e.id = a.entity_id
     LEFT JOIN donation_notes n ON n.donation_id = d.id
     WHERE d.id = $1::uuid`,
    [link.donation_id],
  );
  const h = rows[0] as NoteHeaderRow;
  return {
    donation_id: donation.id,
    status: donation.status,
    donor: { organization: h.organization, cif: h.cif, establishment: h.establishment },
    entity: { name: h.entity_name, nif: h.entity_nif },
    offered_at: donation.offered_at,
    expires_at: link.expires_at,
    lines: donation.lines.map((l) => ({
      id: l.id,
      position: l.position,
      description: l.description,
      food_category: l.food_category,
      quantity: l.quantity,
      unit: l.unit,
      net_kg: l.net_kg,
      lot: l.lot,
      best_before: l.best_before,
      use_by: l.use_by,
      storage: l.storage,
      cooked: l.cooked,
      allergens: l.allergens,
      temperature_c: l.temperature_c,
      status: l.status,
      refusal_reason: l.refusal_reason,
    })),
    signed: h.signed_at === null ? null : { name: h.signer_name as string, signed_at: h.signed_at, sha256: h.sha256 as string },
  };
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/**
 * The volunteer's answer and signature, once: the answer is recorded as the API records it
 * (`decideDonation`: every line once, a reason for each refusal, `donation.accepted` or
 * `donation.refused`), and the signed note is rendered and stored with its SHA-256 in the same
 * transaction, the digest entered into the register's documents chain (records/documents.ts,
 * signed by the next checkpoint), the link marked used. The link's row is locked first, so two signatures sent at
 * once cannot both land: the second is a 410.
 */
export async function signDonation(
  deps: DonationDeps,
  tenant: Tenant,
  linkId: string,
  input: SignDonationParsed,
  from: { ip: string; userAgent: string | null },
): Promise<DonationNote> {
  const now = deps.clock();
  const png =
    input.signer.signature.kind === 'drawn'
      ? Buffer.from(input.signer.signature.png.slice(input.signer.signature.png.indexOf(',') + 1), 'base64')
      : null;
  if (png && !png.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
    throw validationError('signer.signature.png: is not a PNG image', [{ path: 'signer.signature.png', message: 'is not a PNG image' }]);
  }
  return inTransaction(deps.db, async (tx) => {
    const sql = sqlOfTransaction(tx);
    const { rows } = await sql.query<DonationLinkRow>(
      `SELECT id::text, donation_id::text, ${isoSql('expires_at')} AS expires_at, ${isoSql('used_at')} AS used_at,
         ${isoSql('replaced_at')} AS replaced_at
       FROM donation_links WHERE id = $1::uuid FOR UPDATE`,
      [linkId],
    );
    const link = rows[0];
    if (!link) throw new AppError('not_found', 'No such link');
    const refusal = linkRefusal(link, now, 'sign');
    if (refusal) throw refusal;
    await decideDonation({ ...deps, db: tx }, tenant, { id: link.donation_id, lines: input.lines });
    const before = await donationNote(sql, tenant, link);
    const signedAt = now.toISOString();
    const pdf = await renderDonationNote({
      note: before,
      signer: { name: input.signer.name, id_document: input.signer.id_document, signature: input.signer.signature, png },
      signedAt,
      ip: from.ip,
    });
    const digest = sha256(pdf);
    await sql.query(
      `INSERT INTO donation_notes (donation_id, link_id, signer_name, signer_id_document, signature_kind, signature_png, signature_text,
         signed_at, ip, user_agent, pdf, sha256)
       VALUES ($1::uuid, $2::uuid, $3, $4, $5, $6, $7, $8::timestamptz, $9, $10, $11, $12)`,
      [
        link.donation_id,
        link.id,
        input.signer.name,
        input.signer.id_document,
        input.signer.signature.kind,
        png,
        input.signer.signature.kind === 'typed' ? input.signer.signature.text : null,
        signedAt,
        from.ip,
        from.userAgent?.slice(0, 500) ?? null,
        pdf,
        digest,
      ],
    );
    await appendDocument(sql, tenant, { kind: 'donation_note', subjectId: link.donation_id, sha256: digest, createdAt: signedAt });
    await sql.query('UPDATE donation_links SET used_at = $2::timestamptz WHERE id = $1::uuid', [link.id, signedAt]);
    return donationNote(sql, tenant, link);
  });
}

/** The signed note's PDF and SHA-256; a 404 until it is signed. */
export async function signedNotePdf(sql: Sql, donationId: string): Promise<{ pdf: Buffer; sha256: string }> {
  const { rows } = await sql.query<{ pdf: Buffer; sha256: string }>('SELECT pdf, sha256 FROM donation_notes WHERE donation_id = $1::uuid', [
    donationId,
  ]);
  if (!rows[0]) throw new AppError('not_found', 'This donation has no signed note yet');
  return rows[0];
}

/**
 * What a donation's signing link left, for the kitchen: the signed note (who signed, when, the
 * PDF's SHA-256) once signed, and the link in use — the latest not replaced — without its token,
 * which only its maker saw.
 */
export async function donationSignature(
  sql: Sql,
  donationId: string,
): Promise<{
  note: { signer_name: string; signed_at: string; sha256: string } | null;
  link: { created_at: string; expires_at: string; used_at: string | null } | null;
}> {
  const [notes, links] = await Promise.all([
    sql.query<{ signer_name: string; signed_at: string; sha256: string }>(
      `SELECT signer_name, ${isoSql('signed_at')} AS signed_at, sha256 FROM donation_notes WHERE donation_id = $1::uuid`,
      [donationId],
    ),
    sql.query<{ created_at: string; expires_at: string; used_at: string | null }>(
      `SELECT ${isoSql('created_at')} AS created_at, ${isoSql('expires_at')} AS expires_at, ${isoSql('used_at')} AS used_at
       FROM donation_links WHERE donation_id = $1::uuid AND replaced_at IS NULL ORDER BY created_at DESC LIMIT 1`,
      [donationId],
    ),
  ]);
  return { note: notes.rows[0] ?? null, link: links.rows[0] ?? null };
}
