import type { Permission } from '@merma/schema';
import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { type AuthContext, hasPermission } from '../context.js';
import { AppError } from '../errors.js';
import type { Context } from './context.js';

/** Rate-limit bucket a route counts against (see http/rate-limit.ts). */
export type RateBucket = 'general' | 'records_create' | 'analytics';

export type Meta = OpenApiMeta<{
  /** Permission the key must hold. */
  permission?: Permission;
  /** HTTP status of success: 201 for creates, 202 for work queued for later, 200 otherwise. */
  successStatus?: 200 | 201 | 202;
  rateBucket?: RateBucket;
  /** The service treats the Idempotency-Key itself (as a dedupe key) instead of the generic replay. */
  ownIdempotency?: boolean;
  /**
   * Every write of the procedure goes through `ctx.sql`, and it reads through `ctx.db` only before
   * its first write: under an Idempotency-Key, the key is then claimed on `ctx.sql`'s connection at
   * that first write, in one transaction with it, without a Prisma interactive transaction
   * (http/idempotency.ts, `lazyIdempotency`). A procedure that writes through `ctx.db` must not set it.
   */
  sqlWrites?: boolean;
  /**
   * With `sqlWrites`: the procedure writes records and answers them stamped with their `created_at`
   * (`ok(record, record.created_at)`). One record's statement claims the Idempotency-Key
   * (`ctx.sql.keyClaim`); a batch names its first record and the rest of its answer to the key
   * (`ctx.sql.answerFromRows`). Given `ctx.storedAnswer`, it answers those stored records instead of
   * writing: the key's replay, the same bytes (http/idempotency.ts).
   */
  answersRecords?: boolean;
  /**
   * A POST whose input fields may also be given as query parameters (`?lang=en`), merged with the
   * JSON body; trpc-to-openapi reads a POST's input from the body only, so http/binding.ts does the
   * merge and http/openapi.ts documents the query parameters.
   */
  queryInput?: boolean;
}>;

const t = initTRPC.context<Context>().meta<Meta>().create();

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/**
 * The authorisation a procedure's meta asks of the calling key (today its permission; plans are
 * checked by the auth hook for the whole API, and benchmarking's in its service). The procedures'
 * middleware runs it, and so does http/binding.ts before it looks up a stored Idempotency-Key
 * answer, so a replay is refused exactly as the request itself would be.
 */
export function authorizeProcedure(auth: AuthContext, meta: Meta | undefined): void {
  if (meta?.permission && !hasPermission(auth, meta.permission)) {
    throw new AppError('forbidden', `This API key lacks the permission ${meta.permission}`);
  }
}

/** Every API procedure: checks the permission named in its meta before running. */
export const apiProcedure = t.procedure.use(({ ctx, meta, next }) => {
  authorizeProcedure(ctx.auth, meta);
  return next();
});

/** Wraps a procedure's result in the success envelope, stamped now unless told when. */
export function ok<T>(data: T, timestamp = new Date().toISOString()): { success: true; data: T; timestamp: string } {
  return { success: true, data, timestamp };
}
