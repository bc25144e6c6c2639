import { z } from 'zod';

/** Inbound events from ERP and POS systems, as the dashboard explains them (`inbound`). */

/** Where ERP and POS systems send their events, with an example body. */
export const InboundEndpoint = z.object({
  url: z.string(),
  events: z.array(z.string()),
  sample: z.record(z.string(), z.unknown()),
});
export type InboundEndpoint = z.infer<typeof InboundEndpoint>;
