/**
 * The dashboard's shapes: what its tRPC procedures (`/trpc`, session cookie) take and return. They
 * are not part of the public REST API (`/api/v1`), so they live apart from it (`@merma/schema/dashboard`)
 * and the SDK's bundle never carries them.
 *
 * One file per area under `dashboard/`, named as the server's module that serves it
 * (`apps/server/src/modules/<area>/dashboard.ts`); this entry re-exports them all.
 */

export * from './dashboard/accounts.js';
export * from './dashboard/analytics.js';
export * from './dashboard/audit.js';
export * from './dashboard/common.js';
export * from './dashboard/compliance.js';
export * from './dashboard/donations.js';
export * from './dashboard/inbound.js';
export * from './dashboard/integrations.js';
export * from './dashboard/keys.js';
export * from './dashboard/opening.js';
export * from './dashboard/predict.js';
export * from './dashboard/records.js';
export * from './dashboard/sessions.js';
export * from './dashboard/shifts.js';
export * from './dashboard/stations.js';
export * from './dashboard/team.js';
export * from './dashboard/webhooks.js';
export { type Capability, ROLE_CAPABILITIES, ROLES, roleCan } from './roles.js';
