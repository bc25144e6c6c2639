#!/usr/bin/env node
// @ts-check
/**
 * A Merma webhook receiver on node:http, no framework.
 *
 *   MERMA_WEBHOOK_SECRET=whsec_… PORT=4000 node src/server.mjs
 *
 * For every POST to /merma/webhooks it:
 * 1. reads the RAW body (bytes, at most 1 MiB): the signature covers those exact bytes, so the body
 *    is verified before anything parses it;
 * 2. verifies it with `verifyWebhook` from @merma/sdk: the Standard Webhooks signature and
 *    `webhook-timestamp` within 5 minutes of now (a captured delivery cannot be replayed later;
 *    a body carrying only X-Service-Signature, which has no timestamp, is refused) → 400 when
 *    anything fails;
 * 3. remembers the `webhook-id` (Merma sends the same id again when it retries a delivery): an id
 *    already handled is answered 200 `{"status":"duplicate"}` and not processed again, so a retry
 *    after a lost answer stops there, and a replay inside the 5 minutes does nothing;
 * 4. answers 200 at once and handles the event afterwards (Merma waits 10 s at most).
 */
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { verifyWebhook, WebhookVerificationError } from '@merma/sdk';

/** @typedef {import('@merma/sdk').WebhookEvent} WebhookEvent */
/** @typedef {(event: WebhookEvent, id: string) => void | Promise<void>} EventHandler */

export const WEBHOOK_PATH = '/merma/webhooks';
export const MAX_BODY_BYTES = 1024 * 1024;
/** Seconds between webhook-timestamp and now that are accepted (the SDK's default). */
export const TOLERANCE_SECONDS = 300;
/**
 * How long a webhook-id is remembered. Longer than Merma's whole retry schedule (1 min, 5 min,
 * 30 min, 2 h, 12 h), so that every retry of a delivery already handled is recognised.
 */
export const REMEMBER_MS = 24 * 60 * 60 * 1000;

/**
 * The webhook-ids already handled, each forgotten after `ttlMs`. In memory, so a restart forgets
 * them: in production keep them where the events go (a table with a unique key on the id, written
 * in the same transaction as the work).
 */
export class SeenIds {
  /** @type {Map<string, number>} id → when to forget it */
  #ids = new Map();
  #ttlMs;
  #now;

  constructor(ttlMs = REMEMBER_MS, now = () => Date.now()) {
    this.#ttlMs = ttlMs;
    this.#now = now;
  }

