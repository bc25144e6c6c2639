import { randomUUID } from 'node:crypto';
import {
  addDays,
  type CreateTrainingSessionFields,
  localDate,
  type MeasureStatus,
  type PlanLanguage,
  type PlanMeasure,
  type TrainingSession,
  type UpdatePlanMeasureFields,
} from '@merma/schema';
import type { z } from 'zod';
import type { Sql } from '../../db/sql.js';
import { AppError, validationError } from '../../errors.js';
import { readStoredPlan } from './content.js';
import { measureText } from './measures.js';
import type { PlanScope } from './service.js';

/**
 * Following the prevention plan up (Ley 1/2025 art. 6: a plan sets measures and is kept alive):
 *
 * - **Measures**: for each measure the plan proposes (by its stable id, measures.ts), who carries it
 *   out, by when, how far it has gone (`planned` until someone says otherwise) and a note, per
 *   establishment and mode (`plan_measures`). The follow-up belongs to the measure, not to one plan
 *   version: a measure proposed again by the next version keeps its owner and status, and one the
 *   newest version no longer proposes stays listed while it has a follow-up.
 * - **Training**: the staff training sessions held (`training_sessions`): the day, the topic, who
 *   gave it, how many attended and, optionally, who. A session is recorded once held: a day after
 *   today in the establishment's time zone is a 400.
 * - Each generated plan version keeps both as they stood that day (`follow_up` in the stored plan:
 *   codes and the kitchen's own words), with its review date: a year after it was generated.
 */

type Updates = z.output<z.ZodObject<typeof UpdatePlanMeasureFields>>;
type NewSession = z.output<z.ZodObject<typeof CreateTrainingSessionFields>>;

/** A plan version's follow-up as stored: codes and the kitchen's words only. */
export type StoredFollowUp = {
  review_by: string;
  /** Named apart from the measures' words of version 1 plans (`measures`): codes and the kitchen's words only. */
  tracked: { measure_id: string; owner: string | null; due_on: string | null; status: MeasureStatus }[];
  training: { held_on: string; topic: string; trainer: string | null; attendees: number }[];
};

type MeasureRow = {
  measure_id: string;
  owner: string | null;
  due_on: string | null;
  status: MeasureStatus;
  note: string | null;
  updated_at: Date;
};

const MEASURE_COLUMNS = 'measure_id, owner, due_on::text AS due_on, status, note, updated_at';

async function trackedMeasures(sql: Sql, scope: PlanScope): Promise<MeasureRow[]> {
  const { rows } = await sql.query<MeasureRow>(
    `SELECT ${MEASURE_COLUMNS} FROM plan_measures WHERE establishment_id = $1::uuid AND livemode = $2 ORDER BY measure_id`,
    [scope.establishmentId, scope.livemode],
  );
  return rows;
}

/** The measures the newest plan version proposes, each once, in the plan's order. */
async function latestPlanMeasureIds(sql: Sql, scope: PlanScope): Promise<string[]> {
  const { rows } = await sql.query<{ content: unknown }>(
    'SELECT content FROM prevention_plans WHERE establishment_id = $1::uuid AND livemode = $2 ORDER BY version DESC LIMIT 1',
    [scope.establishmentId, scope.livemode],
  );
  return rows[0] ? planMeasureIds(readStoredPlan(rows[0].content).hotspots) : [];
}

/** The measures of a plan's hotspots, each once, in order. */
export const planMeasureIds = (hotspots: readonly { measure_ids: readonly string[] }[]) => [
  ...new Set(hotspots.flatMap((h) => h.measure_ids)),
];

const toMeasure = (id: string, row: MeasureRow | undefined, lang: PlanLanguage, inLatest: boolean): PlanMeasure => ({
  measure_id: id,
  text: measureText(id, lang) ?? id,
  owner: row?.owner ?? null,
  due_on: row?.due_on ?? null,
  status: row?.status ?? 'planned',
  note: row?.note ?? null,
  updated_at: row ? row.updated_at.toISOString() : null,
  in_latest_plan: inLatest,
});

/** The plan's measures as they are followed up now: the newest version's, then any other with a follow-up. */
export async function listPlanMeasures(sql: Sql, scope: PlanScope, lang: PlanLanguage): Promise<PlanMeasure[]> {
  const [ids, tracked] = await Promise.all([latestPlanMeasureIds(sql, scope), trackedMeasures(sql, scope)]);
  const byId = new Map(tracked.map((r) => [r.measure_id, r]));
  const proposed = new Set(ids);
  return [
    ...ids.map((id) => toMeasure(id, byId.get(id), lang, true)),
    ...tracked.filter((r) => !proposed.has(r.measure_id)).map((r) => toMeasure(r.measure_id, r, lang, false)),
  ];
}

/**
 * Sets a measure's owner, due date, status or note (a field left out is kept, null clears it). A
 * measure id no plan can propose is a 400 and writes nothing.
 */
