import type { PlanLanguage, PreventionPlan } from '@merma/schema';

/** Every word of the Markdown document, per language; figures and dates follow the language's conventions. */
const TEXT = {
  es: {
    locale: 'es-ES',
    percentSign: ' %',
    title: 'Plan de prevención de pérdidas y desperdicio alimentario',
    cif: 'CIF',
    testData: 'Hecho con datos de prueba (modo test): no es el plan del establecimiento.',
    law: 'Ley 1/2025, de 1 de abril, de prevención de las pérdidas y el desperdicio alimentario (art. 6).',
    period: (from: string, to: string) => `Periodo analizado: del ${from} al ${to}.`,
    generated: (at: string) => `Generado el ${at}.`,
    total: (kg: string, records: string, n: number) => `**Total registrado:** ${kg} en ${records} ${n === 1 ? 'registro' : 'registros'}.`,
    byStage: ['Dónde se producen las pérdidas (etapa)', 'Etapa'],
    byCategory: ['Por categoría de alimento', 'Categoría'],
    byCause: ['Por causa', 'Causa'],
    byShift: ['Por turno', 'Turno'],
    destinations: 'Destino, en el orden de la jerarquía',
    rank: 'Orden',
    destination: 'Destino',
    belowFeed: (kg: string) => `Por debajo de la donación y la alimentación animal: **${kg}**.`,
    hotspots: 'Puntos críticos y medidas',
    noHotspots: 'No hay registros en el periodo analizado.',
    target: 'Objetivo de reducción',
    baseline: (year: number, kg: string, target: string) => `Año base ${year}: ${kg}; objetivo para 2030: ${target}.`,
  },
  en: {
    locale: 'en-GB',
    percentSign: '%',
    title: 'Food loss and waste prevention plan',
    cif: 'CIF (tax id)',
    testData: 'Made from test data (test mode): not the establishment’s plan.',
    law: 'Spain’s Ley 1/2025 of 1 April on the prevention of food loss and waste (art. 6).',
    period: (from: string, to: string) => `Period analysed: ${from} to ${to}.`,
    generated: (at: string) => `Generated on ${at}.`,
    total: (kg: string, records: string, n: number) => `**Total recorded:** ${kg} in ${records} ${n === 1 ? 'record' : 'records'}.`,
    byStage: ['Where losses occur (stage)', 'Stage'],
    byCategory: ['By food category', 'Category'],
    byCause: ['By cause', 'Cause'],
    byShift: ['By shift', 'Shift'],
    destinations: 'Destination, in the order of the hierarchy',
    rank: 'Order',
    destination: 'Destination',
    belowFeed: (kg: string) => `Below donation and animal feed: **${kg}**.`,
    hotspots: 'Hotspots and measures',
    noHotspots: 'There are no records in the period analysed.',
    target: 'Reduction target',
    baseline: (year: number, kg: string, target: string) => `Baseline year ${year}: ${kg}; 2030 target: ${target}.`,
  },
} satisfies Record<PlanLanguage, unknown>;

/**
 * Marks a plan made from test data, in both languages whatever the document's: a printout that
 * reaches an inspector must say so to anyone who reads it.
 */
export const TEST_DATA_MARKER = 'TEST DATA / DATOS DE PRUEBA';

/**
 * The plan as a printable Markdown document, every word in the plan's language (`plan.lang`), its
 * dates in the establishment's time zone. It names the establishment and its CIF (the tax id the
 * law's plan is filed under), and a plan of test data (`livemode: false`) opens with
 * {@link TEST_DATA_MARKER}.
 */
export function renderMarkdown(
  plan: PreventionPlan,
  establishment: { name: string; cif: string; timezone: string; livemode: boolean },
): string {
  const t = TEXT[plan.lang];
  const number = new Intl.NumberFormat(t.locale, { maximumFractionDigits: 1 });
  const kg = (v: number) => `${number.format(v)} kg`;
  const pct = (v: number) => `${number.format(v * 100)}${t.percentSign}`;
  const day = (iso: string) =>
    new Intl.DateTimeFormat(t.locale, { dateStyle: 'long', timeZone: 'UTC' }).format(new Date(`${iso}T00:00:00Z`));
  const generatedAt = new Intl.DateTimeFormat(t.locale, { dateStyle: 'long', timeStyle: 'short', timeZone: establishment.timezone }).format(
    new Date(plan.generated_at),
  );
  const table = ([title, column]: string[], items: { label: string; kg: number; share: number }[]) =>
    [
      `## ${title}`,
      '',
      `| ${column} | kg | % |`,
      '|---|---:|---:|',
      ...items.map((i) => `| ${i.label} | ${kg(i.kg)} | ${pct(i.share)} |`),
      '',
    ].join('\n');
  const { target } = plan;
  return [
    ...(establishment.livemode ? [] : [`> **${TEST_DATA_MARKER}** — ${t.testData}`, '']),
    `# ${t.title} — ${establishment.name}`,
    '',
    ...(establishment.cif ? [`**${t.cif}:** ${establishment.cif}`, ''] : []),
    `${t.law} ${t.period(day(plan.period.from), day(plan.period.to))} ${t.generated(generatedAt)}`,
    '',
    t.total(kg(plan.total_kg), new Intl.NumberFormat(t.locale).format(plan.total_records), plan.total_records),
    '',
    table(t.byStage, plan.by_stage),
    table(t.byCategory, plan.by_category),
    table(t.byCause, plan.by_cause),
    table(t.byShift, plan.by_shift),
    `## ${t.destinations}`,
    '',
    `| ${t.rank} | ${t.destination} | kg | % |`,
    '|---:|---|---:|---:|',
    ...plan.destinations.map((d) => `| ${d.orden} | ${d.label} | ${kg(d.kg)} | ${pct(d.share)} |`),
    '',
    t.belowFeed(kg(plan.below_feed_kg)),
    '',
    `## ${t.hotspots}`,
    '',
    ...(plan.hotspots.length === 0 ? [t.noHotspots, ''] : []),
    ...plan.hotspots.flatMap((h, i) => [
      `### ${i + 1}. ${h.food_category_label} — ${h.waste_stage_label}: ${kg(h.kg)} (${pct(h.share)})`,
      '',
      ...h.measures.map((m) => `- ${m}`),
      '',
    ]),
    `## ${t.target}`,
    '',
    target.baseline_year === null || target.baseline_kg === null
      ? target.note
      : `${target.note} ${t.baseline(target.baseline_year, kg(target.baseline_kg), kg(target.target_2030_kg ?? 0))}`,
    '',
  ].join('\n');
}