  /**
   * Records `id`; true the first time, false while it is remembered.
   * @param {string} id
   */
  add(id) {
    const now = this.#now();
    for (const [seen, until] of this.#ids) {
      if (until > now) break; // insertion order is expiry order
      this.#ids.delete(seen);
    }
    if (this.#ids.has(id)) return false;
    this.#ids.set(id, now + this.#ttlMs);
    return true;
  }

  get size() {
    return this.#ids.size;
  }
}

/**
 * One line about an event, typed by its name.
 * @param {WebhookEvent} event
 */
export function describeEvent(event) {
  switch (event.event) {
    case 'record.created':
    case 'record.updated': {
      const d = event.data;
      return `${event.event}: ${d.weight_kg} kg of ${d.food_category} → ${d.destination}${d.cause ? ` (${d.cause})` : ''}, record ${d.id}`;
    }
    case 'session.completed':
      return `session.completed: "${event.data.name}", ${event.data.record_count} records, ${event.data.total_kg} kg`;
    case 'alert.spike_detected':
    case 'alert.triggered':
      return `${event.event}: ${event.data.total_kg} kg of ${event.data.food_category} on ${event.data.date} (usually ${event.data.baseline_kg} kg)`;
    case 'subscription.changed':
    case 'subscription.canceled':
      return `${event.event}: plan ${event.data.previous_plan ?? 'none'} → ${event.data.plan ?? 'none'} (${event.data.status})`;
    case 'plan.generated':
      return `plan.generated: prevention plan ${event.data.plan_id} for ${event.data.period}`;
    case 'webhook.test':
      return `webhook.test: ${event.data.message}`;
    default:
      return `unhandled event ${/** @type {{ event: string }} */ (event).event}`;
  }
}

/**
 * @param {http.ServerResponse} res
 * @param {number} status
 * @param {Record<string, unknown>} body
 */
function reply(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/**
 * Reads the request body as bytes, refusing more than `limit`.
 * @param {http.IncomingMessage} req
 * @param {number} limit
 * @returns {Promise<Buffer | null>} null when the body is too large
 */
function rawBody(req, limit) {
  return new Promise((resolve, reject) => {
    /** @type {Buffer[]} */
    const chunks = [];
    let size = 0;
    req.on('data', (/** @type {Buffer} */ chunk) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        resolve(null);
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * Creates the receiver (not listening yet).
 * @param {object} options
 * @param {string} options.secret the subscription's signing secret
 * @param {EventHandler} [options.onEvent] the work, run after the answer
 * @param {(line: string) => void} [options.log]
 * @param {SeenIds} [options.seen]
 * @param {number} [options.tolerance] seconds
 */
export function createReceiver({ secret, onEvent, log = console.log, seen = new SeenIds(), tolerance = TOLERANCE_SECONDS }) {
  if (!secret) throw new Error('A webhook secret is required (MERMA_WEBHOOK_SECRET)');
  const handle = onEvent ?? ((event) => log(describeEvent(event)));

  /**
   * @param {http.IncomingMessage} req
   * @param {http.ServerResponse} res
   */
  const receive = async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://receiver');
    if (url.pathname !== WEBHOOK_PATH) return reply(res, 404, { error: 'not found' });
    if (req.method !== 'POST') return reply(res.setHeader('allow', 'POST'), 405, { error: 'use POST' });

    const body = await rawBody(req, MAX_BODY_BYTES);
    if (!body) return reply(res, 413, { error: `body larger than ${MAX_BODY_BYTES} bytes` });
    const id = req.headers['webhook-id'];
    if (typeof id !== 'string' || !req.headers['webhook-timestamp']) {
      // Without them a signed body could be replayed forever: refuse deliveries that lack them.
      log('rejected: no webhook-id/webhook-timestamp');
      return reply(res, 400, { error: 'webhook-id and webhook-timestamp are required' });
    }

    let event;
    try {
      event = await verifyWebhook({ payload: body, headers: req.headers, secret, tolerance });
    } catch (err) {
      const refused = err instanceof WebhookVerificationError;
      log(`${refused ? 'rejected' : 'failed'} ${id}: ${/** @type {Error} */ (err).message}`);
      return reply(res, refused ? 400 : 500, { error: refused ? err.message : 'internal error' });
    }

    if (!seen.add(id)) {
      log(`duplicate ${id}: already handled, not processed again`);
      return reply(res, 200, { status: 'duplicate' });
    }
    reply(res, 200, { status: 'accepted' });
    // The answer is sent; now the work. A failure here is ours to retry, not Merma's.
    setImmediate(async () => {
      try {
        await handle(event, id);
      } catch (err) {
        log(`handling ${id} failed: ${/** @type {Error} */ (err).message}`);
      }
    });
  };

  return http.createServer((req, res) => {
    receive(req, res).catch((err) => {
      // A body that could not be read (the client went away) or a bug: never crash the receiver.
      log(`request failed: ${err.message}`);
      if (!res.headersSent) reply(res, 500, { error: 'internal error' });
      else res.destroy();
    });
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const port = Number(process.env.PORT ?? 4000);
  const host = process.env.HOST ?? '127.0.0.1';
  try {
    const server = createReceiver({ secret: process.env.MERMA_WEBHOOK_SECRET ?? '' });
    server.listen(port, host, () => console.log(`listening on http://${host}:${port}${WEBHOOK_PATH}`));
    const stop = () => server.close(() => process.exit(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  } catch (err) {
    console.error(/** @type {Error} */ (err).message);
    process.exitCode = 1;
  }
}
