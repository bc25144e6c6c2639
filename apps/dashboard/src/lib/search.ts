// zod/mini: the same zod, in its tree-shakable form, so that the first bundle stays small.

import { MODES, type Mode } from '@merma/schema';
import * as z from 'zod/mini';

export { MODES, type Mode };

/**
 * Search params of every page inside the shell: the establishment and the mode (test or live data)
 * the page works on. Bad values fall back instead of failing the page.
 */
export const scopeSearch = z.object({
  establishment: z.catch(z.optional(z.uuid()), undefined),
  mode: z.catch(z._default(z.enum(MODES), 'test'), 'test'),
});
export type ScopeSearch = z.infer<typeof scopeSearch>;

/** A page of a paged list, 1-based. */
export const pageSearch = z.object({
  page: z.catch(z.optional(z.int().check(z.minimum(1))), undefined),
});

/** `?token=` of the pages reached from an e-mailed link. */
export const tokenSearch = z.object({
  token: z.catch(z.optional(z.string().check(z.maxLength(200))), undefined),
});

/** A path of this app (never another site): where to go after signing in. */
function isLocalPath(path: string) {
  return path.startsWith('/') && !path.startsWith('//') && !path.includes('\\');
}

export const signInSearch = z.object({
  redirect: z.catch(z.optional(z.string().check(z.maxLength(2000), z.refine(isLocalPath))), undefined),
});

/** The overview's range: the last 30 days by day, 90 days by week, or 12 months by month. */
export const OVERVIEW_RANGES = ['30d', '90d', '12m'] as const;
export type OverviewRange = (typeof OVERVIEW_RANGES)[number];
export const overviewSearch = z.object({
  range: z.catch(z._default(z.enum(OVERVIEW_RANGES), '30d'), '30d'),
});

/** The first year a record's date may have: the server refuses anything earlier (PostgreSQL has no year 0). */
export const FIRST_YEAR = 1900;

/** A calendar date that exists (`2026-02-30` does not), as the API checks it. */
const calendarDate = z.iso.date();

/** Why a filter's date cannot be sent: not a whole date that exists, or before {@link FIRST_YEAR}. */
export type DateProblem = 'invalid' | 'tooEarly';
export function dateProblem(value: string): DateProblem | null {
  if (!calendarDate.safeParse(value).success) return 'invalid';
  return Number(value.slice(0, 4)) < FIRST_YEAR ? 'tooEarly' : null;
}

/**
 * The records table's filters (the export takes the same ones). `from` and `to` are kept as the URL
 * has them, even when they are not dates the API takes (`?to=0002-11-25` typed by hand): the page
 * shows them in the form with what is wrong, and `recordsDates` leaves them out of the query.
 */
export const recordsSearch = z.object({
  from: z.catch(z.optional(z.string().check(z.maxLength(40))), undefined),
  to: z.catch(z.optional(z.string().check(z.maxLength(40))), undefined),
  category: z.catch(z.optional(z.string().check(z.maxLength(40))), undefined),
  destination: z.catch(z.optional(z.uuid()), undefined),
  cause: z.catch(z.optional(z.uuid()), undefined),
  shift: z.catch(z.optional(z.uuid()), undefined),
  /** Also list the records a correction replaced. */
  corrected: z.catch(z.optional(z.boolean()), undefined),
  /** The record shown in the record dialog (a link to a correction or to the record it corrects). */
  record: z.catch(z.optional(z.uuid()), undefined),
});
export type RecordsSearch = z.infer<typeof recordsSearch>;

/** The forecast's horizon in weeks (1–4) and an optional food category. */
export const forecastSearch = z.object({
  weeks: z.catch(z._default(z.int().check(z.minimum(1), z.maximum(4)), 2), 2),
  category: z.catch(z.optional(z.string().check(z.maxLength(40))), undefined),
});

/** The plan shown: one of the history, or the latest when absent. */
export const planSearch = z.object({
  plan: z.catch(z.optional(z.uuid()), undefined),
});

/**
 * The audit log's filters: who (an e-mail), what (an action), and a range of whole days. Kept as the
 * URL has them; `auditFilter` (queries.ts) drops what the server would refuse.
 */
export const auditSearch = z.object({
  actor: z.catch(z.optional(z.string().check(z.maxLength(254))), undefined),
  action: z.catch(z.optional(z.string().check(z.maxLength(60))), undefined),
  from: z.catch(z.optional(z.iso.date()), undefined),
  to: z.catch(z.optional(z.iso.date()), undefined),
});
export type AuditSearch = z.infer<typeof auditSearch>;
