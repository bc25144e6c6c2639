import type { APIPromise } from '../core/api-promise.js';
import type { HttpCore, RequestOptions } from '../core/http.js';
import { type PagePromise, paginate } from '../core/pagination.js';
import type {
  CreateWebhookInput,
  InboundEventInput,
  InboundEventResult,
  InboundEventType,
  InventoryLossPayload,
  RecoverWebhookInput,
  RecoverWebhookResult,
  RotateWebhookSecretInput,
  SaleLine,
  SaleRecordedPayload,
  UpdateWebhookInput,
  WasteCreatedPayload,
  WasteUpdatedPayload,
  WebhookDelivery,
  WebhookSubscription,
  WebhookSubscriptionWithSecret,
} from '../generated/api-types.js';
import { segment } from './path.js';

/** Outbound webhook subscriptions: where the API sends signed events. */
export class Webhooks {
  constructor(private readonly core: HttpCore) {}

  /** Creates a subscription. The response carries the signing `secret`: store it, it is shown once. */
  create(input: CreateWebhookInput, options?: RequestOptions): APIPromise<WebhookSubscriptionWithSecret> {
    return this.core.request({ method: 'POST', path: '/webhooks', body: input }, options);
  }

  list(options?: RequestOptions): APIPromise<WebhookSubscription[]> {
    return this.core.request({ method: 'GET', path: '/webhooks' }, options);
  }

  get(id: string, options?: RequestOptions): APIPromise<WebhookSubscription> {
    return this.core.request({ method: 'GET', path: `/webhooks/${segment(id)}` }, options);
  }

  update(id: string, changes: UpdateWebhookInput, options?: RequestOptions): APIPromise<WebhookSubscription> {
    return this.core.request({ method: 'PATCH', path: `/webhooks/${segment(id)}`, body: changes }, options);
  }

  delete(id: string, options?: RequestOptions): APIPromise<{ id: string; deleted: true }> {
    return this.core.request({ method: 'DELETE', path: `/webhooks/${segment(id)}` }, options);
  }

  /** Returns a deactivated subscription to `active` (after fixing the receiver). */
  reactivate(id: string, options?: RequestOptions): APIPromise<WebhookSubscription> {
    return this.core.request({ method: 'POST', path: `/webhooks/${segment(id)}/reactivate` }, options);
  }

  /**
   * Replaces the signing secret and returns the new one (shown once). For `grace_period_seconds`
   * (default 24 h) deliveries carry a signature with each secret, so receivers can switch at their
   * own pace: pass both to `verifyWebhook({ secret: [newSecret, oldSecret] })` meanwhile.
   */
  rotateSecret(id: string, input: RotateWebhookSecretInput = {}, options?: RequestOptions): APIPromise<WebhookSubscriptionWithSecret> {
    return this.core.request({ method: 'POST', path: `/webhooks/${segment(id)}/rotate-secret`, body: input }, options);
  }

  /**
   * Sends again every delivery of the subscription that failed between `since` and `until`
   * (default now): after an outage of your receiver, reactivate the subscription, then recover.
   */
  recover(id: string, input: RecoverWebhookInput, options?: RequestOptions): APIPromise<RecoverWebhookResult> {
    return this.core.request({ method: 'POST', path: `/webhooks/${segment(id)}/recover`, body: input }, options);
  }

  /** Every delivery of the subscription with its attempts, newest first; iterable across pages. */
  deliveries(
    id: string,
    query: { limit?: number | undefined; offset?: number | undefined } = {},
    options?: RequestOptions,
  ): PagePromise<WebhookDelivery> {
    return paginate(
      (offset) =>
        this.core.send({ method: 'GET', path: `/webhooks/${segment(id)}/deliveries`, query: { limit: query.limit, offset } }, options),
      query.offset ?? 0,
    );
  }

  /** Sends a delivery's event again, now. */
  retryDelivery(id: string, deliveryId: string, options?: RequestOptions): APIPromise<WebhookDelivery> {
    return this.core.request({ method: 'POST', path: `/webhooks/${segment(id)}/deliveries/${segment(deliveryId)}/retry` }, options);
  }

  /** Sends a `webhook.test` event to the subscription's URL. */
  test(id: string, options?: RequestOptions): APIPromise<WebhookDelivery> {
    return this.core.request({ method: 'POST', path: `/webhooks/${segment(id)}/test` }, options);
  }
}

/**
 * Sales for `inbound.sales`: one sale line with its `source`, or a batch — a day's sales, up to
 * 2000 lines — as `{ source, sales }`.
 */
export type SalesInput = { source: string; sales: SaleLine[] } | SaleRecordedPayload;

/** The standard payload of each inbound event (the OpenAPI document's `payload` by `event`). */
export type InboundPayloads = {
  'waste.created': WasteCreatedPayload;
  'waste.updated': WasteUpdatedPayload;
  'inventory.loss': InventoryLossPayload;
  'sales.recorded': SalesInput;
};

/** The connectors that map a system's own payload to the standard one (`'standard'`: none). */
export type InboundConnector = 'square' | 'odoo';

/**
 * What `inbound.send` takes: an event with the standard payload its name calls for (typed by
 * `event`), or, with `connector` (`'square'`, `'odoo'`), the system's own payload as that system
 * sends it, which the connector maps (not typed here: it is the vendor's). `connector` is the
 * discriminant, so a standard payload is checked field by field.
 */
export type InboundEvent =
  | { [E in InboundEventType]: { event: E; payload: InboundPayloads[E]; connector?: 'standard' | undefined } }[InboundEventType]
  | { event: InboundEventType; connector: InboundConnector; payload: InboundEventInput['payload'] };

/**
 * POST /api/v1/webhooks/inbound: events from your ERP or POS (waste.created, waste.updated,
 * inventory.loss, sales.recorded).
 */
export class Inbound {
  constructor(private readonly core: HttpCore) {}

  /**
   * Sends one event. Its `payload` is typed by `event` (see InboundPayloads), field by field; with
   * `connector` (`'square'`, `'odoo'`), it is the POS's or ERP's own payload. (Two overloads rather
   * than one union parameter: in a union, the connector form's free-form payload would let any
   * field through unchecked.)
   */
  send<E extends InboundEventType>(
    input: { event: E; payload: InboundPayloads[E]; connector?: 'standard' | undefined },
    options?: RequestOptions,
  ): APIPromise<InboundEventResult>;
  send(
    input: { event: InboundEventType; connector: InboundConnector; payload: InboundEventInput['payload'] },
    options?: RequestOptions,
  ): APIPromise<InboundEventResult>;
  send(input: InboundEvent, options?: RequestOptions): APIPromise<InboundEventResult> {
    return this.core.request({ method: 'POST', path: '/webhooks/inbound', body: input }, options);
  }

  /**
   * Sends sales (`sales.recorded`), the input of the demand forecast (`predict.demand`). Lines
   * with an `external_id` are stored once per `source`, so resending a day is safe; lines the
   * server cannot use (an unknown product, a date out of range) come back in `sales.errors` by
   * index while the others are stored. For a POS's own payload (Square orders, Odoo order lines)
   * use `send({ event: 'sales.recorded', connector, payload })`.
   */
  sales(input: SalesInput, options?: RequestOptions): APIPromise<InboundEventResult> {
    return this.core.request({ method: 'POST', path: '/webhooks/inbound', body: { event: 'sales.recorded', payload: input } }, options);
  }
}
