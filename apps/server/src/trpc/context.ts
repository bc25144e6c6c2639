import type { Permission, Plan, Sector } from '@merma/schema';
import type { DbTx } from '../db/client.js';
import type { Sql } from '../db/sql.js';

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

export type Clock = () => Date;

export type Context = {
  db: DbTx;
  /** The pg pool under `db`, for hot reads outside any transaction (see db/client.ts). */
  pool: Sql;
  auth: AuthContext;
  clock: Clock;
  requestId: string;
  /** The request's Idempotency-Key, for procedures that handle it themselves (meta.ownIdempotency). */
  idempotencyKey?: string | undefined;
};

export function hasPermission(auth: AuthContext, permission: Permission): boolean {
  return auth.permissions.includes('*') || auth.permissions.includes(permission);
}
