#!/usr/bin/env node
// @ts-check
/**
 * The same receiver as src/server.mjs in one Express 5 file.
 *
 *   MERMA_WEBHOOK_SECRET=whsec_… PORT=4000 node src/express.mjs
 *
 * The pitfall: `app.use(express.json())` parses every JSON body before the route sees it, and the
 * bytes that were signed are gone; `JSON.stringify(req.body)` gives other bytes (spacing, key
 * order, escapes), so verification fails for perfectly good deliveries. Here the webhook route
 * takes its body with `express.raw({ type: 'application/json' })` — a Buffer of the exact bytes —
 * and is declared before the JSON parser that the rest of the app uses.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { verifyWebhook, WebhookVerificationError } from '@merma/sdk';
import express from 'express';

/** @typedef {import('@merma/sdk').WebhookEvent} WebhookEvent */

/**
 * @param {object} options
 * @param {string} options.secret the subscription's signing secret
 * @param {(event: WebhookEvent, id: string) => void | Promise<void>} [options.onEvent] the work, run after the answer
 * @param {(line: string) => void} [options.log]
 * @param {number} [options.tolerance] seconds between webhook-timestamp and now that are accepted
 * @returns {import('express').Express}
 */
export function createApp({ secret, onEvent, log = console.log, tolerance = 300 }) {
  if (!secret) throw new Error('A webhook secret is required (MERMA_WEBHOOK_SECRET)');
  const handle =
    onEvent ??
    ((event) =>
      log(
        event.event === 'record.created' || event.event === 'record.updated'
          ? `${event.event}: ${event.data.weight_kg} kg of ${event.data.food_category} → ${event.data.destination}, record ${event.data.id}`
          : `${event.event}: ${JSON.stringify(event.data)}`,
      ));
  // webhook-id → when to forget it; 24 h outlasts Merma's retries. Use a table in production.
  /** @type {Map<string, number>} */
  const seen = new Map();

  const app = express();
  app.post('/merma/webhooks', express.raw({ type: 'application/json', limit: '1mb' }), async (req, res) => {
    if (!Buffer.isBuffer(req.body)) return res.status(415).json({ error: 'expected an application/json body' });
    const id = req.get('webhook-id');
    if (!id || !req.get('webhook-timestamp')) return res.status(400).json({ error: 'webhook-id and webhook-timestamp are required' });

    let event;
    try {
      event = await verifyWebhook({ payload: req.body, headers: req.headers, secret, tolerance });
    } catch (err) {
      if (!(err instanceof WebhookVerificationError)) throw err; // Express 5 sends rejected promises to the error handler
      log(`rejected ${id}: ${err.message}`);
      return res.status(400).json({ error: err.message });
    }

    const now = Date.now();
    for (const [old, until] of seen) if (until <= now) seen.delete(old);
    if (seen.has(id)) {
      log(`duplicate ${id}: already handled, not processed again`);
      return res.status(200).json({ status: 'duplicate' });
    }
    seen.set(id, now + 24 * 60 * 60 * 1000);
    res.status(200).json({ status: 'accepted' });
    setImmediate(() => Promise.resolve(handle(event, id)).catch((err) => log(`handling ${id} failed: ${err.message}`)));
  });

  // Everything else may parse JSON as usual: the webhook route above has already taken its body raw.
  app.use(express.json());
  app.get('/healthz', (_req, res) => {
    res.json({ ok: true });
  });
  return app;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const port = Number(process.env.PORT ?? 4000);
  const host = process.env.HOST ?? '127.0.0.1';
  try {
    const app = createApp({ secret: process.env.MERMA_WEBHOOK_SECRET ?? '' });
    const server = app.listen(port, host, () => console.log(`listening on http://${host}:${port}/merma/webhooks (Express)`));
    const stop = () => server.close(() => process.exit(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  } catch (err) {
    console.error(/** @type {Error} */ (err).message);
    process.exitCode = 1;
  }
}
