import type { EsrsE5, PlanLanguage } from '@merma/schema';
import { csvBytes } from '../records/export.js';

/**
 * The ESRS E5-5 figures (esrs.ts) as a CSV a spreadsheet opens as a table, for a sustainability
 * report or a large customer's supplier questionnaire: one row per line of the disclosure, in the
 * order E5-5 lists them, with the paragraph of ESRS E5 (Delegated Regulation (EU) 2023/2772) that asks for it where there is one, kg and, for the shares, the %.
 * In Spanish (`lang: 'es'`) it is the records export's Spanish form (`;`, decimal comma, a byte
 * order mark, CRLF); in English the standard form (`,`, decimal point). Cells never read as
 * formulas (records/export.ts).
 */
const TEXT = {
  es: {
    headers: ['Concepto', 'ESRS E5, párrafo', 'kg', '%'],
    rows: {
      total: 'Total registrado',
      notWaste: 'No es residuo: consumo humano, donación, alimentación animal, subproductos',
      waste: 'Residuos generados',
      diverted: 'Desviados de la eliminación',
      reuse: 'Preparación para la reutilización',
      recycling: 'Reciclado: compostaje y digestión (R3)',
      otherRecovery: 'Otra valorización: energética (R1)',
      disposal: 'Destinados a la eliminación',
      incineration: 'Incineración (D10)',
      landfill: 'Vertedero (D1)',
      otherDisposal: 'Otra eliminación: alcantarillado',
      nonRecycled: 'No reciclados',
      measured: 'Medido (pesado, contado o del TPV/ERP)',
      estimated: 'Estimado',
      notStated: 'Sin método indicado',
      destination: (code: string, op: string) => `Destino ${code} (${op})`,
    },
  },
  en: {
    headers: ['Line', 'ESRS E5 paragraph', 'kg', '%'],
    rows: {
      total: 'Total recorded',
      notWaste: 'Not waste: people, donation, animal feed, by-products',
      waste: 'Waste generated',
      diverted: 'Diverted from disposal',
      reuse: 'Preparation for reuse',
      recycling: 'Recycling: composting and digestion (R3)',
      otherRecovery: 'Other recovery: energy (R1)',
      disposal: 'Directed to disposal',
      incineration: 'Incineration (D10)',
      landfill: 'Landfill (D1)',
      otherDisposal: 'Other disposal: sewer',
      nonRecycled: 'Non-recycled',
      measured: 'Measured (weighed, counted or from the POS/ERP)',
      estimated: 'Estimated',
      notStated: 'No method stated',
      destination: (code: string, op: string) => `Destination ${code} (${op})`,
    },
  },
} as const;

export async function esrsE5Csv(e: EsrsE5, lang: PlanLanguage): Promise<Buffer> {
  const t = TEXT[lang];
  const number = (v: number) => (lang === 'es' ? String(v).replace('.', ',') : String(v));
  const share = (v: number | null) => (v === null ? '' : number(Math.round(v * 10_000) / 100));
  const r = t.rows;
  const rows: [string, string, number, number | null][] = [
    [r.total, '', e.total_kg, null],
    [r.notWaste, '', e.not_waste_kg, null],
    [r.waste, '37 (a)', e.waste_kg, null],
    [r.diverted, '37 (b)', e.diverted_from_disposal.total_kg, null],
    [r.reuse, '37 (b)', e.diverted_from_disposal.preparation_for_reuse_kg, null],
    [r.recycling, '37 (b)', e.diverted_from_disposal.recycling_kg, null],
    [r.otherRecovery, '37 (b)', e.diverted_from_disposal.other_recovery_kg, null],
    [r.disposal, '37 (c)', e.directed_to_disposal.total_kg, null],
    [r.incineration, '37 (c)', e.directed_to_disposal.incineration_kg, null],
    [r.landfill, '37 (c)', e.directed_to_disposal.landfill_kg, null],
    [r.otherDisposal, '37 (c)', e.directed_to_disposal.other_disposal_kg, null],
    [r.nonRecycled, '37 (d)', e.non_recycled_kg, e.non_recycled_share],
    [r.measured, '40', e.measurement.measured_kg, e.measured_share],
    [r.estimated, '40', e.measurement.estimated_kg, null],
    [r.notStated, '40', e.measurement.not_stated_kg, null],
    ...e.by_destination.map((d): [string, string, number, null] => [r.destination(d.code, d.wfd_operation), '', d.kg, null]),
  ];
  const columns = ['line', 'datapoint', 'kg', 'share'].map((key, i) => ({ key, header: t.headers[i] as string }));
  return csvBytes(
    lang === 'es' ? 'es' : 'plain',
    columns,
    rows.map(([line, datapoint, kg, pct]) => ({ line, datapoint, kg: number(kg), share: share(pct) })),
  );
}

/** `esrs-e5-2026.csv` (`-prueba`/`-test` for test data). */
export const esrsFileName = (e: EsrsE5, lang: PlanLanguage) =>
  `esrs-e5-${e.year}${e.livemode ? '' : lang === 'es' ? '-prueba' : '-test'}.csv`;
