import { randomUUID } from 'node:crypto';
import {
  addDays,
  encodeKeysetCursor,
  type KeysetPosition,
  localDate,
  type PlanChanges,
  type PlanLanguage,
  type PreventionPlan,
  type PreventionPlanHistory,
  type PreventionPlanSummary,
} from '@merma/schema';
import { dayStartSql } from '../../calendar.js';
import type { AuthContext, Clock } from '../../context.js';
import type { DbTx } from '../../db/client.js';
import { type Sql, sqlOfTransaction, sqlParams } from '../../db/sql.js';
import { inTransaction } from '../../db/transaction.js';
import { AppError } from '../../errors.js';
import { emitEvent } from '../../events/outbox.js';
import { hierarchyReport } from '../compliance/hierarchy.js';
import { planDonations } from '../donations/summary.js';
import { appendDocument } from '../records/documents.js';
import { dayTotalsSql } from '../records/rollup.js';
import { loadCatalogNames, localizePlan, type Part, readStoredPlan, type StoredPlan } from './content.js';
import { followUpSnapshot, planMeasureIds } from './follow-up.js';
import { renderMarkdown } from './markdown.js';
import { measureIdsFor } from './measures.js';

/**
 * Whose plans: one establishment's, of one mode, with its time zone (the plan's year and days, the
 * document's dates). An API key's context is one; the dashboard builds one for the establishment a
 * user picked.
 */
export type PlanScope = Pick<AuthContext, 'establishmentId' | 'livemode' | 'timezone'>;

/** Destinations after animal feed in the hierarchy (orden > 3) are "below donation and feed". */
const FEED_ORDEN = 3;
const HOTSPOTS = 5;

type Share = { key: string; kg: number };
type PlanRow = {
  total_kg: number;
  total_records: number;
  by_stage: Share[];
  by_category: Share[];
  by_cause: Share[];
  by_shift: (Share & { name: string | null })[];
  destinations: (Share & { orden: number; es_recuperacion: boolean })[];
  below_feed_kg: number;
  hotspots: { food_category: string; waste_stage: string; kg: number }[];
  years: { y: number; first_day: string; kg: number }[] | null;
};

const round3 = (kg: number) => Math.round(kg * 1000) / 1000;
const shareOf = (kg: number, total: number) => (total > 0 ? Math.round((kg / total) * 10_000) / 10_000 : 0);
const withShares = <T extends Share>(items: T[], total: number): (T & Part)[] =>
  items.map((i) => ({ ...i, kg: round3(i.kg), share: shareOf(i.kg, total) }));

/**
 * Builds the prevention plan (Ley 1/2025, art. 6) from the last 12 months of records, aggregated in
 * one SQL statement — from the day totals (records/rollup.ts), except the split by shift, which
 * only the records hold — stores it (figures and codes, see content.ts) and emits `plan.generated` in the
 * same transaction. Answers the plan written in `lang`.
 */
