import { z } from 'zod';
import { Cause, CreateShiftInput, Destination, Shift } from './catalog.js';
import { DateOrDateTime, FoodCategory, IsoDate, Permission, Plan, Timestamp, text, Uuid } from './common.js';
import {
  ALL_PERMISSIONS,
  DEFAULT_SECRET_GRACE_PERIOD_SECONDS,
  MAIL_LANGUAGES,
  MAX_PAGE_LIMIT,
  MAX_SECRET_GRACE_PERIOD_SECONDS,
  MODES,
} from './constants.js';
import { KeysetCursor } from './cursor.js';
import { AnalyticsQuery, BenchmarkResult, UpdateProductionSettingsInput } from './insights.js';
import { CreateClosureInput, SetClosedWeekdaysInput } from './opening.js';
import { CreateRecordInput, WasteRecord } from './records.js';
import { ROLES } from './roles.js';
import { ListSessionsQuery, Session } from './sessions.js';
import { CreateWebhookInput, RotateWebhookSecretInput, UpdateWebhookInput } from './webhooks.js';

/**
 * The dashboard's shapes: what its tRPC procedures (`/trpc`, session cookie) take and return. They
 * are not part of the public REST API (`/api/v1`), so they live apart from it (`@merma/schema/dashboard`)
 * and the SDK's bundle never carries them.
 */

export { type Capability, ROLE_CAPABILITIES, ROLES, roleCan } from './roles.js';

/** A member's role in an organisation, strongest first (the list and the table of what each may do: roles.ts). */
export const Role = z.enum(ROLES);
export type Role = z.infer<typeof Role>;

/**
 * Password rules (NIST SP 800-63B, OWASP ASVS 2.1.1): long rather than complex. 12 characters at
 * least; at most 200, so that hashing a huge body costs nothing unusual. The server also refuses
 * guessable passwords (common ones, patterns, the account's e-mail), which a shape cannot express.
 */
export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 200;
export const Password = z.string().min(MIN_PASSWORD_LENGTH).max(MAX_PASSWORD_LENGTH);

export const Email = z
  .email()
  .max(254)
  .transform((e) => e.trim().toLowerCase());

/** A one-time token from an e-mailed link (invitation, password reset, sign-in link). */
export const LinkToken = z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'malformed link');

export const SignInInput = z.strictObject({ email: Email, password: z.string().min(1).max(MAX_PASSWORD_LENGTH) });
export type SignInInput = z.input<typeof SignInInput>;

export const LinkTokenInput = z.strictObject({ token: LinkToken });

export const AcceptInvitationInput = z.strictObject({
  token: LinkToken,
  /** Needed only by someone without an account yet. */
  name: text(120).trim().min(1).optional(),
  password: Password.optional(),
});
export type AcceptInvitationInput = z.input<typeof AcceptInvitationInput>;

export const RequestPasswordResetInput = z.strictObject({ email: Email });
export const ResetPasswordInput = z.strictObject({ token: LinkToken, password: Password });
export type ResetPasswordInput = z.input<typeof ResetPasswordInput>;

/** What an invitation link shows before it is accepted. */
export const InvitationPreview = z.object({
  organization: z.string(),
  email: z.string(),
  role: Role,
  /** The invited address already has an account: accepting only needs signing in. */
  has_account: z.boolean(),
  expires_at: Timestamp,
});
export type InvitationPreview = z.infer<typeof InvitationPreview>;

/** `cif`: the establishment's tax id (set with `merma-admin establishment create --cif`), printed on its prevention plan. */
export const DashboardEstablishment = z.object({ id: Uuid, name: z.string(), cif: z.string(), timezone: z.string() });
export type DashboardEstablishment = z.infer<typeof DashboardEstablishment>;

/** The signed-in user and the organisation the session works in. */
export const Me = z.object({
  user: z.object({ id: Uuid, email: z.string(), name: z.string() }),
  organization: z.object({
    id: Uuid,
    name: z.string(),
    plan: Plan,
    /** false for basic and pro, and for a canceled subscription: the API answers 403 plan_required. */
    api_enabled: z.boolean(),
  }),
  role: Role,
  organizations: z.array(z.object({ id: Uuid, name: z.string(), role: Role })),
  establishments: z.array(DashboardEstablishment),
  /** Send it as `x-csrf-token` on every call that changes something (also readable from the CSRF cookie: `merma_csrf`, `__Host-merma_csrf` in production). */
  csrf_token: z.string(),
  /** Where this server is reached (its `PUBLIC_URL`), for the examples the dashboard shows (`curl <public_url>/api/v1/records`). */
  public_url: z.string(),
});
export type Me = z.infer<typeof Me>;

