import { Logger, type LogLevel, parseCronItems, type Runner, type RunnerOptions, run, type Task, type TaskList } from 'graphile-worker';
import pg from 'pg';
import type { Config } from '../config.js';
import type { Clock, Log } from '../context.js';
import { prismaOnPool } from '../db/client.js';
import { sqlOfPool } from '../db/sql.js';
import { isDatabaseUnavailable } from '../errors.js';
import { createMailer, type Mailer, mailOptionsOf } from '../mail.js';
import type { Metrics } from '../metrics.js';
import { type FailedSignIn, PASSWORD_RESET_MAIL_TASK, type PasswordResetMail, SIGN_IN_FAILED_TASK } from '../modules/accounts/jobs.js';
import { auditFailedSignIn, sendPasswordResetMail } from '../modules/accounts/service.js';
import { detectSpikes } from '../modules/alerts/detect.js';
import { createCatalogCache } from '../modules/catalog/service.js';
import { AGREEMENTS_EXPIRING_TASK, notifyExpiringAgreements } from '../modules/donations/expiring.js';
import { attempt, type IntegrationJob, type IntegrationJobDeps } from '../modules/integrations/jobs.js';
import { vendors } from '../modules/integrations/vendors/index.js';
import { DEMAND_TASK, type DemandJob, EVENING_TASK, precomputeDemand, queueEveningForecasts } from '../modules/predict/evening.js';
import { createForecastPool, type ForecastPool } from '../modules/predict/pool.js';
import { runVerification } from '../modules/records/verification-runs.js';
import { purgeExpired } from '../modules/retention/purge.js';
import { type AttemptDeps, deliver } from '../modules/webhooks/attempt.js';
import { DISPATCH_BATCH, dispatchEvents, releaseStaleDeliveryLocks } from '../modules/webhooks/dispatch.js';
import { type DeactivationNotice, notifyDeactivated } from '../modules/webhooks/notify.js';
import { createAgents } from '../modules/webhooks/send.js';
import type { SecretBox } from '../secrets/cipher.js';
import { createCheckpointSigner } from '../secrets/signing.js';
import { inSpan, linkTo } from '../tracing/spans.js';

/**
 * Durable background work on graphile-worker, in the same PostgreSQL as the data.
 *
 * The outbox: whatever writes data (API, batch, inbound, admin CLI) writes its events to the
 * `events` table in the same transaction, and nothing else — no job, no notification, so the write
 * path pays one row. Each worker runs a dispatcher that claims waiting events and turns them into
 * deliveries and delivery jobs in one statement (`dispatchEvents`): every `pollIntervalMs`, at once
 * after this process answers a write (`wake`, from the HTTP layer), and again straight away while
 * a full batch was found. Writes made by other replicas or the CLI are therefore dispatched within
 * one poll interval.
 *
 * Jobs run on graphile-worker: added by SQL in the writer's transaction, taken by any replica with
 * `FOR UPDATE SKIP LOCKED`, one job per delivery (its job key); on PGlite without prepared statements,
 * new jobs found by polling. Why: docs/decisions/0001-graphile-worker-for-background-jobs.md.
 *
 * `useNodeTime`: due times are compared with this process's clock, the clock the retry schedule is
 * computed with, so a test that moves the clock (vi.setSystemTime) runs the 15-hour schedule at
 * once. Replicas' clocks are assumed synchronised (NTP), as for any scheduler.
 */
export type Worker = {
  /** Dispatches waiting events now (called after this process committed a write). */
  wake(): void;
  stop(): Promise<void>;
};

export type WorkerOptions = {
  databaseUrl: string;
  embedded: boolean;
  config: Config;
  log: Log;
  /** The keys that open the stored webhook signing secrets (secrets/keys.ts). */
  secrets: SecretBox;
  /** Delivery outcomes, dispatch counts and this pool's use are reported here when given. */
  metrics?: Metrics;
  version?: string;
  clock?: Clock;
  random?: () => number;
  mailer?: Mailer;
  /** How often the dispatcher looks for waiting events; `config.worker.pollIntervalMs` by default. */
  dispatchIntervalMs?: number;
  /** The process's forecast threads (services.ts); a pool of the worker's own (closed with it) when not given. */
  forecasts?: ForecastPool | undefined;
};

