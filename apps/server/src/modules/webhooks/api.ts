import {
  CreateWebhookInput,
  DeletedResponse,
  ListDeliveriesQuery,
  ListDeliveriesResponse,
  ListWebhooksResponse,
  NoQuery,
  RecoverWebhookInput,
  RecoverWebhookResponse,
  RotateWebhookSecretInput,
  UpdateWebhookInput,
  WebhookCreatedResponse,
  WebhookDeliveryParams,
  WebhookDeliveryResponse,
  WebhookIdParams,
  WebhookResponse,
  WebhookSecretRotatedResponse,
} from '@merma/schema';
import type { SecretBox } from '../../secrets/cipher.js';
import { apiProcedure, ok, router } from '../../trpc/trpc.js';
import { listDeliveries, recoverDeliveries, retryDelivery, sendTestEvent } from './deliveries.js';
import {
  createSubscription,
  deleteSubscription,
  getSubscription,
  listSubscriptions,
  reactivateSubscription,
  rotateSecret,
  updateSubscription,
} from './service.js';
import { assertNoWhitespace, type TargetPolicy } from './target.js';

const meta = (
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  path: `/${string}`,
  summary: string,
  operationId: string,
  description?: string,
) => ({
  openapi: { method, path, tags: ['webhooks'], summary, operationId, ...(description ? { description } : {}) },
});

/** Checks `url` as sent, before the input schema (which trims it and drops tabs and line breaks) parses it. */
const urlAsSent = apiProcedure.use(async ({ getRawInput, next }) => {
  const url = ((await getRawInput()) as { url?: unknown } | null | undefined)?.url;
  if (typeof url === 'string') assertNoWhitespace(url);
  return next();
});

export function webhooksRouter(policy: TargetPolicy, secrets: SecretBox) {
  return router({
    create: urlAsSent
      .meta({
        ...meta('POST', '/webhooks', 'Subscribe an endpoint to events', 'createWebhook'),
        permission: 'webhooks:write',
        successStatus: 201,
      })
      .input(CreateWebhookInput)
      .output(WebhookCreatedResponse)
      .mutation(async ({ ctx, input }) => ok(await createSubscription(ctx.db, ctx.auth, policy, secrets, input, ctx.clock()))),

    list: apiProcedure
      .meta({ ...meta('GET', '/webhooks', 'List webhook subscriptions', 'listWebhooks'), permission: 'webhooks:read' })
      .input(NoQuery)
      .output(ListWebhooksResponse)
      .query(async ({ ctx }) => ok(await listSubscriptions(ctx.db, ctx.auth, ctx.clock()))),

    get: apiProcedure
      .meta({ ...meta('GET', '/webhooks/{id}', 'Get a webhook subscription', 'getWebhook'), permission: 'webhooks:read' })
      .input(WebhookIdParams)
      .output(WebhookResponse)
      .query(async ({ ctx, input }) => ok(await getSubscription(ctx.db, ctx.auth, input.id, ctx.clock()))),

    update: urlAsSent
      .meta({ ...meta('PATCH', '/webhooks/{id}', 'Change a webhook subscription', 'updateWebhook'), permission: 'webhooks:write' })
      .input(UpdateWebhookInput)
      .output(WebhookResponse)
      .mutation(async ({ ctx, input }) => ok(await updateSubscription(ctx.db, ctx.auth, policy, input, ctx.clock()))),

    delete: apiProcedure
      .meta({ ...meta('DELETE', '/webhooks/{id}', 'Delete a webhook subscription', 'deleteWebhook'), permission: 'webhooks:write' })
      .input(WebhookIdParams)
      .output(DeletedResponse)
      .mutation(async ({ ctx, input }) => ok(await deleteSubscription(ctx.db, ctx.auth, input.id))),

    reactivate: apiProcedure
      .meta({
        ...meta('POST', '/webhooks/{id}/reactivate', 'Reactivate a deactivated subscription', 'reactivateWebhook'),
        permission: 'webhooks:write',
      })
      .input(WebhookIdParams)
      .output(WebhookResponse)
      .mutation(async ({ ctx, input }) => ok(await reactivateSubscription(ctx.db, ctx.auth, input.id, ctx.clock()))),

    rotateSecret: apiProcedure
      .meta({
        ...meta(
          'POST',
          '/webhooks/{id}/rotate-secret',
          'Rotate the signing secret',
          'rotateWebhookSecret',
          'Replaces the signing secret with yours (`secret`) or a generated one, returned only in this response. The replaced secret keeps signing beside the new one for `grace_period_seconds` (default 1 day; 0 drops it at once): meanwhile `webhook-signature` carries one `v1,` signature per secret, so receivers verify with either, and `X-Service-Signature` uses the new one. Only one previous secret is kept: rotating again within the grace period drops the older one at once.',
        ),
        permission: 'webhooks:write',
      })
      .input(RotateWebhookSecretInput)
      .output(WebhookSecretRotatedResponse)
      .mutation(async ({ ctx, input }) => ok(await rotateSecret(ctx.db, ctx.auth, secrets, input, ctx.clock()))),

    recover: apiProcedure
      .meta({
        ...meta(
          'POST',
          '/webhooks/{id}/recover',
          'Resend the failed deliveries of a time window',
          'recoverWebhookDeliveries',
          'Sends again every failed delivery created from `since` (included) to `until` (excluded; default now), test events aside. Each becomes an ordinary delivery again: sent now, retried on the usual schedule (1 min … 12 h) if it fails, and counted towards deactivation if it fails every retry. Pending and succeeded deliveries are not touched, so calling twice sends nothing twice. A deactivated subscription answers 409: reactivate it first.',
        ),
        permission: 'webhooks:write',
      })
      .input(RecoverWebhookInput)
      .output(RecoverWebhookResponse)
      .mutation(async ({ ctx, input }) => ok(await recoverDeliveries(ctx.db, ctx.auth, ctx.clock(), input))),

    deliveries: apiProcedure
      .meta({
        ...meta('GET', '/webhooks/{id}/deliveries', 'List deliveries and their attempts', 'listWebhookDeliveries'),
        permission: 'webhooks:read',
      })
      .input(ListDeliveriesQuery)
      .output(ListDeliveriesResponse)
      .query(async ({ ctx, input }) => {
        const { data, pagination } = await listDeliveries(ctx.db, ctx.auth, input);
        return { ...ok(data), meta: { pagination } };
      }),

    retryDelivery: apiProcedure
      .meta({
        ...meta('POST', '/webhooks/{id}/deliveries/{delivery_id}/retry', 'Send a delivery again now', 'retryWebhookDelivery'),
        permission: 'webhooks:write',
      })
      .input(WebhookDeliveryParams)
      .output(WebhookDeliveryResponse)
      .mutation(async ({ ctx, input }) => ok(await retryDelivery(ctx.db, ctx.auth, ctx.clock(), input))),

    test: apiProcedure
      .meta({
        ...meta('POST', '/webhooks/{id}/test', 'Send a test event to the endpoint', 'testWebhook'),
        permission: 'webhooks:write',
      })
      .input(WebhookIdParams)
      .output(WebhookDeliveryResponse)
      .mutation(async ({ ctx, input }) => ok(await sendTestEvent(ctx.db, ctx.auth, ctx.clock(), input.id))),
  });
}
