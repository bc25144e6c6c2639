/**
 * Compiled (not run) under `exactOptionalPropertyTypes` by test/strict-types.test.ts: a customer's
 * code passing `undefined` where the SDK accepts it at run time (an option left unset, a query
 * parameter not chosen, an optional body field) must type-check, and the exported types must be
 * usable by name. Every optional field given here as `undefined` is one the client skips (a query
 * value) or drops (JSON leaves `undefined` out of a body), or an option read with a default.
 */
import Merma, {
  APIError,
  type BatchOptions,
  type CreateRecordInput,
  type CreateWebhookInput,
  type DemandQuery,
  type ErrorCode,
  type InboundEvent,
  isMermaError,
  type MermaOptions,
  RateLimitError,
  type RequestOptions,
  type SaleLine,
  type SalesInput,
  type VerifyWebhookOptions,
  verifyWebhook,
} from '@merma/sdk';

declare const maybeNumber: number | undefined;
declare const maybeString: string | undefined;
declare const maybeSignal: AbortSignal | undefined;
declare const maybeGroup: 'day' | 'week' | 'month' | undefined;

const clientOptions: MermaOptions = {
  apiKey: maybeString,
  baseUrl: maybeString,
  timeout: maybeNumber,
  maxRetries: maybeNumber,
  maxRetryAfter: maybeNumber,
  fetch: undefined,
  fetchOptions: undefined,
  defaultHeaders: undefined,
  dangerouslyAllowBrowser: undefined,
  logLevel: undefined,
  logger: undefined,
};
const merma = new Merma(clientOptions);

const options: RequestOptions = {
  signal: maybeSignal,
  timeout: maybeNumber,
  maxRetries: maybeNumber,
  maxRetryAfter: maybeNumber,
  idempotencyKey: undefined,
  headers: undefined,
  fetchOptions: undefined,
};