/**
 * The pool graphile-worker takes its connections from, with one change: a connection or a query
 * that fails because the database is away (refused, cut, shutting down: errors.ts's
 * `isDatabaseUnavailable`) fails with code 57P03 (cannot_connect_now), the original as its cause.
 *
 * Why: graphile-worker records a job's outcome (complete, fail) through a retry loop that retries
 * only the codes it knows (40001, 40P01, 57P03, EHOSTUNREACH, ETIMEDOUT). During a failover a new
 * connection is refused or cut, and an idle one is found dead ("Connection terminated
 * unexpectedly"), which it does not know: the outcome was dropped (an unhandled rejection) and
 * the job stayed locked by a live worker for graphile-worker's 4 hours — a password-reset mail
 * or a waste alert held that long, a delivery sent again by the stale-lock sweep. With 57P03 the
 * outcome is written once the new primary answers (pauses of 3 s growing to 2 min); writing it
 * twice is harmless (both statements match the job by id and by the worker holding it).
 * load/failover.test.ts shows it. Only promise calls are changed: pg-pool's own `query()` uses
 * the callback forms, and keeps its errors.
 */
function retriedByTheWorker(pool: pg.Pool): pg.Pool {
  const retryable = (err: unknown) =>
    isDatabaseUnavailable(err)
      ? Object.assign(new Error(`database unavailable: ${(err as Error).message}`, { cause: err }), { code: '57P03' })
      : err;
  const tagged = <T>(result: T): T =>
    result instanceof Promise
      ? (result.catch((err: unknown) => {
          throw retryable(err);
        }) as T)
      : result;
  const patched = new WeakSet<pg.PoolClient>();
  const connect = pool.connect.bind(pool) as (...args: unknown[]) => Promise<pg.PoolClient> | undefined;
  pool.connect = ((...args: unknown[]) => {
    if (args.length > 0) return connect(...args);
    return tagged(connect() as Promise<pg.PoolClient>).then((c) => {
      if (!patched.has(c)) {
        patched.add(c);
        const query = c.query.bind(c) as (...a: unknown[]) => unknown;
        c.query = ((...a: unknown[]) => tagged(query(...a))) as pg.PoolClient['query'];
      }
      return c;
    });
  }) as pg.Pool['connect'];
  return pool;
}

