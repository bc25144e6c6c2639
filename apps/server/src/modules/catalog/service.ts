import type { Cause, Destination, Establishment, WfdOperation } from '@merma/schema';
import type { AuthContext } from '../../context.js';
import type { DbTx } from '../../db/client.js';
import { establishmentOf } from '../compliance/service.js';

/**
 * The global catalogues (causes and destinations) are seeded by migrations and change only with a
 * deployment, so each process keeps them in memory after the first read: validating a record's
 * `destino_id`/`causa_id` then costs no database round trip.
 */
export type GlobalCatalog = {
  causes: Cause[];
  destinations: Destination[];
  causeById: Map<string, Cause>;
  destinationById: Map<string, Destination>;
};

export type CatalogCache = { get(db: DbTx): Promise<GlobalCatalog> };

/**
 * Callers do not share a load in progress: each one that finds the cache empty reads the catalogue
 * on its own connection or transaction, and the first answer is kept. Sharing one promise would make
 * a request inside a transaction wait for a read that needs another pool connection; with every
 * connection held by such transactions, the pool deadlocks until its acquire timeout (seen as
 * 503s when many idempotent requests reach a process that has just started).
 */
export function createCatalogCache(): CatalogCache {
  let loaded: GlobalCatalog | undefined;
  return {
    async get(db) {
      if (loaded) return loaded;
      const catalog = await loadCatalog(db);
      loaded ??= catalog;
      return loaded;
    },
  };
}

async function loadCatalog(db: DbTx): Promise<GlobalCatalog> {
  const [causeRows, destinationRows] = await Promise.all([
    db.cause.findMany({ orderBy: { orden: 'asc' } }),
    db.destination.findMany({ orderBy: { orden: 'asc' } }),
  ]);
  const causes = causeRows.map(({ id, nombre, icono, activo }) => ({ id, nombre, icono, activo }));
  const destinations = destinationRows.map(({ id, nombre, orden, es_recuperacion, code, wfd_operation }) => ({
    id,
    nombre,
    orden,
    es_recuperacion,
    code,
    wfd_operation: wfd_operation as WfdOperation,
  }));
  return {
    causes,
    destinations,
    causeById: new Map(causes.map((c) => [c.id, c])),
    destinationById: new Map(destinations.map((d) => [d.id, d])),
  };
}

export async function listActiveCauses(db: DbTx, cache: CatalogCache): Promise<Cause[]> {
  return (await cache.get(db)).causes.filter((c) => c.activo);
}

export async function listDestinations(db: DbTx, cache: CatalogCache): Promise<Destination[]> {
  return (await cache.get(db)).destinations;
}

/** The key's establishment; every establishment of the organisation on the Enterprise Multi plan. */
export async function listEstablishments(db: DbTx, auth: AuthContext): Promise<Establishment[]> {
  const rows = await db.establishment.findMany({
    where: auth.plan === 'enterprise_multi' ? { organization_id: auth.organizationId } : { id: auth.establishmentId },
    orderBy: [{ name: 'asc' }, { id: 'asc' }],
  });
  return rows.map((row) => establishmentOf({ ...row, floor_area_m2: row.floor_area_m2 === null ? null : Number(row.floor_area_m2) }));
}
