import type { Permission, Plan, Sector } from '@merma/schema';

/**
 * Types every layer shares: the caller, the clock and the log. They live here, below every layer, so that
 * services (modules/), jobs/ and http/ take them without importing upwards from trpc/.
 */

/**
 * The kinds of credential a caller presents (modules/tenancy/callers.ts resolves each): an API
 * key (the REST API), a login session (the dashboard), a kitchen station's device token, a vendor
 * integration's signed URL (Square, Odoo).
 */
export type CredentialKind = 'api_key' | 'login_session' | 'station_device' | 'integration' | 'donation_link';

/** Which credential a request came with: its kind and its row's id (never the secret). */
export type Credential = { kind: CredentialKind; id: string };

/**
 * The caller acting on one tenant's data, as the surface that authenticated it established
 * (modules/tenancy/callers.ts): the tenant, the credential and what it may do.
 */
export type AuthContext = {
  credential: Credential;
  establishmentId: string;
  organizationId: string;
  livemode: boolean;
  plan: Plan;
  permissions: readonly string[];
  timezone: string;
  sector: Sector;
};

/**
 * The data a call works on: one establishment's rows of one mode. An API key fixes both; a
 * dashboard user picks them (the establishment among their organisation's).
 */
export type DataScope = Pick<AuthContext, 'establishmentId' | 'livemode'>;

/**
 * A data scope with what its figures depend on: the establishment's time zone (days, weeks) and
 * sector, and its organisation's plan. An API key's context is one; the dashboard builds one from
 * the establishment a user picked.
 */
export type Tenant = DataScope & Pick<AuthContext, 'organizationId' | 'plan' | 'timezone' | 'sector'>;

/** "Now", passed in so that tests fix time windows; the service's one source of time. */
export type Clock = () => Date;

/**
 * Where a layer below http/ logs: the process's one pino logger (or a child of it) passed in by
 * the composition root, typed by the methods used so tests may pass any sink.
 */
export type Log = {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
};

export function hasPermission(auth: AuthContext, permission: Permission): boolean {
  return auth.permissions.includes('*') || auth.permissions.includes(permission);
}