export async function calls(): Promise<void> {
  await merma.records.list(
    { from: maybeString, to: maybeString, food_category: undefined, limit: maybeNumber, offset: maybeNumber },
    options,
  );
  await merma.sessions.list({ status: undefined, from: maybeString, limit: maybeNumber, offset: maybeNumber });
  await merma.analytics.get({ from: maybeString, group_by: maybeGroup, food_category: undefined, causa_id: maybeString });
  await merma.benchmarking.get({ sector: undefined });
  await merma.predict.get({ horizon: maybeNumber, food_category: undefined });
  await merma.predict.get({ horizon: maybeNumber, type: 'demand', product_id: maybeString });
  const demand: DemandQuery = { horizon: maybeNumber, product_id: maybeString, food_category: undefined };
  await merma.predict.demand(demand, options);
  await merma.preventionPlan.get({ format: undefined, lang: undefined });
  await merma.preventionPlan.generate({ lang: undefined });
  await merma.records.verify({ full: undefined });
  await merma.records.checkpoints({ limit: maybeNumber });
  await merma.records.verifyInBackground({ ...options, pollIntervalMs: maybeNumber, onProgress: undefined });
  await merma.webhooks.deliveries('wh_1', { limit: maybeNumber, offset: maybeNumber });
  await merma.donations.list({ status: undefined, entity_id: maybeString, awaiting_reroute: undefined, limit: maybeNumber });
  const offered = await merma.donations.create({
    agreement_id: 'a1',
    notes: maybeString,
    lines: [{ description: 'Pan', quantity: 2, unit: 'kg', product_id: maybeString, net_kg: maybeNumber, storage: undefined }],
  });
  await merma.donations.rerouteLine(offered.id, 'l1', { destino_id: 'd1', note: maybeString });
  const signing = await merma.donations.createLink(offered.id, { expires_in_hours: maybeNumber });
  const pack = await merma.donations.taxPack({ year: 2026, taxable_base: maybeString, cif: undefined });
  const csv: Uint8Array = await merma.donations.taxPackCsv({ year: pack.year, taxable_base: undefined, cif: maybeString });
  await merma.donations.taxCertificatePdf('e1', { year: 2026, cif: maybeString }, options);
  console.log(signing.url, csv.length);

  const record: CreateRecordInput = {
    food_category: 'meat',
    weight_kg: 1.5,
    destino_id: '6ccf7d29-f6d9-403d-a9b0-2f907f15477b',
    causa_id: undefined,
    product_name: maybeString,
    notes: maybeString,
  };
  const created = await merma.records.create(record, options);
  const requestId: string | undefined = created._request_id;
  const latest = await merma.records.list({}, { fetchOptions: { keepalive: true } }).toArray({ limit: 10 });
  merma.on('response', (e) => console.log(requestId, latest.length, e.status, e.elapsedMs)).off('request', () => {});
  const batch: BatchOptions = { ...options, concurrency: maybeNumber, onProgress: undefined };
  await merma.records.batch([record], batch);

  const line: SaleLine = { quantity: 2, sold_at: '2026-11-23', unit: undefined, external_id: maybeString, product_ref: maybeString };
  const sales: SalesInput = { source: 'pos', sales: [line] };
  await merma.inbound.sales(sales);
  await merma.inbound.sales({ ...line, source: 'pos' });

  // inbound.send: the payload is typed by its event; a connector's payload is the vendor's own.
  await merma.inbound.send({ event: 'waste.created', payload: { ...record, source: 'erp', external_id: maybeString } });
  await merma.inbound.send({ event: 'waste.updated', payload: { source: 'erp', record_id: 'r1', weight_kg: 2 } });
  await merma.inbound.send({ event: 'inventory.loss', payload: { source: 'erp', product_ref: 'SKU-1', quantity: 3, unit: 'unit' } });
  await merma.inbound.send({ event: 'sales.recorded', payload: sales });
  await merma.inbound.send({ event: 'sales.recorded', connector: 'square', payload: { type: 'order.updated', data: {} } });
  // @ts-expect-error: waste.created needs a weight and a destination
  await merma.inbound.send({ event: 'waste.created', payload: { source: 'erp', food_category: 'meat' } });
  // @ts-expect-error: an inventory.loss payload counts quantity or quantity_kg, not weight_kg
  await merma.inbound.send({ event: 'inventory.loss', payload: { source: 'erp', weight_kg: 1 } });
  // @ts-expect-error: not a food category
  await merma.inbound.send({ event: 'waste.created', payload: { ...record, source: 'erp', food_category: 'shoes' } });
  const event = { event: 'sales.recorded', payload: { source: 'pos', sales: [line] } } satisfies InboundEvent;
  await merma.inbound.send(event);

  const webhook: CreateWebhookInput = { url: 'https://example.test/hook', events: ['record.created'], description: maybeString };
  await merma.webhooks.create(webhook);
  await merma.webhooks.rotateSecret('wh_1', { grace_period_seconds: maybeNumber });
}

/** verifyWebhook's options, each optional one given as `undefined`. */
export async function receive(payload: string, headers: Record<string, string>): Promise<string> {
  const verify: VerifyWebhookOptions = {
    payload,
    headers,
    secret: 'whsec_x',
    tolerance: maybeNumber,
    now: undefined,
    allowServiceSignatureOnly: undefined,
  };
  return (await verifyWebhook(verify)).event;
}

/** APIError.code is the API's ErrorCode union, so a switch on it is checked. */
export function explain(err: APIError): string {
  const code: ErrorCode | undefined = err.code;
  // @ts-expect-error: not one of the API's error codes
  if (err.code === 'no_such_code') return 'never';
  switch (code) {
    case 'rate_limited':
      return 'slow down';
    case 'validation_error':
      return err.details.map((d) => d.path).join(', ');
    default:
      return code ?? 'unknown';
  }
}

/** The guards narrow what they recognise, as `instanceof` does. */
export function describeError(err: unknown): string {
  if (RateLimitError.is(err)) return `retry in ${err.retryAfter ?? '?'} s (${err.code ?? 'no code'})`;
  if (APIError.is(err)) return `${err.status} ${explain(err)}`;
  if (isMermaError(err)) return err.message;
  return String(err);
}
