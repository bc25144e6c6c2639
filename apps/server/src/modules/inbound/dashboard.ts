import { INBOUND_EVENT_TYPES } from '@merma/schema';
import { InboundEndpoint } from '@merma/schema/dashboard';
import { dashboardRouter, establishmentProcedure } from '../../trpc/dashboard-base.js';

/** The integrations page's inbound endpoint: its address, the events it takes and a sample to copy. */
export const inboundDashboardRouter = (publicUrl: string) =>
  dashboardRouter({
    endpoint: establishmentProcedure.output(InboundEndpoint).query(() => ({
      url: `${publicUrl.replace(/\/+$/, '')}/api/v1/webhooks/inbound`,
      events: [...INBOUND_EVENT_TYPES],
      sample: {
        event: 'inventory.loss',
        payload: {
          source: 'my-pos',
          external_id: 'loss-2026-000123',
          ean: '8412345678905',
          quantity_kg: 2.5,
          reason: 'expired',
          occurred_at: '2026-11-24T09:30:00+01:00',
        },
      },
    })),
  });
