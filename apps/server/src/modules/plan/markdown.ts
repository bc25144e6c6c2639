import type { PlanLanguage, PreventionPlan } from '@merma/schema';
import { foodCategoryLabel, wasteStageLabel } from '../catalog/labels.js';

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
    donations: 'Donación de alimentos (art. 6 y 7)',
    agreements: 'Convenios de donación',
    noAgreements: 'Ningún convenio de donación cubre este establecimiento.',
    entity: 'Entidad',
    validity: 'Vigencia',
    status: 'Estado',
    statuses: { draft: 'borrador', active: 'en vigor', expiring: 'vence pronto', expired: 'vencido' },
    donated: (kg: string, share: string) => `Donado en el periodo (según el registro): **${kg}** (${share} del total registrado).`,
    offered: (offered: string, accepted: string, refused: string) =>
      `Ofrecido a entidades: ${offered}; aceptado: ${accepted}; rechazado: ${refused}.`,
    refusals: 'Rechazos y destino alternativo',
    refusalColumns: ['Fecha', 'Entidad', 'Alimento', 'kg', 'Motivo', 'Destino dado'],
    waiting: 'pendiente',
    justification: 'Justificación requerida',
    hierarchy: (year: number) => `Jerarquía de prioridades: justificaciones (art. 5.2), ${year}`,
    hierarchyNone: 'Ningún registro del año fue a un destino más bajo que el mejor usado para su categoría.',
    hierarchyCounts: (records: number, kg: string, justified: number, justifiedKg: string) =>
      `Registros enviados a un destino más bajo que el mejor usado ese año para su categoría: **${records}** (${kg}); justificados por escrito: **${justified}** (${justifiedKg}).`,
    reasonColumns: ['Motivo', 'Registros', 'kg'],
    followUp: 'Seguimiento del plan',
    reviewBy: (day: string) => `Revisión del plan, a más tardar: **${day}**.`,
    measureColumns: ['Medida', 'Responsable', 'Fecha límite', 'Estado'],
    measureStatuses: { planned: 'prevista', in_progress: 'en curso', done: 'hecha', dropped: 'descartada' },
    nobody: 'sin asignar',
    training: 'Formación del personal',
    noTraining: 'No consta ninguna sesión de formación en el periodo.',
    trainingColumns: ['Fecha', 'Tema', 'Impartida por', 'Asistentes'],
    unjustified: (n: number) => `Sin justificar todavía: **${n}** (se justifican corrigiendo el registro con su motivo).`,
    version: 'Versión',
    sha256: (hash: string) => `SHA-256 de esta versión, anotado en la cadena de documentos del registro: \`${hash}\`.`,
    first: 'Primera versión del plan de este establecimiento.',
    previous: (at: string, id: string) => `Sustituye a la versión del ${at} (\`${id}\`). Cambios desde entonces:`,
    changed: (what: string, from: string, to: string) => `- ${what}: de ${from} a ${to}.`,
    totalChange: 'Total registrado',
    belowFeedChange: 'Por debajo de la donación y la alimentación animal',
    hotspotAdded: (h: string) => `- Nuevo punto crítico: ${h}.`,
    hotspotRemoved: (h: string) => `- Deja de ser punto crítico: ${h}.`,
    agreementsChange: (added: number, removed: number) => `- Convenios de donación: ${added} nuevos, ${removed} que ya no figuran.`,
    baselineChange: 'Año base del objetivo',
    none: 'ninguno',
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
    donations: 'Food donation (art. 6 and 7)',
    agreements: 'Donation agreements',
    noAgreements: 'No donation agreement covers this establishment.',
    entity: 'Entity',
    validity: 'Validity',
    status: 'Status',
    statuses: { draft: 'draft', active: 'in force', expiring: 'ending soon', expired: 'expired' },
    donated: (kg: string, share: string) => `Donated in the period (per the register): **${kg}** (${share} of all recorded).`,
    offered: (offered: string, accepted: string, refused: string) =>
      `Offered to entities: ${offered}; accepted: ${accepted}; refused: ${refused}.`,
    refusals: 'Refusals and where the food went instead',
    refusalColumns: ['Date', 'Entity', 'Food', 'kg', 'Reason', 'Sent to'],
    waiting: 'pending',
    justification: 'Justification required',
    hierarchy: (year: number) => `Order of priorities: justifications (art. 5.2), ${year}`,
    hierarchyNone: "No record of the year went to a lower destination than its category's best.",
    hierarchyCounts: (records: number, kg: string, justified: number, justifiedKg: string) =>
      `Records sent to a lower destination than their category's best that year: **${records}** (${kg}); justified in writing: **${justified}** (${justifiedKg}).`,
    reasonColumns: ['Reason', 'Records', 'kg'],
    followUp: 'Following the plan up',
    reviewBy: (day: string) => `Plan to be reviewed by: **${day}**.`,
    measureColumns: ['Measure', 'Owner', 'Due by', 'Status'],
    measureStatuses: { planned: 'planned', in_progress: 'in progress', done: 'done', dropped: 'dropped' },
    nobody: 'not assigned',
    training: 'Staff training',
    noTraining: 'No training session is recorded in the period.',
    trainingColumns: ['Date', 'Topic', 'Given by', 'Attendees'],
    unjustified: (n: number) => `Not justified yet: **${n}** (justified by correcting the record with its reason).`,
    version: 'Version',
    sha256: (hash: string) => `SHA-256 of this version, entered into the register's documents chain: \`${hash}\`.`,
    first: 'The first version of this establishment’s plan.',
    previous: (at: string, id: string) => `Replaces the version of ${at} (\`${id}\`). Changes since:`,
    changed: (what: string, from: string, to: string) => `- ${what}: from ${from} to ${to}.`,
    totalChange: 'Total recorded',
    belowFeedChange: 'Below donation and animal feed',
    hotspotAdded: (h: string) => `- New hotspot: ${h}.`,
    hotspotRemoved: (h: string) => `- No longer a hotspot: ${h}.`,
    agreementsChange: (added: number, removed: number) => `- Donation agreements: ${added} new, ${removed} no longer listed.`,
    baselineChange: 'Target baseline year',
    none: 'none',
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
    ...donationSection(plan, t, { kg, pct, day }),
    ...hierarchySection(plan, t, kg),
    ...followUpSection(plan, t, day),
    ...versionSection(plan, t, {
      kg,
      at: (iso) =>
        new Intl.DateTimeFormat(t.locale, { dateStyle: 'long', timeStyle: 'short', timeZone: establishment.timezone }).format(
          new Date(iso),
        ),
    }),
  ].join('\n');
}

