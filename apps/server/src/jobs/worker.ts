import { Logger, type LogLevel, type Runner, type RunnerOptions, run } from 'graphile-worker';
import pg from 'pg';
import type { Config } from '../config.js';
import { detectSpikes } from './alerts.js';
import { createMailer, type Mailer } from './mail.js';
import { createAgents } from './send.js';
import { deliver, fanOut, notifyDeactivated, type WebhookJobDeps } from './webhooks.js';

/**
 * Durable background work on graphile-worker, in the same PostgreSQL as the data.
 *
 * Why graphile-worker (over pg-boss): jobs are enqueued by SQL (`graphile_worker.add_job`), so the
 * `events` trigger enqueues in the very transaction of the change that caused the event — a
 * rolled-back write enqueues nothing and a committed one cannot lose its job, whatever code path
 * wrote it (API, batch, inbound, admin CLI). Jobs are taken with `FOR UPDATE SKIP LOCKED`, so any
 * number of replicas run workers on one database and each job runs on one of them at a time; a job
 * key per delivery keeps one job per delivery; new jobs wake idle workers through LISTEN/NOTIFY and
 * jobs left by a crashed worker are picked up again. It also runs on the embedded PGlite (without
 * prepared statements, which PGlite's connections share).
 *
 * `useNodeTime`: due times are compared with this process's clock, the clock the retry schedule is
 * computed with, so a test that moves the clock (vi.setSystemTime) runs the 15-hour schedule at
 * once. Replicas' clocks are assumed synchronised (NTP), as for any scheduler.
 */
export type Worker = { stop(): Promise<void> };

type Log = {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
};

export type WorkerOptions = {
  databaseUrl: string;
  embedded: boolean;
  config: Config;
  log: Log;
  version?: string;
  clock?: () => Date;
  random?: () => number;
  mailer?: Mailer;
};

export async function startWorker(options: WorkerOptions): Promise<Worker> {
  const { config, log } = options;
  const concurrency = config.worker.concurrency;
  const pool = new pg.Pool({ connectionString: options.databaseUrl, max: Math.min(concurrency + 2, options.embedded ? 4 : 20) });
  pool.on('error', (err) => log.warn({ err }, 'job database connection error'));
  pool.on('connect', (client) => client.on('error', (err) => log.warn({ err }, 'job database connection error')));
  const mailer = options.mailer ?? createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, log });
  const clock = options.clock ?? (() => new Date());
  const agents = createAgents();
  const deps: WebhookJobDeps = {
    pool,
    clock,
    random: options.random ?? Math.random,
    policy: { production: config.env === 'production', allowPrivate: config.webhooksAllowPrivate, timeoutMs: config.webhookTimeoutMs },
    agents,
    userAgent: `Merma-Webhooks/${options.version ?? '1'} (+https://merma.app/docs/webhooks)`,
    mailer,
    log,
  };
  const levels: Record<LogLevel, keyof Log> = { error: 'error', warning: 'warn', info: 'info', debug: 'debug' };
  const logger = new Logger((scope) => (level, message, meta) => log[levels[level]]({ worker: scope, ...meta }, message));
  const options_ = {
    pgPool: pool,
    concurrency,
    pollInterval: config.worker.pollIntervalMs,
    useNodeTime: true,
    noHandleSignals: true,
    noPreparedStatements: options.embedded,
    logger,
    taskList: {
      'webhooks.fanout': async (payload) => fanOut(deps, payload as { event_ids: string[] }),
      'webhooks.deliver': async (payload) => deliver(deps, payload as { delivery_id: string }),
      'webhooks.notify_deactivated': async (payload) =>
        notifyDeactivated(deps, payload as { subscription_id: string; reason: 'gone' | 'failures'; last_error: string | null }),
      'alerts.detect': async (payload) => {
        await detectSpikes({ pool, clock, minKg: config.alertMinKg }, payload as { establishment_id: string; livemode: boolean });
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
  let stopped: Promise<void> | undefined;
  return {
    /** Stops taking jobs, waits for the running ones, then closes the pool. */
    stop() {
      stopped ??= (async () => {
        stopping = true;
        await runner?.stop().catch(() => {});
        agents.destroy();
        mailer.close();
        await pool.end();
      })();
      return stopped;
    },
  };
}
