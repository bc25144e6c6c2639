import { randomBytes } from 'node:crypto';
import { deadline } from '@merma/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrisma } from '../src/db/client.js';
import { type BuiltServer, startBuiltServer } from './fixtures/built-server.js';
import { createTenant, createTestDatabase, type Tenant, type TestDatabase, validRecord } from './helpers.js';
import { startReceiver, waitFor } from './receiver.js';

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/**
 * OpenTelemetry tracing of the built server (`node dist/main.js`, as the container runs it), exported
 * over OTLP/HTTP (JSON) to a collector started here: one request produces its server span (continuing
 * the caller's `traceparent`), the procedure's span and the SQL under it; one webhook delivery
 * produces its span with the HTTP exchange and the SQL under it; log lines carry the trace ids.
 */

type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
type OtlpSpan = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: OtlpValue }[];
  status?: { code?: number; message?: string };
  events?: { name: string }[];
  links?: { traceId: string; spanId: string }[];
};
type Span = Omit<OtlpSpan, 'attributes'> & { attributes: Record<string, string | number | boolean | undefined>; service: string };

const SPAN_KIND = { internal: 1, server: 2, client: 3 };
const STATUS_ERROR = 2;

function flatten(value: OtlpValue): string | number | boolean | undefined {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  return value.boolValue ?? value.doubleValue;
}

/** Every span the collector has received so far. */
function spansOf(collector: Receiver): Span[] {
  return collector.received
    .filter((r) => r.path === '/v1/traces')
    .flatMap((r) => {
      const body = JSON.parse(r.body) as {
        resourceSpans: {
          resource: { attributes: { key: string; value: OtlpValue }[] };
          scopeSpans: { spans: OtlpSpan[] }[];
        }[];
      };
      return body.resourceSpans.flatMap((rs) => {
        const service = String(flatten(rs.resource.attributes.find((a) => a.key === 'service.name')?.value ?? {}));
        return rs.scopeSpans.flatMap((ss) =>
          ss.spans.map((s) => ({
            ...s,
            service,
            attributes: Object.fromEntries((s.attributes ?? []).map((a) => [a.key, flatten(a.value)])),
          })),
        );
      });
    });
}

/** True when `ancestor` is `span`'s parent, grandparent… within the spans received. */
function descendsFrom(span: Span, ancestor: Span, spans: Span[]): boolean {
  for (let parent = span.parentSpanId; parent; parent = spans.find((s) => s.spanId === parent)?.parentSpanId) {
    if (parent === ancestor.spanId) return true;
  }
  return false;
}

const statementOf = (s: Span) => String(s.attributes['db.query.text'] ?? s.attributes['db.statement'] ?? '');