/** The version: its digest, the version it replaces and what changed since (plans stored before versions were hashed: none). */
function versionSection(
  plan: PreventionPlan,
  t: (typeof TEXT)[PlanLanguage],
  f: { kg: (v: number) => string; at: (iso: string) => string },
): string[] {
  if (plan.sha256 === null) return [];
  const p = plan.previous;
  const hotspot = (h: { food_category: string; waste_stage: string }) =>
    `${foodCategoryLabel(h.food_category, plan.lang)} — ${wasteStageLabel(h.waste_stage, plan.lang)}`;
  const lines = p
    ? [
        t.previous(f.at(p.generated_at), p.id),
        '',
        t.changed(t.totalChange, f.kg(p.changes.total_kg.from), f.kg(p.changes.total_kg.to)),
        t.changed(t.belowFeedChange, f.kg(p.changes.below_feed_kg.from), f.kg(p.changes.below_feed_kg.to)),
        ...p.changes.hotspots_added.map((h) => t.hotspotAdded(hotspot(h))),
        ...p.changes.hotspots_removed.map((h) => t.hotspotRemoved(hotspot(h))),
        ...(p.changes.agreements_added.length + p.changes.agreements_removed.length > 0
          ? [t.agreementsChange(p.changes.agreements_added.length, p.changes.agreements_removed.length)]
          : []),
        ...(p.changes.baseline_year
          ? [t.changed(t.baselineChange, String(p.changes.baseline_year.from ?? t.none), String(p.changes.baseline_year.to ?? t.none))]
          : []),
      ]
    : [t.first];
  return [`## ${t.version}`, '', t.sha256(plan.sha256), '', ...lines, ''];
}

