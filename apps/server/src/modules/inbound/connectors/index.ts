import { odooConnector } from './odoo.js';
import { squareConnector } from './square.js';
import type { Connector } from './standard.js';

/**
 * Connectors turn a source system's own payload into the standard inbound format (standard.ts).
 * The standard format is the default; only the request's `connector` (any case: "Square", "odoo")
 * selects another — a standard payload whose `source` is "square" stays standard. Each connector
 * reads its system's shapes as the system writes them (fixtures in test/fixtures/<system>).
 */
export { odooEventOf } from './odoo.js';
export {
  type Connector,
  type ConnectorSales,
  lossKilograms,
  type Mapped,
  type StandardInventoryLoss,
  type StandardWasteUpdated,
} from './standard.js';

const standard: Connector = { name: 'standard', toStandard: (_event, payload) => ({ payload }) };

export const CONNECTORS = new Map<string, Connector>([standard, squareConnector, odooConnector].map((c) => [c.name, c]));

/** The connector the request names (case-insensitive), the standard one when it names none; undefined for an unknown name. */
export function connectorFor(connector: string | undefined): Connector | undefined {
  return connector === undefined ? standard : CONNECTORS.get(connector.trim().toLowerCase());
}