export async function updatePlanMeasure(
  sql: Sql,
  scope: PlanScope,
  measureId: string,
  changes: Updates,
  lang: PlanLanguage,
  now: Date,
): Promise<{ before: PlanMeasure; after: PlanMeasure }> {
  if (measureText(measureId, 'es') === undefined) {
    throw validationError(`measure_id: no measure ${measureId}`, [
      { path: 'measure_id', message: 'is not a measure of the prevention plan' },
    ]);
  }
  const set = (['owner', 'due_on', 'status', 'note'] as const).filter((k) => changes[k] !== undefined);
  const [ids, beforeRows] = await Promise.all([
    latestPlanMeasureIds(sql, scope),
    sql.query<MeasureRow>(
      `SELECT ${MEASURE_COLUMNS} FROM plan_measures WHERE establishment_id = $1::uuid AND livemode = $2 AND measure_id = $3`,
      [scope.establishmentId, scope.livemode, measureId],
    ),
  ]);
  const values = set.map((k) => changes[k] ?? null);
  const params = [scope.establishmentId, scope.livemode, measureId, now, ...values];
  const { rows } = await sql.query<MeasureRow>(
    `INSERT INTO plan_measures (establishment_id, livemode, measure_id, updated_at${set.map((k) => `, ${k}`).join('')})
     VALUES ($1::uuid, $2, $3, $4${set.map((k, i) => `, $${i + 5}${k === 'due_on' ? '::date' : ''}`).join('')})
     ON CONFLICT (establishment_id, livemode, measure_id) DO UPDATE SET updated_at = EXCLUDED.updated_at${set.map((k) => `, ${k} = EXCLUDED.${k}`).join('')}
     RETURNING ${MEASURE_COLUMNS}`,
    params,
  );
  const inLatest = ids.includes(measureId);
  return { before: toMeasure(measureId, beforeRows.rows[0], lang, inLatest), after: toMeasure(measureId, rows[0], lang, inLatest) };
}

type SessionRow = {
  id: string;
  held_on: string;
  topic: string;
  trainer: string | null;
  attendees: number;
  attendee_names: string | null;
  created_at: Date;
};
const SESSION_COLUMNS = 'id::text, held_on::text AS held_on, topic, trainer, attendees, attendee_names, created_at';
const toSession = (r: SessionRow): TrainingSession => ({ ...r, created_at: r.created_at.toISOString() });

/** The training sessions held between `from` and `to` (both included), oldest first. */
async function sessionsBetween(sql: Sql, scope: PlanScope, from: string, to: string): Promise<SessionRow[]> {
  const { rows } = await sql.query<SessionRow>(
    `SELECT ${SESSION_COLUMNS} FROM training_sessions
     WHERE establishment_id = $1::uuid AND livemode = $2 AND held_on BETWEEN $3::date AND $4::date ORDER BY held_on, created_at, id`,
    [scope.establishmentId, scope.livemode, from, to],
  );
  return rows;
}

/** A calendar year's training sessions (the current one by default), oldest first. */
export async function listTrainingSessions(sql: Sql, scope: PlanScope, year: number | undefined, now: Date): Promise<TrainingSession[]> {
  const y = year ?? Number(localDate(now, scope.timezone).slice(0, 4));
  return (await sessionsBetween(sql, scope, `${y}-01-01`, `${y}-12-31`)).map(toSession);
}

/** Records a session held; a day after today in the establishment's time zone is a 400. */
export async function createTrainingSession(sql: Sql, scope: PlanScope, input: NewSession, now: Date): Promise<TrainingSession> {
  const today = localDate(now, scope.timezone);
  if (input.held_on > today) {
    throw validationError(`held_on: ${input.held_on} is after today (${today})`, [
      { path: 'held_on', message: 'a session is recorded once held: today at the latest' },
    ]);
  }
  const { rows } = await sql.query<SessionRow>(
    `INSERT INTO training_sessions (id, establishment_id, livemode, held_on, topic, trainer, attendees, attendee_names, created_at)
     VALUES ($1::uuid, $2::uuid, $3, $4::date, $5, $6, $7, $8, $9) RETURNING ${SESSION_COLUMNS}`,
    [
      randomUUID(),
      scope.establishmentId,
      scope.livemode,
      input.held_on,
      input.topic,
      input.trainer ?? null,
      input.attendees,
      input.attendee_names ?? null,
      now,
    ],
  );
  return toSession(rows[0] as SessionRow);
}

/** Deletes a session recorded by mistake; another establishment's or mode's is a 404. */
export async function deleteTrainingSession(sql: Sql, scope: PlanScope, id: string): Promise<TrainingSession> {
  const { rows } = await sql.query<SessionRow>(
    `DELETE FROM training_sessions WHERE id = $1::uuid AND establishment_id = $2::uuid AND livemode = $3 RETURNING ${SESSION_COLUMNS}`,
    [id, scope.establishmentId, scope.livemode],
  );
  if (!rows[0]) throw new AppError('not_found', 'No such training session');
  return toSession(rows[0]);
}

/** The same day a year later (29 February → 28 February). */
export function aYearAfter(day: string): string {
  const next = `${Number(day.slice(0, 4)) + 1}${day.slice(4)}`;
  return day.slice(5) === '02-29' ? addDays(`${Number(day.slice(0, 4)) + 1}-03-01`, -1) : next;
}

/** The follow-up a plan version keeps: the review date, its measures as followed up now and the period's training. */
export async function followUpSnapshot(
  sql: Sql,
  scope: PlanScope,
  measureIds: readonly string[],
  period: { from: string; to: string },
): Promise<StoredFollowUp> {
  const [tracked, sessions] = await Promise.all([trackedMeasures(sql, scope), sessionsBetween(sql, scope, period.from, period.to)]);
  const byId = new Map(tracked.map((r) => [r.measure_id, r]));
  return {
    review_by: aYearAfter(period.to),
    tracked: measureIds.map((id) => {
      const r = byId.get(id);
      return { measure_id: id, owner: r?.owner ?? null, due_on: r?.due_on ?? null, status: r?.status ?? 'planned' };
    }),
    training: sessions.map((s) => ({ held_on: s.held_on, topic: s.topic, trainer: s.trainer, attendees: s.attendees })),
  };
}
