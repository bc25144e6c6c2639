/** Limits and value sets of the Merma API. Every other package imports them from here. */

/** Most records accepted by one `POST /api/v1/records/batch` call. */
export const MAX_BATCH_RECORDS = 500;
/** Default and largest page size of `GET /api/v1/records`. */
export const DEFAULT_PAGE_LIMIT = 50;
export const MAX_PAGE_LIMIT = 200;
/** Largest `offset` accepted by list endpoints (deeper pages: narrow the date range). */
export const MAX_PAGE_OFFSET = 1_000_000;
/** Days covered by list and analytics queries when `from` is not given. */
export const DEFAULT_RANGE_DAYS = 30;
/** Longest text of a record's `notes`. */
export const MAX_NOTES_LENGTH = 500;
/**
 * `occurred_at` of a record — when the waste happened — may be at most this far ahead of the
 * server's clock (clocks of tills and scales drift) …
 */
export const MAX_OCCURRED_AT_AHEAD_SECONDS = 300;
/** … and at most this many days before it: a year of late uploads, and a month to spare. */
export const MAX_OCCURRED_AT_AGE_DAYS = 400;
export const MAX_PRODUCT_NAME_LENGTH = 200;
export const MAX_URL_LENGTH = 2048;
/** Heaviest single record, in kg (1,000 t). Weights are stored to the gram (3 decimals). */
export const MAX_WEIGHT_KG = 1_000_000;
export const WEIGHT_DECIMALS = 3;
/** Largest request body the API reads, in bytes (1 MiB). Larger bodies get 413. */
export const MAX_BODY_BYTES = 1024 * 1024;
/** Longest `Idempotency-Key` header value, and how long a key is remembered. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
export const IDEMPOTENCY_TTL_HOURS = 24;
/**
 * The versions of the API's contract a caller may pin with the `Merma-Version` request header,
 * oldest first; the last is the current one. Every `/api/v1` answer names, in the same header, the
 * version it was answered with (the pinned one, else the current); an unknown version is refused
 * with 400. A version is added here, with its date, only when a change would break a caller.
 */
export const API_VERSIONS = ['2026-11-28'] as const;
export type ApiVersion = (typeof API_VERSIONS)[number];
export const CURRENT_API_VERSION: ApiVersion = API_VERSIONS[API_VERSIONS.length - 1] as ApiVersion;
export const API_VERSION_HEADER = 'Merma-Version';
/**
 * How long a webhook secret replaced by `POST /api/v1/webhooks/{id}/rotate-secret` keeps signing
 * beside the new one, by default and at most (1 day, 7 days).
 */
export const DEFAULT_SECRET_GRACE_PERIOD_SECONDS = 86_400;
export const MAX_SECRET_GRACE_PERIOD_SECONDS = 604_800;

export const FOOD_CATEGORIES = [
  'meat',
  'fish',
  'fruit_veg',
  'dairy',
  'bakery',
  'prepared_meals',
  'cereals',
  'beverages',
  'others',
] as const;

export const WASTE_STAGES = ['receiving', 'storage', 'preparation', 'service', 'post_service'] as const;

/**
 * How a record's weight was obtained, after the methods of Delegated Decision (EU) 2019/1597
 * (Annex III): weighed on a scale; units counted × their unit weight; a write-off booked in a POS or
 * ERP (units × the product's net weight); an estimate (by eye, by volume, a coefficient); a waste
 * composition analysis (a sample sorted and weighed, extrapolated).
 */
export const MEASUREMENT_METHODS = ['direct_weighing', 'counting', 'write_off', 'estimate', 'composition_analysis'] as const;
export type MeasurementMethodCode = (typeof MEASUREMENT_METHODS)[number];

/**
 * Whether a method's weight is an estimate when the record does not say (ESRS E5-5 reports the
 * measured and the estimated share): a weighing, a count and a write-off are measured; an estimate
 * and an analysis extrapolated from a sample are estimated.
 */
export const ESTIMATED_BY_METHOD: Record<MeasurementMethodCode, boolean> = {
  direct_weighing: false,
  counting: false,
  write_off: false,
  estimate: true,
  composition_analysis: true,
};

/** Whether the food thrown away could have been eaten (the 2019/1597 split: edible parts, inedible parts such as bones and peels). */
export const EDIBLE_PARTS = ['edible', 'inedible', 'mixed'] as const;