/**
 * `accounts.me`: the session's `Me`, or `null` when the request has no session (none yet, ended or
 * expired). Asking "who am I?" is not an error, so a signed-out browser gets a 200 with `null`,
 * as an auth library's `getSession()` does, and no 401 in its console.
 */
export const MaybeMe = Me.nullable();
export type MaybeMe = z.infer<typeof MaybeMe>;

export const SwitchOrganizationInput = z.strictObject({ organization_id: Uuid });

/** Calls about one establishment (of the session's organisation) and, where data has a mode, one mode. */
export const EstablishmentScope = z.strictObject({ establishment_id: Uuid });
export const ModeScope = z.strictObject({ establishment_id: Uuid, livemode: z.boolean() });

export const KeyMode = z.enum(MODES);
export type KeyMode = z.infer<typeof KeyMode>;

/** A key as listed: never the key itself, which is shown once when created. */
export const ApiKeySummary = z.object({
  id: Uuid,
  name: z.string(),
  mode: KeyMode,
  /** `svc_test_…a1B2`: the prefix and the last four characters, enough to recognise a key. */
  redacted: z.string(),
  permissions: z.array(z.string()),
  /** The dashboard user who made it (name, '' when they gave none, and e-mail); null for keys made by merma-admin. */
  created_by: z.object({ id: Uuid, email: z.string(), name: z.string() }).nullable(),
  created_at: Timestamp,
  last_used_at: Timestamp.nullable(),
  revoked_at: Timestamp.nullable(),
});
export type ApiKeySummary = z.infer<typeof ApiKeySummary>;

export const CreateApiKeyInput = z.strictObject({
  establishment_id: Uuid,
  name: text(80).trim().min(1),
  mode: KeyMode,
  /** `['*']` for every permission, or a non-empty list of the documented names. */
  permissions: z.union([z.tuple([z.literal(ALL_PERMISSIONS)]), z.array(Permission).min(1)]),
});
export type CreateApiKeyInput = z.input<typeof CreateApiKeyInput>;

export const CreatedApiKey = ApiKeySummary.extend({ key: z.string() });
export type CreatedApiKey = z.infer<typeof CreatedApiKey>;

export const KeyIdInput = z.strictObject({ establishment_id: Uuid, id: Uuid });

export const DashboardCreateWebhookInput = CreateWebhookInput.extend(ModeScope.shape);
export type DashboardCreateWebhookInput = z.input<typeof DashboardCreateWebhookInput>;
export const DashboardUpdateWebhookInput = UpdateWebhookInput.extend(ModeScope.shape);
export type DashboardUpdateWebhookInput = z.input<typeof DashboardUpdateWebhookInput>;
export const WebhookScope = ModeScope.extend({ id: Uuid });
export const DeliveryScope = WebhookScope.extend({ delivery_id: Uuid });
export const DeliveriesPage = WebhookScope.extend({
  limit: z.number().int().min(1).max(MAX_PAGE_LIMIT).default(20),
  offset: z.number().int().min(0).default(0),
});

export const Member = z.object({
  user_id: Uuid,
  email: z.string(),
  name: z.string(),
  role: Role,
  joined_at: Timestamp,
});
export type Member = z.infer<typeof Member>;

export const PendingInvitation = z.object({
  id: Uuid,
  email: z.string(),
  role: Role,
  invited_by: z.string().nullable(),
  created_at: Timestamp,
  expires_at: Timestamp,
});
export type PendingInvitation = z.infer<typeof PendingInvitation>;

/**
 * A new invitation. When the server sends no e-mail (no SMTP server configured: the e-mail only
 * reaches the log or a file), `mailed` is false and `link` is the invitation link, shown to the
 * inviter this once to pass on; with SMTP the link exists only in the e-mail and `link` is null.
 */
export const CreatedInvitation = PendingInvitation.extend({ mailed: z.boolean(), link: z.string().nullable() });
export type CreatedInvitation = z.infer<typeof CreatedInvitation>;

