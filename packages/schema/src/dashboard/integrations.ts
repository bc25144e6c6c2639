import { z } from 'zod';
import { Timestamp, text, Uuid } from '../common.js';
import { DEFAULT_SECRET_GRACE_PERIOD_SECONDS, MAX_SECRET_GRACE_PERIOD_SECONDS } from '../constants.js';
import { ModeScope } from './common.js';

/** Integrations: a Square account or an Odoo database sending to a URL of its own (`integrations`). */

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
