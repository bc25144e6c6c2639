import { AppError } from '../../errors.js';
import type { TaxDataEntity } from './tax-data.js';
import { kgToGrams } from './tax-money.js';
import type { TaxReport } from './tax-report.js';

/**
 * What a certificate of Ley 49/2002 art. 24 says, read from the tax pack of its year: for each donor
 * company (CIF) that handed something over to the entity, its establishments and every accepted
 * line with its day of handover, kilos and art. 18 value, and the totals. The PDF (tax-pdf.ts) and
 * the entity's signing page (certificate-links.ts) both show this, so they cannot disagree.
 */
export type CertificateDelivery = { handed_over_on: string; description: string; net_kg: number; value_cents: number };
export type CertificateGiver = {
  cif: string;
  establishments: string[];
  deliveries: CertificateDelivery[];
  totals: { grams: number; cents: number };
};
export type CertificateContent = {
  year: number;
  livemode: boolean;
  organisation: string;
  entity: TaxDataEntity;
  givers: CertificateGiver[];
};

/** The certificate of `entityId` in `report`; a 404 when the entity received nothing in the year from what the report reads. */
export function certificateContent({ pack, details }: TaxReport, entityId: string): CertificateContent {
  const entity = details.entities.get(entityId);
  const givers = pack.taxpayers
    .map((taxpayer): CertificateGiver | null => {
      const donations = taxpayer.donations.filter((d) => d.entity_id === entityId);
      if (donations.length === 0) return null;
      const deliveries: CertificateDelivery[] = [];
      let grams = 0;
      let cents = 0;
      for (const donation of donations) {
        for (const { line, value } of details.linesByDonation.get(donation.donation_id) ?? []) {
          deliveries.push({
            handed_over_on: line.handed_over_on,
            description: line.description,
            net_kg: Number(line.net_kg),
            value_cents: value.base_cents,
          });
          grams += kgToGrams(line.net_kg);
          cents += value.base_cents;
        }
      }
      const establishments = [...new Set(donations.map((d) => d.establishment_id))].map((id) => details.establishments.get(id)?.name ?? id);
      return { cif: taxpayer.cif, establishments, deliveries, totals: { grams, cents } };
    })
    .filter((g): g is CertificateGiver => g !== null);
  if (!entity || givers.length === 0) {
    throw new AppError('not_found', `No donation to entity ${entityId} was handed over in ${pack.year} by this key's establishments`);
  }
  return { year: pack.year, livemode: pack.livemode, organisation: details.organisation, entity, givers };
}
