import { vendors } from '../../integrations/vendors/index.js';
import type { Connector } from './standard.js';

/**
 * Connectors turn a source system's own payload into the standard inbound format (standard.ts).
 * The standard format is the default; only the request's `connector` (any case: "Square", "odoo")
 * selects another — a standard payload whose `source` is "square" stays standard. The others are
 * the vendors' (modules/integrations/vendors/<vendor>/connector.ts), read from the vendors'
 * registry (modules/integrations/vendors/index.ts). Each connector reads its system's shapes as
 * the system writes them (fixtures in test/fixtures/<system>).
 */
export {
  type Connector,
  type ConnectorSales,
  lossKilograms,
  type Mapped,
  type StandardInventoryLoss,
  type StandardWasteUpdated,
} from './standard.js';

const standard: Connector = { name: 'standard', toStandard: (_event, payload) => ({ payload }) };

let byName: ReadonlyMap<string, Connector> | undefined;

/**
 * Every connector by name: the standard one and each vendor's. Built at the first call, not while
 * modules load: the vendors' receive paths import this module's callers, so the registry may not
 * be loaded yet when this module is.
 */
export function connectors(): ReadonlyMap<string, Connector> {
  byName ??= new Map([standard, ...vendors().map((v) => v.connector)].map((c) => [c.name, c]));
  return byName;
}

/** The connector the request names (case-insensitive), the standard one when it names none; undefined for an unknown name. */
export function connectorFor(connector: string | undefined): Connector | undefined {
  return connector === undefined ? standard : connectors().get(connector.trim().toLowerCase());
}