/** The dashboard language a user chose, kept as the language of their e-mails. */
export const SetLanguageInput = z.strictObject({ language: z.enum(MAIL_LANGUAGES) });
export type SetLanguageInput = z.input<typeof SetLanguageInput>;

export const Team = z.object({ members: z.array(Member), invitations: z.array(PendingInvitation) });
export type Team = z.infer<typeof Team>;

/**
 * `language`: the invitation e-mail's, the inviter's dashboard language; it also becomes the new
 * user's e-mail language until they choose one in the dashboard. Without it, the inviter's saved
 * language, else Spanish.
 */
export const InviteMemberInput = z.strictObject({ email: Email, role: Role, language: z.enum(MAIL_LANGUAGES).optional() });
export type InviteMemberInput = z.input<typeof InviteMemberInput>;
export const ChangeRoleInput = z.strictObject({ user_id: Uuid, role: Role });
export const MemberIdInput = z.strictObject({ user_id: Uuid });
/**
 * Removing a member. `revoke_keys` also revokes the API keys they created in the organisation's
 * establishments, in the same transaction; without it those keys keep working (they usually run an
 * integration, not a person's session), and the audit entry names them as kept.
 */
export const RemoveMemberInput = z.strictObject({ user_id: Uuid, revoke_keys: z.boolean().default(false) });
export type RemoveMemberInput = z.input<typeof RemoveMemberInput>;
export const RemovedMember = z.object({ ok: z.literal(true), revoked_keys: z.number().int().min(0) });
export type RemovedMember = z.infer<typeof RemovedMember>;
/** What removing a member would leave behind: the active API keys they created in the organisation. */
export const MemberApiKeys = z.object({ active: z.number().int().min(0) });
export type MemberApiKeys = z.infer<typeof MemberApiKeys>;
export const InvitationIdInput = z.strictObject({ id: Uuid });

/** What the audit log records. */
export const AUDIT_ACTIONS = [
  'user.signed_in',
  'user.sign_in_failed',
  'user.signed_out_everywhere',
  'user.password_reset',
  'api_key.created',
  'api_key.revoked',
  'webhook.created',
  'webhook.updated',
  'webhook.deleted',
  'webhook.reactivated',
  'webhook.secret_rotated',
  'webhook.test_sent',
  'webhook.delivery_resent',
  'integration.created',
  'integration.updated',
  'integration.secret_rotated',
  'integration.revoked',
  'integration.line_mapped',
  'member.invited',
  'member.joined',
  'member.role_changed',
  'member.removed',
  'invitation.revoked',
  'shift.created',
  'shift.updated',
  'shift.archived',
  'shift.restored',
  'shift.deleted',
  'opening.weekdays_set',
  'closure.created',
  'closure.deleted',
  'production_settings.updated',
  'station.pairing_started',
  'station.revoked',
  'product.created',
  'product.updated',
  'product.deactivated',
  'product.reactivated',
  'product.imported',
  'plan.generated',
  'record.created',
  'record.corrected',
] as const;
export const AuditAction = z.enum(AUDIT_ACTIONS);
export type AuditAction = z.infer<typeof AuditAction>;

export const AuditEntry = z.object({
  id: Uuid,
  action: AuditAction,
  actor: z.object({ id: Uuid.nullable(), email: z.string() }).nullable(),
  target: z.string().nullable(),
  establishment_id: Uuid.nullable(),
  ip: z.string().nullable(),
  details: z.record(z.string(), z.unknown()),
  created_at: Timestamp,
});
export type AuditEntry = z.infer<typeof AuditEntry>;

/** An IANA time zone name the runtime knows (`Europe/Madrid`). */
const TimeZoneName = z
  .string()
  .max(64)
  .refine((zone) => {
    try {
      new Intl.DateTimeFormat('en', { timeZone: zone });
      return true;
    } catch {
      return false;
    }
  }, 'unknown time zone');

/**
 * A page of the audit log, optionally filtered: `actor` (an e-mail, exact, any case), `action`, and
 * `from`/`to` — whole days, both included, read in `time_zone` (the zone the page shows times in;
 * UTC when absent). The filters travel with `cursor`: a later page is a page of the same filter.
 */
