import type { Clock } from '../../context.js';
import type { Db, DbTx } from '../../db/client.js';
import type { SecretBox } from '../../secrets/cipher.js';
import type { CatalogCache } from '../catalog/service.js';
import type { SendPolicy } from '../webhooks/send.js';

/**
 * What the integrations' own URLs share (service.ts says why each vendor has one;
 * http/surfaces/vendors.ts serves them; each vendor's receive path is its own,
 * vendors/<vendor>/receive.ts, found through the registry, vendors/index.ts). A request is first
 * authenticated the vendor's way (Square: the integration's id and its signature over the raw
 * body; Odoo: the URL's token); an unknown or revoked integration is a 404 or a 401, and the
 * organisation's refusal (plan, canceled subscription) is thrown only once the request proved it
 * is the vendor's. What the vendor sent is then stored once by the vendor's own id of it
 * (`inbound_events`, a resend answering `duplicate`), and either stored through the vendor's
 * connector at once or, when the vendor's API must be read, queued for the vendor's job (jobs.ts)
 * in the same transaction: the answer never waits for the vendor's API. What is received is noted
 * on the integration (`last_received_at`, `last_error`) for the Integrations page, and sale lines
 * that cannot be stored are kept to be mapped to a product (refused.ts).
 */
export type ReceiveDeps = {
  db: Db;
  clock: Clock;
  secrets: SecretBox;
  catalog: CatalogCache;
  publicUrl: string;
  /** Days an event id is remembered (INBOUND_DEDUPE_DAYS): an older Square notification is refused as a replay. */
  dedupeDays: number;
  /** How Odoo is read while it waits (scrap reason tag names): the webhook deliveries' guard, a short timeout. */
  odoo?: { policy: SendPolicy; userAgent: string };
};

/** The answer to a notification stored or queued: its inbound event's id, or why nothing was queued. */
export type ReceiveAnswer = { event_id: string | null; status: 'queued' | 'duplicate' | 'ignored'; reason?: string };

export const object = (v: unknown): Record<string, unknown> | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

/** Storing what a vendor sent and queuing its job: one transaction, with room for a busy pool. */
export function transaction<T>(db: Db, fn: (tx: DbTx) => Promise<T>): Promise<T> {
  return db.$transaction(fn, { maxWait: 10_000, timeout: 30_000 });
}
