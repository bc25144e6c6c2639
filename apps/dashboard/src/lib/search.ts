// The search params' validators are plain functions, not zod: they are in the first bundle (the
// router's route tree), and zod (even zod/mini) would add ~30 kB gzipped to the sign-in page.
// Each keeps what the URL has when it is valid and drops (or defaults) what is not, so a bad value
// falls back instead of failing the page.

import { DONATION_STATUSES, type DonationStatus, MODES, type Mode, TAX_PACK_MAX_YEAR, TAX_PACK_MIN_YEAR } from '@merma/schema';
import type { SearchSchemaInput } from '@tanstack/react-router';
import { isLocalPath } from './local-path.ts';

export { MODES, type Mode };

/**
 * What a link may pass (every field optional) — the router's `SearchSchemaInput` marks it as the
 * input type — while the validator reads any value the URL has.
 */
type In<T> = { [K in keyof T]?: T[K] | undefined } & SearchSchemaInput;
type Raw = Record<string, unknown>;
const raw = (input: object) => input as Raw;

/** A UUID as the API takes it (zod's `z.uuid()`: versions 1–8, RFC variant, nil and max). */
const UUID =
  /^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$/;
/** A calendar date that exists (`2026-02-30` does not), as the API checks it (zod's `z.iso.date()`). */
const ISO_DATE =
  /^(?:(?:\d\d[2468][048]|\d\d[13579][26]|\d\d0[48]|[02468][048]00|[13579][26]00)-02-29|\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\d|30)|(?:02)-(?:0[1-9]|1\d|2[0-8])))$/;

const uuid = (value: unknown) => (typeof value === 'string' && UUID.test(value) ? value : undefined);
const isoDate = (value: unknown) => (typeof value === 'string' && ISO_DATE.test(value) ? value : undefined);
const text = (value: unknown, max: number) => (typeof value === 'string' && value.length <= max ? value : undefined);
const int = (value: unknown, min: number, max = Number.MAX_SAFE_INTEGER) =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= min && value <= max ? value : undefined;
const oneOf = <T extends string>(values: readonly T[], value: unknown) =>
  (values as readonly unknown[]).includes(value) ? (value as T) : undefined;

/** The object without its undefined fields: an absent or dropped param is not in the URL. */
function defined<T extends object>(fields: T): T {
  for (const key of Object.keys(fields) as (keyof T)[]) if (fields[key] === undefined) delete fields[key];
  return fields;
}

/**
 * Search params of every page inside the shell: the establishment and the mode (test or live data)
 * the page works on.
 */
export type ScopeSearch = { establishment?: string | undefined; mode: Mode };
export const scopeSearch = (input: In<ScopeSearch>): ScopeSearch =>
  defined({ establishment: uuid(raw(input).establishment), mode: oneOf(MODES, raw(input).mode) ?? 'test' });

/** A page of a paged list, 1-based. */
export const pageSearch = (input: In<{ page?: number | undefined }>): { page?: number | undefined } =>
  defined({ page: int(raw(input).page, 1) });

/** `?token=` of the pages reached from an e-mailed link. */
export const tokenSearch = (input: In<{ token?: string | undefined }>): { token?: string | undefined } =>
  defined({ token: text(raw(input).token, 200) });

export const signInSearch = (input: In<{ redirect?: string | undefined }>): { redirect?: string | undefined } => {
  const redirect = text(raw(input).redirect, 2000);
  return defined({ redirect: redirect !== undefined && isLocalPath(redirect) ? redirect : undefined });
};

/** The overview's range: the last 30 days by day, 90 days by week, or 12 months by month. */
export const OVERVIEW_RANGES = ['30d', '90d', '12m'] as const;
export type OverviewRange = (typeof OVERVIEW_RANGES)[number];
export const overviewSearch = (input: In<{ range: OverviewRange }>): { range: OverviewRange } => ({
  range: oneOf(OVERVIEW_RANGES, raw(input).range) ?? '30d',
});

