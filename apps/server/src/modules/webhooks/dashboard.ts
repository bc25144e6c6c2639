import { Pagination, WebhookDelivery, WebhookSubscription, WebhookSubscriptionWithSecret } from '@merma/schema';
import {
  DashboardCreateWebhookInput,
  DashboardRotateSecretInput,
  DashboardUpdateWebhookInput,
  DeliveriesPage,
  DeliveryScope,
  WebhookScope,
} from '@merma/schema/dashboard';
import { z } from 'zod';
import type { SecretBox } from '../../secrets/cipher.js';
import { audited, BUILDERS, dashboardRouter, scopedProcedure } from '../../trpc/dashboard-base.js';
import { listDeliveries, retryDelivery, sendTestEvent } from './deliveries.js';
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

const subscriptionDetails = (s: WebhookSubscription, livemode: boolean) => ({
  target: s.url,
  details: { webhook_id: s.id, events: s.events, livemode },
});

/**
 * The integrations page: webhook subscriptions of the selected establishment and mode, their
 * deliveries, and the inbound endpoint. Everyone in the organisation reads; owners, admins and
 * developers change things. The same services as `/api/v1/webhooks`, so the same rules apply
 * (HTTPS and the SSRF guard, secrets shown once, 409 on resending to a deactivated endpoint).
 */
export function webhooksDashboardRouter(policy: TargetPolicy, secrets: SecretBox, _publicUrl: string) {
  const writer = scopedProcedure.meta({ roles: BUILDERS });
  return dashboardRouter({
    list: scopedProcedure.output(z.array(WebhookSubscription)).query(({ ctx }) => listSubscriptions(ctx.db, ctx.scope, ctx.clock())),

    get: scopedProcedure
      .input(WebhookScope)
      .output(WebhookSubscription)
      .query(({ ctx, input }) => getSubscription(ctx.db, ctx.scope, input.id, ctx.clock())),

    create: writer
      .input(DashboardCreateWebhookInput)
      .output(WebhookSubscriptionWithSecret)
      .mutation(({ ctx, input }) => {
        assertNoWhitespace(input.url);
        const { establishment_id: _e, livemode, ...body } = input;
        return audited(
          ctx,
          'webhook.created',
          (tx, now) => createSubscription(tx, ctx.scope, policy, secrets, body, now),
          (s) => subscriptionDetails(s, livemode),
        );
      }),

    update: writer
      .input(DashboardUpdateWebhookInput)
      .output(WebhookSubscription)
      .mutation(({ ctx, input }) => {
        if (input.url !== undefined) assertNoWhitespace(input.url);
        const { establishment_id: _e, livemode, ...body } = input;
        return audited(
          ctx,
          'webhook.updated',
          (tx, now) => updateSubscription(tx, ctx.scope, policy, body, now),
          (s) => subscriptionDetails(s, livemode),
        );
      }),

    delete: writer
      .input(WebhookScope)
      .output(z.object({ id: z.string(), deleted: z.literal(true) }))
      .mutation(async ({ ctx, input }) => {
        const before = await getSubscription(ctx.db, ctx.scope, input.id, ctx.clock());
        return audited(
          ctx,
          'webhook.deleted',
          (tx) => deleteSubscription(tx, ctx.scope, input.id),
          () => subscriptionDetails(before, input.livemode),
        );
      }),

    reactivate: writer
      .input(WebhookScope)
      .output(WebhookSubscription)
      .mutation(({ ctx, input }) =>
        audited(
          ctx,
          'webhook.reactivated',
          (tx, now) => reactivateSubscription(tx, ctx.scope, input.id, now),
          (s) => subscriptionDetails(s, input.livemode),
        ),
      ),

    rotateSecret: writer
      .input(DashboardRotateSecretInput)
      .output(WebhookSubscriptionWithSecret)
      .mutation(({ ctx, input }) => {
        const { establishment_id: _e, livemode, ...body } = input;
        return audited(
          ctx,
          'webhook.secret_rotated',
          (tx, now) => rotateSecret(tx, ctx.scope, secrets, body, now),
          (s) => ({ target: s.url, details: { webhook_id: s.id, grace_period_seconds: body.grace_period_seconds, livemode } }),
        );
      }),

    sendTest: writer
      .input(WebhookScope)
      .output(WebhookDelivery)
      .mutation(async ({ ctx, input }) => {
        const sub = await getSubscription(ctx.db, ctx.scope, input.id, ctx.clock());
        return audited(
          ctx,
          'webhook.test_sent',
          (tx, now) => sendTestEvent(tx, ctx.scope, now, input.id),
          (d) => ({ target: sub.url, details: { webhook_id: sub.id, delivery_id: d.id, livemode: input.livemode } }),
        );
      }),

    deliveries: scopedProcedure
      .input(DeliveriesPage)
      .output(z.object({ data: z.array(WebhookDelivery), pagination: Pagination }))
      .query(({ ctx, input }) => listDeliveries(ctx.db, ctx.scope, input)),

    resend: writer
      .input(DeliveryScope)
      .output(WebhookDelivery)
      .mutation(async ({ ctx, input }) => {
        const sub = await getSubscription(ctx.db, ctx.scope, input.id, ctx.clock());
        return audited(
          ctx,
          'webhook.delivery_resent',
          (tx, now) => retryDelivery(tx, ctx.scope, now, input),
          (d) => ({ target: sub.url, details: { webhook_id: sub.id, delivery_id: d.id, event: d.event, livemode: input.livemode } }),
        );
      }),
  });
}
