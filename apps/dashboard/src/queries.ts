import { trpc } from './trpc.ts';

/**
 * Query options that a route's loader and its page must build the same way (same key): the loader
 * fills the cache, the page reads it with `useSuspenseQuery`.
 */

export const DELIVERIES_PAGE_SIZE = 20;
export const AUDIT_PAGE_SIZE = 50;

export function deliveriesOptions(scope: { establishment_id: string; livemode: boolean; id: string }, page: number) {
  return trpc.webhooks.deliveries.queryOptions({ ...scope, limit: DELIVERIES_PAGE_SIZE, offset: (page - 1) * DELIVERIES_PAGE_SIZE });
}

/**
 * One page of the audit log; `cursor` is the previous page's `next_cursor`. (Not an infinite query:
 * those add `direction` to the input, which the strict `AuditQuery` refuses.)
 */
export function auditPageOptions(cursor?: string) {
  return trpc.audit.list.queryOptions(cursor ? { limit: AUDIT_PAGE_SIZE, cursor } : { limit: AUDIT_PAGE_SIZE });
}