/** The first year a record's date may have: the server refuses anything earlier (PostgreSQL has no year 0). */
export const FIRST_YEAR = 1900;

/** Why a filter's date cannot be sent: not a whole date that exists, or before {@link FIRST_YEAR}. */
export type DateProblem = 'invalid' | 'tooEarly';
export function dateProblem(value: string): DateProblem | null {
  if (!ISO_DATE.test(value)) return 'invalid';
  return Number(value.slice(0, 4)) < FIRST_YEAR ? 'tooEarly' : null;
}

/**
 * The records table's filters (the export takes the same ones). `from` and `to` are kept as the URL
 * has them, even when they are not dates the API takes (`?to=0002-11-25` typed by hand): the page
 * shows them in the form with what is wrong, and `recordsDates` leaves them out of the query.
 */
export type RecordsSearch = {
  from?: string | undefined;
  to?: string | undefined;
  category?: string | undefined;
  destination?: string | undefined;
  cause?: string | undefined;
  shift?: string | undefined;
  /** Also list the records a correction replaced. */
  corrected?: boolean | undefined;
  /** The record shown in the record dialog (a link to a correction or to the record it corrects). */
  record?: string | undefined;
};
export const recordsSearch = (input: In<RecordsSearch>): RecordsSearch =>
  defined({
    from: text(raw(input).from, 40),
    to: text(raw(input).to, 40),
    category: text(raw(input).category, 40),
    destination: uuid(raw(input).destination),
    cause: uuid(raw(input).cause),
    shift: uuid(raw(input).shift),
    corrected: typeof raw(input).corrected === 'boolean' ? (raw(input).corrected as boolean) : undefined,
    record: uuid(raw(input).record),
  });

/** The forecast's horizon in weeks (1–4) and an optional food category. */
export const forecastSearch = (
  input: In<{ weeks: number; category?: string | undefined }>,
): { weeks: number; category?: string | undefined } =>
  defined({ weeks: int(raw(input).weeks, 1, 4) ?? 2, category: text(raw(input).category, 40) });

/** The plan shown: one of the history, or the latest when absent. */
export const planSearch = (input: In<{ plan?: string | undefined }>): { plan?: string | undefined } =>
  defined({ plan: uuid(raw(input).plan) });

/**
 * The audit log's filters: who (an e-mail), what (an action), and a range of whole days. Kept as the
 * URL has them; `auditFilter` (queries.ts) drops what the server would refuse.
 */
export type AuditSearch = {
  actor?: string | undefined;
  action?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
};
export const auditSearch = (input: In<AuditSearch>): AuditSearch =>
  defined({
    actor: text(raw(input).actor, 254),
    action: text(raw(input).action, 60),
    from: isoDate(raw(input).from),
    to: isoDate(raw(input).to),
  });

/**
 * The donations page's agreements filter: one social entity (`entity`) and one establishment they
 * cover (`covers`; `establishment` is the shell's own choice, which this list does not follow); and
 * its donations' (of the shell's establishment and mode): one status, only those with a refused
 * line waiting for a destination (`waiting`), the page, and the donation open (`donation`); and the
 * tax pack's year (`tax_year`; last year when absent).
 */
export type DonationsSearch = {
  entity?: string | undefined;
  covers?: string | undefined;
  status?: DonationStatus | undefined;
  waiting?: boolean | undefined;
  page?: number | undefined;
  donation?: string | undefined;
  tax_year?: number | undefined;
};
export const donationsSearch = (input: In<DonationsSearch>): DonationsSearch =>
  defined({
    entity: uuid(raw(input).entity),
    covers: uuid(raw(input).covers),
    status: oneOf(DONATION_STATUSES, raw(input).status),
    waiting: raw(input).waiting === true ? true : undefined,
    page: int(raw(input).page, 1),
    donation: uuid(raw(input).donation),
    tax_year: int(raw(input).tax_year, TAX_PACK_MIN_YEAR, TAX_PACK_MAX_YEAR),
  });
