import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, SECRET_FILE_SETTINGS, SETTINGS } from '../src/config.js';
import { CORS_METHODS } from '../src/http/cors.js';

describe('configuration', () => {
  it('the README’s configuration table lists every variable the server reads, and no other', () => {
    const readme = readFileSync(join(__dirname, '../../../README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('\n## ', readme.indexOf('## Configuration') + 1));
    const listed = [...section.matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((m) => m[1]);
    expect([...listed].sort()).toEqual([...SETTINGS].sort());
  });

  it('the README says what the configuration promises: the CORS methods, production without Redis, catalog:write', () => {
    const readme = readFileSync(join(__dirname, '../../../README.md'), 'utf8');
    const cors = /^\| `CORS_ORIGINS` \|.*\(methods ([^;]+);/m.exec(readme)?.[1];
    expect(cors?.match(/`([A-Z]+)`/g)?.map((m) => m.slice(1, -1))).toEqual(CORS_METHODS);
    const redis = /^\| `REDIS_URL` \|.*$/m.exec(readme)?.[0];
    expect(redis).toMatch(/Production starts without it .* `merma_rate_limits_shared 0`/);
    expect(readme).not.toMatch(/REDIS_URL`[^.]*the server refuses to start without them/);
    expect(/^\| `TRUST_PROXY` \|.*$/m.exec(readme)?.[0]).toMatch(/Required in production.*refuses to start without one/);
    expect(/^\| .* \| `catalog:write` \|.*$/m.exec(readme)?.[0]).toMatch(/shared by all its establishments/);
  });

  it('tracing is on when an OTLP endpoint is set, unless the SDK is disabled', () => {
    expect(loadConfig({}).tracing).toBeUndefined();
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).tracing).toEqual({ serviceName: 'merma' });
    expect(
      loadConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces', OTEL_SERVICE_NAME: 'merma-eu' }).tracing,
    ).toEqual({ serviceName: 'merma-eu' });
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }).tracing).toBeUndefined();
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318 ' })).toThrow(ConfigError);
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT/);
  });

  it('URLs must have the scheme their client speaks (a forgotten scheme is not read as one)', () => {
    expect(loadConfig({ DATABASE_URL: 'postgresql://postgres@db:5432/merma' }).databaseUrl).toBe('postgresql://postgres@db:5432/merma');
    expect(loadConfig({ DATABASE_URL: 'postgres://u:p@db/merma?sslmode=require' }).databaseUrl).toBe(
      'postgres://u:p@db/merma?sslmode=require',
    );
    expect(loadConfig({ DATABASE_URL: 'postgresql:///merma?host=/var/run/postgresql' }).databaseUrl).toBe(
      'postgresql:///merma?host=/var/run/postgresql',
    );
    expect(loadConfig({ REDIS_URL: 'rediss://default:s3cret@cache:6380' }).redisUrl).toBe('rediss://default:s3cret@cache:6380');
    expect(loadConfig({ SMTP_URL: 'smtps://user:pass@mail:465' }).smtpUrl).toBe('smtps://user:pass@mail:465');
    expect(() => loadConfig({ DATABASE_URL: 'localhost:5432/merma' })).toThrow(/DATABASE_URL: expected a postgresql:\/\/ URL/);
    expect(() => loadConfig({ REDIS_URL: 'http://cache:6379' })).toThrow(/REDIS_URL: expected a redis:\/\/ or rediss:\/\/ URL/);
    expect(() => loadConfig({ SMTP_URL: 'mail.example.com:587' })).toThrow(/SMTP_URL/);
    expect(() => loadConfig({ DATABASE_URL: 'postgresql://db/merma', DATABASE_REPLICA_URL: 'replica:5432/merma' })).toThrow(
      /DATABASE_REPLICA_URL: expected a postgresql:\/\/ URL/,
    );
  });

  it('sales are kept at least as long as a sale may be sent late (400 days), so a purged line cannot be stored again', () => {
    expect(loadConfig({ RETENTION_SALES_DAYS: '400' }).retention.salesDays).toBe(400);
    expect(() => loadConfig({ RETENTION_SALES_DAYS: '365' })).toThrow(/RETENTION_SALES_DAYS/);
  });

  it('a replica needs DATABASE_URL (the embedded database has no standby)', () => {
    expect(() => loadConfig({ DATABASE_REPLICA_URL: 'postgresql://replica/merma' })).toThrow(/DATABASE_REPLICA_URL: needs DATABASE_URL/);
    expect(() =>
      loadConfig({
        DATABASE_URL: 'postgresql://db/merma',
        DATABASE_REPLICA_URL: 'postgresql://replica/merma',
        DATABASE_REPLICA_MAX_LAG_SECONDS: '0',
      }),
    ).toThrow(/DATABASE_REPLICA_MAX_LAG_SECONDS/);
  });

  it('a secret may come from a file (<NAME>_FILE, as Docker and Kubernetes mount secrets), never from both forms', () => {
    const dir = mkdtempSync(join(tmpdir(), 'merma-secret-'));
    try {
      const key = `k1:${Buffer.alloc(32, 7).toString('base64')}`;
      writeFileSync(join(dir, 'key'), `${key}\n`);
      writeFileSync(join(dir, 'db'), 'postgresql://merma:s3cret@db:5432/merma');
      const config = loadConfig({ MERMA_ENCRYPTION_KEY_FILE: join(dir, 'key'), DATABASE_URL_FILE: join(dir, 'db') });
      expect(config.encryptionKeys?.map((k) => k.id)).toEqual(['k1']);
      expect(config.databaseUrl).toBe('postgresql://merma:s3cret@db:5432/merma');
      expect(() => loadConfig({ MERMA_ENCRYPTION_KEY_FILE: join(dir, 'key'), MERMA_ENCRYPTION_KEY: key })).toThrow(
        /MERMA_ENCRYPTION_KEY_FILE: give MERMA_ENCRYPTION_KEY or MERMA_ENCRYPTION_KEY_FILE, not both/,
      );
      expect(() => loadConfig({ SMTP_URL_FILE: join(dir, 'missing') })).toThrow(/SMTP_URL_FILE: cannot read .*missing \(ENOENT\)/);
      // The file's content is checked as the variable would be.
      expect(() => loadConfig({ DATABASE_URL_FILE: join(dir, 'key') })).toThrow(/DATABASE_URL: expected a postgresql:\/\/ URL/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/**
 * Every setting, from the schema's own list (SETTINGS): its default, and where its value lands. Each
 * row sets its variable alone (with `with`, the settings its field needs to exist) and the whole
 * configuration is compared with the one without it: exactly the row's fields change, to the row's
 * values. A field read from another setting's variable (a copy-paste) then changes with the wrong
 * row and not with its own; a new setting without a row fails the first test.
 */
const KEY_HEX = '07'.repeat(32);
const DEFAULT_DASHBOARD_DIR = fileURLToPath(new URL('../../dashboard/dist', pathToFileURL(join(__dirname, '../src/config.ts'))));
type Row = {
  /** The value given; distinct from every other row's (booleans aside) and from the default. */
  value: string;
  /** Settings the field depends on besides this one (present in both configurations compared). */
  with?: Record<string, string>;
  /** The configuration's fields (dotted paths) when the value is given: exactly these change. */
  set: Record<string, unknown>;
  /** The same fields (or those the setting would fill) when it is not given. */
  unset: Record<string, unknown>;
};
const ROWS: Record<string, Row> = {
  NODE_ENV: { value: 'test', set: { env: 'test' }, unset: { env: 'development' } },
  HOST: { value: '10.1.2.3', set: { host: '10.1.2.3' }, unset: { host: '127.0.0.1' } },
  PORT: {
    value: '3101',
    set: { port: 3101, publicUrl: 'http://localhost:3101' },
    unset: { port: 3000, publicUrl: 'http://localhost:3000' },
  },
  DATABASE_URL: {
    value: 'postgresql://merma@db-host:5433/merma_x',
    set: { databaseUrl: 'postgresql://merma@db-host:5433/merma_x' },
    unset: { databaseUrl: undefined },
  },
  DATA_DIR: {
    value: '/srv/merma-data',
    set: { dataDir: '/srv/merma-data', 'mail.dir': '/srv/merma-data/mail', 'photos.storage.dir': '/srv/merma-data/photos' },
    unset: { dataDir: './.data', 'mail.dir': join('./.data', 'mail'), 'photos.storage.dir': join('./.data', 'photos') },
  },
  DATABASE_REPLICA_URL: {
    value: 'postgresql://merma@replica-host:5434/merma_x',
    with: { DATABASE_URL: 'postgresql://merma@db-host:5433/merma_x' },
    set: { replica: { url: 'postgresql://merma@replica-host:5434/merma_x', maxLagMs: 5000 } },
    unset: { replica: undefined },
  },
  DATABASE_REPLICA_MAX_LAG_SECONDS: {
    value: '2.5',
    with: { DATABASE_URL: 'postgresql://merma@db-host:5433/merma_x', DATABASE_REPLICA_URL: 'postgresql://merma@replica-host:5434/merma_x' },
    set: { 'replica.maxLagMs': 2500 },
    unset: { 'replica.maxLagMs': 5000 },
  },
  DATABASE_POOL_SIZE: { value: '23', set: { databasePoolSize: 23 }, unset: { databasePoolSize: 10 } },
  DATABASE_STARTUP_TIMEOUT_SECONDS: { value: '41', set: { databaseStartupTimeoutMs: 41_000 }, unset: { databaseStartupTimeoutMs: 60_000 } },
  MIGRATE_ON_BOOT: { value: 'false', set: { migrateOnBoot: false }, unset: { migrateOnBoot: true } },
  REDIS_URL: { value: 'redis://cache-host:6380', set: { redisUrl: 'redis://cache-host:6380' }, unset: { redisUrl: undefined } },
  LOG_LEVEL: { value: 'warn', set: { logLevel: 'warn' }, unset: { logLevel: 'info' } },
  METRICS_PORT: { value: '9123', set: { 'metrics.port': 9123 }, unset: { 'metrics.port': 0 } },
  API_RESPONSE_CHECK: { value: 'off', set: { apiResponseCheck: 'off' }, unset: { apiResponseCheck: 'strict' } },
  METRICS_HOST: { value: '0.0.0.0', set: { 'metrics.host': '0.0.0.0' }, unset: { 'metrics.host': '127.0.0.1' } },
  METRICS_TOKEN: {
    value: 'metrics-token-0123456789',
    set: { 'metrics.token': 'metrics-token-0123456789' },
    unset: { 'metrics.token': undefined },
  },
  RATE_LIMIT_GENERAL_PER_MINUTE: { value: '11', set: { 'rateLimits.generalPerMinute': 11 }, unset: { 'rateLimits.generalPerMinute': 10 } },
  RATE_LIMIT_RECORDS_PER_MINUTE: { value: '31', set: { 'rateLimits.recordsPerMinute': 31 }, unset: { 'rateLimits.recordsPerMinute': 30 } },
  RATE_LIMIT_WINDOW_SECONDS: { value: '45', set: { 'rateLimits.windowSeconds': 45 }, unset: { 'rateLimits.windowSeconds': 60 } },
  RATE_LIMIT_ANALYTICS_PER_HOUR: { value: '12', set: { 'rateLimits.analyticsPerHour': 12 }, unset: { 'rateLimits.analyticsPerHour': 10 } },
  RATE_LIMIT_ENABLED: { value: 'false', set: { 'rateLimits.enabled': false }, unset: { 'rateLimits.enabled': true } },
  API_KEY_CACHE_TTL_MS: { value: '2500', set: { apiKeyCacheTtlMs: 2500 }, unset: { apiKeyCacheTtlMs: 2000 } },
  REQUEST_TIMEOUT_MS: { value: '31000', set: { requestTimeoutMs: 31_000 }, unset: { requestTimeoutMs: 30_000 } },
  TRUST_PROXY: { value: '10.0.0.0/8, loopback', set: { trustProxy: '10.0.0.0/8,loopback' }, unset: { trustProxy: false } },
  DEFAULT_TIMEZONE: { value: 'Atlantic/Canary', set: { defaultTimezone: 'Atlantic/Canary' }, unset: { defaultTimezone: 'Europe/Madrid' } },
  WEBHOOKS_ALLOW_PRIVATE: { value: 'true', set: { webhooksAllowPrivate: true }, unset: { webhooksAllowPrivate: false } },
  WORKER_CONCURRENCY: { value: '3', set: { 'worker.concurrency': 3 }, unset: { 'worker.concurrency': 5 } },
  WORKER_POLL_INTERVAL_MS: { value: '1500', set: { 'worker.pollIntervalMs': 1500 }, unset: { 'worker.pollIntervalMs': 1000 } },
  FORECAST_THREADS: { value: '7', set: { forecastThreads: 7 }, unset: { forecastThreads: Math.max(1, availableParallelism() - 1) } },
  WEBHOOK_TIMEOUT_MS: { value: '9000', set: { webhookTimeoutMs: 9000 }, unset: { webhookTimeoutMs: 10_000 } },
  SMTP_URL: {
    value: 'smtp://mailer-host:2525',
    set: { smtpUrl: 'smtp://mailer-host:2525', 'mail.transport': 'smtp' },
    unset: { smtpUrl: undefined, 'mail.transport': 'files' },
  },
  // Read by the production check only (below): no field of its own.
  MAIL_TO_LOG: { value: 'true', set: {}, unset: {} },
  MAIL_FROM: {
    value: 'Merma Alerts <alerts@merma.test>',
    set: { mailFrom: 'Merma Alerts <alerts@merma.test>' },
    unset: { mailFrom: 'Merma <no-reply@merma.app>' },
  },
  PUBLIC_URL: {
    value: 'https://merma.example.org/',
    set: { publicUrl: 'https://merma.example.org', publicUrlSet: true },
    unset: { publicUrl: 'http://localhost:3000', publicUrlSet: false },
  },
  CORS_ORIGINS: {
    value: 'https://app.example.com, http://localhost:5173',
    set: { corsOrigins: ['https://app.example.com', 'http://localhost:5173'] },
    unset: { corsOrigins: undefined },
  },
  DASHBOARD_DIR: { value: '/srv/dashboard', set: { 'dashboard.dir': '/srv/dashboard' }, unset: { 'dashboard.dir': DEFAULT_DASHBOARD_DIR } },
  DASHBOARD_HOT_RELOAD: { value: 'true', set: { 'dashboard.hotReload': true }, unset: { 'dashboard.hotReload': false } },
  SQUARE_API_URL: {
    value: 'http://square-proxy:8080/',
    set: { 'square.liveUrl': 'http://square-proxy:8080', 'square.testUrl': 'http://square-proxy:8080' },
    unset: { 'square.liveUrl': 'https://connect.squareup.com', 'square.testUrl': 'https://connect.squareupsandbox.com' },
  },
  ALERT_MIN_KG: { value: '7.5', set: { alertMinKg: 7.5 }, unset: { alertMinKg: 5 } },
  PHOTOS_S3_URL: {
    value: 'https://AKIA1:s%2Fcret@photos-bucket.example.com/merma/',
    set: {
      'photos.storage.kind': 's3',
      'photos.storage.dir': undefined,
      'photos.storage.bucketUrl': 'https://photos-bucket.example.com/merma',
      'photos.storage.region': 'us-east-1',
      'photos.storage.accessKeyId': 'AKIA1',
      'photos.storage.secretAccessKey': 's/cret',
    },
    unset: { 'photos.storage': { kind: 'file', dir: join('./.data', 'photos') } },
  },
  PHOTOS_S3_REGION: {
    value: 'eu-south-2',
    with: { PHOTOS_S3_URL: 'https://AKIA1:s%2Fcret@photos-bucket.example.com/merma/' },
    set: { 'photos.storage.region': 'eu-south-2' },
    unset: { 'photos.storage.region': 'us-east-1' },
  },
  PHOTO_LINK_TTL_SECONDS: { value: '900', set: { 'photos.linkTtlSeconds': 900 }, unset: { 'photos.linkTtlSeconds': 300 } },
  RETENTION_EVENT_DAYS: { value: '9', set: { 'retention.eventDays': 9 }, unset: { 'retention.eventDays': 30 } },
  INBOUND_DEDUPE_DAYS: { value: '17', set: { 'retention.inboundDedupeDays': 17 }, unset: { 'retention.inboundDedupeDays': 30 } },
  RETENTION_SALES_DAYS: { value: '730', set: { 'retention.salesDays': 730 }, unset: { 'retention.salesDays': 400 } },
  OTEL_EXPORTER_OTLP_ENDPOINT: {
    value: 'http://collector:4318',
    set: { tracing: { serviceName: 'merma' } },
    unset: { tracing: undefined },
  },
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: {
    value: 'http://collector:4318/v1/traces',
    set: { tracing: { serviceName: 'merma' } },
    unset: { tracing: undefined },
  },
  OTEL_SERVICE_NAME: {
    value: 'merma-eu',
    with: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' },
    set: { 'tracing.serviceName': 'merma-eu' },
    unset: { 'tracing.serviceName': 'merma' },
  },
  OTEL_SDK_DISABLED: {
    value: 'true',
    with: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' },
    set: { tracing: undefined },
    unset: { tracing: { serviceName: 'merma' } },
  },
  MERMA_ENCRYPTION_KEY: {
    value: `k7:${KEY_HEX}`,
    set: { encryptionKeys: [{ id: 'k7' }] },
    unset: { encryptionKeys: undefined },
  },
};

/** The value at a dotted path of the configuration. */
function at(config: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((value, key) => (value as Record<string, unknown> | undefined)?.[key], config);
}

/** The dotted paths where two configurations differ (plain objects are compared field by field, anything else whole). */
function differences(a: unknown, b: unknown, prefix = ''): string[] {
  const plain = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype;
  if (plain(a) && plain(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
    return keys.flatMap((k) => differences(a[k], b[k], prefix ? `${prefix}.${k}` : k));
  }
  return isDeepStrictEqual(a, b) ? [] : [prefix];
}

describe('every setting: its default and where it lands', () => {
  it('has a row for each variable of the schema, and no other', () => {
    expect(Object.keys(ROWS).sort()).toEqual([...SETTINGS].sort());
  });

  it('gives each setting a value of its own (booleans aside), unlike its default', () => {
    const values = Object.values(ROWS)
      .map((r) => r.value)
      .filter((v) => v !== 'true' && v !== 'false');
    expect(new Set(values).size).toBe(values.length);
  });

  it.each(Object.entries(ROWS))('%s: unset, its fields hold their defaults', (_name, row) => {
    const config = loadConfig(row.with ?? {});
    for (const [path, value] of Object.entries(row.unset)) expect(at(config, path), path).toEqual(value);
  });

  it.each(Object.entries(ROWS))('%s: set alone, exactly its fields change, to its value', (name, row) => {
    const without = loadConfig(row.with ?? {});
    const withIt = loadConfig({ ...row.with, [name]: row.value });
    expect(differences(without, withIt).sort()).toEqual(Object.keys(row.set).sort());
    for (const [path, value] of Object.entries(row.set)) expect(at(withIt, path), path).toEqual(value);
  });

  it('the encryption key lands with its bytes', () => {
    const keys = loadConfig({ MERMA_ENCRYPTION_KEY: ROWS.MERMA_ENCRYPTION_KEY?.value }).encryptionKeys;
    expect(keys?.map((k) => [k.id, k.key.toString('hex')])).toEqual([['k7', KEY_HEX]]);
  });

  it('each secret read from <NAME>_FILE lands where the variable itself would', () => {
    const dir = mkdtempSync(join(tmpdir(), 'merma-secret-'));
    try {
      for (const name of SECRET_FILE_SETTINGS) {
        const row = ROWS[name];
        if (!row) throw new Error(`no row for ${name}`);
        writeFileSync(join(dir, name), `${row.value}\n`);
        const fromFile = loadConfig({ ...row.with, [`${name}_FILE`]: join(dir, name) });
        const direct = loadConfig({ ...row.with, [name]: row.value });
        expect(differences(direct, fromFile), name).toEqual([]);
        expect(differences(loadConfig(row.with ?? {}), fromFile).sort(), name).toEqual(Object.keys(row.set).sort());
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('production changes the defaults that depend on it, and MAIL_TO_LOG stands in for SMTP_URL there', () => {
    const production = {
      NODE_ENV: 'production',
      DATABASE_URL: 'postgresql://merma@db:5432/merma',
      PUBLIC_URL: 'https://merma.example.org',
      MERMA_ENCRYPTION_KEY: `k1:${KEY_HEX}`,
      TRUST_PROXY: '10.0.0.0/8',
    };
    expect(() => loadConfig(production)).toThrow(/SMTP_URL: required when NODE_ENV=production/);
    const config = loadConfig({ ...production, MAIL_TO_LOG: 'true' });
    expect({
      env: config.env,
      host: config.host,
      metricsPort: config.metrics.port,
      transport: config.mail.transport,
      responseCheck: config.apiResponseCheck,
    }).toEqual({
      env: 'production',
      host: '0.0.0.0',
      metricsPort: 9464,
      transport: 'log',
      responseCheck: 'off',
    });
    expect(loadConfig({ ...production, SMTP_URL: 'smtp://mailer-host:2525' }).mail.transport).toBe('smtp');
    expect(
      loadConfig({ ...production, MAIL_TO_LOG: 'true', HOST: '10.1.2.3', METRICS_PORT: '0', API_RESPONSE_CHECK: 'strict' }),
    ).toMatchObject({
      host: '10.1.2.3',
      metrics: { port: 0 },
      apiResponseCheck: 'strict',
    });
  });
});
