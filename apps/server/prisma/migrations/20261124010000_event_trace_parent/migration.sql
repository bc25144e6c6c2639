-- The W3C traceparent of the span that wrote the event (a request's procedure), when that request
-- was traced: each delivery attempt's span links to it. NULL when tracing is off.
ALTER TABLE "events" ADD COLUMN "trace_parent" TEXT;
