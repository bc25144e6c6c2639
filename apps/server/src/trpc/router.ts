import { analyticsRouter } from '../modules/analytics/api.js';
import { catalogRouter } from '../modules/catalog/api.js';
import type { CatalogCache } from '../modules/catalog/service.js';
import { complianceRouter } from '../modules/compliance/api.js';
import { donationsRouter } from '../modules/donations/api.js';
import { inboundRouter } from '../modules/inbound/api.js';
import { vendors } from '../modules/integrations/vendors/index.js';
import { openingRouter } from '../modules/opening/api.js';
import { photosRouter } from '../modules/photos/api.js';
import type { PhotoSettings } from '../modules/photos/service.js';
import { planRouter } from '../modules/plan/api.js';
import { predictRouter } from '../modules/predict/api.js';
import type { ForecastPool } from '../modules/predict/pool.js';
import { recordsRouter } from '../modules/records/api.js';
import { sessionsRouter } from '../modules/sessions/api.js';
import { shiftsRouter } from '../modules/shifts/api.js';
import { webhooksRouter } from '../modules/webhooks/api.js';
import type { TargetPolicy } from '../modules/webhooks/target.js';
import type { SecretBox } from '../secrets/cipher.js';
import type { CheckpointSigner } from '../secrets/signing.js';
import { checkResponses } from './responses.js';
import { router } from './trpc.js';

/** The whole API: one procedure per endpoint, each naming its REST route in its meta. */
export function createAppRouter(deps: {
  catalog: CatalogCache;
  /** Where the service is reached from outside (config PUBLIC_URL): the links it hands out. */
  publicUrl: string;
  webhookTargets: TargetPolicy;
  secrets: SecretBox;
  signer: CheckpointSigner;
  /** The demand forecast's threads (modules/predict/pool.ts); none: fits on the event loop. */
  forecasts?: ForecastPool | undefined;
  /** The photos' storage and links (modules/photos). */
  photos: PhotoSettings;
}) {
  const api = router({
    records: recordsRouter(deps.catalog, deps.signer),
    catalog: catalogRouter(deps.catalog),
    shifts: shiftsRouter,
    openingCalendar: openingRouter,
    donations: donationsRouter({ catalog: deps.catalog, publicUrl: deps.publicUrl }),
    analytics: analyticsRouter,
    sessions: sessionsRouter,
    predict: predictRouter(deps.forecasts),
    preventionPlan: planRouter,
    compliance: complianceRouter,
    photos: photosRouter(deps.photos),
    inbound: inboundRouter(
      deps.catalog,
      vendors().map((v) => v.connector),
    ),
    webhooks: webhooksRouter(deps.webhookTargets, deps.secrets),
  });
  checkResponses(api);
  return api;
}

export type AppRouter = ReturnType<typeof createAppRouter>;
