import type pg from 'pg';
import type { Clock, Log } from '../../context.js';
import { purgeDayTotalsBefore } from '../sales/totals.js';

/**
 * Bounded storage: what the service keeps only for a while is deleted once that while is over, by
 * the worker's `retention.purge` job (every 10 minutes, one replica at a time):
 *
 * - idempotency keys after 24 hours (the replay window of `Idempotency-Key`);
 * - events older than `eventDays` whose deliveries are all over (delivered, or failed for good),
 *   with those deliveries and their attempts — the integrations page's log reaches that far back;
 *   events still waiting or retrying stay, however old;
 * - inbound event ids after `inboundDedupeDays`: a resend of an event older than that is taken
 *   as a new event;
 * - finished chain verification runs after `eventDays` (their checkpoints stay);
 * - dashboard sessions, one-time links and invitations a week after they expired or were used;
 * - sale lines and their daily totals of days more than `salesDays` before today (UTC, and one day
 *   more, so that no establishment's time zone makes it a day still accepted): the demand forecast
 *   reads the last 365, and `salesDays` is at least the 400 a sale may be sent for late.
 *
 * Each statement deletes at most PURGE_BATCH rows (skipping rows another transaction holds), so a
 * purge never holds many locks nor blocks writers; a run stops after `budgetMs` and
 * the next run goes on. Records, their chain and day totals are never purged here.
 */
export const PURGE_BATCH = 1000;
const IDEMPOTENCY_HOURS = 24;
const ACCOUNT_GRACE_DAYS = 7;

/**
 * A batch of the oldest events created before $1 whose deliveries are all over, in the order of
 * the index kept for it (events_dispatched_idx): each batch reads its thousand, not the table.
 */
export const OLDEST_OVER_EVENTS = `SELECT e.id FROM events e
  WHERE e.dispatched_at IS NOT NULL AND e.created_at < $1
    AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.status = 'pending')
  ORDER BY e.created_at, e.id LIMIT ${PURGE_BATCH}
  FOR UPDATE SKIP LOCKED`;

export type RetentionSettings = { eventDays: number; inboundDedupeDays: number; salesDays: number; budgetMs?: number };
export type PurgeReport = Record<
  'idempotency_keys' | 'events' | 'deliveries' | 'inbound_events' | 'verification_runs' | 'account_rows' | 'sales' | 'sale_day_totals',
  number
>;

export async function purgeExpired(deps: { pool: pg.Pool; clock: Clock; log?: Log }, settings: RetentionSettings): Promise<PurgeReport> {
  const now = deps.clock();
  const started = Date.now();
  const budget = settings.budgetMs ?? 30_000;
  const report: PurgeReport = {
    idempotency_keys: 0,
    events: 0,
    deliveries: 0,
    inbound_events: 0,
    verification_runs: 0,
    account_rows: 0,
    sales: 0,
    sale_day_totals: 0,
  };
  const ago = (ms: number) => new Date(now.getTime() - ms);
  const day = 86_400_000;

  /** Runs a batch statement (it answers how many rows it deleted) until a batch is not full or the budget is spent. */
  const drain = async (batch: () => Promise<number>) => {
    while ((await batch()) === PURGE_BATCH && Date.now() - started < budget);
  };
  const deleted = async (sql: string, values: unknown[]) => (await deps.pool.query(sql, values)).rowCount ?? 0;
  const oldest = (table: string, where: string) =>
    `DELETE FROM ${table} WHERE id IN (SELECT id FROM ${table} WHERE ${where} LIMIT ${PURGE_BATCH} FOR UPDATE SKIP LOCKED)`;

  await drain(async () => {
    const n = await deleted(oldest('idempotency_keys', 'created_at < $1'), [ago(IDEMPOTENCY_HOURS * 3_600_000)]);
    report.idempotency_keys += n;
    return n;
  });

  await drain(async () => {
    const { rows } = await deps.pool.query<{ events: number; deliveries: number }>(
      `WITH old AS (${OLDEST_OVER_EVENTS}), deliveries AS (
         DELETE FROM webhook_deliveries d USING old WHERE d.event_id = old.id RETURNING 1
       ), gone AS (
         DELETE FROM events e USING old WHERE e.id = old.id RETURNING 1
       )
       SELECT (SELECT count(*) FROM gone)::int AS events, (SELECT count(*) FROM deliveries)::int AS deliveries`,
      [ago(settings.eventDays * day)],
    );
    const r = rows[0] ?? { events: 0, deliveries: 0 };
    report.events += r.events;
    report.deliveries += r.deliveries;
    return r.events;
  });

  await drain(async () => {
    const n = await deleted(oldest('inbound_events', 'created_at < $1'), [ago(settings.inboundDedupeDays * day)]);
    report.inbound_events += n;
    return n;
  });

  await drain(async () => {
    const n = await deleted(oldest('chain_verification_runs', 'finished_at < $1'), [ago(settings.eventDays * day)]);
    report.verification_runs += n;
    return n;
  });

  const grace = ago(ACCOUNT_GRACE_DAYS * day);
  for (const [table, where] of [
    ['user_sessions', 'expires_at < $1'],
    ['user_tokens', 'expires_at < $1 OR used_at < $1'],
    ['invitations', 'expires_at < $1 OR accepted_at < $1 OR revoked_at < $1'],
  ] as const) {
    await drain(async () => {
      const n = await deleted(oldest(table, where), [grace]);
      report.account_rows += n;
      return n;
    });
  }
  // Sales by their (local) day: the first day kept is salesDays + 1 before today's UTC date.
  const firstSaleDay = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - settings.salesDays - 1))
    .toISOString()
    .slice(0, 10);
  await drain(async () => {
    const n = await deleted(oldest('sales', 'day < $1::date'), [firstSaleDay]);
    report.sales += n;
    return n;
  });
  // And their daily totals, deleted by the sales module that keeps them.
  await drain(async () => {
    const n = await purgeDayTotalsBefore(deps.pool, firstSaleDay, PURGE_BATCH);
    report.sale_day_totals += n;
    return n;
  });

  const total = Object.values(report).reduce((a, b) => a + b, 0);
  if (total > 0) deps.log?.info({ purged: report, ms: Date.now() - started }, 'expired rows purged');
  return report;
}
