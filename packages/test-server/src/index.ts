export { CAUSA_CADUCIDAD, DESTINO_COMPOSTING, DESTINO_DONATION, DESTINO_LANDFILL } from './catalog.js';
export { type Received, type Receiver, startReceiver } from './receiver.js';
export { recordAt } from './records.js';
export {
  SERVER_ADMIN,
  SERVER_MAIN,
  startTestServer,
  type Tenant,
  type TenantOptions,
  type TestServer,
  type TestServerOptions,
} from './server.js';
