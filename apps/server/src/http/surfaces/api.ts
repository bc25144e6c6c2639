import type { FastifyInstance } from 'fastify';
import { AppError } from '../../errors.js';
import type { Logger } from '../../log.js';
import { resolveApiVersion } from '../api-version.js';
import type { AppServices } from '../app.js';
import { registerProcedureRoutes } from '../binding.js';
import { agreementDocumentRoutes } from './agreement-documents.js';
import { dossierRoutes } from './dossier-documents.js';
import { noStore, storableBodies, wakeAfterWrites } from './hooks.js';
import { photoUploadRoutes } from './photo-uploads.js';
import { signedCertificateRoutes } from './signed-certificates.js';
import { taxPackDocumentRoutes } from './tax-pack-documents.js';

/**
 * The public REST API (`/api/v1`, an API key in `Authorization: Bearer`): the procedures served
 * as routes (http/binding.ts), in a plugin of its own whose hooks run for them alone: no-store →
 * the version (`Merma-Version`, api-version.ts) → the key (http/auth.ts, resolved by
 * modules/tenancy/callers.ts) → the rate limit of the route's bucket → a storable body → the
 * procedure → the dispatcher woken after a write. The OpenAPI document, the reference at /docs
 * and CORS are the app's (http/app.ts, http/cors.ts): they are not a caller's.
 */
export async function apiSurface(app: FastifyInstance, options: { services: AppServices; afterWrite?: () => void }): Promise<void> {
  const { services } = options;
  const { authenticator, rateLimiter, metrics } = services;
  noStore(app);
  app.addHook('onRequest', async (request, reply) => {
    resolveApiVersion(request, reply);
    request.auth = await authenticator.authenticate(request);
    // Every later line of this request (and its "request completed" line) names who asked: added
    // to the request's own child logger (Fastify makes one per request, carrying reqId, shared with
    // the reply) rather than a second child made for every request.
    (request.log as Logger).setBindings({ establishment_id: request.auth.establishmentId, key_id: request.auth.credential.id });
    const bucket = request.routeOptions.config?.bucket ?? 'general';
    try {
      await rateLimiter.consume(bucket, request.auth.credential.id, reply);
    } catch (err) {
      if (err instanceof AppError && err.code === 'rate_limited') metrics.rateLimited.inc({ bucket });
      throw err;
    }
  });
  storableBodies(app);
  wakeAfterWrites(app, options.afterWrite);
  registerProcedureRoutes(app, {
    router: services.router,
    db: services.db,
    sql: services.sql,
    clock: services.clock,
    secrets: services.secrets,
    responseCheck: services.config.apiResponseCheck,
  });
  await app.register(agreementDocumentRoutes, { sql: services.sql.primary, clock: services.clock });
  await app.register(photoUploadRoutes, { sql: services.sql.primary, clock: services.clock, photos: services.photos });
  await app.register(taxPackDocumentRoutes, { sql: services.sql.replica, clock: services.clock });
  await app.register(signedCertificateRoutes, { db: services.db, sql: services.sql.primary, clock: services.clock });
  await app.register(dossierRoutes, {
    db: services.db,
    sql: services.sql.replica,
    clock: services.clock,
    catalog: services.dashboard.catalog,
    signer: services.signer,
  });
}
