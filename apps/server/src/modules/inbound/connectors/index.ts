import type { Connector } from './standard.js';

/**
 * Connectors turn a source system's own payload into the standard inbound format (standard.ts).
 * The standard format is the default; only the request's `connector` (any case: "Square", "odoo")
 * selects another — a standard payload whose `source` is "square" stays standard. The others are
 * the vendors' (modules/integrations/vendors/<vendor>/connector.ts), which the caller hands in:
 * the inbound module imports nothing of the integrations module, which imports it (the vendors'
 * receive paths store through inbound/service.ts with their own connector; `POST
 * /api/v1/webhooks/inbound` offers every vendor's, from the vendors' registry). Each connector
 * reads its system's shapes as the system writes them (fixtures in test/fixtures/<system>).
 */
export {
  type Connector,
  type ConnectorSales,
  lossKilograms,
  type Mapped,
  type StandardInventoryLoss,
  type StandardWasteUpdated,
} from './standard.js';

/** The standard format's connector: the payload as given. */
export const standardConnector: Connector = { name: 'standard', toStandard: (_event, payload) => ({ payload }) };

/**
 * The connector a request names (case-insensitive) among the standard one and `others`, the
 * standard one when it names none; undefined for an unknown name.
 */
export function connectorFor(name: string | undefined, others: readonly Connector[]): Connector | undefined {
  if (name === undefined) return standardConnector;
  const wanted = name.trim().toLowerCase();
  return [standardConnector, ...others].find((c) => c.name === wanted);
}
