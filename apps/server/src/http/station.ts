import { CreateRecordInput, CreateSessionInput, RecordIdParams, SessionIdParams } from '@merma/schema';
import { RedeemPairingInput } from '@merma/schema/dashboard';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { AuthContext, Clock } from '../context.js';
import type { Db, DbTx } from '../db/client.js';
import type { Sql } from '../db/sql.js';
import { AppError, invalidInput, issueDetails, validationError } from '../errors.js';
import type { CatalogCache } from '../modules/catalog/service.js';
import { completeSession, createSession } from '../modules/sessions/service.js';
import { createStationRecord, recentStationRecords, undoStationRecord } from '../modules/stations/records.js';
import { redeemPairing, type Station, stationOf, touchDevice } from '../modules/stations/service.js';
import { stationSetup } from '../modules/stations/setup.js';
import type { SecretBox } from '../secrets/cipher.js';
import { ok } from '../trpc/trpc.js';
import { lastUseThrottle } from './auth.js';
import { fingerprint, parseIdempotencyKey, withIdempotency } from './idempotency.js';
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
  deps: { db: Db; sql: Sql; clock: Clock; rateLimiter: RateLimiter; catalog: CatalogCache; secrets: SecretBox },
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

  app.get('/station/records', { config: { station: true } }, async (request) =>
    ok(await recentStationRecords({ sql: deps.sql, clock: deps.clock }, await stationFor(request))),
  );

  /**
   * A station's write: its body checked by `schema`, run by `write` on a transaction under the
   * request's Idempotency-Key — required, since a station sends each write again until it has an
   * answer (its offline queue), and the key is what makes the second sending harmless. The key is
   * the device's own (`idempotency_keys.api_key_id` holds the credential's id: an API key's or a
   * device's), so a replay is only ever answered to the device that made the write.
   */
  function stationWrite<S extends z.ZodType>(
    path: string,
    schema: S,
    status: number,
    write: (tx: DbTx, station: Station, input: z.output<S>) => Promise<unknown>,
  ): void {
    app.post(path, { config: { station: true } }, async (request: FastifyRequest, reply: FastifyReply) => {
      const station = await stationFor(request);
      // Each device has an API key's allowance of record writes (RATE_LIMIT_RECORDS_PER_MINUTE):
      // far above a cook's pace; a backlog sent after a day offline drains at it (the outbox waits
      // out each 429's Retry-After).
      await deps.rateLimiter.consume('records_create', `station:${station.identity.device.id}`, reply);
      const key = parseIdempotencyKey(request.headers['idempotency-key']);
      if (!key) {
        throw validationError('A station write needs an Idempotency-Key header', [
          { path: 'Idempotency-Key', message: 'required: one key per record, made when it is tapped' },
        ]);
      }
      const body = { ...(request.params as object), ...((request.body as object | undefined) ?? {}) };
      const parsed = schema.safeParse(body);
      if (!parsed.success) throw invalidInput(parsed.error);
      const credential: AuthContext = { ...station.tenant, keyId: station.identity.device.id, permissions: [] };
      const print = fingerprint('POST', request.url.split('?')[0] ?? path, body);
      const stored = await withIdempotency(deps.db, deps.secrets, credential, key, print, async (tx) => ({
        status,
        body: JSON.stringify(ok(await write(tx, station, parsed.data))),
      }));
      if (stored.replayed) reply.header('idempotent-replayed', 'true');
      return reply.code(stored.status).type('application/json; charset=utf-8').send(stored.body);
    });
  }

  const recordDeps = (tx: DbTx) => ({ tx, clock: deps.clock, catalog: deps.catalog });
  stationWrite('/station/records', CreateRecordInput, 201, (tx, station, input) => createStationRecord(recordDeps(tx), station, input));
  stationWrite('/station/records/:id/undo', RecordIdParams, 200, (tx, station, input) =>
    undoStationRecord(recordDeps(tx), station, input.id),
  );
  stationWrite('/station/sessions', CreateSessionInput, 201, (tx, station, input) =>
    createSession({ db: tx, clock: deps.clock }, station.tenant, input),
  );
  stationWrite('/station/sessions/:id/complete', SessionIdParams, 200, (tx, station, input) =>
    completeSession({ db: tx, clock: deps.clock }, station.tenant, input.id),
  );
}