/** Markdown cells hold no pipe nor line break (a reason is free text). */
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\s*[\r\n]+\s*/g, ' ');

/** The review date, who carries out each measure by when and how far, and the period's staff training. */
function followUpSection(plan: PreventionPlan, t: (typeof TEXT)[PlanLanguage], day: (iso: string) => string): string[] {
  const f = plan.follow_up;
  if (!f) return [];
  return [
    `## ${t.followUp}`,
    '',
    t.reviewBy(day(f.review_by)),
    '',
    ...(f.measures.length === 0
      ? []
      : [
          `| ${t.measureColumns.join(' | ')} |`,
          '|---|---|---|---|',
          ...f.measures.map(
            (m) =>
              `| ${cell(m.text)} | ${m.owner ? cell(m.owner) : t.nobody} | ${m.due_on ? day(m.due_on) : '—'} | ${t.measureStatuses[m.status]} |`,
          ),
          '',
        ]),
    `### ${t.training}`,
    '',
    ...(f.training.length === 0
      ? [t.noTraining, '']
      : [
          `| ${t.trainingColumns.join(' | ')} |`,
          '|---|---|---|---:|',
          ...f.training.map((s) => `| ${day(s.held_on)} | ${cell(s.topic)} | ${s.trainer ? cell(s.trainer) : '—'} | ${s.attendees} |`),
          '',
        ]),
  ];
}

/** The order of priorities kept in writing (art. 5.2): the year's counts and the justifications by reason. */
function hierarchySection(plan: PreventionPlan, t: (typeof TEXT)[PlanLanguage], kg: (v: number) => string): string[] {
  const h = plan.hierarchy;
  if (!h) return [];
  if (h.below_best.records === 0) return [`## ${t.hierarchy(h.year)}`, '', t.hierarchyNone, ''];
  return [
    `## ${t.hierarchy(h.year)}`,
    '',
    t.hierarchyCounts(h.below_best.records, kg(h.below_best.kg), h.justified.records, kg(h.justified.kg)),
    '',
    ...(h.by_reason.length === 0
      ? []
      : [
          `| ${t.reasonColumns.join(' | ')} |`,
          '|---|---:|---:|',
          ...h.by_reason.map((r) => `| ${cell(r.label)} | ${r.records} | ${kg(r.kg)} |`),
          '',
        ]),
    ...(h.unjustified_count > 0 ? [t.unjustified(h.unjustified_count), ''] : []),
  ];
}

function donationSection(
  plan: PreventionPlan,
  t: (typeof TEXT)[PlanLanguage],
  f: { kg: (v: number) => string; pct: (v: number) => string; day: (iso: string) => string },
): string[] {
  const d = plan.donations;
  if (!d) return [];
  return [
    `## ${t.donations}`,
    '',
    `### ${t.agreements}`,
    '',
    ...(d.agreements.length === 0
      ? [t.noAgreements, '']
      : [
          `| ${t.entity} | ${t.validity} | ${t.status} |`,
          '|---|---|---|',
          ...d.agreements.map(
            (a) => `| ${cell(a.entity_name)} | ${f.day(a.valid_from)} – ${f.day(a.valid_until)} | ${t.statuses[a.status]} |`,
          ),
          '',
        ]),
    ...(d.justification ? [`**${t.justification}:** ${d.justification}`, ''] : []),
    t.donated(f.kg(d.donated_kg), f.pct(d.donated_share)),
    '',
    t.offered(f.kg(d.offered_kg), f.kg(d.accepted_kg), f.kg(d.refused_kg)),
    '',
    ...(d.refusals.length === 0
      ? []
      : [
          `### ${t.refusals}`,
          '',
          `| ${t.refusalColumns.join(' | ')} |`,
          '|---|---|---|---:|---|---|',
          ...d.refusals.map(
            (r) =>
              `| ${f.day(r.offered_at.slice(0, 10))} | ${cell(r.entity_name)} | ${cell(r.description)} | ${f.kg(r.kg)} | ${cell(r.reason)} | ${r.rerouted_to_label ?? t.waiting} |`,
          ),
          '',
        ]),
  ];
}