export async function generatePlan(
  deps: { db: DbTx; sql: Sql; clock: Clock },
  scope: PlanScope,
  lang: PlanLanguage = 'es',
): Promise<PreventionPlan> {
  const now = deps.clock();
  const to = localDate(now, scope.timezone);
  const from = addDays(to, -364);
  // $1…$5 as written below; the day totals' readers add theirs after them.
  const p = sqlParams();
  for (const value of [scope.establishmentId, scope.livemode, from, to, scope.timezone]) p.add(value);
  const { rows } = await deps.sql.query<PlanRow>(
    `WITH f AS (
       SELECT t.food_category, t.destino_id, t.causa_id, t.waste_stage, t.kg AS weight_kg, t.records
       FROM ${dayTotalsSql(scope, { from, to }, p)} t
     ), years AS (
       SELECT extract(year FROM day)::int AS y, min(day) AS first_day, sum(kg)::float8 AS kg
       FROM ${dayTotalsSql(scope, {}, p)} t GROUP BY 1
     )
     SELECT
       (SELECT coalesce(sum(weight_kg), 0)::float8 FROM f) AS total_kg,
       (SELECT coalesce(sum(records), 0)::int FROM f) AS total_records,
       (SELECT coalesce(json_agg(x ORDER BY x.kg DESC), '[]') FROM (SELECT coalesce(waste_stage, 'none') AS key, sum(weight_kg)::float8 AS kg FROM f GROUP BY 1) x) AS by_stage,
       (SELECT coalesce(json_agg(x ORDER BY x.kg DESC), '[]') FROM (SELECT food_category AS key, sum(weight_kg)::float8 AS kg FROM f GROUP BY 1) x) AS by_category,
       (SELECT coalesce(json_agg(x ORDER BY x.kg DESC), '[]') FROM (
          SELECT coalesce(f.causa_id::text, 'none') AS key, sum(f.weight_kg)::float8 AS kg FROM f GROUP BY 1) x) AS by_cause,
       (SELECT coalesce(json_agg(x ORDER BY x.kg DESC), '[]') FROM (
          SELECT coalesce(s.id::text, 'none') AS key, s.name, sum(r.weight_kg)::float8 AS kg
          FROM records r LEFT JOIN shifts s ON s.id = r.shift_id
          WHERE r.establishment_id = $1::uuid AND r.livemode = $2 AND r.superseded_by IS NULL
            AND r.occurred_at >= ${dayStartSql('$3::date', '$5')} AND r.occurred_at < ${dayStartSql('$4::date + 1', '$5')}
          GROUP BY 1, 2) x) AS by_shift,
       (SELECT json_agg(x ORDER BY x.orden) FROM (
          SELECT d.code AS key, d.orden, d.es_recuperacion, coalesce(sum(f.weight_kg), 0)::float8 AS kg
          FROM destinations d LEFT JOIN f ON f.destino_id = d.id GROUP BY d.id) x) AS destinations,
       (SELECT coalesce(sum(f.weight_kg), 0)::float8 FROM f JOIN destinations d ON d.id = f.destino_id WHERE d.orden > ${FEED_ORDEN}) AS below_feed_kg,
       (SELECT coalesce(json_agg(x), '[]') FROM (
          SELECT food_category, coalesce(waste_stage, 'none') AS waste_stage, sum(weight_kg)::float8 AS kg
          FROM f GROUP BY 1, 2 ORDER BY 3 DESC, 1, 2 LIMIT ${HOTSPOTS}) x) AS hotspots,
       (SELECT json_agg(years ORDER BY y) FROM years) AS years`,
    p.values,
  );
  const r = rows[0] as PlanRow;
  const [donations, hierarchy] = await Promise.all([
    planDonations(deps.sql, scope, { from, to }, now),
    hierarchyReport(deps.sql, scope, undefined, now),
  ]);
  const total = Number(r.total_kg);
  const currentYear = Number(to.slice(0, 4));
  // The first full calendar year of data: the year of the first record if it starts on 1 January,
  // else the next one; usable once that year has ended.
  const years = r.years ?? [];
  const first = years[0];
  let baselineYear: number | null = null;
  if (first) {
    const firstDay = String(first.first_day).slice(5, 10);
    baselineYear = firstDay === '01-01' ? first.y : first.y + 1;
    if (baselineYear >= currentYear) baselineYear = null;
  }
  const baselineKg = baselineYear === null ? null : round3(years.find((y) => y.y === baselineYear)?.kg ?? 0);
  const hotspots = r.hotspots.map((h) => ({
    ...h,
    kg: round3(h.kg),
    share: shareOf(h.kg, total),
    measure_ids: measureIdsFor(h.waste_stage, h.food_category),
  }));
  const followUp = await followUpSnapshot(deps.sql, scope, planMeasureIds(hotspots), { from, to });
  const plan: StoredPlan = {
    version: 2,
    id: randomUUID(),
    establishment_id: scope.establishmentId,
    generated_at: now.toISOString(),
    period: { from, to },
    total_kg: round3(total),
    total_records: Number(r.total_records),
    by_stage: withShares(r.by_stage, total),
    by_category: withShares(r.by_category, total),
    by_cause: withShares(r.by_cause, total),
    by_shift: withShares(r.by_shift, total).map(({ name, ...s }) => (name === null ? s : { ...s, name })),
    destinations: withShares(r.destinations, total),
    below_feed_kg: round3(Number(r.below_feed_kg)),
    hotspots,
    target: {
      baseline_year: baselineYear,
      baseline_kg: baselineKg,
      target_2030_kg: baselineKg === null ? null : Math.round(baselineKg * 500) / 1000,
    },
    donations,
    hierarchy: {
      year: hierarchy.year,
      below_best: hierarchy.below_best,
      justified: hierarchy.justified,
      by_reason: hierarchy.by_reason,
      unjustified_count: hierarchy.unjustified_count,
    },
    follow_up: followUp,
  };
  const stored = await inTransaction(deps.db, async (tx) => {
    const sql = sqlOfTransaction(tx);
    // One version at a time per establishment and mode, so each names the one it follows.
    await sql.query('SELECT true AS locked FROM (SELECT pg_advisory_xact_lock(hashtextextended($1, 0))) AS lock', [
      `prevention_plan:${scope.establishmentId}:${scope.livemode}`,
    ]);
    const before = await sql.query<{ id: string; sha256: string | null; content: unknown; version: number }>(
      `SELECT id::text, sha256, content, version FROM prevention_plans WHERE establishment_id = $1::uuid AND livemode = $2
       ORDER BY version DESC LIMIT 1`,
      [scope.establishmentId, scope.livemode],
    );
    const previous = before.rows[0];
    if (previous) {
      const last = readStoredPlan(previous.content);
      plan.previous = { id: previous.id, generated_at: last.generated_at, sha256: previous.sha256, changes: planChanges(last, plan) };
    }
    // The digest of the content as stored (jsonb's text), the one verification recomputes.
    const version = (previous?.version ?? 0) + 1;
    const stored = await sql.query<{ sha256: string }>(
      `INSERT INTO prevention_plans (id, establishment_id, livemode, generated_at, content, sha256, version)
       VALUES ($1::uuid, $2::uuid, $3, $4::timestamptz, $5::jsonb, encode(sha256(convert_to($5::jsonb::text, 'UTF8')), 'hex'), $6)
       RETURNING sha256::text`,
      [plan.id, scope.establishmentId, scope.livemode, plan.generated_at, JSON.stringify(plan), version],
    );
    const digest = stored.rows[0]?.sha256 as string;
    await appendDocument(sql, scope, { kind: 'prevention_plan', subjectId: plan.id, sha256: digest, createdAt: plan.generated_at });
    await emitEvent(tx, {
      establishmentId: scope.establishmentId,
      livemode: scope.livemode,
      type: 'plan.generated',
      at: now,
      data: { establishment_id: scope.establishmentId, plan_id: plan.id, period: `${from}/${to}`, generated_at: plan.generated_at },
    });
    return { sha256: digest, version };
  });
  return localizePlan(plan, lang, await loadCatalogNames(deps.sql), stored);
}

