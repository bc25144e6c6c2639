import { FastifyOtelInstrumentation } from '@fastify/otel';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import type { Config } from '../config.js';
import { urlForLogs } from '../log.js';

export type Tracing = { shutdown(): Promise<void> };

/** Probes and the metrics scrape: frequent, uninteresting, and not worth a trace each. */
const UNTRACED = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * Starts OpenTelemetry tracing (OTEL_EXPORTER_OTLP_ENDPOINT set). main.ts calls this before it
 * imports the rest of the server, because `pg` is instrumented as it loads: it is a CommonJS
 * module, and Node loads it through `require` (which the instrumentation hooks) even when an ES
 * module imports it, so no ESM loader hook is needed.
 *
 * What is traced:
 * - each HTTP request (@fastify/otel): a server span named `<METHOD> <route>`, continuing the
 *   caller's trace when the request carries a W3C `traceparent`; probes and /metrics are not traced;
 * - each API procedure (http/binding.ts): `procedure <name>`, with the establishment;
 * - the SQL (instrumentation-pg, Prisma's and our own queries alike): statements without their
 *   values, and only under another span, so the worker's polling adds no trace of its own;
 * - each webhook delivery attempt (jobs/worker.ts), with the HTTP exchange as a client span, linked
 *   to the request that wrote the event (the outbox keeps its traceparent, events/outbox.ts).
 * Log lines written inside a span carry its `trace_id` and `span_id` (log.ts).
 *
 * Only traces are exported: metrics stay on Prometheus' /metrics and logs on stdout. Everything
 * else is the SDK's standard environment, read by the SDK itself: OTEL_EXPORTER_OTLP_PROTOCOL
 * (http/protobuf by default; http/json, grpc), OTEL_EXPORTER_OTLP_HEADERS, OTEL_TRACES_SAMPLER and
 * OTEL_TRACES_SAMPLER_ARG, OTEL_RESOURCE_ATTRIBUTES, OTEL_PROPAGATORS.
 */
export function startTracing(config: NonNullable<Config['tracing']>, version: string): Tracing {
  const sdk = new NodeSDK({
    serviceName: config.serviceName,
    resource: defaultResource().merge(resourceFromAttributes({ 'service.version': version })),
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new PgInstrumentation({ requireParentSpan: true }),
      new FastifyOtelInstrumentation({
        registerOnInitialization: true,
        // A span for the request and one for its handler; not one per hook.
        instrumentHooks: false,
        ignorePaths: (route) => UNTRACED.has(route.url.split('?')[0] ?? ''),
        requestHook: (span, request) => {
          span.updateName(`${request.method} ${request.routeOptions.url ?? request.url}`);
          // The URL as the logs keep it: no one-time token, no integration credential (log.ts).
          span.setAttribute('url.path', urlForLogs(request.url));
        },
      }),
    ],
  });
  sdk.start();
  return { shutdown: () => sdk.shutdown() };
}
