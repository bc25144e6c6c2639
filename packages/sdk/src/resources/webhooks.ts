import {
  CreateWebhookInput,
  DeletedResponse,
  InboundEventInput,
  InboundEventResponse,
  type InboundEventResult,
  ListDeliveriesQuery,
  ListDeliveriesResponse,
  ListWebhooksResponse,
  UpdateWebhookInput,
  WebhookCreatedResponse,
  type WebhookDelivery,
  WebhookDeliveryParams,
  WebhookDeliveryResponse,
  WebhookIdParams,
  WebhookResponse,
  type WebhookSubscription,
  type WebhookSubscriptionWithSecret,
} from '@merma/schema';
import type { HttpCore, RequestOptions } from '../core/http.js';
import { Page, PagePromise } from '../core/pagination.js';
import { validate } from '../core/validate.js';

/** Outbound webhook subscriptions: where the API sends signed events. */
export class Webhooks {
  constructor(private readonly core: HttpCore) {}

  /** Creates a subscription. The response carries the signing `secret`: store it, it is shown once. */
  async create(input: CreateWebhookInput, options?: RequestOptions): Promise<WebhookSubscriptionWithSecret> {
    const body = validate(CreateWebhookInput, input);
    return (await this.core.request({ method: 'POST', path: '/webhooks', body }, WebhookCreatedResponse, options)).data;
  }

  async list(options?: RequestOptions): Promise<WebhookSubscription[]> {
    return (await this.core.request({ method: 'GET', path: '/webhooks' }, ListWebhooksResponse, options)).data;
  }

  async get(id: string, options?: RequestOptions): Promise<WebhookSubscription> {
    validate(WebhookIdParams, { id });
    return (await this.core.request({ method: 'GET', path: `/webhooks/${id}` }, WebhookResponse, options)).data;
  }

  async update(id: string, changes: Omit<UpdateWebhookInput, 'id'>, options?: RequestOptions): Promise<WebhookSubscription> {
    const { id: _id, ...body } = validate(UpdateWebhookInput, { ...changes, id });
    return (await this.core.request({ method: 'PATCH', path: `/webhooks/${id}`, body }, WebhookResponse, options)).data;
  }

  async delete(id: string, options?: RequestOptions): Promise<{ id: string; deleted: true }> {
    validate(WebhookIdParams, { id });
    return (await this.core.request({ method: 'DELETE', path: `/webhooks/${id}` }, DeletedResponse, options)).data;
  }

  /** Returns a deactivated subscription to `active` (after fixing the receiver). */
  async reactivate(id: string, options?: RequestOptions): Promise<WebhookSubscription> {
    validate(WebhookIdParams, { id });
    return (await this.core.request({ method: 'POST', path: `/webhooks/${id}/reactivate` }, WebhookResponse, options)).data;
  }

  /** Every delivery attempt of the subscription, newest first; iterable across pages. */
  deliveries(id: string, query: { limit?: number } = {}, options?: RequestOptions): PagePromise<WebhookDelivery> {
    const q = validate(ListDeliveriesQuery, { ...query, id });
    const fetchAt = async (offset: number): Promise<Page<WebhookDelivery>> => {
      const res = await this.core.request(
        { method: 'GET', path: `/webhooks/${id}/deliveries`, query: { limit: q.limit, offset } },
        ListDeliveriesResponse,
        options,
      );
      return new Page(res.data, res.meta.pagination, fetchAt);
    };
    return new PagePromise(fetchAt);
  }

  /** Sends a delivery's event again, now. */
  async retryDelivery(id: string, deliveryId: string, options?: RequestOptions): Promise<WebhookDelivery> {
    validate(WebhookDeliveryParams, { id, delivery_id: deliveryId });
    return (
      await this.core.request({ method: 'POST', path: `/webhooks/${id}/deliveries/${deliveryId}/retry` }, WebhookDeliveryResponse, options)
    ).data;
  }

  /** Sends a test event to the subscription's URL. */
  async test(id: string, options?: RequestOptions): Promise<WebhookDelivery> {
    validate(WebhookIdParams, { id });
    return (await this.core.request({ method: 'POST', path: `/webhooks/${id}/test` }, WebhookDeliveryResponse, options)).data;
  }
}

/** POST /api/v1/webhooks/inbound: events from your ERP or POS (waste.created, waste.updated, inventory.loss). */
export class Inbound {
  constructor(private readonly core: HttpCore) {}

  async send(input: InboundEventInput, options?: RequestOptions): Promise<InboundEventResult> {
    const body = validate(InboundEventInput, input);
    return (await this.core.request({ method: 'POST', path: '/webhooks/inbound', body }, InboundEventResponse, options)).data;
  }
}
