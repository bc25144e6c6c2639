import pg from 'pg';
import type { Log } from '../context.js';
import { poolQuery, type Sql } from './sql.js';

/**
 * Reads that may lag behind the writes (analytics, benchmarking, forecasts, the prevention plan,
 * record lists and exports, registration session lists) on a streaming replica of the primary
 * (DATABASE_REPLICA_URL), so that a deployment that outgrows one database can add a hot standby.
 * docs/decisions/0005-reads-that-may-lag-on-a-streaming-replica.md says which reads and why.
 *
 * The replica is checked every `checkIntervalMs` (one small statement, never one per request):
 * while it is reachable and at most `maxLagMs` behind, `sql` runs there; otherwise on the primary,
 * each read so sent counted by `merma_db_replica_fallbacks_total`. A read the replica fails to
 * serve (its connection lost, the standby cancelling it for a conflict with recovery) runs again on
 * the primary at once, and the next check decides when the replica is back.
 */
export type ReplicaState = 'up' | 'lagging' | 'down';

export type ReplicaStatus = { state: ReplicaState; lagSeconds: number | null };

export type ReadReplica = {
  /** The runner for reads that may lag: the replica while it is usable, the primary otherwise. */
  sql: Sql;
  status(): ReplicaStatus;
  /** Checks the replica now (the next periodic check comes as usual). */
  check(): Promise<ReplicaStatus>;
  /** The replica's pool (for the pool gauges). */
  pool: pg.Pool;
  close(): Promise<void>;
};

/** What the replica reports to the metrics (metrics.ts, `watchReplica`). */
export type ReplicaObserver = {
  fallback(reason: 'down' | 'lagging' | 'failed'): void;
  status(status: ReplicaStatus): void;
};

/**
 * Lag in seconds: 0 when everything received is replayed (an idle primary sends nothing, so the
 * last replayed transaction's age says nothing then) or when the server is not a standby at all;
 * otherwise the age of the last replayed transaction (replay paused or slow, or the standby no
 * longer streaming). NULL before the standby replayed anything while behind: not known, not used.
 */
const LAG_SQL = `SELECT CASE
    WHEN NOT pg_is_in_recovery() THEN 0
    WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn()
         AND coalesce((SELECT status = 'streaming' FROM pg_stat_wal_receiver), false) THEN 0
    ELSE extract(epoch FROM now() - pg_last_xact_replay_timestamp())
  END::float8 AS lag`;

/** SQLSTATEs after which the same read is worth running on the primary. */
const RETRY_ON_PRIMARY = [
  /^08/, // connection exceptions
  /^57P0[1-4]$/, // the standby shutting down or not accepting connections yet
  /^40001$/, // cancelled for a conflict with recovery (the standby replaying a vacuum of rows read)
  /^53/, // insufficient resources (too many connections)
];

function worthRetrying(err: unknown): { connection: boolean } | null {
  // Not the server's answer: a connection refused, reset or lost, or the pool's connection timeout.
  if (!(err instanceof pg.DatabaseError)) return { connection: true };
  const code = err.code ?? '';
  if (RETRY_ON_PRIMARY.some((c) => c.test(code))) return { connection: /^(08|57P)/.test(code) };
  return null;
}

export function createReadReplica(options: {
  url: string;
  maxLagMs: number;
  /** The primary's runner, for the reads the replica cannot serve. */
  primary: Sql;
  poolSize: number;
  observer: ReplicaObserver;
  log: Pick<Log, 'info' | 'warn'>;
  checkIntervalMs?: number;
}): ReadReplica {
  const { primary, observer, log, maxLagMs } = options;
  const checkIntervalMs = options.checkIntervalMs ?? 1000;
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize,
    // A replica that does not answer must not hold a request for long: the read goes to the primary.
    connectionTimeoutMillis: 2000,
    idleTimeoutMillis: 30_000,
  });
  // An idle connection that drops (the standby restarting) is discarded and replaced by the pool.
  pool.on('error', () => {});

  // Unknown until the first check: the primary serves meanwhile.
  let current: ReplicaStatus = { state: 'down', lagSeconds: null };
  let checking: Promise<ReplicaStatus> | undefined;
  let closed = false;

  const set = (next: ReplicaStatus, err?: unknown) => {
    if (next.state !== current.state) {
      const fields = { replica: next.state, lagSeconds: next.lagSeconds, maxLagSeconds: maxLagMs / 1000 };
      if (next.state === 'up') log.info(fields, 'reads that may lag go to the replica');
      else log.warn({ ...fields, ...(err ? { err } : {}) }, 'reads that may lag go to the primary: the replica is unusable');
    }
    current = next;
    observer.status(next);
  };

  const check = (): Promise<ReplicaStatus> => {
    checking ??= (async () => {
      try {
        const { rows } = await pool.query<{ lag: number | null }>({ text: LAG_SQL, query_timeout: 2000 } as pg.QueryConfig);
        const lag = rows[0]?.lag ?? null;
        set({ state: lag !== null && lag * 1000 <= maxLagMs ? 'up' : 'lagging', lagSeconds: lag === null ? null : Math.max(0, lag) });
      } catch (err) {
        set({ state: 'down', lagSeconds: current.lagSeconds }, err);
      }
      return current;
    })().finally(() => {
      checking = undefined;
    });
    return checking;
  };

  void check();
  const timer = setInterval(() => {
    if (!closed) void check();
  }, checkIntervalMs);
  timer.unref();

  const sql: Sql = {
    async query(text, values, options) {
      const state = current.state;
      if (state !== 'up') {
        observer.fallback(state);
        return primary.query(text, values, options);
      }
      try {
        // A replica is always a real PostgreSQL: its connections may hold prepared statements.
        return (await poolQuery(pool, text, values, options, true)) as never;
      } catch (err) {
        const retry = worthRetrying(err);
        if (!retry) throw err;
        if (retry.connection && current.state === 'up') set({ state: 'down', lagSeconds: current.lagSeconds }, err);
        observer.fallback('failed');
        return primary.query(text, values, options);
      }
    },
  };

  return {
    sql,
    pool,
    status: () => current,
    check,
    async close() {
      closed = true;
      clearInterval(timer);
      await checking?.catch(() => {});
      await pool.end();
    },
  };
}
