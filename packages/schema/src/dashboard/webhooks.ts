import { z } from 'zod';
import { Uuid } from '../common.js';
import { MAX_PAGE_LIMIT } from '../constants.js';
import { CreateWebhookInput, RotateWebhookSecretInput, UpdateWebhookInput } from '../webhooks.js';
import { ModeScope } from './common.js';

/** Webhooks: the public API's shapes in the establishment and mode the dashboard shows (`webhooks`). */

export const DashboardCreateWebhookInput = CreateWebhookInput.extend(ModeScope.shape);
export type DashboardCreateWebhookInput = z.input<typeof DashboardCreateWebhookInput>;
export const DashboardUpdateWebhookInput = UpdateWebhookInput.extend(ModeScope.shape);
export type DashboardUpdateWebhookInput = z.input<typeof DashboardUpdateWebhookInput>;
export const WebhookScope = ModeScope.extend({ id: Uuid });
export const DeliveryScope = WebhookScope.extend({ delivery_id: Uuid });
export const DeliveriesPage = WebhookScope.extend({
  limit: z.number().int().min(1).max(MAX_PAGE_LIMIT).default(20),
  offset: z.number().int().min(0).default(0),
});

export const DashboardRotateSecretInput = RotateWebhookSecretInput.extend(ModeScope.shape);
export type DashboardRotateSecretInput = z.input<typeof DashboardRotateSecretInput>;
