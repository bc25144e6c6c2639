import { type Attributes, type Link, type Span, type SpanKind, SpanStatusCode, TraceFlags, trace } from '@opentelemetry/api';

/**
 * The service's own spans, through the OpenTelemetry API only. Until tracing/sdk.ts registers a
 * provider (OTEL_EXPORTER_OTLP_ENDPOINT set), the API's tracer is a no-op: these calls cost a few
 * object allocations and export nothing.
 */
const tracer = trace.getTracer('merma');

/**
 * Runs `fn` inside a new active span (so the SQL it runs becomes the span's children) and ends the
 * span when `fn` settles. A throw is recorded on the span; it marks the span as failed unless
 * `expected` says the error is an ordinary answer (a 4xx: the caller's mistake, not ours).
 */
export function inSpan<T>(
  name: string,
  options: { kind?: SpanKind; attributes?: Attributes; expected?: (err: unknown) => boolean },
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  return tracer.startActiveSpan(name, { kind: options.kind, attributes: options.attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      if (err instanceof Error) span.recordException(err);
      if (!options.expected?.(err)) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
      }
      throw err;
    } finally {
      span.end();
    }
  });
}

/**
 * The active span's ids as log fields (`trace_id`, `span_id`, `trace_flags`, the names
 * OpenTelemetry's log correlation uses), or nothing outside a span: a log line and its trace are
 * found from each other.
 */
export function traceLogFields(): Record<string, string> {
  const span = trace.getActiveSpan();
  if (!span) return {};
  const { traceId, spanId, traceFlags } = span.spanContext();
  return { trace_id: traceId, span_id: spanId, trace_flags: `0${traceFlags.toString(16)}` };
}

/**
 * The active span as a W3C `traceparent` (`00-<trace id>-<span id>-01`), or null outside a
 * sampled span. Stored with an outbox event, so that the work it causes later, elsewhere (a
 * webhook delivery), links back to the request that caused it.
 */
export function activeTraceparent(): string | null {
  const context = trace.getActiveSpan()?.spanContext();
  if (!context || (context.traceFlags & TraceFlags.SAMPLED) === 0) return null;
  return `00-${context.traceId}-${context.spanId}-01`;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** A link to the span a stored `traceparent` names (none for null or a malformed value). */
export function linkTo(traceparent: string | null): Link[] {
  const parts = traceparent ? TRACEPARENT.exec(traceparent) : null;
  if (!parts) return [];
  const [, traceId, spanId, flags] = parts as unknown as [string, string, string, string];
  return [{ context: { traceId, spanId, traceFlags: Number.parseInt(flags, 16), isRemote: true } }];
}