export async function startWorker(options: WorkerOptions): Promise<Worker> {
  const { config, log } = options;
  // A connection per running job, one for the dispatcher and one for the stale-lock sweep. The
  // embedded PGlite serves every connection from one session, so more jobs at once gain little
  // there: its worker runs at most 4.
  const concurrency = options.embedded ? Math.min(config.worker.concurrency, 4) : config.worker.concurrency;
  const pool = retriedByTheWorker(new pg.Pool({ connectionString: options.databaseUrl, max: concurrency + 2 }));
  options.metrics?.watchPool('worker', pool);
  pool.on('error', (err) => log.warn({ err }, 'job database connection error'));
  pool.on('connect', (client) => client.on('error', (err) => log.warn({ err }, 'job database connection error')));
  const mailer = options.mailer ?? createMailer({ ...mailOptionsOf(config), log });
  const clock = options.clock ?? (() => new Date());
  const db = prismaOnPool(pool);
  const agents = createAgents();
  const deps: AttemptDeps = {
    pool,
    clock,
    random: options.random ?? Math.random,
    policy: { production: config.env === 'production', allowPrivate: config.webhooksAllowPrivate, timeoutMs: config.webhookTimeoutMs },
    agents,
    userAgent: `Merma-Webhooks/${options.version ?? '1'} (+https://merma.app/docs/webhooks)`,
    log,
    secrets: options.secrets,
  };
  const metrics = options.metrics;
  const signer = createCheckpointSigner(options.secrets);
  const ownForecasts = options.forecasts === undefined ? createForecastPool({ threads: config.forecastThreads }) : undefined;
  const forecasts = options.forecasts ?? ownForecasts;
  const dispatch = async () => {
    const result = await dispatchEvents({ pool, clock });
    metrics?.eventsDispatched.inc(result.events);
    return result;
  };
  const dispatcher = createDispatcher(dispatch, options.dispatchIntervalMs ?? config.worker.pollIntervalMs, log);
  // What the vendors' jobs read with (modules/integrations/jobs.ts): the vendors' APIs, Odoo's
  // through the deliveries' guard since its URL is the customer's.
  const integrationDeps: IntegrationJobDeps = {
    db,
    clock,
    secrets: options.secrets,
    catalog: createCatalogCache(),
    log,
    square: config.square,
    policy: deps.policy,
    agents,
    userAgent: `Merma-Integrations/${options.version ?? '1'} (+https://merma.app/docs/integrations)`,
    wake: () => dispatcher.wake(),
  };
  const levels: Record<LogLevel, keyof Log> = { error: 'error', warning: 'warn', info: 'info', debug: 'debug' };
  // graphile-worker's messages through our logger, its scope (worker id, task, job) as a field when it has one.
  const logger = new Logger(
    (scope) => (level, message, meta) =>
      log[levels[level]]({ ...(Object.keys(scope).length > 0 ? { worker: scope } : {}), ...meta }, message),
  );
  const options_ = {
    pgPool: pool,
    concurrency,
    pollInterval: config.worker.pollIntervalMs,
    useNodeTime: true,
    noHandleSignals: true,
    noPreparedStatements: options.embedded,
    logger,
    // One recurring job, in code (no crontab file is looked for): graphile-worker runs it once per
    // period across every replica (`known_crontabs`), and skips periods missed while all were down.
    // The evening's demand forecasts are queued by another (modules/predict/evening.ts).
    parsedCronItems: parseCronItems([
      { task: 'retention.purge', match: '*/10 * * * *', identifier: 'retention.purge' },
      { task: EVENING_TASK, match: '*/10 * * * *', identifier: EVENING_TASK },
      // Daily, at 06:00 UTC: `agreement.expiring` (modules/donations/expiring.ts; sent once per agreement).
      { task: AGREEMENTS_EXPIRING_TASK, match: '0 6 * * *', identifier: AGREEMENTS_EXPIRING_TASK },
    ]),
    taskList: {
      // One span per attempt (its SQL and the HTTP exchange are its children). A root span, since
      // the event's request has long been answered, linked to that request's span when it was traced.
      'webhooks.deliver': async (payload) => {
        const { delivery_id } = payload as { delivery_id: string };
        await inSpan('webhook delivery', { attributes: { 'merma.delivery_id': delivery_id } }, async (span) => {
          const attempt = await deliver(deps, { delivery_id });
          span.setAttribute('merma.webhook.outcome', attempt?.outcome ?? 'skipped');
          if (!attempt) return;
          span.addLinks(linkTo(attempt.eventTraceparent));
          span.setAttributes({
            'merma.webhook.attempt': attempt.attempt,
            'merma.webhook.event_type': attempt.eventType,
            'merma.webhook.subscription_id': attempt.subscriptionId,
            ...(attempt.responseStatus !== null ? { 'http.response.status_code': attempt.responseStatus } : {}),
          });
          metrics?.deliveryDuration.observe({ outcome: attempt.outcome }, attempt.durationMs / 1000);
        });
      },
      'webhooks.notify_deactivated': async (payload) => notifyDeactivated({ pool, mailer, log }, payload as DeactivationNotice),
      [PASSWORD_RESET_MAIL_TASK]: async (payload) =>
        sendPasswordResetMail({ db, clock, mailer, publicUrl: config.publicUrl }, payload as PasswordResetMail),
      [SIGN_IN_FAILED_TASK]: async (payload) => auditFailedSignIn(db, payload as FailedSignIn),
      'records.verify': async (payload, helpers) => {
        await runVerification({ sql: sqlOfPool(pool), clock, signer, log }, payload as { run_id: string }, {
          number: helpers.job.attempts,
          max: helpers.job.max_attempts,
        });
      },
      // Each vendor's job (modules/integrations/vendors/index.ts), under the task name it is queued with.
      ...integrationTasks(integrationDeps),
      [AGREEMENTS_EXPIRING_TASK]: async () => {
        if ((await notifyExpiringAgreements({ sql: sqlOfPool(pool), clock })) > 0) dispatcher.wake();
      },
      'retention.purge': async () => {
        await purgeExpired({ pool, clock, log }, config.retention);
      },
      [EVENING_TASK]: async () => {
        await queueEveningForecasts({ pool, clock });
      },
      [DEMAND_TASK]: async (payload) => precomputeDemand({ db, pool, clock, forecasts }, payload as DemandJob),
      'alerts.detect': async (payload) => {
        const alerts = await detectSpikes(
          { pool, clock, minKg: config.alertMinKg },
          payload as { establishment_id: string; livemode: boolean },
        );
        if (alerts > 0) dispatcher.wake();
      },
    },
  } satisfies RunnerOptions;

  // A supervisor: when the database goes away under it, graphile-worker's runner stops with an
  // error; it is started again with a growing pause (1 s … 30 s) until it runs, so the worker
  // recovers by itself once the database is back.
  let runner: Runner | undefined;
  let stopping = false;
  let pause = 1000;
  const launch = async (): Promise<void> => {
    while (!stopping) {
      try {
        runner = await run(options_);
        pause = 1000;
        const current = runner;
        current.promise.then(
          () => {},
          (err: unknown) => {
            if (stopping) return;
            log.error({ err }, 'job worker stopped with an error; starting it again');
            setTimeout(() => void launch(), pause).unref();
          },
        );
        return;
      } catch (err) {
        if (stopping) return;
        log.error({ err, retryInMs: pause }, 'job worker could not start; trying again');
        await new Promise((r) => setTimeout(r, pause));
        pause = Math.min(pause * 2, 30_000);
      }
    }
  };
  await launch();
  dispatcher.start();
  // Every 10 s: release delivery jobs still locked by a worker that died (see releaseStaleDeliveryLocks).
  const staleAfterMs = config.webhookTimeoutMs + 30_000;
  const sweeper = setInterval(() => {
    releaseStaleDeliveryLocks(pool, staleAfterMs).then(
      (workers) => {
        if (workers.length > 0) log.warn({ workers }, 'released delivery jobs held by workers that stopped');
      },
      (err: unknown) => log.warn({ err }, 'could not check for delivery jobs held by stopped workers'),
    );
  }, 10_000);
  sweeper.unref();
  let stopped: Promise<void> | undefined;
  return {
    wake: () => dispatcher.wake(),
    /** Stops dispatching and taking jobs, waits for the running ones, then closes the pool. */
    stop() {
      stopped ??= (async () => {
        stopping = true;
        clearInterval(sweeper);
        await dispatcher.stop();
        await runner?.stop().catch(() => {});
        agents.destroy();
        mailer.close();
        await ownForecasts?.close();
        await db.$disconnect();
        await pool.end();
      })();
      return stopped;
    },
  };
}

