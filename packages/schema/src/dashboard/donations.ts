import { z } from 'zod';
import { CreateCertificateLinkInput } from '../certificate-link.js';
import { Timestamp, Uuid } from '../common.js';
import { MAX_PAGE_LIMIT, TAX_PACK_MAX_YEAR, TAX_PACK_MIN_YEAR } from '../constants.js';
import { CreateDonationInput, DecideDonationInput, Donation, DonationStatus, RerouteDonationLineInput } from '../donation-handover.js';
import { CreateDonationLinkInput } from '../donation-link.js';
import { CompanyCif, TaxYearQuery } from '../donation-tax.js';
import { DonationAgreement } from '../donations.js';
import { KeyMode, ModeScope } from './common.js';

/**
 * Social entities and donation agreements as the dashboard lists them (`donations`). Its inputs are
 * the API's own (donations.ts): entities and agreements are the organisation's, the same in test and
 * live mode, so no `ModeScope` wraps them.
 */

/**
 * An agreement with the days left before it ends when it is `expiring` (0 on its last day), as the
 * server counts them in Spain's calendar; null in any other status.
 */
export const DashboardDonationAgreement = DonationAgreement.extend({
  expires_in_days: z.number().int().min(0).nullable(),
});
export type DashboardDonationAgreement = z.infer<typeof DashboardDonationAgreement>;

/**
 * The donations themselves (donation-handover.ts) are an establishment's data of one mode, as
 * records are: every call names the establishment and the mode (`ModeScope`), and its other fields
 * are the API's own.
 */

/** A page of the establishment's donations of the mode, the latest offered first, optionally of one status or only those with a refused line waiting. */
export const DashboardDonationsInput = ModeScope.extend({
  status: DonationStatus.optional(),
  awaiting_reroute: z.boolean().optional(),
  limit: z.number().int().min(1).max(MAX_PAGE_LIMIT).default(20),
  offset: z.number().int().min(0).default(0),
});
export type DashboardDonationsInput = z.input<typeof DashboardDonationsInput>;

export const DashboardDonationsPage = z.object({
  items: z.array(Donation),
  /** Donations that match the filter. */
  total: z.number().int(),
  /** Refused lines of the establishment and mode not yet sent elsewhere, whatever the filter, and the donations that hold them. */
  awaiting_reroute: z.object({ lines: z.number().int(), donations: z.number().int() }),
});
export type DashboardDonationsPage = z.infer<typeof DashboardDonationsPage>;

export const DashboardDonationIdInput = ModeScope.extend({ id: Uuid });

/**
 * A donation with what its signing link left: the signed handover note (who signed, when, the
 * PDF's SHA-256), and the link in use (never its URL, whose token is shown once when made).
 */
export const DashboardDonation = Donation.extend({
  note: z.object({ signer_name: z.string(), signed_at: Timestamp, sha256: z.string() }).nullable(),
  link: z.object({ created_at: Timestamp, expires_at: Timestamp, used_at: Timestamp.nullable() }).nullable(),
});
export type DashboardDonation = z.infer<typeof DashboardDonation>;

export const DashboardCreateDonationInput = CreateDonationInput.extend(ModeScope.shape);
export type DashboardCreateDonationInput = z.input<typeof DashboardCreateDonationInput>;
export const DashboardDecideDonationInput = DecideDonationInput.extend(ModeScope.shape);
export type DashboardDecideDonationInput = z.input<typeof DashboardDecideDonationInput>;
export const DashboardDonationLinkInput = CreateDonationLinkInput.extend(ModeScope.shape);
export const DashboardRerouteDonationLineInput = RerouteDonationLineInput.extend(ModeScope.shape);

/** The query of the signed note's download (`GET /files/donations/{id}/note.pdf`): the establishment and mode, as the records' export names them. */
export const DonationNoteQuery = z.strictObject({ establishment_id: Uuid, mode: KeyMode });

/**
 * The tax pack on the donations page: the organisation's, of one tax year and one mode (the shell's
 * test/live switch), as an Enterprise Multi key reads it. Its files (`/files/donations/tax-pack…`)
 * take the year and the mode in the query, and a certificate the donor company (CIF) as well.
 */
export const DashboardTaxPackInput = z.strictObject({
  year: z.number().int().min(TAX_PACK_MIN_YEAR).max(TAX_PACK_MAX_YEAR),
  livemode: z.boolean(),
});
export type DashboardTaxPackInput = z.input<typeof DashboardTaxPackInput>;

export const DashboardTaxPackFileQuery = z.strictObject({ year: TaxYearQuery, mode: KeyMode });
export const DashboardTaxCertificateQuery = DashboardTaxPackFileQuery.extend({ cif: CompanyCif.pipe(z.string().min(1)) });

/**
 * An entity's link to sign its certificate (`donations.createCertificateLink`), made from the tax
 * pack the page shows: the API's input, the company (CIF) always named — the page shows one row per
 * company and entity — and the mode shown.
 */
export const DashboardCertificateLinkInput = CreateCertificateLinkInput.extend({
  cif: CompanyCif.pipe(z.string().min(1)),
  livemode: z.boolean(),
});
export type DashboardCertificateLinkInput = z.input<typeof DashboardCertificateLinkInput>;
