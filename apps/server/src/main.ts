import { readFileSync } from 'node:fs';
import { ConfigError, loadConfig } from './config.js';
import { openDatabase } from './db/database.js';
import { buildApp } from './http/app.js';
import { startWorker, type Worker } from './jobs/worker.js';

/** Starts the service: configuration, database (migrations at boot), HTTP, graceful shutdown. */
async function main() {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  const version = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  const bootLog = { info: (obj: object, msg?: string) => console.error(JSON.stringify({ level: 'info', msg, ...obj })) };
  const database = await openDatabase(config, { migrate: config.migrateOnBoot, log: bootLog });
  // Every replica runs a worker unless WORKER_CONCURRENCY=0 (then other replicas take the jobs);
  // this process's writes wake its own dispatcher.
  let worker: Worker | undefined;
  const app = await buildApp({ config, db: database.prisma, version, afterWrite: () => worker?.wake() });
  worker =
    config.worker.concurrency > 0
      ? await startWorker({ databaseUrl: database.url, embedded: database.embedded, config, log: app.log, version })
      : undefined;

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: draining in-flight requests and jobs');
    const force = setTimeout(() => process.exit(1), 25_000);
    force.unref();
    await app.close(); // stops accepting, waits for in-flight requests
    await worker?.stop(); // takes no new job, waits for running ones (a delivery lasts at most WEBHOOK_TIMEOUT_MS)
    await database.close();
    process.exit(0);
  };
  // A background promise that fails (a library's job bookkeeping while the database is away) is
  // logged; requests and jobs handle their own errors, and the process keeps serving.
  process.on('unhandledRejection', (err) => app.log.error({ err }, 'unhandled rejection'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  await app.listen({ host: config.host, port: config.port });
  app.log.info({ database: database.embedded ? `embedded (PGlite, ${config.dataDir})` : 'PostgreSQL', docs: `/docs` }, 'Merma API ready');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