export const AuditQuery = z
  .strictObject({
    limit: z.number().int().min(1).max(MAX_PAGE_LIMIT).default(50),
    /** The `next_cursor` of the previous page. */
    cursor: KeysetCursor.optional(),
    actor: z.string().trim().min(1).max(254).optional(),
    action: AuditAction.optional(),
    from: IsoDate.optional(),
    to: IsoDate.optional(),
    time_zone: TimeZoneName.optional(),
  })
  .refine((q) => !q.from || !q.to || q.from <= q.to, { message: '`from` must not be after `to`', path: ['from'] });
export type AuditQuery = z.input<typeof AuditQuery>;
export const AuditPage = z.object({ entries: z.array(AuditEntry), next_cursor: z.string().nullable() });
export type AuditPage = z.infer<typeof AuditPage>;

export const DashboardRotateSecretInput = RotateWebhookSecretInput.extend(ModeScope.shape);
export type DashboardRotateSecretInput = z.input<typeof DashboardRotateSecretInput>;

/** Where ERP and POS systems send their events, with an example body. */
export const InboundEndpoint = z.object({
  url: z.string(),
  events: z.array(z.string()),
  sample: z.record(z.string(), z.unknown()),
});
export type InboundEndpoint = z.infer<typeof InboundEndpoint>;

// --- Integrations: a Square account or an Odoo database sending to a URL of its own ----------------

export const IntegrationKind = z.enum(['square', 'odoo']);
export type IntegrationKind = z.infer<typeof IntegrationKind>;

/** A credential the customer pastes once; never returned (write-only). */
const Credential = z
  .string()
  .trim()
  .min(8, 'too short to be a credential')
  .max(1024)
  .regex(/^\S+$/, 'no spaces: paste the value as the vendor shows it');
/** Square ids (location, catalog objects) are upper-case letters and digits. */
const SquareId = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'a Square location id, e.g. L8X2QBJ4GMCYP');
/** The database's address only: no credentials, query or fragment (the server adds /jsonrpc). */
const OdooUrl = z
  .url({ protocol: /^https?$/ })
  .max(2048)
  .refine((u) => {
    const url = new URL(u);
    return !url.username && !url.password && !url.search && !url.hash;
  }, 'the database address alone, e.g. https://mycompany.odoo.com: no user, password, query or fragment');

/** What the dashboard shows of an integration: never a secret, only whether each is set. */
export const Integration = z.object({
  id: Uuid,
  kind: IntegrationKind,
  name: z.string(),
  livemode: z.boolean(),
  status: z.enum(['active', 'revoked']),
  /**
   * Where the vendor sends. Square: the notification URL to paste in the webhook subscription (no
   * secret in it: Square signs each notification). Odoo: the URL with its token redacted
   * (`…/odoo/mit_…a1B2`); the whole URL is shown once, when made or rotated.
   */
  url: z.string(),
  /** Square: the subscription's signature key is set (the URL refuses every notification until it is). */
  signature_key_set: z.boolean(),
  /** The credential to read the vendor's API is set: Square's access token, Odoo's API key. */
  api_credential_set: z.boolean(),
  /** Square: `location_id` (only that location's orders and stock). Odoo: `url`, `database`, `login` for JSON-RPC. */
  settings: z.object({
    location_id: z.string().optional(),
    url: z.string().optional(),
    database: z.string().optional(),
    login: z.string().optional(),
    /** Odoo: the only company (`res.company` id) whose records this integration takes. */
    company_id: z.number().int().optional(),
  }),
  /** Until when the secret replaced by the last rotation (Odoo's previous URL, Square's previous key) is still accepted. */
  previous_expires_at: Timestamp.nullable(),
  created_at: Timestamp,
  revoked_at: Timestamp.nullable(),
  last_received_at: Timestamp.nullable(),
  /** The last failure to read or store what the vendor sent (cleared by the next success). */
  last_error: z.string().nullable(),
  last_error_at: Timestamp.nullable(),
  /** Notifications whose orders or adjustments could not be read from the vendor after every retry (about a day and a half). */
  failed_count: z.number().int(),
  /** Lines received and not stored (an item no product maps to, a custom amount…), kept until mapped: `refusedLines`. */
  refused_count: z.number().int(),
});
export type Integration = z.infer<typeof Integration>;

