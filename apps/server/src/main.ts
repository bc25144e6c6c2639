import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { type Config, ConfigError, loadConfig } from './config.js';
import { createLogger, type Logger } from './log.js';

/**
 * The server's entry point: configuration, the one logger, tracing, then the service (serve.ts).
 *
 * The service is imported only after tracing has started: OpenTelemetry instruments `pg` as it is
 * loaded, so nothing that loads `pg` may be imported statically here. Without an OTLP endpoint
 * the OpenTelemetry SDK is not even loaded.
 */
async function main(config: Config, log: Logger) {
  const version = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  const tracing = config.tracing ? (await import('./tracing/sdk.js')).startTracing(config.tracing, version) : undefined;
  const { serve } = await import('./serve.js');
  await serve({ config, log, version, tracing });
}

/*
 * V8's allocation-site pretenuring off, before the service allocates anything. V8 moves an
 * allocation site's objects straight to the old generation when many of them outlive a young
 * collection; a request's objects do, since the request waits on the database with them alive,
 * though they are garbage a millisecond later. Tenured, they filled the old generation and made
 * every young collection trace them: under `pnpm bench`'s list load, young collections of 11–13 ms
 * every ~90 ms and a p99 of 13 ms against the bare baseline's 4 ms; without pretenuring, 0.3 ms
 * and 4 ms (bench/README.md). The flag is read at each collection, so setting it here takes effect
 * for the whole service; the benchmark's baseline runs with the same flag.
 */
setFlagsFromString('--no-allocation-site-pretenuring');

let config: Config;
try {
  config = loadConfig();
} catch (err) {
  // Before the logger exists (its level is configuration): the message alone, no stack.
  console.error(err instanceof ConfigError ? err.message : String(err));
  process.exit(1);
}
const log = createLogger(config);
main(config, log).catch((err: unknown) => {
  log.fatal({ err }, 'the service could not start');
  log.flush?.();
  process.exit(1);
});
