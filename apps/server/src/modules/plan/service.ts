import { randomUUID } from 'node:crypto';
import type { PreventionPlan } from '@merma/schema';
import type { AuthContext, Clock } from '../../context.js';
import type { DbTx } from '../../db/client.js';
import type { Sql } from '../../db/sql.js';
import { inTransaction } from '../../db/transaction.js';
import { AppError } from '../../errors.js';
import { emitEvent } from '../../events/outbox.js';
import { addDays, localDate } from '../analytics/range.js';
import { measuresFor } from './measures.js';

/** Destinations after animal feed in the hierarchy (orden > 3) are "below donation and feed". */
const FEED_ORDEN = 3;
const HOTSPOTS = 5;
const STAGE_LABELS: Record<string, string> = {
  receiving: 'Recepción',
  storage: 'Almacenamiento',
  preparation: 'Preparación',
  service: 'Servicio',
  post_service: 'Post-servicio',
  none: 'Sin etapa registrada',
};

type Share = { key: string; label: string; kg: number };
type PlanRow = {
  total_kg: number;
  total_records: number;
  by_stage: Share[];
  by_category: Share[];
  by_cause: Share[];
  by_shift: Share[];
  destinations: (Share & { orden: number; es_recuperacion: boolean })[];
  below_feed_kg: number;
  hotspots: { food_category: string; waste_stage: string; kg: number }[];
  years: { y: number; first_day: string; kg: number }[] | null;
};

const withShares = <T extends Share>(items: T[], total: number) =>
  items.map((i) => ({ ...i, kg: Math.round(i.kg * 1000) / 1000, share: total > 0 ? Math.round((i.kg / total) * 10_000) / 10_000 : 0 }));

/**
 * Builds the prevention plan (Ley 1/2025, art. 6) from the last 12 months of records, aggregated in
 * one SQL statement, stores it and emits `plan.generated` in the same transaction.
 */