/**
 * Why a record went to a lower step of the food waste hierarchy (Ley 1/2025 art. 5) than one its
 * establishment uses for the same food category — the written justification art. 5.2 asks for:
 * not fit for people (food safety), nobody takes it (no entity or collector), too little to be
 * collected, a rule forbids the higher step (animal by-products, allergens), disproportionate cost
 * or logistics, or another reason said in the note.
 */
export const HIERARCHY_REASONS = ['unfit_for_people', 'no_taker', 'too_little', 'legal_restriction', 'cost_or_logistics', 'other'] as const;
export type HierarchyReasonCode = (typeof HIERARCHY_REASONS)[number];

/** The longest note a justification carries. */
export const MAX_HIERARCHY_NOTE_LENGTH = 500;

/** The longest scale id a record carries. */
export const MAX_SCALE_ID_LENGTH = 100;

/** The longest transfer document reference a record carries (Spain's "documento de identificación" numbers are about 20 characters). */
export const MAX_TRANSFER_DOCUMENT_REF_LENGTH = 100;
/** The longest name of a waste manager. */
export const MAX_WASTE_MANAGER_NAME_LENGTH = 200;

/** Languages the prevention plan is written in (`lang`); Spanish, the language of Ley 1/2025, by default. */
export const PLAN_LANGUAGES = ['es', 'en'] as const;
/** How far a prevention plan's measure has gone (plan-follow-up.ts). */
export const MEASURE_STATUSES = ['planned', 'in_progress', 'done', 'dropped'] as const;
/** The calendar years the compliance figures answer for. */
export const ESRS_YEARS = { min: 2000, max: 2100 } as const;
/** Default and largest page size of the prevention-plan history. */
export const DEFAULT_PLAN_HISTORY_LIMIT = 20;

export const SECTORS = ['horeca', 'industrial', 'retail', 'distribucion', 'colectividades'] as const;

/** Plans. `basic` and `pro` have no API access; both enterprise plans include benchmarking. */
export const PLANS = ['basic', 'pro', 'enterprise', 'enterprise_multi'] as const;
export const API_PLANS = ['enterprise', 'enterprise_multi'] as const;

/** Outbound webhook event names. */
export const EVENT_TYPES = [
  'record.created',
  'record.updated',
  'session.completed',
  'subscription.changed',
  'subscription.canceled',
  'alert.spike_detected',
  'alert.triggered',
  'plan.generated',
  'integration.lines_refused',
  'agreement.expiring',
  'donation.offered',
  'donation.accepted',
  'donation.refused',
  'donation.received',
] as const;

/** Events accepted by `POST /api/v1/webhooks/inbound`. */
/** Sent only by `POST /api/v1/webhooks/{id}/test`; it cannot be subscribed to. */
export const TEST_EVENT_TYPE = 'webhook.test' as const;

export const INBOUND_EVENT_TYPES = ['waste.created', 'waste.updated', 'inventory.loss', 'sales.recorded'] as const;

/** Permissions a key may hold; `*` grants all of them. */
export const PERMISSIONS = [
  'records:read',
  'records:write',
  'catalog:read',
  'catalog:write',
  'analytics:read',
  'benchmarking:read',
  'shifts:read',
  'shifts:write',
  'opening:read',
  'opening:write',
  'sessions:read',
  'sessions:write',
  'predict:read',
  'predict:write',
  'webhooks:read',
  'webhooks:write',
  'inbound:write',
  'donations:read',
  'donations:write',
] as const;
export const ALL_PERMISSIONS = '*' as const;

/**
 * The two data modes: every record, key and subscription is either test data or live (production)
 * data. Test is the safe default (a new page, a new key): nothing live changes until someone
 * switches. The REST API and the dashboard's procedures say it as `livemode` (a boolean, as
 * Stripe does); keys, the dashboard's address and the CSV export say it as `mode`.
 */
export const MODES = ['test', 'live'] as const;
export type Mode = (typeof MODES)[number];

/** API key prefixes: live keys see production data, test keys see test data. */
export const LIVE_KEY_PREFIX = 'svc_live_';
export const TEST_KEY_PREFIX = 'svc_test_';
/** Characters after the prefix: base62, drawn uniformly from random bytes by the server. */
export const API_KEY_BODY_LENGTH = 32;
/** The whole shape of an API key: the server refuses any other without a lookup. */
export const API_KEY_PATTERN = new RegExp(`^(${LIVE_KEY_PREFIX}|${TEST_KEY_PREFIX})[0-9A-Za-z]{${API_KEY_BODY_LENGTH}}$`);
/** The prefix of a mode's keys. */
export const keyPrefix = (mode: Mode): string => (mode === 'live' ? LIVE_KEY_PREFIX : TEST_KEY_PREFIX);
/** The mode a key is for, read from its prefix; undefined when it has neither. */
export function keyMode(key: string): Mode | undefined {
  if (key.startsWith(LIVE_KEY_PREFIX)) return 'live';
  if (key.startsWith(TEST_KEY_PREFIX)) return 'test';
  return undefined;
}

