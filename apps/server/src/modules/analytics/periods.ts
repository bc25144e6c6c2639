import { addDays, localDate } from '@merma/schema';
import type { PeriodComparison } from '@merma/schema/dashboard';
import { lowerBoundSql, upperBoundSql } from '../../calendar.js';
import type { Clock, Tenant } from '../../context.js';
import type { Sql } from '../../db/sql.js';
import { sqlParams } from '../../db/sql.js';

type Span = { from: string; to: string };

/** The last day of the month of an ISO date. */
function monthEnd(date: string): string {
  const d = new Date(`${date.slice(0, 7)}-01T00:00:00Z`);
  d.setUTCMonth(d.getUTCMonth() + 1, 0);
  return d.toISOString().slice(0, 10);
}

/**
 * Today, this week (from Monday) and this month so far, each with the same stretch of the period
 * before: yesterday; last week's Monday up to the same weekday; last month's first day up to the
 * same day of the month (its last day when last month is shorter). A half-finished week is
 * compared with the same half of the last one, not with a whole week.
 */
export function comparisonSpans(today: string): { period: PeriodComparison['period']; current: Span; previous: Span }[] {
  const weekday = (new Date(`${today}T00:00:00Z`).getUTCDay() + 6) % 7; // Monday 0 … Sunday 6
  const monday = addDays(today, -weekday);
  const monthStart = `${today.slice(0, 7)}-01`;
  const previousMonthStart = `${addDays(monthStart, -1).slice(0, 7)}-01`;
  const sameDay = `${previousMonthStart.slice(0, 8)}${today.slice(8)}`;
  const previousMonthEnd = monthEnd(previousMonthStart);
  return [
    { period: 'today', current: { from: today, to: today }, previous: { from: addDays(today, -1), to: addDays(today, -1) } },
    { period: 'week', current: { from: monday, to: today }, previous: { from: addDays(monday, -7), to: addDays(today, -7) } },
    {
      period: 'month',
      current: { from: monthStart, to: today },
      previous: { from: previousMonthStart, to: sameDay > previousMonthEnd ? previousMonthEnd : sameDay },
    },
  ];
}

/** kg of today, this week and this month against their previous stretches, in one statement. */
export async function comparePeriods(deps: { sql: Sql; clock: Clock }, tenant: Tenant): Promise<PeriodComparison[]> {
  const spans = comparisonSpans(localDate(deps.clock(), tenant.timezone));
  const p = sqlParams();
  const sum = (span: Span, name: string) =>
    `coalesce(sum(weight_kg) FILTER (WHERE occurred_at >= ${lowerBoundSql(span.from, tenant.timezone, p)} AND occurred_at < ${upperBoundSql(span.to, tenant.timezone, p)}), 0)::float8 AS ${name}`;
  const columns = spans.flatMap((s, i) => [sum(s.current, `c${i}`), sum(s.previous, `p${i}`)]);
  const earliest = spans.map((s) => s.previous.from).sort()[0] as string;
  const today = spans[0]?.current.to as string;
  const { rows } = await deps.sql.query<Record<string, number>>(
    `SELECT ${columns.join(', ')} FROM records
     WHERE establishment_id = ${p.add(tenant.establishmentId)}::uuid AND livemode = ${p.add(tenant.livemode)} AND superseded_by IS NULL
       AND occurred_at >= ${lowerBoundSql(earliest, tenant.timezone, p)} AND occurred_at < ${upperBoundSql(today, tenant.timezone, p)}`,
    p.values,
  );
  const row = rows[0] ?? {};
  const round = (kg: number | undefined) => Math.round((kg ?? 0) * 1000) / 1000;
  return spans.map((s, i) => ({
    period: s.period,
    from: s.current.from,
    to: s.current.to,
    kg: round(row[`c${i}`]),
    previous_from: s.previous.from,
    previous_to: s.previous.to,
    previous_kg: round(row[`p${i}`]),
  }));
}

/** Spike alerts of the establishment's last `days` local days, newest first. */
export async function recentAlerts(deps: { sql: Sql; clock: Clock }, tenant: Tenant, days = 14) {
  const since = addDays(localDate(deps.clock(), tenant.timezone), -(days - 1));
  const { rows } = await deps.sql.query<{
    id: string;
    food_category: string;
    day: string;
    total_kg: number;
    baseline_kg: number;
    threshold_kg: number;
    created_at: Date;
  }>(
    `SELECT id::text, food_category, day::text, total_kg::float8, baseline_kg::float8, threshold_kg::float8, created_at
     FROM alerts WHERE establishment_id = $1::uuid AND livemode = $2 AND day >= $3::date
     ORDER BY day DESC, total_kg DESC LIMIT 50`,
    [tenant.establishmentId, tenant.livemode, since],
  );
  return rows.map((r) => ({ ...r, created_at: r.created_at.toISOString() }));
}