export async function generatePlan(deps: { db: DbTx; pool: Sql; clock: Clock }, auth: AuthContext): Promise<PreventionPlan> {
  const now = deps.clock();
  const to = localDate(now, auth.timezone);
  const from = addDays(to, -364);
  const { rows } = await deps.pool.query<PlanRow>(
    `WITH f AS (
       SELECT r.* FROM records r
       WHERE r.establishment_id = $1::uuid AND r.livemode = $2 AND r.superseded_by IS NULL
         AND r.created_at >= ($3::date)::timestamp AT TIME ZONE $5 AND r.created_at < ($4::date + 1)::timestamp AT TIME ZONE $5
     ), years AS (
       SELECT extract(year FROM created_at AT TIME ZONE $5)::int AS y, min((created_at AT TIME ZONE $5)::date) AS first_day, sum(weight_kg)::float8 AS kg
       FROM records WHERE establishment_id = $1::uuid AND livemode = $2 AND superseded_by IS NULL GROUP BY 1
     )
     SELECT
       (SELECT coalesce(sum(weight_kg), 0)::float8 FROM f) AS total_kg,
       (SELECT count(*)::int FROM f) AS total_records,
       (SELECT coalesce(json_agg(x ORDER BY x.kg DESC), '[]') FROM (SELECT coalesce(waste_stage, 'none') AS key, sum(weight_kg)::float8 AS kg FROM f GROUP BY 1) x) AS by_stage,
       (SELECT coalesce(json_agg(x ORDER BY x.kg DESC), '[]') FROM (SELECT food_category AS key, sum(weight_kg)::float8 AS kg FROM f GROUP BY 1) x) AS by_category,
       (SELECT coalesce(json_agg(x ORDER BY x.kg DESC), '[]') FROM (
          SELECT coalesce(c.id::text, 'none') AS key, coalesce(c.nombre, 'Sin causa registrada') AS label, sum(f.weight_kg)::float8 AS kg
          FROM f LEFT JOIN causes c ON c.id = f.causa_id GROUP BY 1, 2) x) AS by_cause,
       (SELECT coalesce(json_agg(x ORDER BY x.kg DESC), '[]') FROM (
          SELECT coalesce(s.id::text, 'none') AS key, coalesce(s.name, 'Sin turno') AS label, sum(f.weight_kg)::float8 AS kg
          FROM f LEFT JOIN shifts s ON s.id = f.shift_id GROUP BY 1, 2) x) AS by_shift,
       (SELECT json_agg(x ORDER BY x.orden) FROM (
          SELECT d.code AS key, d.nombre AS label, d.orden, d.es_recuperacion, coalesce(sum(f.weight_kg), 0)::float8 AS kg
          FROM destinations d LEFT JOIN f ON f.destino_id = d.id GROUP BY d.id) x) AS destinations,
       (SELECT coalesce(sum(f.weight_kg), 0)::float8 FROM f JOIN destinations d ON d.id = f.destino_id WHERE d.orden > ${FEED_ORDEN}) AS below_feed_kg,
       (SELECT coalesce(json_agg(x), '[]') FROM (
          SELECT food_category, coalesce(waste_stage, 'none') AS waste_stage, sum(weight_kg)::float8 AS kg
          FROM f GROUP BY 1, 2 ORDER BY 3 DESC, 1, 2 LIMIT ${HOTSPOTS}) x) AS hotspots,
       (SELECT json_agg(years ORDER BY y) FROM years) AS years`,
    [auth.establishmentId, auth.livemode, from, to, auth.timezone],
  );
  const r = rows[0] as PlanRow;
  const total = Number(r.total_kg);
  const currentYear = Number(to.slice(0, 4));
  // The first full calendar year of data: the year of the first record if it starts on 1 January,
  // else the next one; usable once that year has ended.
  const years = (r.years ?? []) as { y: number; first_day: string; kg: number }[];
  const first = years[0];
  let baselineYear: number | null = null;
  if (first) {
    const firstDay = String(first.first_day).slice(5, 10);
    baselineYear = firstDay === '01-01' ? first.y : first.y + 1;
    if (baselineYear >= currentYear) baselineYear = null;
  }
  const baselineKg = baselineYear === null ? null : Math.round((years.find((y) => y.y === baselineYear)?.kg ?? 0) * 1000) / 1000;
  const plan: PreventionPlan = {
    id: randomUUID(),
    establishment_id: auth.establishmentId,
    generated_at: now.toISOString(),
    period: { from, to },
    total_kg: Math.round(total * 1000) / 1000,
    total_records: Number(r.total_records),
    by_stage: withShares(
      (r.by_stage as Share[]).map((s) => ({ ...s, label: STAGE_LABELS[s.key] ?? s.key })),
      total,
    ),
    by_category: withShares(
      (r.by_category as Share[]).map((s) => ({ ...s, label: s.key })),
      total,
    ),
    by_cause: withShares(r.by_cause as Share[], total),
    by_shift: withShares(r.by_shift as Share[], total),
    destinations: withShares(r.destinations as (Share & { orden: number; es_recuperacion: boolean })[], total),
    below_feed_kg: Math.round(Number(r.below_feed_kg) * 1000) / 1000,
    hotspots: (r.hotspots as { food_category: string; waste_stage: string; kg: number }[]).map((h) => ({
      ...h,
      kg: Math.round(h.kg * 1000) / 1000,
      share: total > 0 ? Math.round((h.kg / total) * 10_000) / 10_000 : 0,
      measures: measuresFor(h.waste_stage, h.food_category),
    })),
    target: {
      baseline_year: baselineYear,
      baseline_kg: baselineKg,
      target_2030_kg: baselineKg === null ? null : Math.round(baselineKg * 500) / 1000,
      reduction: 0.5,
      note:
        baselineYear === null
          ? 'The reduction target (50 % by 2030) is set against the first full calendar year of records, which is not complete yet.'
          : `Reduce waste by 50 % by 2030 against ${baselineYear}, the first full calendar year of records.`,
    },
  };
  await inTransaction(deps.db, async (tx) => {
    await tx.preventionPlan.create({
      data: { id: plan.id, establishment_id: auth.establishmentId, livemode: auth.livemode, generated_at: now, content: plan },
    });
    await emitEvent(tx, {
      establishmentId: auth.establishmentId,
      livemode: auth.livemode,
      type: 'plan.generated',
      at: now,
      data: { establishment_id: auth.establishmentId, plan_id: plan.id, period: `${from}/${to}`, generated_at: plan.generated_at },
    });
  });
  return plan;
}

