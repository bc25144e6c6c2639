import { accountsDashboardRouter } from '../modules/accounts/dashboard.js';
import { analyticsDashboardRouter } from '../modules/analytics/dashboard.js';
import { auditDashboardRouter } from '../modules/audit/dashboard.js';
import { catalogDashboardRouter } from '../modules/catalog/dashboard.js';
import type { CatalogCache } from '../modules/catalog/service.js';
import { complianceDashboardRouter } from '../modules/compliance/dashboard.js';
import { donationsDashboardRouter } from '../modules/donations/dashboard.js';
import { inboundDashboardRouter } from '../modules/inbound/dashboard.js';
import { integrationsDashboardRouter } from '../modules/integrations/dashboard.js';
import { keysDashboardRouter } from '../modules/keys/dashboard.js';
import { openingDashboardRouter } from '../modules/opening/dashboard.js';
import type { PhotoSettings } from '../modules/photos/service.js';
import { planDashboardRouter } from '../modules/plan/dashboard.js';
import { predictDashboardRouter } from '../modules/predict/dashboard.js';
import type { ForecastPool } from '../modules/predict/pool.js';
import { recordsDashboardRouter } from '../modules/records/dashboard.js';
import { sessionsDashboardRouter } from '../modules/sessions/dashboard.js';
import { shiftsDashboardRouter } from '../modules/shifts/dashboard.js';
import { stationsDashboardRouter } from '../modules/stations/dashboard.js';
import { teamDashboardRouter } from '../modules/team/dashboard.js';
import type { InvitationLimiter } from '../modules/team/limits.js';
import { webhooksDashboardRouter } from '../modules/webhooks/dashboard.js';
import type { TargetPolicy } from '../modules/webhooks/target.js';
import type { SecretBox } from '../secrets/cipher.js';
import type { CheckpointSigner } from '../secrets/signing.js';
import { dashboardRouter } from './dashboard-base.js';

/**
 * Everything the dashboard calls, served at /trpc (http/surfaces/dashboard.ts): one namespace per module,
 * each module's procedures in its own dashboard.ts. The dashboard app imports
 * this router's type only (`@merma/server/dashboard`), so its calls are checked against it when it
 * is built.
 */
export function createDashboardRouter(deps: {
  webhookTargets: TargetPolicy;
  secrets: SecretBox;
  publicUrl: string;
  catalog: CatalogCache;
  signer: CheckpointSigner;
  /** The team page's invitation limits (team/limits.ts). */
  invitations: InvitationLimiter;
  /** The demand forecast's threads (modules/predict/pool.ts); none: fits on the event loop. */
  forecasts?: ForecastPool | undefined;
  /** The photos' storage and links (modules/photos). */
  photos: PhotoSettings;
}) {
  return dashboardRouter({
    accounts: accountsDashboardRouter,
    keys: keysDashboardRouter,
    webhooks: webhooksDashboardRouter(deps.webhookTargets, deps.secrets, deps.publicUrl),
    integrations: integrationsDashboardRouter(deps.secrets, deps.publicUrl, deps.webhookTargets),
    inbound: inboundDashboardRouter(deps.publicUrl),
    team: teamDashboardRouter({ invitations: deps.invitations }),
    audit: auditDashboardRouter,
    catalog: catalogDashboardRouter(deps.catalog),
    analytics: analyticsDashboardRouter,
    predict: predictDashboardRouter(deps.forecasts),
    stations: stationsDashboardRouter,
    plan: planDashboardRouter,
    compliance: complianceDashboardRouter,
    records: recordsDashboardRouter(deps.signer, deps.catalog, deps.photos),
    shifts: shiftsDashboardRouter,
    opening: openingDashboardRouter,
    sessions: sessionsDashboardRouter,
    donations: donationsDashboardRouter({ catalog: deps.catalog, publicUrl: deps.publicUrl }),
  });
}

export type DashboardRouter = ReturnType<typeof createDashboardRouter>;
