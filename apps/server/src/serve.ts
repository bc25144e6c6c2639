import type { Config } from './config.js';
import { openDatabase } from './db/database.js';
import { buildApp } from './http/app.js';
import { startWorker, type Worker } from './jobs/worker.js';
import type { Logger } from './log.js';
import { createMetrics, serveMetrics } from './metrics.js';
import { recordServerUrl } from './running-server.js';
import { createServices } from './services.js';
import type { Tracing } from './tracing/sdk.js';

/**
 * Runs the service: database (migrations at boot), the services, HTTP, the job worker, the metrics
 * port, and graceful shutdown. main.ts has read the configuration, made the logger and started
 * tracing before importing this module.
 */
export async function serve(options: { config: Config; log: Logger; version: string; tracing?: Tracing }) {
  const { config, log, version, tracing } = options;
  const database = await openDatabase(config, { migrate: config.migrateOnBoot, log });
  const metrics = createMetrics();
  const services = createServices({
    config,
    db: database.prisma,
    log,
    metrics,
    secrets: database.secrets,
    namedStatements: !database.embedded,
    listen: !database.embedded,
  });
  // Every replica runs a worker unless WORKER_CONCURRENCY=0 (then other replicas take the jobs);
  // this process's writes wake its own dispatcher.
  let worker: Worker | undefined;
  const app = await buildApp(services, { version, afterWrite: () => worker?.wake() });
  worker =
    config.worker.concurrency > 0
      ? await startWorker({
          databaseUrl: database.url,
          embedded: database.embedded,
          config,
          log: log.child({ component: 'worker' }),
          metrics,
          secrets: database.secrets,
          version,
          forecasts: services.forecasts,
        })
      : undefined;
  const metricsServer = config.metrics.port > 0 ? await serveMetrics(metrics, config.metrics) : undefined;

  let forgetAddress: (() => void) | undefined;
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    log.info({ signal }, 'shutting down: draining in-flight requests and jobs');
    const force = setTimeout(() => process.exit(1), 25_000);
    force.unref();
    await app.close(); // stops accepting, waits for in-flight requests
    await worker?.stop(); // takes no new job, waits for running ones (a delivery lasts at most WEBHOOK_TIMEOUT_MS)
    await metricsServer?.close();
    forgetAddress?.();
    await database.close();
    // The last spans (the drained requests and jobs) are exported before the process ends.
    await tracing?.shutdown().catch((err: unknown) => log.warn({ err }, 'the last traces could not be exported'));
    process.exit(0);
  };
  // A background promise that fails (a library's job bookkeeping while the database is away) is
  // logged; requests and jobs handle their own errors, and the process keeps serving.
  process.on('unhandledRejection', (err) => log.error({ err }, 'unhandled rejection'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  const address = await app.listen({ host: config.host, port: config.port });
  // Where people reach it: PUBLIC_URL when set, else this process's own address (its port, even
  // when PORT=0 chose one).
  const base = config.publicUrlSet
    ? config.publicUrl
    : address.replace('://0.0.0.0:', '://localhost:').replace('://[::]:', '://localhost:');
  try {
    forgetAddress = recordServerUrl(config.dataDir, base);
  } catch (err) {
    // Only merma-admin's links depend on it (they fall back to PUBLIC_URL or PORT).
    log.warn({ err, dataDir: config.dataDir }, 'could not record the server address for merma-admin');
  }
  log.info(
    {
      version,
      database: database.embedded ? `embedded (PGlite, ${config.dataDir})` : 'PostgreSQL',
      dashboard: `${base}/dashboard`,
      api: `${base}/api/v1`,
      docs: `${base}/docs`,
      metrics: metricsServer ? `http://${config.metrics.host}:${metricsServer.port}/metrics` : 'off',
      traces: tracing ? 'OpenTelemetry (OTLP)' : 'off',
    },
    'Merma API ready',
  );
}
