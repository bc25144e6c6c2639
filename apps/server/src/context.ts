import type { Permission, Plan, Sector } from '@merma/schema';

/**
 * Types every layer shares: the caller and the clock. They live here, below every layer, so that
 * services (modules/), jobs/ and http/ take them without importing upwards from trpc/.
 */

/** The caller, as established by the auth hook from the API key. */
export type AuthContext = {
  keyId: string;
  establishmentId: string;
  organizationId: string;
  livemode: boolean;
  plan: Plan;
  permissions: readonly string[];
  timezone: string;
  sector: Sector;
};

/** "Now", passed in so that tests fix time windows; the service's one source of time. */
export type Clock = () => Date;

export function hasPermission(auth: AuthContext, permission: Permission): boolean {
  return auth.permissions.includes('*') || auth.permissions.includes(permission);
}
