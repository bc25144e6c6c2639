import type { Permission, Plan, Sector } from '@merma/schema';

/**
 * Types every layer shares: the caller, the clock and the log. They live here, below every layer, so that
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
