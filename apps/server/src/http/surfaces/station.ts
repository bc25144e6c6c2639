import {
  CreateDonationInput,
  CreateDonationLinkInput,
  CreateRecordInput,
  CreateSessionInput,
  DonationIdParams,
  MAX_PHOTO_BYTES,
  RecordIdParams,
  SessionIdParams,
} from '@merma/schema';
import { RedeemPairingInput } from '@merma/schema/dashboard';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { Clock } from '../../context.js';
import type { Db, DbTx } from '../../db/client.js';
import type { Sql, TransactionalSql } from '../../db/sql.js';
import { AppError, invalidInput, issueDetails, validationError } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { CatalogCache } from '../../modules/catalog/service.js';
import { createDonation } from '../../modules/donations/donations.js';
import { createDonationLink } from '../../modules/donations/links.js';
import type { PhotoSettings } from '../../modules/photos/service.js';
import { storedRecord } from '../../modules/records/rows.js';
import { completeSession, createSession } from '../../modules/sessions/service.js';
import { stationAgreements, stationDonation } from '../../modules/stations/donations.js';
import { createStationRecord, recentStationRecords, undoStationRecord } from '../../modules/stations/records.js';
import { redeemPairing, type Station, stationOf } from '../../modules/stations/service.js';
import { stationSetup } from '../../modules/stations/setup.js';
import { authOf, credentialToucher } from '../../modules/tenancy/callers.js';
import type { SecretBox } from '../../secrets/cipher.js';
import { ok } from '../../trpc/trpc.js';
import { bearerCredential } from '../auth.js';
import { answerOnce, fingerprint, parseIdempotencyKey } from '../idempotency.js';
import { acceptImageBodies, answerPhotoUpload } from '../photo-body.js';
import type { RateLimiter } from '../rate-limit.js';
import { noStore, storableBodies, wakeAfterWrites } from './hooks.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The kitchen station of a station route's device token (surfaces/station.ts); unset elsewhere. */
    station: Station;
  }
}

export type StationSurfaceDeps = {
  db: Db;
  sql: { primary: TransactionalSql; namedStatements?: boolean };
  clock: Clock;
  rateLimiter: RateLimiter;
  catalog: CatalogCache;
  secrets: SecretBox;
  /** The service's public address: the donation signing links the station shows as a QR code start with it. */
  publicUrl: string;
  /** Where the photos taken at the bin are kept (modules/photos). */
  photos: PhotoSettings;
  afterWrite?: () => void;
};

/**
 * The kitchen station's routes (docs/decisions/0007-the-kitchen-station.md), beside the dashboard's
 * and apart from the public API: `POST /station/pair` redeems a pairing code for the device's
 * token; every other route takes `Authorization: Bearer stn_…` (its caller resolved by
 * modules/tenancy/callers.ts) and acts for that device's establishment and mode only. Answers in
 * the API's envelope and error shapes, never cached; a write wakes the webhook dispatcher. The
 * station page is served from the same origin and sends no cookies, so there is nothing here for a
 * cross-site request to borrow.
 */
export async function stationSurface(app: FastifyInstance, deps: StationSurfaceDeps): Promise<void> {
  const sql: Sql = deps.sql.primary;
  noStore(app);
  storableBodies(app);
  wakeAfterWrites(app, deps.afterWrite);
  app.decorateRequest('station', null as unknown as Station);

  app.post('/station/pair', async (request) => {
    // Every attempt counts against the address before the code is checked (as sign-ins do,
    // docs/decisions/0004): guessing a code of 40 bits that lives 10 minutes stops at the limit.
    await deps.rateLimiter.consumeIntegration('refused', `station-pair:${request.ip}`);
    const parsed = RedeemPairingInput.safeParse(request.body);
    if (!parsed.success) throw validationError('Invalid pairing request', issueDetails(parsed.error));
    return ok(await redeemPairing(sql, { code: parsed.data.code, now: deps.clock() }));
  });

  // Every other route: a paired device's. Its own plugin, so that its hook runs for them alone.
  await app.register(async (paired) => {
    const touch = credentialToucher(sql);
    paired.addHook('onRequest', async (request) => {
      const token = bearerCredential(request);
      const station = token ? await stationOf(sql, token) : null;
      if (!station)
        throw new AppError('unauthorized', 'This station is not paired, or was unpaired: pair it again from the dashboard (Stations)');
      request.station = station;
      (request.log as Logger).setBindings({ establishment_id: station.tenant.establishmentId, device_id: station.identity.device.id });
      touch(station.caller.credential);
    });
    registerPairedRoutes(paired, deps, sql);
    // The photo taken at the bin: a raw image body, parsed in this plugin alone (every other
    // station route keeps answering 415 to an image). Content-addressed, so the outbox sends it
    // again after a lost answer without a key and nothing is stored twice; it counts against the
    // device's allowance of writes like a record.
    await paired.register(async (photos) => {
      acceptImageBodies(photos);
      photos.post('/station/photos', { bodyLimit: MAX_PHOTO_BYTES }, async (request, reply) => {
        const { station } = request;
        await deps.rateLimiter.consume('records_create', `station:${station.identity.device.id}`, reply);
        return answerPhotoUpload(request, reply, { photos: deps.photos, sql, clock: deps.clock }, station.tenant);
      });
    });
  });
}

