import type { AuditAction } from '@merma/schema/dashboard';
import type { AuditSearch, DonationsSearch } from './lib/search.ts';
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
 * The audit log's filter from the URL: an action `isAction` does not know and a `from` after `to`
 * are left out. (The page checks actions against @merma/schema's list; the route's loader, in the
 * first bundle, only by their shape and prefetches without failing.)
 */
export function auditFilter(search: AuditSearch, isAction: (action: string) => boolean) {
  const actor = search.actor?.trim();
  const ordered = !search.from || !search.to || search.from <= search.to;
  return {
    ...(actor ? { actor } : {}),
    ...(search.action && isAction(search.action) ? { action: search.action as AuditAction } : {}),
    ...(search.from && ordered ? { from: search.from } : {}),
    ...(search.to && ordered ? { to: search.to } : {}),
  };
}
export type AuditFilter = ReturnType<typeof auditFilter>;
/** What an action looks like (`shift.created`), for where the list of actions is not loaded. */
export const looksLikeAction = (action: string) => /^[a-z_]+\.[a-z_]+$/.test(action);

/** The zone the page shows times in (the browser's): the days of the date filter are that zone's days. */
const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;

/**
 * One page of the audit log, of a filter; `cursor` is the previous page's `next_cursor`. (Not an
 * infinite query: those add `direction` to the input, which the strict `AuditQuery` refuses.)
 */
export function auditPageOptions(filter: AuditFilter = {}, cursor?: string) {
  const dated = filter.from || filter.to ? { time_zone: browserZone() } : {};
  return trpc.audit.list.queryOptions({ limit: AUDIT_PAGE_SIZE, ...filter, ...dated, ...(cursor ? { cursor } : {}) });
}

/**
 * The donations page's agreements list from the URL (`DonationsSearch`): an entity or establishment
 * the organisation does not have (a stale link) is left out, so the list shows all rather than failing.
 */
export function donationAgreementsOptions(
  search: DonationsSearch,
  known: { establishmentIds: readonly string[]; entityIds: readonly string[] },
) {
  return trpc.donations.agreements.queryOptions({
    ...(search.entity && known.entityIds.includes(search.entity) ? { entity_id: search.entity } : {}),
    ...(search.covers && known.establishmentIds.includes(search.covers) ? { establishment_id: search.covers } : {}),
  });
}

/** The organisation's agreements that end within 30 days (the donations page's alert). */
export const expiringAgreementsOptions = () => trpc.donations.agreements.queryOptions({ status: 'expiring' });

export const DONATIONS_PAGE_SIZE = 20;

/** A page of the establishment's donations of the mode shown, filtered as the URL says (`DonationsSearch`). */
export function donationsListOptions(scope: { establishment_id: string; livemode: boolean }, search: DonationsSearch) {
  return trpc.donations.list.queryOptions({
    ...scope,
    ...(search.status ? { status: search.status } : {}),
    ...(search.waiting ? { awaiting_reroute: true } : {}),
    limit: DONATIONS_PAGE_SIZE,
    offset: ((search.page ?? 1) - 1) * DONATIONS_PAGE_SIZE,
  });
}

/**
 * The tax year the donations page shows when the URL names none: last year, in Spain's calendar
 * (the tax pack's), the one a company's adviser is closing.
 */
export function defaultTaxYear(now = new Date()): number {
  return Number(new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Madrid', year: 'numeric' }).format(now)) - 1;
}

/** The organisation's tax pack of a year, in the mode shown (`donations.taxPack`). */
export const taxPackOptions = (year: number, livemode: boolean) => trpc.donations.taxPack.queryOptions({ year, livemode });
