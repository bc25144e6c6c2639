import { z } from 'zod';
import { DonationAgreement } from '../donations.js';

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
