import { RedeemPairingInput } from '@merma/schema/dashboard';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Clock } from '../context.js';
import type { Db } from '../db/client.js';
import type { Sql } from '../db/sql.js';
import { AppError, issueDetails, validationError } from '../errors.js';
import type { CatalogCache } from '../modules/catalog/service.js';
import { redeemPairing, type Station, stationOf, touchDevice } from '../modules/stations/service.js';
import { stationSetup } from '../modules/stations/setup.js';
import { ok } from '../trpc/trpc.js';
import { lastUseThrottle } from './auth.js';
import type { RateLimiter } from './rate-limit.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A kitchen station's route: authenticated by its device token (or, to pair, by a one-time code), never a session or an API key. */
    station?: boolean;
  }
}

/**
 * The kitchen station's routes (docs/decisions/0007-the-kitchen-station.md), beside the dashboard's
 * and apart from the public API: `POST /station/pair` redeems a pairing code for the device's
 * token; every other route takes `Authorization: Bearer stn_…` and acts for that device's
 * establishment and mode only. Answers in the API's envelope and error shapes, never cached. The
 * station page is served from the same origin and sends no cookies, so there is nothing here for a
 * cross-site request to borrow.
 */
export function registerStationRoutes(
  app: FastifyInstance,
  deps: { db: Db; sql: Sql; clock: Clock; rateLimiter: RateLimiter; catalog: CatalogCache },
): void {
  const due = lastUseThrottle();

  /** The station of a request's token (401 otherwise), its last use noted. */
  async function stationFor(request: FastifyRequest): Promise<Station> {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    const station = match?.[1] ? await stationOf(deps.sql, match[1]) : null;
    if (!station)
      throw new AppError('unauthorized', 'This station is not paired, or was unpaired: pair it again from the dashboard (Stations)');
    const { device } = station.identity;
    if (due(device.id)) {
      touchDevice(deps.sql, device.id).catch((err: unknown) =>
        request.log.warn({ err, device_id: device.id }, 'the station device could not be marked as used'),
      );
    }
    return station;
  }

  app.post('/station/pair', { config: { station: true } }, async (request) => {
    // Every attempt counts against the address before the code is checked (as sign-ins do,
    // docs/decisions/0004): guessing a code of 40 bits that lives 10 minutes stops at the limit.
    await deps.rateLimiter.consumeIntegration('refused', `station-pair:${request.ip}`);
    const parsed = RedeemPairingInput.safeParse(request.body);
    if (!parsed.success) throw validationError('Invalid pairing request', issueDetails(parsed.error));
    return ok(await redeemPairing(deps.sql, { code: parsed.data.code, now: deps.clock() }));
  });

  app.get('/station/me', { config: { station: true } }, async (request) => ok((await stationFor(request)).identity));

  app.get('/station/setup', { config: { station: true } }, async (request) => {
    const station = await stationFor(request);
    return ok(await stationSetup({ db: deps.db, sql: deps.sql, catalog: deps.catalog, clock: deps.clock }, station));
  });
}
