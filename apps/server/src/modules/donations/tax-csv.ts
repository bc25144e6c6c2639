import type { DonationTaxPack, DonationTaxTotals } from '@merma/schema';
import { csvBytes } from '../records/export.js';
import type { TaxNoteCode } from './tax.js';
import { dayText, eurosCell, instantDayText, numberCell, TAX_NOTE_ES, yesNo } from './tax-es.js';
import type { TaxReport } from './tax-report.js';

/**
 * The tax pack as a CSV for the company's adviser, which a spreadsheet set to Spanish opens as
 * columns: UTF-8 with a byte order mark, `;` between fields, a decimal comma (no thousands
 * separator, so every amount is a number), dates as dd/mm/yyyy, CRLF, every cell formula-safe (the
 * records export's writer, records/export.ts). One table, each row of one `Nivel`:
 *
 * - `Empresa`: the company's (CIF's) year, with the taxable base and the 15 % limit when given
 *   (organisation scope only);
 * - `Entidad`: a social entity's year for the company — or, for a single-establishment key, the
 *   establishment's share of it (base and deduction) — and whether the certificate it signed for
 *   the company is stored (`Sí`, with the day it was, or `No`);
 * - `Establecimiento`: an establishment's share of the company's figures;
 * - `Donación`: each donation handed over in the year, with its VAT.
 *
 * Its figures are the JSON pack's (GET /donations/tax-pack), written as above.
 */

const COLUMNS = [
  ['level', 'Nivel'],
  ['year', 'Ejercicio'],
  ['cif', 'CIF'],
  ['establishment', 'Establecimiento'],
  ['entity', 'Entidad'],
  ['entity_nif', 'NIF entidad'],
  ['art2', 'Entidad art. 2 Ley 49/2002'],
  ['regime', 'Régimen fiscal Ley 49/2002'],
  ['handed_over_on', 'Fecha de entrega'],
  ['donation', 'Donación'],
  ['net_kg', 'Kg'],
  ['book_value', 'Valor contable (€)'],
  ['market_value_cap', 'Reducción a valor de mercado (€)'],
  ['base', 'Base art. 18 (€)'],
  ['deductible_base', 'Base con derecho a deducción (€)'],
  ['base_within_limit', 'Base dentro del límite (€)'],
  ['base_over_limit', 'Exceso sobre el límite (€)'],
  ['rate', 'Porcentaje de deducción (%)'],
  ['deduction', 'Deducción (€)'],
  ['recurrence', 'Base ejercicios N-2 y N-1 (€)'],
  ['vat_base', 'IVA: base imponible (€)'],
  ['vat_rate', 'IVA: tipo (%)'],
  ['taxable_base', 'Base imponible IS (€)'],
  ['limit', 'Límite 15 % (€)'],
  ['carry_forward_until', 'Exceso deducible hasta'],
  ['signed_certificate', 'Certificado firmado recibido'],
  ['notes', 'Notas'],
] as const;

type Row = Partial<Record<(typeof COLUMNS)[number][0], string>>;

const totalsCells = (t: DonationTaxTotals): Row => ({
  net_kg: numberCell(t.net_kg),
  book_value: eurosCell(t.book_value),
  market_value_cap: eurosCell(t.market_value_cap),
  base: eurosCell(t.base),
  deductible_base: eurosCell(t.deductible_base),
  base_within_limit: eurosCell(t.base_within_limit),
  base_over_limit: eurosCell(t.base_over_limit),
  deduction: eurosCell(t.deduction),
});

const notesCell = (notes: readonly { code: TaxNoteCode }[]) => notes.map((n) => TAX_NOTE_ES[n.code].short).join(' · ');

/** The rows of the pack, company by company (see above). */
export function taxPackRows({ pack, details }: TaxReport): Row[] {
  const rows: Row[] = [];
  const year = String(pack.year);
  for (const taxpayer of pack.taxpayers) {
    const { cif } = taxpayer;
    const entityName = (id: string) => details.entities.get(id)?.name ?? id;
    const establishmentName = (id: string) => details.establishments.get(id)?.name ?? id;
    if (taxpayer.totals) {
      const t = taxpayer.totals;
      rows.push({
        level: 'Empresa',
        year,
        cif,
        ...totalsCells(t),
        taxable_base: eurosCell(t.taxable_base),
        limit: eurosCell(t.limit),
        carry_forward_until: t.carry_forward_until_year === null ? '' : String(t.carry_forward_until_year),
        notes: notesCell(t.notes),
      });
    }
    for (const entity of taxpayer.entities) {
      const share = entity.totals ? null : entity.establishments[0];
      rows.push({
        level: 'Entidad',
        year,
        cif,
        establishment: share ? establishmentName(share.establishment_id) : '',
        entity: entity.name,
        entity_nif: entity.nif,
        art2: yesNo(entity.ley_49_2002.art2_entity),
        regime: yesNo(entity.ley_49_2002.regime_opted_in),
        ...(entity.totals
          ? totalsCells(entity.totals)
          : { base: eurosCell(share?.base ?? 0), deduction: eurosCell(share?.deduction ?? 0) }),
        rate: numberCell(entity.rate_pct),
        recurrence: entity.recurrence.years.map((y) => eurosCell(y.base)).join(' | '),
        signed_certificate: entity.signed_certificate ? `Sí, ${instantDayText(entity.signed_certificate.uploaded_at)}` : 'No',
        notes: notesCell(entity.notes),
      });
    }
    for (const establishment of taxpayer.establishments) {
      rows.push({ level: 'Establecimiento', year, cif, establishment: establishment.name, ...totalsCells(establishment) });
    }
    for (const donation of taxpayer.donations) {
      const entity = details.entities.get(donation.entity_id);
      rows.push({
        level: 'Donación',
        year,
        cif,
        establishment: establishmentName(donation.establishment_id),
        entity: entityName(donation.entity_id),
        entity_nif: entity?.nif ?? '',
        art2: entity ? yesNo(entity.ley_49_2002.art2_entity) : '',
        regime: entity ? yesNo(entity.ley_49_2002.regime_opted_in) : '',
        handed_over_on: dayText(donation.handed_over_on),
        donation: donation.donation_id,
        net_kg: numberCell(donation.net_kg),
        book_value: eurosCell(donation.book_value),
        market_value_cap: eurosCell(donation.market_value_cap),
        base: eurosCell(donation.base),
        vat_base: eurosCell(donation.vat.taxable_base),
        vat_rate: numberCell(donation.vat.rate_pct),
        notes: notesCell(donation.notes),
      });
    }
  }
  return rows;
}

/** The CSV's bytes (see above). */
export async function taxPackCsv(report: TaxReport): Promise<Buffer> {
  return csvBytes(
    'es',
    COLUMNS.map(([key, header]) => ({ key, header })),
    taxPackRows(report),
  );
}

/** The file's name: `pack-fiscal-donaciones-2026.csv` (`-prueba` for a test key's). */
export const taxPackFileName = (pack: DonationTaxPack, extension: 'csv' | 'pdf') =>
  `pack-fiscal-donaciones-${pack.year}${pack.livemode ? '' : '-prueba'}.${extension}`;
