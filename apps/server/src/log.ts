import { pino } from 'pino';
import pretty from 'pino-pretty';
import type { Config } from './config.js';
import { traceLogFields } from './tracing/spans.js';

export type Logger = pino.Logger;

/**
 * The process's one logger. main.ts creates it; serve.ts hands it to Fastify (request lines), the
 * database opener (boot and migrations), the job worker (graphile-worker's own messages, through
 * its logger adapter) and the mailer, so an operator reads one format from one stream.
 *
 * JSON lines (pino's format: `level`, `time`, `msg` and fields) unless the output is a terminal in
 * development, where pino-pretty prints coloured, human-readable lines. Pretty-printing runs in
 * this thread on purpose (a stream, not a worker-thread transport): it is only for a developer's
 * terminal, and a crash at boot still prints everything before it.
 *
 * Secrets never reach a log: the Authorization header is censored wherever a request's headers are
 * logged, and nothing logs an API key or a webhook secret. Errors are logged as `err` (message,
 * type, stack as one JSON string), never printed raw.
 *
 * When traces are exported, a line written inside a span carries the span's `trace_id`, `span_id`
 * and `trace_flags` (a pino mixin reading the active OpenTelemetry context).
 */
export function createLogger(
  config: Pick<Config, 'env' | 'logLevel'> & Partial<Pick<Config, 'tracing'>>,
  options: { stream?: NodeJS.WritableStream; level?: string; pretty?: boolean } = {},
): Logger {
  const opts: pino.LoggerOptions = {
    level: options.level ?? config.logLevel,
    base: { pid: process.pid },
    redact: { paths: ['req.headers.authorization', 'headers.authorization', 'authorization'], censor: '[redacted]' },
    serializers: { err: pino.stdSerializers.err },
    ...(config.tracing ? { mixin: traceLogFields } : {}),
  };
  const usePretty = options.pretty ?? (!options.stream && config.env === 'development' && process.stdout.isTTY === true);
  if (usePretty) {
    return pino(opts, pretty({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', singleLine: true }));
  }
  return options.stream ? pino(opts, options.stream as pino.DestinationStream) : pino(opts);
}

/**
 * A request's URL as logs and traces may keep it. The dashboard's pages and calls carry one-time
 * tokens in their query (`/dashboard/invitation?token=…`, `accounts.invitation?input=…`), so theirs is
 * left out; an Odoo integration's URL holds its credential in the path, so only its last four
 * characters are kept (`/api/v1/integrations/odoo/mit_…a1B2`), as the dashboard shows it.
 */
export function urlForLogs(url: string): string {
  if (/^\/(trpc|dashboard)(\/|\?|$)/.test(url)) return url.split('?')[0] as string;
  return url.replace(
    /^(\/api\/v1\/integrations\/odoo\/)([^/?#]*)/i,
    (_, prefix: string, token: string) => `${prefix}${token.length > 8 ? `${token.slice(0, 4)}…${token.slice(-4)}` : '…'}`,
  );
}