export async function latestPlan(db: DbTx, auth: AuthContext, format: 'json' | 'markdown'): Promise<PreventionPlan> {
  const row = await db.preventionPlan.findFirst({
    where: { establishment_id: auth.establishmentId, livemode: auth.livemode },
    orderBy: { generated_at: 'desc' },
  });
  if (!row) throw new AppError('not_found', 'No prevention plan yet: generate one with POST /api/v1/prevention-plan');
  const plan = row.content as unknown as PreventionPlan;
  if (format === 'markdown') {
    const est = await db.establishment.findUnique({ where: { id: auth.establishmentId } });
    return { ...plan, markdown: renderMarkdown(plan, est?.name ?? auth.establishmentId) };
  }
  return plan;
}

const kg = (v: number) => `${v.toLocaleString('es-ES', { maximumFractionDigits: 1 })} kg`;
const pct = (v: number) => `${(v * 100).toLocaleString('es-ES', { maximumFractionDigits: 1 })} %`;

/** The plan as a printable Markdown document. */
export function renderMarkdown(plan: PreventionPlan, establishment: string): string {
  const table = (title: string, items: { label: string; kg: number; share: number }[]) =>
    [`## ${title}`, '', '| | kg | % |', '|---|---:|---:|', ...items.map((i) => `| ${i.label} | ${kg(i.kg)} | ${pct(i.share)} |`), ''].join(
      '\n',
    );
  return [
    `# Plan de prevención de pérdidas y desperdicio alimentario — ${establishment}`,
    '',
    `Ley 1/2025, de prevención de las pérdidas y el desperdicio alimentario (art. 6). Periodo analizado: ${plan.period.from} a ${plan.period.to}. Generado: ${plan.generated_at}.`,
    '',
    `**Total registrado:** ${kg(plan.total_kg)} en ${plan.total_records} registros.`,
    '',
    table('Dónde se producen las pérdidas (etapa)', plan.by_stage),
    table('Por categoría', plan.by_category),
    table('Por causa', plan.by_cause),
    table('Por turno', plan.by_shift),
    '## Destino, en el orden de la jerarquía',
    '',
    '| Orden | Destino | kg | % |',
    '|---:|---|---:|---:|',
    ...plan.destinations.map((d) => `| ${d.orden} | ${d.label} | ${kg(d.kg)} | ${pct(d.share)} |`),
    '',
    `Por debajo de la donación y la alimentación animal: **${kg(plan.below_feed_kg)}**.`,
    '',
    '## Puntos críticos y medidas',
    '',
    ...plan.hotspots.flatMap((h, i) => [
      `### ${i + 1}. ${h.food_category} en ${STAGE_LABELS[h.waste_stage] ?? h.waste_stage} — ${kg(h.kg)} (${pct(h.share)})`,
      '',
      ...h.measures.map((m) => `- ${m}`),
      '',
    ]),
    '## Objetivo de reducción',
    '',
    plan.target.baseline_kg === null
      ? plan.target.note
      : `${plan.target.note} Año base ${plan.target.baseline_year}: ${kg(plan.target.baseline_kg)}; objetivo 2030: ${kg(plan.target.target_2030_kg ?? 0)}.`,
    '',
  ].join('\n');
}
