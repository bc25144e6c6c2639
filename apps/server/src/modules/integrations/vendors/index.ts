import type { IntegrationKind } from '@merma/schema/dashboard';
import type { Connector } from '../../inbound/connectors/standard.js';
import type { IntegrationJob, IntegrationJobDeps, IntegrationJobHelpers } from '../jobs.js';
import type { ReceiveDeps } from '../receive.js';
import type { KeptLine, RefusedLineIds } from '../refused.js';
import type { ActiveIntegration, IntegrationSettings, IntegrationSettingsInput } from '../service.js';
import { odoo } from './odoo/index.js';
import { square } from './square/index.js';

/**
 * The vendors Merma connects to, by integration kind. Everything that is one vendor's lives in its
 * folder (vendors/<kind>/): its connector, its API client, how a request to its URL is
 * authenticated, its receive path, its job and how its refused lines are named. The generic code
 * asks this registry instead of testing the kind: the inbound module for connectors
 * (inbound/connectors/index.ts), the vendors' HTTP surface for authentication and receiving
 * (http/surfaces/vendors.ts), the job worker for tasks (jobs/worker.ts), refused.ts for line ids.
 * Why each vendor has its own URL and credential: service.ts and
 * docs/decisions/0010-vendor-integrations.md, which lists what a third vendor adds.
 *
 * The registry is read at call time, never while modules load: service.ts and refused.ts read it,
 * and the vendors use their helpers (an import cycle inside this module that is harmless as long
 * as nothing reads a vendor at load time). The inbound module imports nothing of this one: the
 * vendors hand it their connector, and `POST /webhooks/inbound` (inbound/api.ts) offers them all.
 */

/** What a request to a vendor's URL (`POST /api/v1/integrations/<kind>/<segment>`) brings to authenticate it. */
export type VendorRequest = {
  /** The URL's last segment: Square's integration id, Odoo's token. */
  segment: string;
  /** The body as received, for a vendor that signs it (`url.rawBody`). */
  rawBody?: string;
  /** A request header's value (the first when repeated). */
  header(name: string): string | undefined;
  /** The path the request reached, query included (`request.url`): a vendor may sign the URL. */
  path: string;
};

/** What a vendor supplies: a third one implements this in vendors/<kind>/ and is added to `VENDORS`. */
export interface Vendor {
  /** The integration's `kind` (IntegrationKind in @merma/schema), the segment of its URL, and its connector's name. */
  readonly kind: IntegrationKind;
  /** Its name in messages to the customer ("Square"). */
  readonly label: string;
  /**
   * What proves a request to its URL is the vendor's, which service.ts makes, keeps, rotates and
   * shows: `signature-key`, the URL names the integration by id and each request is signed with a
   * key the vendor shows and the customer pastes (stored sealed; a rotation pastes the new one);
   * `url-token`, a token Merma makes is in the URL, the only credential the vendor can send (only
   * its hash stored, shown once; a rotation makes a new URL). `authenticate` checks it.
   */
  readonly secret: 'signature-key' | 'url-token';
  /**
   * Its settings on the dashboard: the input fields it takes (another vendor's are refused), how
   * they change the stored settings, and the field holding the credential Merma reads the
   * vendor's API with (stored sealed, never answered).
   */
  readonly settings: {
    readonly fields: readonly (keyof IntegrationSettingsInput)[];
    merge(current: IntegrationSettings, input: IntegrationSettingsInput): IntegrationSettings;
    readonly apiCredential: keyof IntegrationSettingsInput;
  };
  /** Maps the vendor's payloads to the standard inbound events; also selectable on POST /api/v1/webhooks/inbound. */
  readonly connector: Connector;
  /**
   * Its URL, `POST /api/v1/integrations/<kind>/:<param>`: the path parameter's name (the
   * credential: Square's integration id, Odoo's token), and whether the body is kept as text for
   * `authenticate` (a signature over the raw body) and parsed only after.
   */
  readonly url: { readonly param: string; readonly rawBody: boolean };
  /**
   * The active integration a request to the vendor's URL is for, once the request proved it is
   * the vendor's; the organisation's refusal thrown only then. Throws `not_found` or
   * `unauthorized` otherwise (the surface counts those against the client's address).
   */
  authenticate(deps: ReceiveDeps, request: VendorRequest): Promise<ActiveIntegration>;
  /** Stores what the vendor sent (once, by the vendor's id), or queues `job`; answered in the API's envelope. */
  receive(deps: ReceiveDeps, found: ActiveIntegration, body: unknown): Promise<unknown>;
  /** The durable job that reads the vendor's API (graphile-worker task; the name is stored with queued jobs). */
  readonly job: {
    readonly task: string;
    run(deps: IntegrationJobDeps, job: IntegrationJob, helpers: IntegrationJobHelpers): Promise<void>;
  };
  /** How refused sale lines are named (refused.ts): the vendor's ids of a line, and what is kept when a whole payload is refused. */
  readonly refusedLines: {
    idsOf(payload: unknown, path: string, line: Record<string, unknown>, fallbackRef: string): RefusedLineIds;
    /** Lines kept when the connector refused the whole payload (`reason`); none when that is a setting to fix, not a line. */
    wholePayload(payload: Record<string, unknown>, reason: string, fallbackRef: string): KeptLine[];
  };
}

/** The registry: a new kind in @merma/schema's IntegrationKind fails to compile until its vendor is here. */
export const VENDORS: { readonly [K in IntegrationKind]: Vendor & { readonly kind: K } } = {
  // Getters: a vendor's modules and this one import each other (through service.ts and refused.ts),
  // so a vendor may still be loading when this module is; it is read at call time only.
  get square() {
    return square;
  },
  get odoo() {
    return odoo;
  },
};

/** Every vendor, in a stable order. */
export const vendors = (): Vendor[] => Object.values(VENDORS);

/** The vendor of an integration kind (a row's `kind`, a connector's name); undefined for another. */
export function vendorOf(kind: string): Vendor | undefined {
  return Object.hasOwn(VENDORS, kind) ? VENDORS[kind as IntegrationKind] : undefined;
}
