import { randomUUID } from 'node:crypto';
import type { Pagination, Session } from '@merma/schema';
import { lowerBoundSql, upperBoundSql } from '../../calendar.js';
import type { Clock, Tenant } from '../../context.js';
import type { DbTx } from '../../db/client.js';
import type { Sql } from '../../db/sql.js';
import { sqlParams } from '../../db/sql.js';
import { inTransaction } from '../../db/transaction.js';
import { AppError, validationError } from '../../errors.js';
import { emitEvent } from '../../events/outbox.js';

/**
 * Registration sessions: a named span during which records are weighed together (a closing count,
 * an inventory). Records join a session with `session_id` while it is open; completing it fixes
 * `record_count` and `total_kg`, refuses a second completion (409) and emits `session.completed`.
 * While a session is open its count and kg are computed from its records.
 */
type SessionRow = {
  id: string;
  name: string;
  shift_id: string | null;
  status: 'open' | 'completed';
  started_at: Date;
  completed_at: Date | null;
  record_count: number;
  total_kg: number;
};

const toSession = (r: SessionRow): Session => ({
  id: r.id,
  name: r.name,
  shift_id: r.shift_id,
  status: r.status,
  started_at: r.started_at.toISOString(),
  completed_at: r.completed_at?.toISOString() ?? null,
  record_count: Number(r.record_count),
  total_kg: Math.round(Number(r.total_kg) * 1000) / 1000,
});

const SELECT = `SELECT s.id::text, s.name, s.shift_id::text, s.status, s.started_at, s.completed_at,
    CASE WHEN s.status = 'completed' THEN s.record_count ELSE live.n END AS record_count,
    CASE WHEN s.status = 'completed' THEN s.total_kg::float8 ELSE live.kg END AS total_kg
  FROM sessions s
  CROSS JOIN LATERAL (
    SELECT count(*)::int AS n, coalesce(sum(r.weight_kg), 0)::float8 AS kg FROM records r WHERE r.session_id = s.id AND r.superseded_by IS NULL
  ) live`;

export async function createSession(
  deps: { db: DbTx; clock: Clock },
  auth: Tenant,
  input: { name: string; shift_id?: string | null | undefined },
): Promise<Session> {
  if (input.shift_id) {
    const shift = await deps.db.shift.findFirst({
      where: { id: input.shift_id, establishment_id: auth.establishmentId, livemode: auth.livemode },
    });
    if (!shift)
      throw validationError('shift_id: no shift of this establishment has this id', [{ path: 'shift_id', message: 'unknown shift' }]);
  }
  const row = await deps.db.session.create({
    data: {
      id: randomUUID(),
      establishment_id: auth.establishmentId,
      livemode: auth.livemode,
      name: input.name,
      shift_id: input.shift_id ?? null,
      started_at: deps.clock(),
    },
  });
  return toSession({ ...row, status: 'open', record_count: 0, total_kg: 0 });
}

export async function getSession(sql: Sql, auth: Tenant, id: string): Promise<Session> {
  const { rows } = await sql.query<SessionRow>(`${SELECT} WHERE s.id = $1::uuid AND s.establishment_id = $2::uuid AND s.livemode = $3`, [
    id,
    auth.establishmentId,
    auth.livemode,
  ]);
  const row = rows[0];
  if (!row) throw new AppError('not_found', `No session ${id} in this establishment`);
  return toSession(row);
}

export async function listSessions(
  sql: Sql,
  auth: Tenant,
  query: { status?: 'open' | 'completed' | undefined; from?: string | undefined; to?: string | undefined; limit: number; offset: number },
): Promise<{ data: Session[]; pagination: Pagination }> {
  const p = sqlParams();
  let where = `s.establishment_id = ${p.add(auth.establishmentId)}::uuid AND s.livemode = ${p.add(auth.livemode)}`;
  if (query.status) where += ` AND s.status = ${p.add(query.status)}`;
  if (query.from) where += ` AND s.started_at >= ${lowerBoundSql(query.from, auth.timezone, p)}`;
  if (query.to) where += ` AND s.started_at < ${upperBoundSql(query.to, auth.timezone, p)}`;
  const countValues = [...p.values];
  const { rows } = await sql.query<SessionRow>(
    `${SELECT} WHERE ${where} ORDER BY s.started_at DESC, s.id DESC LIMIT ${p.add(query.limit)} OFFSET ${p.add(query.offset)}`,
    p.values,
  );
  const count = await sql.query<{ total: string }>(`SELECT count(*) AS total FROM sessions s WHERE ${where}`, countValues);
  const total = Number(count.rows[0]?.total ?? 0);
  return {
    data: rows.map(toSession),
    pagination: { limit: query.limit, offset: query.offset, total, has_more: query.offset + rows.length < total },
  };
}

/** Completes an open session in one transaction with its `session.completed` event. */
export async function completeSession(deps: { db: DbTx; clock: Clock }, auth: Tenant, id: string): Promise<Session> {
  return inTransaction(deps.db, async (tx) => {
    const now = deps.clock();
    const rows = await tx.$queryRaw<SessionRow[]>`
      UPDATE sessions s SET status = 'completed', completed_at = ${now.toISOString()}::timestamptz,
        record_count = (SELECT count(*) FROM records r WHERE r.session_id = s.id AND r.superseded_by IS NULL),
        total_kg = (SELECT coalesce(sum(r.weight_kg), 0) FROM records r WHERE r.session_id = s.id AND r.superseded_by IS NULL)
      WHERE s.id = ${id}::uuid AND s.establishment_id = ${auth.establishmentId}::uuid AND s.livemode = ${auth.livemode}
        AND s.status = 'open'
      RETURNING s.id::text, s.name, s.shift_id::text, s.status, s.started_at, s.completed_at, s.record_count, s.total_kg::float8 AS total_kg`;
    const row = rows[0];
    if (!row) {
      const exists = await tx.session.findFirst({ where: { id, establishment_id: auth.establishmentId, livemode: auth.livemode } });
      if (!exists) throw new AppError('not_found', `No session ${id} in this establishment`);
      throw new AppError('conflict', 'This session is already completed', undefined, { shouldRetry: false });
    }
    const session = toSession(row);
    await emitEvent(tx, {
      establishmentId: auth.establishmentId,
      livemode: auth.livemode,
      type: 'session.completed',
      at: now,
      data: {
        id: session.id,
        establishment_id: auth.establishmentId,
        name: session.name,
        record_count: session.record_count,
        total_kg: session.total_kg,
        started_at: session.started_at,
        completed_at: session.completed_at ?? now.toISOString(), // set by the UPDATE above
      },
    });
    return session;
  });
}