const hotspotKey = (h: { food_category: string; waste_stage: string }) => `${h.food_category}|${h.waste_stage}`;

/** What changed from the version `last` to `next`: figures, hotspots, agreements listed, the target's baseline. */
export function planChanges(last: StoredPlan, next: StoredPlan): PlanChanges {
  const hotspots = (a: StoredPlan, b: StoredPlan) => {
    const inB = new Set(b.hotspots.map(hotspotKey));
    return a.hotspots.filter((h) => !inB.has(hotspotKey(h))).map((h) => ({ food_category: h.food_category, waste_stage: h.waste_stage }));
  };
  const agreements = (a: StoredPlan, b: StoredPlan) => {
    const inB = new Set((b.donations?.agreements ?? []).map((x) => x.id));
    return (a.donations?.agreements ?? []).map((x) => x.id).filter((id) => !inB.has(id));
  };
  return {
    period_from: last.period.from,
    period_to: last.period.to,
    total_kg: { from: last.total_kg, to: next.total_kg },
    total_records: { from: last.total_records, to: next.total_records },
    below_feed_kg: { from: last.below_feed_kg, to: next.below_feed_kg },
    hotspots_added: hotspots(next, last),
    hotspots_removed: hotspots(last, next),
    agreements_added: agreements(next, last),
    agreements_removed: agreements(last, next),
    baseline_year:
      last.target.baseline_year === next.target.baseline_year ? null : { from: last.target.baseline_year, to: next.target.baseline_year },
  };
}

type PlanRecord = { id: string; content: unknown; sha256: string | null; version: number };

