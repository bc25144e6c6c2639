import type { Vendor } from '../index.js';
import { squareConnector } from './connector.js';
import { runSquareFetch } from './fetch.js';
import { authenticateSquare, receiveSquareNotification } from './receive.js';
import { squareLineIds, squareRefusedWhole } from './refused.js';

/** Square's job: a notification read from Square's Orders or Inventory API (fetch.ts). The name is stored in queued jobs: never rename it. */
export const SQUARE_FETCH_TASK = 'integrations.square_fetch';

/**
 * Square (squareup.com): notifications signed over the raw body with the subscription's key
 * (receive.ts, signature.ts), the orders and stock they name read from Square's API by a job
 * (fetch.ts, api.ts), mapped to sales and losses by the connector (connector.ts).
 * Read through the registry (../index.ts).
 */
export const square = {
  kind: 'square',
  label: 'Square',
  secret: 'signature-key',
  settings: {
    fields: ['signature_key', 'access_token', 'location_id'],
    merge: (current, input) => ({ ...current, ...(input.location_id !== undefined ? { location_id: input.location_id } : {}) }),
    apiCredential: 'access_token',
  },
  connector: squareConnector,
  url: { param: 'id', rawBody: true },
  authenticate: authenticateSquare,
  receive: receiveSquareNotification,
  job: { task: SQUARE_FETCH_TASK, run: runSquareFetch },
  refusedLines: { idsOf: squareLineIds, wholePayload: squareRefusedWhole },
} satisfies Vendor;
