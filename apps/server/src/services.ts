import { listenForCallerChanges } from './auth/caller-changes.js';
import type { Config } from './config.js';
import type { Clock } from './context.js';
import { type Db, poolOf } from './db/client.js';
import { createReadReplica } from './db/replica.js';
import { sqlOfPool } from './db/sql.js';
import type { AppServices } from './http/app.js';
import { createAuthenticator } from './http/auth.js';
import { createRateLimiter } from './http/rate-limit.js';
import type { Logger } from './log.js';
import { createMailer, type Mailer, mailOptionsOf } from './mail.js';
import { createMetrics, type Metrics } from './metrics.js';
import { createSignInGuard } from './modules/accounts/lockout.js';
import { type CatalogCache, createCatalogCache } from './modules/catalog/service.js';
import { photoStorage } from './modules/photos/storage.js';
import { createForecastPool, type ForecastPool } from './modules/predict/pool.js';
import { createInvitationLimiter } from './modules/team/limits.js';
import { createRedis } from './redis.js';
import type { SecretBox } from './secrets/cipher.js';
import { loadSecretBox } from './secrets/keys.js';
import { createCheckpointSigner } from './secrets/signing.js';
import { createDashboardRouter } from './trpc/dashboard.js';
import { createAppRouter } from './trpc/router.js';

/**
 * The composition root: everything a serving process shares, built once from the configuration.
 * serve.ts builds it for the HTTP server (and hands its logger and metrics to the worker); tests
 * build it the same way, with a fixed clock or a capturing log. http/app.ts only configures Fastify
 * around it.
 */
export type Services = AppServices & {
  catalog: CatalogCache;
  /** The keys of secrets at rest; the same ones openDatabase and the worker load from the configuration. */
  secrets: SecretBox;
  /** The demand forecast's threads (FORECAST_THREADS; none for 0), shared with the job worker (serve.ts). */
  forecasts: ForecastPool | undefined;
};

export function createServices(deps: {
  config: Config;
  db: Db;
  log: Logger;
  clock?: Clock;
  metrics?: Metrics;
  /** The keys openDatabase loaded (serve.ts); loaded from the configuration when not given. */
  secrets?: SecretBox;
  /** Where invitations and password resets go; SMTP_URL (or the log) when not given. */
  mailer?: Mailer;
  /**
   * Whether the pool may prepare the hottest statements under a name (sqlOfPool): true on a real
   * PostgreSQL, false (the default) on the embedded one, whose connections share one session.
   */
  namedStatements?: boolean;
  /**
   * Whether a connection of its own may LISTEN for API key changes (auth/caller-changes.ts): true
   * on a real PostgreSQL, false (the default) on the embedded one, for the same reason.
   */
  listen?: boolean;
}): Services {
  const { config, db } = deps;
  const metrics = deps.metrics ?? createMetrics();
  metrics.watchPool('api', poolOf(db));
  metrics.readFrom(poolOf(db));
  const primary = sqlOfPool(poolOf(db), { namedStatements: deps.namedStatements ?? false });
  const replica = config.replica
    ? createReadReplica({
        ...config.replica,
        primary,
        poolSize: config.databasePoolSize,
        observer: metrics.replicaObserver(),
        log: deps.log,
      })
    : undefined;
  if (replica) metrics.watchPool('replica', replica.pool);
  const catalog = createCatalogCache();
  const callerChanges =
    deps.listen && config.apiKeyCacheTtlMs > 0
      ? listenForCallerChanges({ connection: poolOf(db).options, log: deps.log, pingMs: Math.max(50, config.apiKeyCacheTtlMs / 4) })
      : undefined;
  if (callerChanges) metrics.watchKeyChanges(() => Date.now() - callerChanges.confirmedAt() < config.apiKeyCacheTtlMs);
  const redis = createRedis(config.redisUrl);
  metrics.rateLimitsShared.set(redis ? 1 : 0);
  // One replica needs no Redis; several without it each count on their own. Said loudly at boot,
  // and kept as a gauge an alert can watch.
  if (!redis && config.env === 'production') {
    deps.log.warn(
      { rate_limits: 'memory' },
      'REDIS_URL is not set: rate limits are kept in this process alone. Fine for one replica; with N replicas clients get N times every limit. Set REDIS_URL when running more than one.',
    );
  }
  const rateLimiter = createRateLimiter(config, redis);
  const secrets = deps.secrets ?? loadSecretBox(config);
  const mailer = deps.mailer ?? createMailer({ ...mailOptionsOf(config), log: deps.log });
  const clock = deps.clock ?? (() => new Date());
  const webhookTargets = { production: config.env === 'production', allowPrivate: config.webhooksAllowPrivate };
  const signer = createCheckpointSigner(secrets);
  const forecasts = createForecastPool({ threads: config.forecastThreads });
  const photos = { storage: photoStorage(config, secrets), linkTtlSeconds: config.photos.linkTtlSeconds, publicUrl: config.publicUrl };
  // Files under DATA_DIR are one machine's: replicas must share that directory (a volume), or use a bucket.
  if (photos.storage.kind === 'file' && config.env === 'production') {
    deps.log.warn(
      { photos: 'files' },
      'PHOTOS_S3_URL is not set: photos are kept as files under DATA_DIR/photos. Fine for one replica or a shared volume; otherwise set an S3-compatible bucket (docs/deploying.md).',
    );
  }
  return {
    config,
    db,
    sql: { primary, replica: replica?.sql ?? primary, namedStatements: deps.namedStatements ?? false },
    clock,
    log: deps.log,
    metrics,
    catalog,
    secrets,
    signer,
    forecasts,
    photos,
    router: createAppRouter({
      catalog,
      publicUrl: config.publicUrl,
      webhookTargets,
      secrets,
      signer,
      forecasts,
      photos,
    }),
    authenticator: createAuthenticator({
      db,
      ttlMs: config.apiKeyCacheTtlMs,
      log: deps.log,
      ...(callerChanges ? { changes: callerChanges } : {}),
    }),
    rateLimiter,
    dashboard: {
      router: createDashboardRouter({
        webhookTargets,
        secrets,
        publicUrl: config.publicUrl,
        catalog,
        signer,
        invitations: createInvitationLimiter(redis),
        forecasts,
        photos,
      }),
      accounts: {
        db,
        clock,
        guard: createSignInGuard(poolOf(db), { namedStatements: deps.namedStatements ?? false }),
        mailer,
        log: deps.log,
        publicUrl: config.publicUrl,
      },
      catalog,
    },
    close: async () => {
      mailer.close();
      redis?.disconnect();
      await callerChanges?.close();
      await replica?.close();
      // After the requests drained (app.close): the fits they started have ended.
      await forecasts?.close();
    },
  };
}