/** The lines an integration kept because it could not store them, newest first. */
export const RefusedLinesInput = ModeScope.extend({ integration_id: Uuid });
export type RefusedLinesInput = z.input<typeof RefusedLinesInput>;
export const RefusedLine = z.object({
  id: Uuid,
  order_ref: z.string().nullable(),
  line_ref: z.string(),
  item_ref: z.string().nullable(),
  item_name: z.string().nullable(),
  reason: z.string(),
  /** Mapping the item to a product stores it (and every kept line of the same item). */
  mappable: z.boolean(),
  quantity: z.number().nullable(),
  unit: z.enum(['unit', 'kg']).nullable(),
  sold_at: Timestamp.nullable(),
  created_at: Timestamp,
});
export type RefusedLine = z.infer<typeof RefusedLine>;

/**
 * Maps a kept line's item to a product of the organisation: the product's `pos_ref` becomes the
 * vendor's item id (so later lines are stored too) and every kept line of that item is stored.
 * A line without an item id (a custom amount) is stored as that product, alone.
 */
export const MapRefusedLineInput = RefusedLinesInput.extend({ line_id: Uuid, product_id: Uuid });
export type MapRefusedLineInput = z.input<typeof MapRefusedLineInput>;
export const MapRefusedLineResult = z.object({
  /** Kept lines stored as sales by this mapping. */
  stored: z.number().int(),
  /** Kept lines of the item still refused, with their new reason (a date out of the window…). */
  still_refused: z.array(RefusedLine),
});
export type MapRefusedLineResult = z.infer<typeof MapRefusedLineResult>;

/** An integration as made or rotated: Odoo's whole URL, token included, shown this once. */
export const IntegrationWithUrl = Integration.extend({ secret_url: z.string().nullable() });
export type IntegrationWithUrl = z.infer<typeof IntegrationWithUrl>;

const SquareSettings = {
  /** From the Square Developer Console: Webhooks → the subscription → Signature key. */
  signature_key: Credential.optional(),
  /** A personal access token (Developer Console → Credentials) or an OAuth access token with ORDERS_READ and INVENTORY_READ. */
  access_token: Credential.optional(),
  location_id: SquareId.optional(),
};
const OdooSettings = {
  /** The database's address, e.g. https://mycompany.odoo.com (JSON-RPC is at /jsonrpc). */
  odoo_url: OdooUrl.optional(),
  database: text(200).trim().min(1).optional(),
  login: text(200).trim().min(1).optional(),
  /** Preferences → Account Security → New API Key, of a user who can read Point of Sale orders. */
  api_key: Credential.optional(),
  /**
   * A multi-company database: the id of the company (Settings → Companies) whose scraps and sales
   * belong to this establishment; records of another company are refused. `null` takes any company.
   */
  company_id: z.number().int().positive().max(2_147_483_647).nullable().optional(),
};

export const CreateIntegrationInput = z.discriminatedUnion('kind', [
  ModeScope.extend({ kind: z.literal('square'), name: text(80).trim().min(1), ...SquareSettings }),
  ModeScope.extend({ kind: z.literal('odoo'), name: text(80).trim().min(1), ...OdooSettings }),
]);
export type CreateIntegrationInput = z.input<typeof CreateIntegrationInput>;

export const IntegrationScope = ModeScope.extend({ id: Uuid });

/** Changes the name or settings; a credential given replaces the stored one (an empty field keeps it). */
export const UpdateIntegrationInput = IntegrationScope.extend({
  name: text(80).trim().min(1).optional(),
  ...SquareSettings,
  ...OdooSettings,
});
export type UpdateIntegrationInput = z.input<typeof UpdateIntegrationInput>;

/**
 * Replaces the secret the vendor authenticates with: Odoo's URL token (a new URL is made and shown
 * once), or Square's signature key (the new key Square shows after "Replace signature key"). The
 * one replaced keeps working for `grace_period_seconds` (default 1 day, 0 drops it at once).
 */
export const RotateIntegrationInput = IntegrationScope.extend({
  signature_key: Credential.optional(),
  grace_period_seconds: z.number().int().min(0).max(MAX_SECRET_GRACE_PERIOD_SECONDS).default(DEFAULT_SECRET_GRACE_PERIOD_SECONDS),
});
export type RotateIntegrationInput = z.input<typeof RotateIntegrationInput>;