describe('OpenTelemetry tracing (OTEL_EXPORTER_OTLP_ENDPOINT set)', () => {
  let collector: Receiver;
  let webhooks: Receiver;
  let server: BuiltServer;
  let tenant: Tenant;
  let database: TestDatabase | undefined;

  beforeAll(async () => {
    collector = await startReceiver((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
    webhooks = await startReceiver();
    database = process.env.DATABASE_URL ? await createTestDatabase() : undefined;
    server = await startBuiltServer({
      ...(database ? { databaseUrl: database.url } : {}),
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: 'merma-tracing-test',
        OTEL_BSP_SCHEDULE_DELAY: '100',
        WORKER_CONCURRENCY: '1',
        WEBHOOKS_ALLOW_PRIVATE: 'true',
      },
    });
    const setup = createPrisma(server.databaseUrl, 2);
    tenant = await createTenant(setup).finally(() => setup.$disconnect());
  }, deadline(180_000));

  afterAll(async () => {
    await server?.close();
    await Promise.all([collector?.close(), webhooks?.close()]);
    await database?.drop();
  });

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });

  it('a request: its server span continues the caller’s trace, with the procedure and its SQL under it', {
    timeout: deadline(60_000),
  }, async () => {
    expect(server.output()).toMatch(/"traces":"OpenTelemetry \(OTLP\)"/);
    const traceId = randomBytes(16).toString('hex');
    const callerSpanId = randomBytes(8).toString('hex');
    const res = await post('/api/v1/records', validRecord({ weight_kg: 2.5, notes: 'nota-que-no-sale-en-trazas' }), {
      traceparent: `00-${traceId}-${callerSpanId}-01`,
    });
    expect(res.status).toBe(201);
    const record = ((await res.json()) as { data: { id: string } }).data;

    const request = await waitFor(
      () => spansOf(collector).find((s) => s.traceId === traceId && s.kind === SPAN_KIND.server),
      15_000,
      'the request span',
    );
    expect(request).toMatchObject({
      name: 'POST /api/v1/records',
      parentSpanId: callerSpanId,
      service: 'merma-tracing-test',
      attributes: { 'http.request.method': 'POST', 'http.route': '/api/v1/records', 'http.response.status_code': 201 },
    });
    expect(request.status?.code ?? 0).not.toBe(STATUS_ERROR);

    const spans = await waitFor(
      () => {
        const all = spansOf(collector).filter((s) => s.traceId === traceId);
        return all.some((s) => /INSERT INTO "?(public"?\.)?"?records/i.test(statementOf(s))) ? all : null;
      },
      15_000,
      'the SQL spans',
    );
    const procedure = spans.find((s) => s.name === 'procedure records.create');
    expect(procedure, JSON.stringify(spans.map((s) => s.name))).toBeDefined();
    expect(procedure?.attributes).toMatchObject({
      'rpc.system': 'trpc',
      'rpc.method': 'records.create',
      'merma.establishment_id': tenant.establishmentId,
    });
    expect(descendsFrom(procedure as Span, request, spans)).toBe(true);
    // The record's INSERT is a client span of the database under the procedure, without its values.
    const insert = spans.find((s) => /INSERT INTO "?(public"?\.)?"?records/i.test(statementOf(s))) as Span;
    expect(insert.kind).toBe(SPAN_KIND.client);
    expect(insert.attributes['db.system.name'] ?? insert.attributes['db.system']).toBe('postgresql');
    expect(descendsFrom(insert, procedure as Span, spans)).toBe(true);
    expect(JSON.stringify(spansOf(collector))).not.toContain('nota-que-no-sale-en-trazas');

    // The request's log line names the same trace.
    const line = await server.waitForLog(new RegExp(`"trace_id":"${traceId}".*"msg":"request completed"`));
    expect(JSON.parse(line)).toMatchObject({ trace_id: traceId, url: '/api/v1/records', status: 201 });
    expect(record.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('a refused request (400) is answered, and its spans are not marked as failures of the service', {
    timeout: deadline(60_000),
  }, async () => {
    const traceId = randomBytes(16).toString('hex');
    const res = await post('/api/v1/records', validRecord({ weight_kg: -1 }), {
      traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01`,
    });
    expect(res.status).toBe(400);
    const procedure = await waitFor(
      () => spansOf(collector).find((s) => s.traceId === traceId && s.name === 'procedure records.create'),
      15_000,
      'the refused procedure span',
    );
    expect(procedure.status?.code ?? 0).not.toBe(STATUS_ERROR);
    expect(procedure.events?.map((e) => e.name)).toContain('exception');
    const request = spansOf(collector).find((s) => s.traceId === traceId && s.kind === SPAN_KIND.server);
    expect(request?.attributes['http.response.status_code']).toBe(400);
  });

  it('a replayed Idempotency-Key is answered its stored record, and its span is not marked as a failure', {
    timeout: deadline(60_000),
  }, async () => {
    const key = `replay-${randomBytes(4).toString('hex')}`;
    const first = await post('/api/v1/records', validRecord(), { 'idempotency-key': key });
    expect(first.status).toBe(201);
    const traceId = randomBytes(16).toString('hex');
    const again = await post('/api/v1/records', validRecord(), {
      'idempotency-key': key,
      traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01`,
    });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(await first.json());
    const procedure = await waitFor(
      () => spansOf(collector).find((s) => s.traceId === traceId && s.name === 'procedure records.create'),
      15_000,
      'the replayed procedure span',
    );
    expect(procedure.status?.code ?? 0).not.toBe(STATUS_ERROR);
  });

  it('an Odoo integration URL: the span keeps the token’s last four characters only', { timeout: deadline(60_000) }, async () => {
    const traceId = randomBytes(16).toString('hex');
    const token = 'mit_Qq81kQpL0aB3cD4eF5gH6iJ7kL8mN9xY';
    const res = await fetch(`${server.url}/api/v1/integrations/odoo/${token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
      body: '{}',
    });
    expect(res.status).toBe(401);
    const request = await waitFor(
      () => spansOf(collector).find((s) => s.traceId === traceId && s.kind === SPAN_KIND.server),
      15_000,
      'the integration request span',
    );
    expect(request.attributes['url.path']).toBe('/api/v1/integrations/odoo/mit_…N9xY');
    expect(JSON.stringify(spansOf(collector).filter((s) => s.traceId === traceId))).not.toContain(token.slice(4, 30));
  });

  it('a webhook delivery: one span per attempt, linked to the request that wrote the event, with the POST and the SQL under it', {
    timeout: deadline(60_000),
  }, async () => {
    const subscription = await post('/api/v1/webhooks', {
      url: `${webhooks.url}/hook?token=secreto-del-receptor`,
      events: ['record.created'],
    });
    expect(subscription.status).toBe(201);
    const requestTrace = randomBytes(16).toString('hex');
    const res = await post('/api/v1/records', validRecord({ weight_kg: 4 }), {
      traceparent: `00-${requestTrace}-${randomBytes(8).toString('hex')}-01`,
    });
    expect(res.status).toBe(201);
    const record = ((await res.json()) as { data: { id: string } }).data;
    await waitFor(() => webhooks.received.find((r) => r.body.includes(record.id)), 15_000, 'the delivery');

    const delivery = await waitFor(
      () =>
        spansOf(collector).find(
          (s) => s.name === 'webhook delivery' && s.attributes['merma.webhook.outcome'] === 'succeeded' && !s.parentSpanId,
        ),
      15_000,
      'the delivery span',
    );
    // Its own trace, linked to the procedure span that wrote the event.
    const procedure = spansOf(collector).find((s) => s.traceId === requestTrace && s.name === 'procedure records.create');
    expect(procedure).toBeDefined();
    expect(delivery.traceId).not.toBe(requestTrace);
    expect(delivery.links).toEqual([expect.objectContaining({ traceId: requestTrace, spanId: procedure?.spanId })]);
    expect(delivery.attributes).toMatchObject({
      'merma.webhook.attempt': 1,
      'merma.webhook.event_type': 'record.created',
      'http.response.status_code': 200,
      'merma.delivery_id': expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    const spans = await waitFor(
      () => {
        const all = spansOf(collector).filter((s) => s.traceId === delivery.traceId);
        return all.some((s) => s.kind === SPAN_KIND.client && s.name === 'POST') &&
          all.some((s) => /UPDATE webhook_deliveries/.test(statementOf(s)))
          ? all
          : null;
      },
      15_000,
      'the delivery’s child spans',
    );
    const exchange = spans.find((s) => s.kind === SPAN_KIND.client && s.name === 'POST') as Span;
    expect(exchange.parentSpanId).toBe(delivery.spanId);
    // The receiver's URL without its query (a token may be there).
    expect(exchange.attributes).toMatchObject({
      'http.request.method': 'POST',
      'url.full': `${webhooks.url}/hook`,
      'server.address': '127.0.0.1',
      'http.response.status_code': 200,
    });
    expect(JSON.stringify(spansOf(collector))).not.toContain('secreto-del-receptor');
    const update = spans.find((s) => /UPDATE webhook_deliveries/.test(statementOf(s))) as Span;
    expect(descendsFrom(update, delivery, spans)).toBe(true);

    // The delivery's log line carries its trace.
    const line = await server.waitForLog(new RegExp(`"trace_id":"${delivery.traceId}".*"msg":"webhook delivered"`));
    expect(JSON.parse(line)).toMatchObject({ span_id: delivery.spanId, attempt: 1, status: 200 });
  });

  it('traces no probe, and no SQL outside a request or a job (the worker’s polling)', { timeout: deadline(60_000) }, async () => {
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    // A traced request after the probe: once its span is exported, a span of the probe would be too.
    const traceId = randomBytes(16).toString('hex');
    expect(
      (await post('/api/v1/records', validRecord(), { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` })).status,
    ).toBe(201);
    await waitFor(() => spansOf(collector).find((s) => s.traceId === traceId && s.kind === SPAN_KIND.server), 15_000, 'the later span');
    const spans = spansOf(collector);
    expect(spans.filter((s) => /^\/(readyz|healthz)/.test(String(s.attributes['url.path'] ?? '')))).toEqual([]);
    expect(spans.filter((s) => statementOf(s) !== '' && !s.parentSpanId)).toEqual([]);
  });
});