function registerPairedRoutes(app: FastifyInstance, deps: StationSurfaceDeps, sql: Sql): void {
  app.get('/station/me', async (request) => ok(request.station.identity));
  app.get('/station/setup', async (request) =>
    ok(await stationSetup({ db: deps.db, sql, catalog: deps.catalog, clock: deps.clock }, request.station)),
  );
  app.get('/station/records', async (request) => ok(await recentStationRecords({ sql, clock: deps.clock }, request.station)));

  /**
   * A station's write: its body checked by `schema`, run by `write` under the request's
   * Idempotency-Key through the path every surface's writes take (idempotency.ts, `answerOnce`) —
   * required, since a station sends each write again until it has an answer (its offline queue),
   * and the key is what makes the second sending harmless. The key is the device's own (the
   * credential's id), so a replay is only ever answered to the device that made the write.
   * `record`: the write is one record's, through the runner it is given (`sqlWrites`), answered as
   * the API answers one (`answer`), its key claimed in the record's statement, and a replay
   * answered with the record read again (`replay`).
   */
  function stationWrite<S extends z.ZodType, T>(
    path: string,
    schema: S,
    status: number,
    write: (db: DbTx, station: Station, input: z.output<S>, runner?: TransactionalSql) => Promise<T>,
    record?: { answer: (data: T) => unknown; replay: (station: Station, id: string) => Promise<T> },
  ): void {
    app.post(path, async (request: FastifyRequest, reply: FastifyReply) => {
      const { station } = request;
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
      const print = fingerprint('POST', request.url.split('?')[0] ?? path, body);
      const envelope = (data: T) => JSON.stringify(record ? record.answer(data) : ok(data));
      const stored = await answerOnce(
        { db: deps.db, secrets: deps.secrets, namedStatements: deps.sql.namedStatements ?? false },
        {
          auth: authOf(station.caller),
          key,
          print,
          status,
          sqlWrites: record !== undefined,
          rebuild: record && (async ({ recordId }) => envelope(await record.replay(station, recordId))),
        },
        async (db, runner) => envelope(await write(db, station, parsed.data, runner)),
      );
      if (stored.replayed) reply.header('idempotent-replayed', 'true');
      return reply.code(stored.status).type('application/json; charset=utf-8').send(stored.body);
    });
  }

  const recordDeps = (db: DbTx, sql?: TransactionalSql) => ({ db, clock: deps.clock, catalog: deps.catalog, ...(sql ? { sql } : {}) });
  stationWrite(
    '/station/records',
    CreateRecordInput,
    201,
    (db, station, input, runner) => createStationRecord(recordDeps(db, runner), station, input),
    // Answered as POST /api/v1/records answers: stamped with the record's own time, the same bytes again on a replay.
    { answer: (record) => ok(record, record.created_at), replay: (station, id) => storedRecord(sql, station.tenant, id) },
  );
  stationWrite('/station/records/:id/undo', RecordIdParams, 200, (tx, station, input) =>
    undoStationRecord({ tx, clock: deps.clock, catalog: deps.catalog }, station, input.id),
  );
  stationWrite('/station/sessions', CreateSessionInput, 201, (tx, station, input) =>
    createSession({ db: tx, clock: deps.clock }, station.tenant, input),
  );
  stationWrite('/station/sessions/:id/complete', SessionIdParams, 200, (tx, station, input) =>
    completeSession({ db: tx, clock: deps.clock }, station.tenant, input.id),
  );

  // Donations (modules/stations/donations.ts): today's surplus offered under an agreement in force,
  // and the signing link its QR code carries to the entity's volunteer. Writes like records — one
  // Idempotency-Key each, the device's allowance — but the station sends them only online.
  app.get('/station/donations/agreements', async (request) => ok(await stationAgreements({ sql, clock: deps.clock }, request.station)));
  app.get('/station/donations/:id', async (request) => {
    const parsed = DonationIdParams.safeParse(request.params);
    if (!parsed.success) throw invalidInput(parsed.error);
    return ok(await stationDonation(sql, request.station, parsed.data.id));
  });
  stationWrite('/station/donations', CreateDonationInput, 201, (tx, station, input) =>
    createDonation({ db: tx, clock: deps.clock, catalog: deps.catalog }, station.tenant, input),
  );
  stationWrite('/station/donations/:id/link', CreateDonationLinkInput, 201, (tx, station, input) =>
    createDonationLink({ db: tx, clock: deps.clock, publicUrl: deps.publicUrl }, station.tenant, input),
  );
}