/** The answer of a call that only confirms it was done (sign out, remove a member…). */
export const OkResponse = z.object({ ok: z.literal(true) });

// --- Waste: overview, records, forecast, shifts and sessions ---------------------------------------

/** The overview's analytics: exactly `GET /api/v1/analytics`'s query, for the chosen establishment and mode. */
export const DashboardAnalyticsInput = AnalyticsQuery.extend(ModeScope.shape);
export type DashboardAnalyticsInput = z.input<typeof DashboardAnalyticsInput>;

/** kg of a period so far against the same stretch of the period before (see apps/server/src/modules/analytics/periods.ts). */
export const PeriodComparison = z.object({
  period: z.enum(['today', 'week', 'month']),
  from: IsoDate,
  to: IsoDate,
  kg: z.number(),
  previous_from: IsoDate,
  previous_to: IsoDate,
  previous_kg: z.number(),
});
export type PeriodComparison = z.infer<typeof PeriodComparison>;

/** The sector comparison, or why there is none: the plan lacks it (the sample-size rule is the result's `note`). */
export const DashboardBenchmark = z.discriminatedUnion('available', [
  z.object({ available: z.literal(true), result: BenchmarkResult }),
  z.object({ available: z.literal(false), reason: z.literal('plan') }),
]);
export type DashboardBenchmark = z.infer<typeof DashboardBenchmark>;

/** A spike alert (the same detector as the `alert.spike_detected` event). */
export const SpikeAlert = z.object({
  id: Uuid,
  food_category: FoodCategory,
  day: IsoDate,
  total_kg: z.number(),
  baseline_kg: z.number(),
  threshold_kg: z.number(),
  created_at: Timestamp,
});
export type SpikeAlert = z.infer<typeof SpikeAlert>;

/** The filters of the records table and of its export (dates in the establishment's time zone). */
const recordFilterShape = {
  from: DateOrDateTime.optional(),
  to: DateOrDateTime.optional(),
  food_category: FoodCategory.optional(),
  destino_id: Uuid.optional(),
  causa_id: Uuid.optional(),
  shift_id: Uuid.optional(),
  /** A registration session's records: all of them, whatever their day, unless `from`/`to` narrow them. */
  session_id: Uuid.optional(),
};
export const RecordsPageInput = ModeScope.extend({
  ...recordFilterShape,
  /**
   * Also list the records a correction replaced (marked `superseded_by`). Off by default: lists,
   * totals and analytics count the corrections only.
   */
  include_superseded: z.boolean().optional(),
  limit: z.number().int().min(1).max(MAX_PAGE_LIMIT).default(50),
  /** The `next_cursor` of the page before. */
  cursor: KeysetCursor.optional(),
});
export type RecordsPageInput = z.input<typeof RecordsPageInput>;
/** A row of the records table: the record and the correction that replaced it, if one did. */
export const RecordsPageRow = WasteRecord.extend({ superseded_by: Uuid.nullable() });
export type RecordsPageRow = z.infer<typeof RecordsPageRow>;
export const RecordsPage = z.object({
  data: z.array(RecordsPageRow),
  next_cursor: z.string().nullable(),
  /** How many records the filters match; on the first page only (null on later ones). */
  total: z.number().int().nullable(),
  /** The kg of every record the filters match (not of this page only); on the first page only. */
  total_kg: z.number().nullable(),
});
export type RecordsPage = z.infer<typeof RecordsPage>;

/**
 * The dashboard's "add a record": the body of `POST /api/v1/records` (the same shape and checks) in
 * the establishment and mode the dashboard shows.
 */
export const DashboardCreateRecordInput = CreateRecordInput.extend(ModeScope.shape);
export type DashboardCreateRecordInput = z.input<typeof DashboardCreateRecordInput>;

/**
 * A correction from the dashboard, as the inbound `waste.updated` makes one: the fields that change
 * (the record's own shape, every field optional; at least one), appended to the chain as a new record
 * that supersedes `record_id`.
 */
export const DashboardCorrectRecordInput = CreateRecordInput.partial()
  .extend({ ...ModeScope.shape, record_id: Uuid })
  .refine((p) => Object.keys(p).some((k) => !['establishment_id', 'livemode', 'record_id'].includes(k)), {
    message: 'name at least one field to change',
    path: ['record_id'],
  });
