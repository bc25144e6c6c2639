import { type Attributes, type Span, type SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

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
