import { AppError } from '../../../../errors.js';
import { receiveInboundEvent } from '../../../inbound/service.js';
import { describeRefusals, type IntegrationJob, type IntegrationJobDeps, keepRefused, lineRefusal, refusal } from '../../jobs.js';
import { refusedSalesOf } from '../../refused.js';
import { apiCredential, findActiveIntegration, noteOutcome, settingsOfRow } from '../../service.js';
import { odooConnector } from './connector.js';
import { OdooRpcError, odooRpc } from './rpc.js';

/**
 * Odoo's job, `integrations.odoo_order` {integration_id, inbound_event_id} (the generic part:
 * ../../jobs.ts): a `pos.order` whose lines Odoo sent as ids (kept in `inbound_events` by
 * receive.ts) → the lines through Odoo's JSON-RPC (rpc.ts), stored as sales by the odoo connector;
 * the lines it refuses are kept (../../refused.ts). Odoo's URL is the customer's: it is read through
 * the webhook deliveries' guard (`deps.policy`).
 */
export async function runOdooOrder(deps: IntegrationJobDeps, job: IntegrationJob): Promise<void> {
  const found = await findActiveIntegration(deps.db, 'odoo', job.integration_id);
  if (!found || found.refusal) return;
  const { row, auth } = found;
  const stored = await deps.db.inboundEvent.findUnique({ where: { id: job.inbound_event_id } });
  if (!stored) return;
  const order = stored.payload as { _id?: unknown; id?: unknown };
  const orderId = Number(order._id ?? order.id);
  const settings = settingsOfRow(row);
  const apiKey = apiCredential(deps.secrets, row);
  if (!settings.url || !settings.database || !settings.login || !apiKey) {
    await noteOutcome(deps.db, row.id, deps.clock(), "Odoo's URL, database, login and API key are needed to read the order's lines");
    throw new Error(`Odoo integration ${row.id} cannot read orders`);
  }
  const rpc = odooRpc(
    { url: settings.url, database: settings.database, login: settings.login, apiKey },
    { policy: deps.policy, ...(deps.agents ? { agents: deps.agents } : {}), userAgent: deps.userAgent },
  );
  let lines: Record<string, unknown>[];
  try {
    lines = await rpc.posOrderLines(orderId);
  } catch (err) {
    if (err instanceof OdooRpcError) await noteOutcome(deps.db, row.id, deps.clock(), err.message);
    throw err;
  }
  const refused: string[] = [];
  const orderRef = `pos.order:${orderId}`;
  try {
    const result = await receiveInboundEvent({ db: deps.db, clock: deps.clock, catalog: deps.catalog }, auth, {
      event: 'sales.recorded',
      connector: odooConnector,
      payload: { lines },
    });
    for (const e of result.sales?.errors ?? []) refused.push(lineRefusal(e));
    await keepRefused(deps, found, refusedSalesOf('odoo', { lines }, { errors: result.sales?.errors ?? [] }, orderRef));
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== 'validation_error') throw err;
    refused.push(refusal(err));
    await keepRefused(deps, found, refusedSalesOf('odoo', { lines }, { error: err }, orderRef));
  }
  await noteOutcome(deps.db, row.id, deps.clock(), describeRefusals(refused));
}