export type DashboardCorrectRecordInput = z.input<typeof DashboardCorrectRecordInput>;

export const RecordIdInput = ModeScope.extend({ id: Uuid });
/** A record and its place in the establishment's hash chain. */
export const RecordDetail = z.object({
  record: WasteRecord,
  chain_seq: z.number().int(),
  /** The hash this record's hash links to (the previous record's, or the genesis hash). */
  prev_hash: z.string(),
  /** Records in the chain now. */
  chain_length: z.number().int(),
  /** The correction that replaced it, when one did. */
  superseded_by: Uuid.nullable(),
});
export type RecordDetail = z.infer<typeof RecordDetail>;

/**
 * The two CSV forms of the export: `es` opens as columns in a spreadsheet set to Spanish (`;`
 * between fields, decimal comma, UTF-8 BOM); `plain` is RFC 4180 with a decimal point, for programs.
 */
export const CSV_DIALECTS = ['es', 'plain'] as const;
export const CsvDialect = z.enum(CSV_DIALECTS);
export type CsvDialect = z.infer<typeof CsvDialect>;

/** `GET /export/records.csv`: the records table's filters, as a query string. */
export const RecordsExportQuery = z.strictObject({
  establishment_id: Uuid,
  mode: KeyMode,
  dialect: CsvDialect.default('es'),
  ...recordFilterShape,
});
export type RecordsExportQuery = z.input<typeof RecordsExportQuery>;

export const ForecastInput = ModeScope.extend({
  horizon: z.number().int().min(1).max(28).default(14),
  food_category: FoodCategory.optional(),
});
export type ForecastInput = z.input<typeof ForecastInput>;
/** The Forecast page's production advice (tomorrow first). */
export const DemandForecastInput = ModeScope.extend({
  horizon: z.number().int().min(1).max(28).default(7),
  food_category: FoodCategory.optional(),
});
export type DemandForecastInput = z.input<typeof DemandForecastInput>;

/** A new shift (`POST /api/v1/shifts`'s body) of the chosen establishment and mode. */
export const DashboardCreateShiftInput = ModeScope.extend({ shift: CreateShiftInput });
export type DashboardCreateShiftInput = z.input<typeof DashboardCreateShiftInput>;

/**
 * A shift as the dashboard lists it: archived shifts too (`archived`), so the names of the records
 * and sessions that keep pointing at them still show. `GET /api/v1/shifts` lists the active ones.
 */
export const DashboardShift = Shift.extend({ archived: z.boolean() });
export type DashboardShift = z.infer<typeof DashboardShift>;

/** A shift's new name and hours (the whole shift, as the create form sends it). */
export const DashboardUpdateShiftInput = ModeScope.extend({ id: Uuid, shift: CreateShiftInput });
export type DashboardUpdateShiftInput = z.input<typeof DashboardUpdateShiftInput>;

/** Archive (`archived: true`) or restore a shift. */
export const DashboardArchiveShiftInput = ModeScope.extend({ id: Uuid, archived: z.boolean() });
export type DashboardArchiveShiftInput = z.input<typeof DashboardArchiveShiftInput>;

export const DashboardShiftIdInput = ModeScope.extend({ id: Uuid });
export type DashboardShiftIdInput = z.input<typeof DashboardShiftIdInput>;

/** The opening calendar's closed weekdays (`PUT /api/v1/opening-calendar/weekdays`'s body) of the chosen establishment and mode. */
export const DashboardSetClosedWeekdaysInput = ModeScope.extend({ calendar: SetClosedWeekdaysInput });
export type DashboardSetClosedWeekdaysInput = z.input<typeof DashboardSetClosedWeekdaysInput>;

/** The production advice's service level (`PUT /api/v1/predict/settings`'s body) of the chosen establishment and mode. */
export const DashboardUpdateProductionSettingsInput = ModeScope.extend({ settings: UpdateProductionSettingsInput });
export type DashboardUpdateProductionSettingsInput = z.input<typeof DashboardUpdateProductionSettingsInput>;

/** A new closure (`POST /api/v1/opening-calendar/closures`'s body) of the chosen establishment and mode. */
export const DashboardCreateClosureInput = ModeScope.extend({ closure: CreateClosureInput });
export type DashboardCreateClosureInput = z.input<typeof DashboardCreateClosureInput>;

