import { authDashboardRouter } from '../modules/accounts/dashboard.js';
import { auditDashboardRouter } from '../modules/audit/dashboard.js';
import { keysDashboardRouter } from '../modules/keys/dashboard.js';
import { teamDashboardRouter } from '../modules/team/dashboard.js';
import { webhooksDashboardRouter } from '../modules/webhooks/dashboard.js';
import type { TargetPolicy } from '../modules/webhooks/target.js';
import type { SecretBox } from '../secrets/cipher.js';
import { dashboardRouter } from './dashboard-base.js';

/**
 * Everything the dashboard calls, served at /trpc (http/dashboard.ts). The dashboard app imports
 * this router's type only (`@merma/server/dashboard`), so its calls are checked against it when it
 * is built.
 */
export function createDashboardRouter(deps: { webhookTargets: TargetPolicy; secrets: SecretBox; publicUrl: string }) {
  return dashboardRouter({
    auth: authDashboardRouter,
    keys: keysDashboardRouter,
    webhooks: webhooksDashboardRouter(deps.webhookTargets, deps.secrets, deps.publicUrl),
    team: teamDashboardRouter,
    audit: auditDashboardRouter,
  });
}

export type DashboardRouter = ReturnType<typeof createDashboardRouter>;