/** The plan in `lang`; with `format: 'markdown'` it also carries the printable document. */
async function present(
  sql: Sql,
  scope: PlanScope,
  row: PlanRecord,
  lang: PlanLanguage,
  format: 'json' | 'markdown',
): Promise<PreventionPlan> {
  const [names, establishment] = await Promise.all([
    loadCatalogNames(sql),
    format === 'markdown'
      ? sql
          .query<{ name: string; cif: string }>('SELECT name, cif FROM establishments WHERE id = $1::uuid', [scope.establishmentId])
          .then((r) => r.rows[0])
      : undefined,
  ]);
  const plan = localizePlan(readStoredPlan(row.content), lang, names, row);
  if (format !== 'markdown') return plan;
  return {
    ...plan,
    markdown: renderMarkdown(plan, {
      name: establishment?.name ?? scope.establishmentId,
      cif: establishment?.cif ?? '',
      timezone: scope.timezone,
      livemode: scope.livemode,
    }),
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * One stored plan of the scope, by id; `not_found` for an id of another establishment or mode.
 * Stored plans never change, so `sql` may be the replica (trpc/context.ts): a plan generated a
 * moment ago may not be there yet, at most DATABASE_REPLICA_MAX_LAG_SECONDS.
 */
export async function getPlan(
  sql: Sql,
  scope: PlanScope,
  id: string,
  lang: PlanLanguage,
  format: 'json' | 'markdown',
): Promise<PreventionPlan> {
  const row = UUID.test(id)
    ? (
        await sql.query<PlanRecord>(
          'SELECT id::text, content, sha256::text, version FROM prevention_plans WHERE id = $1::uuid AND establishment_id = $2::uuid AND livemode = $3',
          [id, scope.establishmentId, scope.livemode],
        )
      ).rows[0]
    : undefined;
  if (!row) throw new AppError('not_found', 'No such prevention plan');
  return present(sql, scope, row, lang, format);
}

/** The newest plan of the scope. */
export async function latestPlan(sql: Sql, scope: PlanScope, lang: PlanLanguage, format: 'json' | 'markdown'): Promise<PreventionPlan> {
  const { rows } = await sql.query<PlanRecord>(
    `SELECT id::text, content, sha256::text, version FROM prevention_plans WHERE establishment_id = $1::uuid AND livemode = $2
     ORDER BY version DESC LIMIT 1`,
    [scope.establishmentId, scope.livemode],
  );
  const latest = rows[0];
  if (!latest) throw new AppError('not_found', 'No prevention plan yet: generate one with POST /api/v1/prevention-plan');
  return present(sql, scope, latest, lang, format);
}

type SummaryRow = {
  id: string;
  generated_at: Date;
  period: { from: string; to: string };
  total_kg: number;
  total_records: number;
  sha256: string | null;
  version: number;
};

/**
 * The scope's plans, newest first (versions of one millisecond by their number), as summaries read
 * from the stored content without loading it, by (generated_at, version) keyset: `cursor` is the position `PreventionPlanHistoryQuery` parsed from
 * the `next_cursor` of the previous page (@merma/schema's cursor.ts).
 */
export async function listPlans(
  sql: Sql,
  scope: PlanScope,
  page: { limit: number; cursor?: KeysetPosition | undefined },
): Promise<PreventionPlanHistory> {
  const after = page.cursor ?? null;
  const p = sqlParams();
  const { rows } = await sql.query<SummaryRow>(
    `SELECT id::text, generated_at, content->'period' AS period,
            (content->>'total_kg')::float8 AS total_kg, (content->>'total_records')::int AS total_records, sha256::text, version
     FROM prevention_plans
     WHERE establishment_id = ${p.add(scope.establishmentId)}::uuid AND livemode = ${p.add(scope.livemode)}
       ${after ? `AND (generated_at, version) < (${p.add(after.at)}::timestamptz, (SELECT c.version FROM prevention_plans c WHERE c.id = ${p.add(after.id)}::uuid))` : ''}
     ORDER BY generated_at DESC, version DESC
     LIMIT ${p.add(page.limit + 1)}`,
    p.values,
  );
  const data: PreventionPlanSummary[] = rows.slice(0, page.limit).map((r) => ({
    id: r.id,
    generated_at: r.generated_at.toISOString(),
    period: { from: r.period.from, to: r.period.to },
    total_kg: r.total_kg,
    total_records: r.total_records,
    sha256: r.sha256,
    version: r.version,
  }));
  const last = data.at(-1);
  return { data, next_cursor: rows.length > page.limit && last ? encodeKeysetCursor(last.generated_at, last.id) : null };
}

/** A stored plan version as the inspection dossier carries it: the document in `lang` and the content as its hash was taken. */
export type PlanVersionDocument = {
  id: string;
  version: number;
  generated_at: string;
  sha256: string | null;
  /** The stored content as the database writes it (`content::text`): the bytes the documents chain hashed. */
  stored: string;
  markdown: string;
};

/** Every stored plan version of the scope, oldest first, each rendered as a Markdown document in `lang`. */
export async function planVersionDocuments(sql: Sql, scope: PlanScope, lang: PlanLanguage): Promise<PlanVersionDocument[]> {
  const { rows } = await sql.query<PlanRecord & { generated_at: Date; stored: string }>(
    `SELECT id::text, content, content::text AS stored, sha256::text, version, generated_at FROM prevention_plans
     WHERE establishment_id = $1::uuid AND livemode = $2 ORDER BY version`,
    [scope.establishmentId, scope.livemode],
  );
  const documents: PlanVersionDocument[] = [];
  for (const row of rows) {
    const plan = await present(sql, scope, row, lang, 'markdown');
    documents.push({
      id: row.id,
      version: row.version,
      generated_at: row.generated_at.toISOString(),
      sha256: row.sha256,
      stored: row.stored,
      markdown: plan.markdown ?? '',
    });
  }
  return documents;
}