export const DashboardClosureIdInput = ModeScope.extend({ id: Uuid });
export type DashboardClosureIdInput = z.input<typeof DashboardClosureIdInput>;

export const DashboardSessionIdInput = ModeScope.extend({ id: Uuid });
export type DashboardSessionIdInput = z.input<typeof DashboardSessionIdInput>;

export const DashboardSessionsInput = ListSessionsQuery.extend(ModeScope.shape);
export type DashboardSessionsInput = z.input<typeof DashboardSessionsInput>;

// Kitchen stations (docs/decisions/0007-the-kitchen-station.md): the constants the station's page
// reads too live in station.ts, which imports no zod.
export {
  normalizePairingCode,
  PAIRING_CODE_ALPHABET,
  PAIRING_CODE_LENGTH,
  PAIRING_TTL_MINUTES,
  STATION_MAX_WEIGHT_KG,
  STATION_TOKEN_PATTERN,
  STATION_UNDO_SECONDS,
  stationSource,
} from './station.js';

/** `pairing`: its code waits to be used; `expired`: the code was not used in time; `active`: paired; `revoked`. */
export const StationDeviceStatus = z.enum(['pairing', 'expired', 'active', 'revoked']);
export type StationDeviceStatus = z.infer<typeof StationDeviceStatus>;

export const StationDevice = z.object({
  id: Uuid,
  name: z.string(),
  mode: KeyMode,
  status: StationDeviceStatus,
  created_by: z.object({ id: Uuid, email: z.string(), name: z.string() }).nullable(),
  created_at: Timestamp,
  pairing_expires_at: Timestamp.nullable(),
  paired_at: Timestamp.nullable(),
  last_used_at: Timestamp.nullable(),
  revoked_at: Timestamp.nullable(),
});
export type StationDevice = z.infer<typeof StationDevice>;

export const DashboardStartPairingInput = ModeScope.extend({ name: text(60).trim().min(1) });
export type DashboardStartPairingInput = z.input<typeof DashboardStartPairingInput>;

/** A new pairing: the code is shown this once (the server keeps its hash). */
export const StartedPairing = z.object({ device: StationDevice, code: z.string(), expires_at: Timestamp });
export type StartedPairing = z.infer<typeof StartedPairing>;

export const DashboardStationIdInput = ModeScope.extend({ id: Uuid });
export type DashboardStationIdInput = z.input<typeof DashboardStationIdInput>;

/** What a station is: its device, establishment and mode. */
export const StationIdentity = z.object({
  device: z.object({ id: Uuid, name: z.string() }),
  establishment: z.object({ id: Uuid, name: z.string(), timezone: z.string() }),
  mode: KeyMode,
});
export type StationIdentity = z.infer<typeof StationIdentity>;

/** The station's side of a pairing: the code it was given. */
export const RedeemPairingInput = z.strictObject({ code: z.string().max(40) });
export type RedeemPairingInput = z.input<typeof RedeemPairingInput>;

/** The device's token, shown this once; the station keeps it. */
export const RedeemedPairing = StationIdentity.extend({ token: z.string() });
export type RedeemedPairing = z.infer<typeof RedeemedPairing>;

/**
 * What a station shows before the first tap (`GET /station/setup`): the categories and causes its
 * kitchen uses most first, the destinations in the Ley 1/2025 hierarchy (the preferred first),
 * each with how many records of the last 90 days used it; the shifts and the one now on; the open
 * registration sessions; and today's total.
 */
export const StationSetup = z.object({
  station: StationIdentity,
  categories: z.array(z.object({ food_category: FoodCategory, uses: z.number().int() })),
  causes: z.array(Cause.extend({ uses: z.number().int() })),
  destinations: z.array(Destination.extend({ uses: z.number().int() })),
  shifts: z.array(Shift),
  current_shift_id: Uuid.nullable(),
  sessions: z.array(Session),
  today: z.object({ day: IsoDate, records: z.number().int(), kg: z.number() }),
});
export type StationSetup = z.infer<typeof StationSetup>;

/** The records a station shows (`GET /station/records`): today's that count, newest first, and today's total. */
export const StationRecent = z.object({
  records: z.array(WasteRecord),
  today: z.object({ day: IsoDate, records: z.number().int(), kg: z.number() }),
});
export type StationRecent = z.infer<typeof StationRecent>;
