import type { IntegrationSettings, IntegrationSettingsInput } from '../../service.js';
import type { Vendor } from '../index.js';
import { odooConnector } from './connector.js';
import { runOdooOrder } from './fetch.js';
import { authenticateOdoo, receiveOdooWebhook } from './receive.js';
import { odooLineIds, odooRefusedWhole } from './refused.js';

/** Odoo's job: a pos.order's lines read through JSON-RPC (fetch.ts). The name is stored in queued jobs: never rename it. */
export const ODOO_ORDER_TASK = 'integrations.odoo_order';

/** Odoo's URL without its trailing slashes; `company_id: null` forgets the company. */
function mergeOdooSettings(current: IntegrationSettings, input: IntegrationSettingsInput): IntegrationSettings {
  const settings: IntegrationSettings = {
    ...current,
    ...(input.odoo_url !== undefined ? { url: input.odoo_url.replace(/\/+$/, '') } : {}),
    ...(input.database !== undefined ? { database: input.database } : {}),
    ...(input.login !== undefined ? { login: input.login } : {}),
    ...(typeof input.company_id === 'number' ? { company_id: input.company_id } : {}),
  };
  if (input.company_id === null) delete settings.company_id;
  return settings;
}

/**
 * Odoo (odoo.com): automation rules' webhooks to a URL whose token is the credential (receive.ts),
 * mapped by the connector (connector.ts); a point-of-sale order's lines read through Odoo's
 * JSON-RPC by a job (fetch.ts, rpc.ts). Read through the registry (../index.ts).
 */
export const odoo = {
  kind: 'odoo',
  label: 'Odoo',
  secret: 'url-token',
  settings: {
    fields: ['odoo_url', 'database', 'login', 'api_key', 'company_id'],
    merge: mergeOdooSettings,
    apiCredential: 'api_key',
  },
  connector: odooConnector,
  url: { param: 'token', rawBody: false },
  authenticate: authenticateOdoo,
  receive: receiveOdooWebhook,
  job: { task: ODOO_ORDER_TASK, run: runOdooOrder },
  refusedLines: { idsOf: odooLineIds, wholePayload: odooRefusedWhole },
} satisfies Vendor;
