import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type pg from 'pg';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { ReplicaObserver, ReplicaState } from './db/replica.js';

/**
 * The process's Prometheus metrics (prom-client), served by serve.ts on METRICS_PORT and, when
 * METRICS_TOKEN is set, at /metrics on the API port behind that token. One registry per process
 * (not prom-client's global one), so tests build as many as they like.
 *
 * Counters and histograms count what this process did (requests it answered, deliveries it
 * attempted): Prometheus sums them over replicas. Gauges read from PostgreSQL when scraped (outbox
 * backlog, job queue, records stored) describe the whole service, so every replica reports the same
 * value: aggregate them with max(), not sum(). docs/grafana-dashboard.json does.
 */
export type Metrics = ReturnType<typeof createMetrics>;

const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'merma_' });
  const pools = new Map<string, pg.Pool>();
  let keyChangesHeard: () => boolean = () => false;
  let source: pg.Pool | undefined;

  const metrics = {
    registry,
    httpDuration: new Histogram({
      name: 'merma_http_request_duration_seconds',
      // Its _count is the number of requests (no separate counter: one observation per request).
      help: 'HTTP requests answered and the time from arrival to answer, by method, route (the route pattern, not the URL) and status code.',
      labelNames: ['method', 'route', 'status'] as const,
      buckets: DURATION_BUCKETS,
      registers: [registry],
    }),
    rateLimited: new Counter({
      name: 'merma_rate_limit_rejections_total',
      help: 'Requests refused with 429 by the per-key rate limits, by bucket (general, records, analytics).',
      labelNames: ['bucket'] as const,
      registers: [registry],
    }),
    deliveryDuration: new Histogram({
      name: 'merma_webhook_delivery_duration_seconds',
      help: 'Webhook delivery attempts made by this process and how long the receiver took to answer (or to fail), by outcome: succeeded, retrying (failed, a retry is scheduled), failed (no retry left, or a single manual attempt), gone (410).',
      labelNames: ['outcome'] as const,
      buckets: DURATION_BUCKETS,
      registers: [registry],
    }),
    eventsDispatched: new Counter({
      name: 'merma_outbox_events_dispatched_total',
      help: 'Outbox events turned into webhook deliveries by this process.',
      registers: [registry],
    }),
    replicaFallbacks: new Counter({
      name: 'merma_db_replica_fallbacks_total',
      help: 'Reads that may lag sent to the primary instead of the streaming replica (DATABASE_REPLICA_URL), by reason: down (unreachable at the last check), lagging (further behind than DATABASE_REPLICA_MAX_LAG_SECONDS), failed (the replica failed this read; it ran again on the primary).',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    rateLimitsShared: new Gauge({
      name: 'merma_rate_limits_shared',
      help: 'Whether the rate limits of this process are shared with the other replicas through Redis (1, REDIS_URL set) or kept in its memory alone (0: N replicas allow N times the limits).',
      registers: [registry],
    }),
    apiKeyChangesHeard: new Gauge({
      name: 'merma_api_key_changes_heard',
      help: 'Whether this process hears changes to API keys as they commit (1: its channel on PostgreSQL heard its own ping within API_KEY_CACHE_TTL_MS, and verified keys are cached up to 10 minutes) or not (0: the embedded database, a lost connection, a pooler in transaction mode; keys are read again every API_KEY_CACHE_TTL_MS). Revocations take effect within API_KEY_CACHE_TTL_MS either way.',
      registers: [registry],
      collect() {
        this.set(keyChangesHeard() ? 1 : 0);
      },
    }),
    /** Reports whether the API-key cache hears changes (auth/caller-changes.ts) as merma_api_key_changes_heard. */
    watchKeyChanges(heard: () => boolean) {
      keyChangesHeard = heard;
    },
    /** Reports a connection pool's use as merma_db_pool_connections{pool=name}. */
    watchPool(name: string, pool: pg.Pool) {
      pools.set(name, pool);
    },
    /** The pool the service-wide gauges (outbox, queue, records) read from when scraped. */
    readFrom(pool: pg.Pool) {
      source = pool;
    },
  };

  new Gauge({
    name: 'merma_db_pool_connections',
    help: 'Database connections of each pool of this process: in use, idle, and requests waiting for one.',
    labelNames: ['pool', 'state'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [name, pool] of pools) {
        this.set({ pool: name, state: 'in_use' }, pool.totalCount - pool.idleCount);
        this.set({ pool: name, state: 'idle' }, pool.idleCount);
        this.set({ pool: name, state: 'waiting' }, pool.waitingCount);
      }
    },
  });

  // The replica's gauges exist only when one is configured (a state of "down" without a replica
  // would page someone for nothing).
  let replicaGauges: { state: Gauge<'state'>; lag: Gauge } | undefined;
  /** What the read replica (db/replica.ts) reports: its fallbacks and, at each check, its state and lag. */
  const replicaObserver = (): ReplicaObserver => {
    replicaGauges ??= {
      state: new Gauge({
        name: 'merma_db_replica_state',
        help: 'The streaming replica as last checked (every second): 1 for its state (up: serving the reads that may lag; lagging: further behind than DATABASE_REPLICA_MAX_LAG_SECONDS; down: unreachable), 0 for the others.',
        labelNames: ['state'] as const,
        registers: [registry],
      }),
      lag: new Gauge({
        name: 'merma_db_replica_lag_seconds',
        help: 'How far the streaming replica was behind the primary at its last successful check (0 when it had replayed everything it received).',
        registers: [registry],
      }),
    };
    const gauges = replicaGauges;
    return {
      fallback: (reason) => metrics.replicaFallbacks.inc({ reason }),
      status({ state, lagSeconds }) {
        for (const s of ['up', 'lagging', 'down'] satisfies ReplicaState[]) gauges.state.set({ state: s }, s === state ? 1 : 0);
        if (lagSeconds !== null) gauges.lag.set(lagSeconds);
      },
    };
  };

  // The service-wide gauges, read in one statement per scrape (`scrape`; each part is an index
  // scan or a scan of a small table: waiting events, queued jobs, one chain head per establishment
  // and mode).
  const backlog = new Gauge({
    name: 'merma_outbox_backlog_events',
    help: 'Outbox events waiting to be dispatched to webhook subscriptions (whole service).',
    registers: [registry],
  });
  const oldest = new Gauge({
    name: 'merma_outbox_oldest_waiting_seconds',
    help: 'Age of the oldest outbox event still waiting to be dispatched; 0 when none waits (whole service).',
    registers: [registry],
  });
  const queue = new Gauge({
    name: 'merma_job_queue_depth',
    help: 'Jobs in the queue by task and state: due (waiting for a worker), scheduled (a retry later), running (whole service).',
    labelNames: ['task', 'state'] as const,
    registers: [registry],
  });
  const records = new Gauge({
    name: 'merma_records_stored',
    help: 'Waste records stored, by mode (live, test), superseded versions included (whole service).',
    labelNames: ['mode'] as const,
    registers: [registry],
  });
  /** The exposition text, the service-wide gauges read first (they keep their values if the database is away). */
  const scrape = async (): Promise<string> => {
    const s = await readSnapshot(source);
    if (s) {
      backlog.set(s.backlog);
      oldest.set(s.oldestSeconds);
      queue.reset();
      for (const j of s.jobs) queue.set({ task: j.task, state: j.state }, j.count);
      records.set({ mode: 'live' }, s.records.live);
      records.set({ mode: 'test' }, s.records.test);
    }
    return registry.metrics();
  };
  return { ...metrics, scrape, replicaObserver };
}

