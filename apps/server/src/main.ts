import { readFileSync } from 'node:fs';
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
