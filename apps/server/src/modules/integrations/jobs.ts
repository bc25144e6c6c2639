import type { BatchItemError } from '@merma/schema';
import type { Clock, Log } from '../../context.js';
import type { DbTx } from '../../db/client.js';
import { inTransaction } from '../../db/transaction.js';
import type { AppError } from '../../errors.js';
import type { SecretBox } from '../../secrets/cipher.js';
import type { CatalogCache } from '../catalog/service.js';
import type { Agents, SendPolicy } from '../webhooks/send.js';
import { keepRefusedLines, type refusedSalesOf } from './refused.js';

/**
 * The integrations' durable jobs (graphile-worker), what every vendor's shares: one task per
 * vendor, named and run by the vendor (vendors/<vendor>/fetch.ts; jobs/worker.ts registers each
 * vendor's from the registry, vendors/index.ts), queued by SQL in the transaction that stored what
 * the vendor sent (the vendor's receive.ts), so the vendor's request is answered at once and never
 * waits for the vendor's own API. Each job is {integration_id, inbound_event_id}: the notification
 * or order kept in `inbound_events`, read from the vendor's API and stored by the vendor's
 * connector, once (by the vendor's line or adjustment ids), so a job run twice stores nothing twice.
 *
 * When the vendor is down, times out or answers 5xx, the job fails and graphile-worker tries again
 * with its exponential backoff (15 attempts: about a day and a half). Wrong credentials are
 * retried too: the customer, told on the Integrations page, may fix them within that time, and the
 * notifications received meanwhile are then read. After the last attempt the integration counts
 * the notification as lost (`failed_count`, see `attempt`). What the vendor sent that the
 * connector cannot store (an unknown product, a custom amount, a unit it cannot weigh) is not
 * retried: each such sale line is kept, counted and listed on the Integrations page until its item
 * is mapped to a product (refused.ts, with an `integration.lines_refused` event); `last_error`
 * says so too, as it does any other failure.
 */
export const MAX_ATTEMPTS = 15;

export type IntegrationJob = { integration_id: string; inbound_event_id: string; rate_limited?: number; stale_reads?: number };

export async function enqueueIntegrationJob(db: DbTx, task: string, job: IntegrationJob) {
  await db.$executeRaw`SELECT graphile_worker.add_job(${task}::text, ${JSON.stringify(job)}::json, max_attempts := ${MAX_ATTEMPTS}::int)`;
}

export type IntegrationJobDeps = {
  db: DbTx;
  clock: Clock;
  secrets: SecretBox;
  catalog: CatalogCache;
  log: Log;
  /** Square's API by mode (config.square). */
  square: { liveUrl: string; testUrl: string };
  /** The guard for customers' URLs (Odoo's), as for webhook deliveries. */
  policy: SendPolicy;
  agents?: Agents;
  userAgent: string;
  /** Called after records were stored: their outbox events are dispatched at once. */
  wake(): void;
};

export type IntegrationJobHelpers = {
  job: { attempts: number; max_attempts: number };
  addJob(task: string, payload: unknown, spec: { runAt: Date; maxAttempts: number }): Promise<unknown>;
};

/**
 * Runs one attempt; when it fails and it was the last one graphile-worker will make, the
 * integration counts a notification lost for good (`failed_count`, shown on the Integrations page
 * beside the last error) before the failure is rethrown, so that no event is dropped without a
 * trace — a later success clears `last_error` but not the count.
 */
export async function attempt(
  deps: IntegrationJobDeps,
  job: IntegrationJob,
  helpers: Pick<IntegrationJobHelpers, 'job'>,
  run: () => Promise<void>,
) {
  try {
    await run();
  } catch (err) {
    if (helpers.job.attempts >= helpers.job.max_attempts) {
      const message = `Gave up after ${helpers.job.attempts} attempts: ${(err as Error).message}`;
      await deps.db.integration
        .update({
          where: { id: job.integration_id },
          data: { failed_count: { increment: 1 }, last_error: message.slice(0, 1000), last_error_at: deps.clock() },
        })
        .catch(() => {}); // revoked and gone: nothing to note
    }
    throw err;
  }
}

/** "12 adjustments: 2 not stored (payload.product_ref: no product of this organisation …)". */
export function describeRefusals(refused: string[]): string | null {
  if (refused.length === 0) return null;
  return `${refused.length} not stored: ${refused.slice(0, 3).join('; ')}${refused.length > 3 ? '; …' : ''}`;
}

export const lineRefusal = (e: BatchItemError) =>
  `line ${e.index}: ${e.error}${e.details?.length ? ` (${e.details.map((d) => `${d.path}: ${d.message}`).join(', ')})` : ''}`;

export const refusal = (err: AppError) =>
  `${err.message}${err.details?.length ? ` (${err.details.map((d) => `${d.path}: ${d.message}`).join(', ')})` : ''}`;

/** Keeps the lines a read refused (refused.ts); their event is dispatched at once. */
export async function keepRefused(
  deps: IntegrationJobDeps,
  found: Parameters<typeof keepRefusedLines>[1],
  kept: ReturnType<typeof refusedSalesOf>,
) {
  if (kept.length === 0) return;
  const added = await inTransaction(deps.db, (tx) => keepRefusedLines(tx, found, kept, deps.clock()));
  if (added > 0) deps.wake();
}