/** Machine-readable error codes, sent beside the HTTP status in every error body. */
export const ERROR_CODES = [
  'validation_error',
  'unauthorized',
  'forbidden',
  'plan_required',
  'not_found',
  'method_not_allowed',
  'request_timeout',
  'conflict',
  'gone',
  'payload_too_large',
  'unsupported_media_type',
  'headers_too_large',
  'rate_limited',
  'service_unavailable',
  'internal',
] as const;

/**
 * What a detail says, as a code a client can word itself (the dashboard, in its reader's language),
 * with the values its sentence needs in `params`. A small set, grown only when a client must say a
 * new kind of problem; `message` stays the English sentence for API users, and a detail without a
 * code is said by its message.
 *
 * - `invalid_gtin` (`value`): not an EAN/GTIN with its check digit;
 * - `required`, `too_long` (`max`), `not_one_of` (`value`), `not_a_number` (`value`): a field's value;
 * - `repeated` (`value`, `first_line`), `taken` (`value`, `ean`): a value another line or product has;
 * - `above` (`other`): an amount above another (`unit_cost` above `price`);
 * - `csv_unreadable`, `csv_header` (`columns`), `csv_empty`: the file as a whole;
 * - `url_invalid`, `url_whitespace`, `https_required`, `url_credentials`, `internal_address`,
 *   `host_not_found`: a webhook's URL refused.
 *
 * `params.line` is the CSV line a problem is on, when it is on one; `params.field` the CSV column.
 */
export const DETAIL_CODES = [
  'invalid_gtin',
  'required',
  'too_long',
  'not_one_of',
  'not_a_number',
  'repeated',
  'taken',
  'above',
  'csv_unreadable',
  'csv_header',
  'csv_empty',
  'url_invalid',
  'url_whitespace',
  'https_required',
  'url_credentials',
  'internal_address',
  'host_not_found',
] as const;

export const API_VERSION_PREFIX = '/api/v1';

/**
 * How much of a receiver's answer each webhook attempt keeps (4 KiB, as text): enough to read an
 * error message, as Stripe's and Svix's delivery logs show, without storing whatever a receiver
 * chooses to send back.
 */
export const WEBHOOK_RESPONSE_BODY_MAX_BYTES = 4096;

/**
 * Languages of the e-mails (invitations, password resets, webhook notices), the dashboard's own.
 * Spanish, the first, when nothing says otherwise.
 */
export const MAIL_LANGUAGES = ['es', 'en'] as const;
export type MailLanguage = (typeof MAIL_LANGUAGES)[number];

/** Failed deliveries in a row (each after all its retries) that deactivate a webhook subscription. */
export const DEACTIVATE_AFTER_FAILED_DELIVERIES = 5;

/**
 * A donation's states (donation-handover.ts): `offered` → `accepted` | `refused` → `collected` →
 * `received`. Here, without zod, because the dashboard's first bundle reads them (the Donations
 * page's status filter in the URL).
 */
export const DONATION_STATUSES = ['offered', 'accepted', 'refused', 'collected', 'received'] as const;

/**
 * First and last tax year the donations' tax pack is asked for (donation-tax.ts). Here, without
 * zod, because the dashboard's first bundle reads them (the Donations page's tax year in the URL).
 */
export const TAX_PACK_MIN_YEAR = 2000;
export const TAX_PACK_MAX_YEAR = 2100;

/**
 * The share of days the production advice covers for a product without prices, before the waste
 * it leaves adjusts it (±0.10: a product of which 30 % or more is wasted gets 0.10 less, one never
 * wasted 0.10 more, within 0.05–0.99). Per establishment and mode, set in its production settings;
 * 0.85 until then. (Here, with no schema around them, for the dashboard's page that shows them:
 * importing them from `insights.ts` evaluated zod on that page's load.)
 */
export const DEFAULT_SERVICE_LEVEL = 0.85;
export const MIN_SERVICE_LEVEL = 0.5;
export const MAX_SERVICE_LEVEL = 0.99;