type ServiceSnapshot = {
  backlog: number;
  oldestSeconds: number;
  jobs: { task: string; state: string; count: number }[];
  records: { live: number; test: number };
};

async function readSnapshot(pool: pg.Pool | undefined): Promise<ServiceSnapshot | null> {
  if (!pool) return null;
  try {
    const { rows } = await pool.query<{
      backlog: number;
      oldest: number;
      jobs: { task: string; state: string; count: number }[] | null;
      live: number;
      test: number;
    }>(
      `SELECT
         (SELECT count(*) FROM events WHERE dispatched_at IS NULL)::int AS backlog,
         coalesce((SELECT extract(epoch FROM now() - min(created_at)) FROM events WHERE dispatched_at IS NULL), 0)::float8 AS oldest,
         (SELECT json_agg(json_build_object('task', task, 'state', state, 'count', n)) FROM (
            SELECT task_identifier AS task,
              CASE WHEN locked_at IS NOT NULL THEN 'running' WHEN run_at <= now() THEN 'due' ELSE 'scheduled' END AS state,
              count(*)::int AS n
            FROM graphile_worker.jobs GROUP BY 1, 2) q) AS jobs,
         coalesce((SELECT sum(seq) FROM record_chain_heads WHERE livemode), 0)::float8 AS live,
         coalesce((SELECT sum(seq) FROM record_chain_heads WHERE NOT livemode), 0)::float8 AS test`,
    );
    const r = rows[0];
    if (!r) return null;
    return { backlog: r.backlog, oldestSeconds: Math.max(0, r.oldest), jobs: r.jobs ?? [], records: { live: r.live, test: r.test } };
  } catch {
    // The database away: these gauges keep their last values; /readyz and the pool gauges say why.
    return null;
  }
}

/**
 * The metrics' own listener (METRICS_PORT): GET /metrics only, so the port can be opened to the
 * Prometheus scraper without exposing the API, and the API's port without exposing the metrics.
 */
export async function serveMetrics(
  metrics: Metrics,
  at: { host: string; port: number },
): Promise<{ port: number; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: the metrics are at GET /metrics\n');
      return;
    }
    metrics.scrape().then(
      (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      (err: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics unavailable: ${(err as Error).message}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(at.port, at.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
