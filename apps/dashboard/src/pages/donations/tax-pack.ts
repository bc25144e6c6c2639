import type { DonationSignedCertificate } from '@merma/schema';
import { putPdf } from './document.ts';

/**
 * The tax pack's files on the dashboard's surface (the server's http/surfaces/dashboard-tax-pack.ts):
 * the pack as a CSV and a PDF, an entity's certificate pre-filled to sign, and the one it signed,
 * each of one tax year and mode (and a certificate, of one company). Downloads are links; the signed
 * certificate goes up as a PUT of the file as it is.
 */

const BASE = '/files/donations/tax-pack';
type Of = { year: number; livemode: boolean };
const query = ({ year, livemode }: Of, cif?: string) =>
  new URLSearchParams({ year: String(year), mode: livemode ? 'live' : 'test', ...(cif ? { cif } : {}) }).toString();

export const taxPackFileUrl = (extension: 'csv' | 'pdf', of: Of) => `${BASE}.${extension}?${query(of)}`;

/** An entity's certificate for one company's gifts of the year: the pre-filled one (`prefilled`) or the one it signed (`signed`). */
export function certificateUrl(kind: 'prefilled' | 'signed', entityId: string, cif: string, of: Of) {
  return `${BASE}/certificates/${entityId}${kind === 'signed' ? '/signed' : '.pdf'}?${query(of, cif)}`;
}

/** Stores `file` as the certificate the entity signed; the certificate as stored, its SHA-256 included. */
export const uploadSignedCertificate = (entityId: string, cif: string, of: Of, file: Blob) =>
  putPdf<DonationSignedCertificate>(certificateUrl('signed', entityId, cif, of), file);