/**
 * The vendors' tasks, one per vendor from the registry: each attempt is counted on its integration
 * when it is the last (`attempt`, modules/integrations/jobs.ts).
 */
function integrationTasks(deps: IntegrationJobDeps): TaskList {
  return Object.fromEntries(
    vendors().map(({ job }): [string, Task] => [
      job.task,
      async (payload, helpers) =>
        attempt(deps, payload as IntegrationJob, helpers, () => job.run(deps, payload as IntegrationJob, helpers)),
    ]),
  );
}

/**
 * Runs `dispatch` every `intervalMs`, and at once on `wake()`. One run at a time per process: a
 * wake during a run makes it run again when it ends, so a burst of writes costs a few dispatches,
 * not one each. A full batch runs again straight away. A failure (the database away) is logged and
 * retried at the next interval.
 */
function createDispatcher(dispatch: () => Promise<{ events: number }>, intervalMs: number, log: Log) {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  const schedule = () => {
    clearTimeout(timer);
    if (!stopped) timer = setTimeout(run, intervalMs);
  };
  function run() {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    clearTimeout(timer);
    running = (async () => {
      try {
        do {
          again = false;
          const { events } = await dispatch();
          if (events >= DISPATCH_BATCH) again = true;
        } while (again && !stopped);
      } catch (err) {
        log.warn({ err }, 'event dispatch failed; trying again at the next interval');
      } finally {
        running = undefined;
        schedule();
      }
    })();
  }
  return {
    start: run,
    wake: run,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
