import { randomUUID } from 'node:crypto';
import { encodeKeysetCursor, type KeysetPosition } from '@merma/schema';
import type { AuditAction, AuditEntry, AuditPage } from '@merma/schema/dashboard';
import type { Clock } from '../../context.js';
import type { Db, DbTx } from '../../db/client.js';
import { inTransaction } from '../../db/transaction.js';
import { Prisma } from '../../generated/prisma/client.ts';

/**
 * The audit log: who created or revoked a key, changed a webhook, invited or removed a member or
 * signed in, when and from which IP. An entry is written in the same transaction as the change it
 * describes, so there is no change without its entry. `details` never holds a secret: key entries
 * carry the redacted key, webhook entries the URL and events.
 */
export type Actor = { userId: string | null; email: string; ip: string | null };

/** One entry of the audit log, as a change describes it (its time is the change's). */
export type AuditEntryInput = {
  organizationId: string;
  actor: Actor | null;
  action: AuditAction;
  target?: string | null;
  establishmentId?: string | null;
  details?: Record<string, unknown>;
};

/** Writes one entry: the one writer of `audit_events` rows (`audited` below is the way a change gets its entries). */
export async function recordAudit(db: DbTx, entry: AuditEntryInput & { now: Date }): Promise<void> {
  await db.auditEvent.create({
    data: {
      id: randomUUID(),
      organization_id: entry.organizationId,
      actor_user_id: entry.actor?.userId ?? null,
      actor_email: entry.actor?.email ?? null,
      ip: entry.actor?.ip ?? null,
      action: entry.action,
      target: entry.target ?? null,
      establishment_id: entry.establishmentId ?? null,
      details: (entry.details ?? {}) as Prisma.InputJsonObject,
      created_at: entry.now,
    },
  });
}

/**
 * The one idiom for a change and its audit: runs `change` and writes the entries `describe` makes of
 * its result (one, several, or none when the change did not happen) in one transaction, so that
 * neither exists without the other; each entry is dated with the change's `now`, read from `clock`
 * once the transaction has begun. The dashboard's procedures reach it through
 * trpc/dashboard-base.ts; the services the operator's CLI shares (accounts, team) call it
 * directly. Secrets never go into `details`. The transaction has the service's one policy
 * (db/transaction.ts: 10 s to start, 30 s to run), not Prisma's 5-second default, which a change
 * carrying a 10 MiB signed PDF into the embedded PostgreSQL can pass on a loaded machine.
 */
export function audited<T>(
  deps: { db: Db; clock: Clock },
  change: (tx: DbTx, now: Date) => Promise<T>,
  describe: (result: T) => AuditEntryInput | AuditEntryInput[],
): Promise<T> {
  return inTransaction(deps.db, async (tx) => {
    const now = deps.clock();
    return auditedIn(tx, now, () => change(tx, now), describe);
  });
}

/** `audited` inside a transaction the caller already holds (`tx`), for a service that is one step of it. */
export async function auditedIn<T>(
  tx: DbTx,
  now: Date,
  change: () => Promise<T>,
  describe: (result: T) => AuditEntryInput | AuditEntryInput[],
): Promise<T> {
  const result = await change();
  const described = describe(result);
  for (const entry of Array.isArray(described) ? described : [described]) await recordAudit(tx, { ...entry, now });
  return result;
}

type Row = {
  id: string;
  action: string;
  actor_user_id: string | null;
  actor_email: string | null;
  target: string | null;
  establishment_id: string | null;
  ip: string | null;
  details: Record<string, unknown>;
  created_at: Date;
};

/**
 * Newest first, by (created_at, id) keyset: `cursor` is the position of the last entry of the
 * previous page, as `AuditQuery` parsed it from its `next_cursor` (@merma/schema's cursor.ts).
 *
 * Filters: `action`; `actor`, an e-mail compared without case (`lower(actor_email)`, as the index
 * has it); `from`/`to`, whole days read in `time_zone` (UTC by default), `to` included. Each is a
 * plain condition on a column of an index that ends in (created_at DESC, id DESC) — the
 * organisation's, or its action's or actor's (migration 20261127100000) — so a page reads its
 * entries in order from an index instead of sorting the organisation's whole log.
 */
export async function listAudit(
  db: DbTx,
  organizationId: string,
  query: {
    limit: number;
    cursor?: KeysetPosition | undefined;
    actor?: string | undefined;
    action?: AuditAction | undefined;
    from?: string | undefined;
    to?: string | undefined;
    time_zone?: string | undefined;
  },
): Promise<AuditPage> {
  const after = query.cursor ?? null;
  const zone = query.time_zone ?? 'UTC';
  const conditions = [
    Prisma.sql`organization_id = ${organizationId}::uuid`,
    query.action ? Prisma.sql`action = ${query.action}` : null,
    query.actor ? Prisma.sql`lower(actor_email) = lower(${query.actor})` : null,
    query.from ? Prisma.sql`created_at >= (${query.from}::date)::timestamp AT TIME ZONE ${zone}` : null,
    query.to ? Prisma.sql`created_at < (${query.to}::date + 1)::timestamp AT TIME ZONE ${zone}` : null,
    after ? Prisma.sql`(created_at, id) < (${after.at}::timestamptz, ${after.id}::uuid)` : null,
  ].filter((c) => c !== null);
  const rows = await db.$queryRaw<Row[]>`
    SELECT id::text, action, actor_user_id::text, actor_email, target, establishment_id::text, ip, details, created_at
    FROM audit_events
    WHERE ${Prisma.join(conditions, ' AND ')}
    ORDER BY created_at DESC, id DESC
    LIMIT ${query.limit + 1}`;
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    entries: page.map(toEntry),
    next_cursor: rows.length > query.limit && last ? encodeKeysetCursor(last.created_at, last.id) : null,
  };
}

function toEntry(r: Row): AuditEntry {
  return {
    id: r.id,
    action: r.action as AuditAction,
    actor: r.actor_email === null ? null : { id: r.actor_user_id, email: r.actor_email },
    target: r.target,
    establishment_id: r.establishment_id,
    ip: r.ip,
    details: r.details,
    created_at: r.created_at.toISOString(),
  };
}
