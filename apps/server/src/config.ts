import { readFileSync } from 'node:fs';
import { BlockList, isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MAX_OCCURRED_AT_AGE_DAYS } from '@merma/schema';
import { z } from 'zod';
import { parseEncryptionKeys } from './secrets/keys.js';

const bool = z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((v) => v === 'true' || v === '1' || v === 'yes');
/**
 * URLs of a given scheme: a bare URL check accepts `collector:4318` or `localhost:5432` (read as
 * the schemes `collector:` and `localhost:`), a mistake that would only show later as a failed
 * connection.
 */
const urlOf = (protocol: RegExp, expected: string) => z.url({ protocol, error: `expected a ${expected} URL` });
const httpUrl = urlOf(/^https?$/, 'http:// or https://');
const int = (def: number, min = 0) => z.coerce.number().int().min(min).default(def);

/**
 * Every environment variable the server and `merma-admin` read, parsed once. Nothing else in the
 * code reads `process.env`. The README's configuration table mirrors this schema.
 */
const EnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  HOST: z.string().optional(),
  PORT: int(3000),
  /** PostgreSQL URL. Unset: an embedded PostgreSQL (PGlite) under DATA_DIR (not in production: required there). */
  DATABASE_URL: urlOf(/^postgres(ql)?$/, 'postgresql://').optional(),
  DATA_DIR: z.string().default('./.data'),
  DATABASE_POOL_SIZE: int(10, 1),
  /**
   * A streaming replica of DATABASE_URL (a hot standby) for the reads that may lag behind the
   * writes: analytics, benchmarking, forecasts, the prevention plan, record lists and exports,
   * registration session lists (db/replica.ts). Unset: every read goes to DATABASE_URL.
   */
  DATABASE_REPLICA_URL: urlOf(/^postgres(ql)?$/, 'postgresql://').optional(),
  /**
   * How far behind the primary the replica may be and still serve reads; further behind (or
   * unreachable), they go to DATABASE_URL until it catches up.
   */
  DATABASE_REPLICA_MAX_LAG_SECONDS: z.coerce.number().positive().default(5),
  /**
   * How long the boot waits for DATABASE_URL to accept connections (a database started with the
   * server, e.g. by compose, may take a few seconds); 0 tries once. A wrong password or database
   * name fails at once.
   */
  DATABASE_STARTUP_TIMEOUT_SECONDS: int(60),
  MIGRATE_ON_BOOT: bool.default(true),
  /**
   * Redis URL for the rate limits shared by several replicas (sign-in lockouts are in the database). Unset: in-memory
   * limits, kept by each process alone — right for one replica; in production the server then
   * starts with a warning in its log and `merma_rate_limits_shared 0` (services.ts), since N
   * replicas without it allow N times the limits.
   */
  REDIS_URL: urlOf(/^rediss?$/, 'redis:// or rediss://').optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Port of the Prometheus endpoint (GET /metrics), apart from the API; 0 turns it off. Default: 9464 in production, off otherwise. */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /**
   * Address the metrics port listens on: 127.0.0.1 by default, so that the unauthenticated
   * Prometheus endpoint is not reachable from other machines unless asked for (0.0.0.0 in a
   * container scraped over its network, with the port kept off the public network).
   */
  METRICS_HOST: z.string().default('127.0.0.1'),
  /**
   * How the API's answers are checked against their documented schemas (trpc/responses.ts):
   * `strict` parses each one and refuses (500) an answer the schema would change; `off` sends what
   * the procedure built. Default: off in production (the suite runs strict), strict otherwise.
   */
  API_RESPONSE_CHECK: z.enum(['strict', 'off']).optional(),
  /** When set, GET /metrics on the API port too, for `Authorization: Bearer <token>` only. */
  METRICS_TOKEN: z.string().min(16).optional(),
  /** Requests per minute per key for general endpoints. */
  RATE_LIMIT_GENERAL_PER_MINUTE: int(10, 1),
  /** Requests per minute per key for POST /api/v1/records. */
  RATE_LIMIT_RECORDS_PER_MINUTE: int(30, 1),
  /** Length of the per-minute windows in seconds (60; shorter only to test clients' waiting). */
  RATE_LIMIT_WINDOW_SECONDS: int(60, 1),
  /** Requests per hour per key for GET /api/v1/analytics. */
  RATE_LIMIT_ANALYTICS_PER_HOUR: int(10, 1),
  /** Set to false to turn rate limiting off (benchmarks only). */
  RATE_LIMIT_ENABLED: bool.default(true),
  /**
   * A revoked key (or a changed permission or plan) takes effect on every replica within this time
   * (http/auth.ts: on PostgreSQL a verified key lives longer while the changes channel is proven live).
   */
  API_KEY_CACHE_TTL_MS: int(2000),
  /** Whole-request deadline (slow clients are cut off after it). */
  REQUEST_TIMEOUT_MS: int(30_000, 1000),
  /**
   * The proxies whose X-Forwarded-For/-Proto/-Host are believed: a comma list of their addresses
   * or CIDR ranges (`10.0.0.0/8`, `fd00::/8`) or the names `loopback`, `linklocal`, `uniquelocal`;
   * `false` (default) believes none. The client's address is then the right-most one no trusted
   * proxy added, so a client cannot choose it by sending its own X-Forwarded-For. Required in
   * production (HTTPS reaches the server only through a proxy); `true` (believe anyone) is refused there; a hop count is refused everywhere (Fastify cannot tell a
   * proxy from a client by counting, and trusts nothing for a count).
   */
  TRUST_PROXY: z
    .string()
    .default('false')
    .transform((value, ctx) => {
      if (value === 'false') return false as const;
      if (value === 'true') return true as const;
      const entries = value.split(',').map((e) => e.trim());
      const bad = entries.filter((e) => !isTrustedProxyEntry(e));
      if (/^\d+$/.test(value)) {
        ctx.issues.push({
          code: 'custom',
          input: value,
          message: `a hop count is not supported (a client could pose as the proxy): name your proxy's addresses or CIDR range, e.g. TRUST_PROXY=10.0.0.0/8, or loopback when it runs on this machine`,
        });
        return z.NEVER;
      }
      if (bad.length > 0) {
        ctx.issues.push({
          code: 'custom',
          input: value,
          message: `${bad.join(', ')}: expected addresses or CIDR ranges no wider than /8 (IPv4) or /7 (IPv6), e.g. 10.0.0.0/8, or loopback, linklocal, uniquelocal, or false`,
        });
        return z.NEVER;
      }
      const mapped = entries.filter(overlapsIPv4Mapped);
      if (mapped.length > 0) {
        ctx.issues.push({
          code: 'custom',
          input: value,
          message: `${mapped.join(', ')}: overlaps the IPv4-mapped range ::ffff:0:0/96, where every IPv4 client's address is seen on a dual-stack socket, so any client could choose its address and pass plain HTTP as HTTPS: name IPv4 proxies in IPv4 form (10.0.0.0/8), and IPv6 ranges outside ::ffff:0:0/96 (fd00::/8)`,
        });
        return z.NEVER;
      }
      return entries.join(',');
    }),
  /** IANA time zone of establishments created without --timezone (merma-admin). */
  DEFAULT_TIMEZONE: z.string().default('Europe/Madrid'),
  /** Allow webhook URLs on private, loopback and link-local addresses (development and tests only). */
  WEBHOOKS_ALLOW_PRIVATE: bool.default(false),
  /** Background jobs (webhook deliveries, alerts) run at once by this process; 0 runs none here. */
  WORKER_CONCURRENCY: int(5, 0),
  /** How often an idle worker looks for due jobs (new jobs wake it at once through LISTEN/NOTIFY). */
  WORKER_POLL_INTERVAL_MS: int(1000, 10),
  /**
   * Threads that fit the demand forecast (modules/predict/pool.ts) off the event loop. Default: the
   * machine's cores less one (at least one), a core left to the requests. 0 fits on the event loop.
   */
  FORECAST_THREADS: z.coerce.number().int().min(0).max(64).optional(),
  /** A webhook receiver must answer within this time (10 s); longer counts as a failed attempt. */
  WEBHOOK_TIMEOUT_MS: int(10_000, 1),
  /**
   * SMTP server for the e-mails (smtp://user:pass@host:587): notices to organisation administrators,
   * dashboard invitations, password resets. Unset outside production: each e-mail is written to a
   * file under DATA_DIR/mail/ (its links usable by whoever reads the disk) and one log line names
   * it. Required in production unless MAIL_TO_LOG=true.
   */
  SMTP_URL: urlOf(/^smtps?$/, 'smtp:// or smtps://').optional(),
  /**
   * Production without SMTP_URL: write each e-mail to the log instead of sending it, its one-time
   * links redacted (nobody can use them from the log). For installations that do not use the
   * dashboard's e-mails; it must be said explicitly.
   */
  MAIL_TO_LOG: bool.default(false),
  /** Sender of those notices. */
  MAIL_FROM: z.string().default('Merma <no-reply@merma.app>'),
  /**
   * The address people reach this service at (https://merma.example.com), for the links the
   * dashboard's e-mails carry (invitations, password resets) and the inbound URL it shows.
   * Default: http://localhost:<PORT>; required (https) in production.
   */
  PUBLIC_URL: httpUrl.optional(),
  /**
   * Web pages allowed to call /api/v1 from a browser (CORS): a comma list of origins
   * (`https://app.example.com,http://localhost:5173`), or `*` for any page (refused in production).
   * Unset: no cross-origin calls (same-origin pages and servers are unaffected). Never the
   * dashboard's cookie routes (http/cors.ts).
   */
  CORS_ORIGINS: z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined) return undefined;
      try {
        return parseCorsOrigins(value);
      } catch (err) {
        ctx.issues.push({ code: 'custom', message: (err as Error).message, input: value });
        return z.NEVER;
      }
    }),
  /** The built dashboard (apps/dashboard/dist), served at /dashboard. */
  DASHBOARD_DIR: z.string().optional(),
  /** Serve the dashboard's sources through Vite with hot reload (`pnpm dev` sets it). */
  DASHBOARD_HOT_RELOAD: bool.default(false),
  /**
   * Square's API, where Square integrations read orders and inventory changes. Unset: Square's
   * production API (https://connect.squareup.com) for live integrations and its sandbox
   * (https://connect.squareupsandbox.com) for test ones. Set, both use it (a proxy, or a local
   * Square API in tests).
   */
  SQUARE_API_URL: httpUrl.optional(),
  /** A spike alert needs at least this many kg in the day, whatever the baseline. */
  ALERT_MIN_KG: z.coerce.number().min(0).default(5),
  /** Days events are kept once all their deliveries are over, with those deliveries (modules/retention/purge.ts). */
  RETENTION_EVENT_DAYS: int(30, 1),
  /**
   * Where the waste's photos are kept (modules/photos/storage.ts): an S3-compatible bucket, as a URL
   * with its access key id and secret (percent-encoded, as in DATABASE_URL) before the bucket's
   * address, path-style (`http://KEY:SECRET@minio:9000/merma-photos`) or virtual-hosted
   * (`https://KEY:SECRET@merma-photos.s3.eu-west-1.amazonaws.com`); objects are `<address>/<key>`,
   * requests signed with AWS Signature V4. Unset: files under DATA_DIR/photos (a volume every
   * replica shares, in production; the server warns at start).
   */
  PHOTOS_S3_URL: httpUrl
    .refine((url) => {
      const { username, password } = new URL(url);
      return username !== '' && password !== '';
    }, 'give the access key id and secret in the URL: https://KEY_ID:SECRET@bucket-host/ (percent-encode / and + in the secret)')
    .optional(),
  /** The bucket's region, for the signature (`auto` for Cloudflare R2; MinIO takes any). */
  PHOTOS_S3_REGION: z.string().min(1).default('us-east-1'),
  /**
   * Seconds a photo's download link works (its `download_url`): long enough to open it, short
   * enough that a forwarded link soon stops working. At most 7 days (S3's own limit).
   */
  PHOTO_LINK_TTL_SECONDS: z.coerce.number().int().min(10).max(604_800).default(300),
  /** Days an inbound event id is remembered: a resend within them is a duplicate. */
  INBOUND_DEDUPE_DAYS: int(30, 1),
  /**
   * Days of sales kept (sale lines and their daily totals; modules/retention/purge.ts): at least the
   * oldest day a sale may be sent for (MAX_OCCURRED_AT_AGE_DAYS, 400), so that a line resent after
   * its purge is refused rather than stored again. The demand forecast reads the last 365 days.
   */
  RETENTION_SALES_DAYS: int(MAX_OCCURRED_AT_AGE_DAYS, MAX_OCCURRED_AT_AGE_DAYS),
  /**
   * Keys that encrypt webhook signing secrets and integrations' credentials at rest: `<id>:<key>[,<id>:<key>…]`, each key 32 bytes
   * in base64 or hex, the one new values use first (secrets/keys.ts). Required in production;
   * elsewhere, unset, a key is generated and kept under DATA_DIR.
   */
  /**
   * OpenTelemetry: the collector's OTLP base URL (http://otel-collector:4318). Set, traces are
   * exported (tracing/sdk.ts); the SDK reads the other standard OTEL_* variables itself.
   */
  OTEL_EXPORTER_OTLP_ENDPOINT: httpUrl.optional(),
  /** The traces URL alone (http://otel-collector:4318/v1/traces), instead of the base URL. */
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: httpUrl.optional(),
  /** `service.name` of the spans. */
  OTEL_SERVICE_NAME: z.string().default('merma'),
  /** true: no tracing, whatever the endpoint says. */
  OTEL_SDK_DISABLED: bool.default(false),
  MERMA_ENCRYPTION_KEY: z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined) return undefined;
      try {
        return parseEncryptionKeys(value);
      } catch (err) {
        ctx.issues.push({ code: 'custom', message: (err as Error).message, input: value });
        return z.NEVER;
      }
    }),
});

/** The variables read, in the schema's order (the README's configuration table lists each). */
export const SETTINGS = Object.keys(EnvSchema.shape);

/** Rules across variables, checked after each one parsed. */
const CheckedEnvSchema = EnvSchema.superRefine((e, ctx) => {
  if (e.NODE_ENV === 'production') {
    if (e.TRUST_PROXY === true) {
      ctx.addIssue({
        code: 'custom',
        path: ['TRUST_PROXY'],
        message:
          "true believes X-Forwarded-For/-Proto from anyone, so clients choose their address (rate limits, audit log) and pass plain HTTP as HTTPS: name your proxy's addresses or CIDR range (TRUST_PROXY=10.0.0.0/8), or loopback",
      });
    }
    // The server does not terminate TLS: in production HTTPS reaches it through a proxy's
    // X-Forwarded-Proto, so without a trusted proxy every request (the probes aside) would be
    // refused as plain HTTP. A server that starts only to answer 403 to everyone is a broken deploy.
    if (e.TRUST_PROXY === false) {
      ctx.addIssue({
        code: 'custom',
        path: ['TRUST_PROXY'],
        message:
          "required when NODE_ENV=production: the server does not terminate TLS, so it knows a request came over HTTPS only from a trusted proxy's X-Forwarded-Proto, and without one it refuses every request as plain HTTP. Name your load balancer's addresses or CIDR range (TRUST_PROXY=10.0.0.0/8), or loopback when it runs on this machine",
      });
    }
    // The embedded database is for trying Merma on one machine: in a container it lives in a
    // volume that goes when the container is recreated, and replicas would each have their own.
    // A missing (or misspelt) DATABASE_URL in production is a mistake, not a wish for PGlite.
    if (!e.DATABASE_URL) {
      ctx.addIssue({
        code: 'custom',
        path: ['DATABASE_URL'],
        message:
          'required when NODE_ENV=production, as postgresql://user:password@host:5432/database: the embedded database (used when it is unset) is for development and would be lost with the container',
      });
    }
    if (!e.PUBLIC_URL?.startsWith('https://')) {
      ctx.addIssue({
        code: 'custom',
        path: ['PUBLIC_URL'],
        message: 'required when NODE_ENV=production, as https://…: the invitation and password-reset links start with it',
      });
    }
    if (e.CORS_ORIGINS === '*') {
      ctx.addIssue({
        code: 'custom',
        path: ['CORS_ORIGINS'],
        message:
          '* (every web page) is refused when NODE_ENV=production: name the origins of the pages that call the API, e.g. CORS_ORIGINS=https://app.example.com',
      });
    }
    if (!e.SMTP_URL && !e.MAIL_TO_LOG) {
      ctx.addIssue({
        code: 'custom',
        path: ['SMTP_URL'],
        message:
          'required when NODE_ENV=production (invitations, password resets and webhook notices are e-mailed); to run without e-mail, set MAIL_TO_LOG=true (mail is logged with its links redacted)',
      });
    }
  }
  // A replica of the embedded database cannot exist: its reads would be another database's.
  if (e.DATABASE_REPLICA_URL && !e.DATABASE_URL) {
    ctx.addIssue({
      code: 'custom',
      path: ['DATABASE_REPLICA_URL'],
      message: 'needs DATABASE_URL: the replica is a streaming standby of that PostgreSQL (the embedded database has none)',
    });
  }
  // A generated key would live on one replica's disk only, and a lost key makes every stored
  // secret unreadable: production names its keys explicitly.
  if (e.NODE_ENV === 'production' && !e.MERMA_ENCRYPTION_KEY) {
    ctx.addIssue({
      code: 'custom',
      path: ['MERMA_ENCRYPTION_KEY'],
      message:
        'required when NODE_ENV=production (webhook signing secrets are encrypted with it): generate a key with `openssl rand -base64 32` and set MERMA_ENCRYPTION_KEY=k1:<that key>',
    });
  }
});

/**
 * CORS_ORIGINS: `*` alone, or origins exactly as browsers send them in `Origin` (scheme, host,
 * port only when not the scheme's default; lower case; no path, not even `/`). A near miss is
 * refused with the form to write rather than accepted and never matched.
 */
export function parseCorsOrigins(value: string): '*' | string[] {
  const entries = value
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  if (entries.length === 0) throw new Error('expected origins separated by commas (https://app.example.com), or *');
  if (entries.includes('*')) {
    if (entries.length > 1) throw new Error('* already allows every origin: give * alone, or a list of origins without it');
    return '*';
  }
  const bad = entries.flatMap((entry) => {
    let origin: string;
    try {
      const url = new URL(entry);
      origin = /^https?:$/.test(url.protocol) ? url.origin : '';
    } catch {
      origin = '';
    }
    if (origin === entry) return [];
    return [origin ? `${entry} (write ${origin})` : entry];
  });
  if (bad.length > 0) {
    throw new Error(
      `${bad.join(', ')}: expected origins as browsers send them, scheme://host[:port] with nothing after, e.g. https://app.example.com`,
    );
  }
  return [...new Set(entries)];
}

/** One TRUST_PROXY entry: an IP address, a CIDR range, or one of proxy-addr's names. */
function isTrustedProxyEntry(entry: string): boolean {
  if (['loopback', 'linklocal', 'uniquelocal'].includes(entry)) return true;
  const [address, bits, ...rest] = entry.split('/');
  const version = isIP(address ?? '');
  if (version === 0 || rest.length > 0) return false;
  if (bits === undefined) return true;
  const n = /^\d{1,3}$/.test(bits) ? Number(bits) : -1;
  // Wider than a /8 (IPv4) or /7 (IPv6, fc00::/7 is the unique-local range) is not a proxy's range
  // but most of the Internet: 0.0.0.0/0 would be `true` under another name.
  return n >= (version === 4 ? 8 : 7) && n <= (version === 4 ? 32 : 128);
}

const IPV4_MAPPED = new BlockList();
IPV4_MAPPED.addSubnet('::ffff:0:0', 96, 'ipv6');

/**
 * Whether an IPv6 TRUST_PROXY entry overlaps the IPv4-mapped range `::ffff:0:0/96`: a dual-stack
 * socket reports every IPv4 client as `::ffff:a.b.c.d`, which the proxy check matches against IPv6
 * ranges too, so `::/7` or `::ffff:0:0/96` would trust every IPv4 client as a proxy. An entry inside
 * the range is an IPv4 proxy written another way: it is asked for in its IPv4 form, where the /8
 * limit holds. (docs/decisions/0003-ipv6-addresses-that-carry-ipv4.md)
 */
function overlapsIPv4Mapped(entry: string): boolean {
  const [address = '', bits] = entry.split('/');
  if (isIP(address) !== 6) return false;
  const range = new BlockList();
  range.addSubnet(address, bits === undefined ? 128 : Number(bits), 'ipv6');
  return range.check('::ffff:0:0', 'ipv6') || IPV4_MAPPED.check(address, 'ipv6');
}

/** A bucket's address and credentials from PHOTOS_S3_URL (the credentials out of the address). */
function s3Bucket(value: string, region: string) {
  const url = new URL(value);
  const accessKeyId = decodeURIComponent(url.username);
  const secretAccessKey = decodeURIComponent(url.password);
  url.username = '';
  url.password = '';
  return { kind: 's3', bucketUrl: url.toString().replace(/\/+$/, ''), region, accessKeyId, secretAccessKey } as const;
}

export type Config = ReturnType<typeof toConfig>;

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const raw = withSecretFiles(Object.fromEntries(Object.entries(env).filter(([, v]) => v !== '')));
  const parsed = CheckedEnvSchema.safeParse(raw);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return toConfig(parsed.data);
}

/** The settings that hold secrets, which may be given as a file's path instead (`<NAME>_FILE`). */
export const SECRET_FILE_SETTINGS = [
  'MERMA_ENCRYPTION_KEY',
  'DATABASE_URL',
  'DATABASE_REPLICA_URL',
  'REDIS_URL',
  'SMTP_URL',
  'METRICS_TOKEN',
  'PHOTOS_S3_URL',
] as const;

/**
 * `MERMA_ENCRYPTION_KEY_FILE=/run/secrets/merma_key` instead of the key itself: the convention of
 * Docker and Kubernetes secrets (and of the postgres image), so that a secret mounted as a file never
 * passes through the environment, `docker inspect` or a compose file. The file's content, without
 * its trailing newline, is the value. Giving both forms, or a file that cannot be read, is refused.
 */
function withSecretFiles(env: Record<string, string | undefined>): Record<string, string | undefined> {
  const out = { ...env };
  const problems: string[] = [];
  for (const name of SECRET_FILE_SETTINGS) {
    const path = env[`${name}_FILE`];
    delete out[`${name}_FILE`];
    if (path === undefined) continue;
    if (env[name] !== undefined) {
      problems.push(`  ${name}_FILE: give ${name} or ${name}_FILE, not both`);
      continue;
    }
    try {
      const value = readFileSync(path, 'utf8').replace(/\r?\n$/, '');
      if (value !== '') out[name] = value;
    } catch (err) {
      problems.push(`  ${name}_FILE: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }
  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n${problems.join('\n')}`);
  return out;
}

/**
 * The parsed variables, grouped as the code uses them. `Config` is this function's result type, so
 * the schema above and this mapping are the only two places a setting is written.
 */
function toConfig(e: z.output<typeof EnvSchema>) {
  const host = e.HOST ?? (e.NODE_ENV === 'production' ? '0.0.0.0' : '127.0.0.1');
  return {
    env: e.NODE_ENV,
    host,
    port: e.PORT,
    databaseUrl: e.DATABASE_URL,
    dataDir: e.DATA_DIR,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    databaseStartupTimeoutMs: e.DATABASE_STARTUP_TIMEOUT_SECONDS * 1000,
    /** The streaming replica for reads that may lag (db/replica.ts); undefined: none, they read DATABASE_URL. */
    replica: e.DATABASE_REPLICA_URL ? { url: e.DATABASE_REPLICA_URL, maxLagMs: e.DATABASE_REPLICA_MAX_LAG_SECONDS * 1000 } : undefined,
    migrateOnBoot: e.MIGRATE_ON_BOOT,
    redisUrl: e.REDIS_URL,
    logLevel: e.LOG_LEVEL,
    metrics: {
      // Off by default outside production, so that several servers on one machine (development,
      // tests) do not compete for the port.
      port: e.METRICS_PORT ?? (e.NODE_ENV === 'production' ? 9464 : 0),
      host: e.METRICS_HOST,
      token: e.METRICS_TOKEN,
    },
    rateLimits: {
      enabled: e.RATE_LIMIT_ENABLED,
      generalPerMinute: e.RATE_LIMIT_GENERAL_PER_MINUTE,
      recordsPerMinute: e.RATE_LIMIT_RECORDS_PER_MINUTE,
      analyticsPerHour: e.RATE_LIMIT_ANALYTICS_PER_HOUR,
      windowSeconds: e.RATE_LIMIT_WINDOW_SECONDS,
    },
    apiKeyCacheTtlMs: e.API_KEY_CACHE_TTL_MS,
    apiResponseCheck: e.API_RESPONSE_CHECK ?? (e.NODE_ENV === 'production' ? ('off' as const) : ('strict' as const)),
    requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
    /** false, true (development and tests only) or a comma list of addresses, ranges and names. */
    trustProxy: e.TRUST_PROXY,
    defaultTimezone: e.DEFAULT_TIMEZONE,
    webhooksAllowPrivate: e.WEBHOOKS_ALLOW_PRIVATE,
    worker: { concurrency: e.WORKER_CONCURRENCY, pollIntervalMs: e.WORKER_POLL_INTERVAL_MS },
    /** Threads of the forecast pool (modules/predict/pool.ts); 0: fits on the event loop. */
    forecastThreads: e.FORECAST_THREADS ?? Math.max(1, availableParallelism() - 1),
    webhookTimeoutMs: e.WEBHOOK_TIMEOUT_MS,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    /** How e-mail leaves: SMTP, files under DATA_DIR/mail (outside production), or the log with links redacted. */
    mail: {
      transport: e.SMTP_URL ? ('smtp' as const) : e.NODE_ENV === 'production' ? ('log' as const) : ('files' as const),
      dir: join(e.DATA_DIR, 'mail'),
    },
    publicUrl: (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ''),
    /** PUBLIC_URL was set (else publicUrl is this machine's address on PORT). */
    publicUrlSet: e.PUBLIC_URL !== undefined,
    /** Origins allowed to call /api/v1 from a browser (http/cors.ts); undefined: none. */
    corsOrigins: e.CORS_ORIGINS,
    dashboard: {
      // Next to this package in a checkout (src/ and dist/ are both one level down).
      dir: e.DASHBOARD_DIR ?? fileURLToPath(new URL('../../dashboard/dist', import.meta.url)),
      hotReload: e.DASHBOARD_HOT_RELOAD,
    },
    /** Square's API by mode (modules/integrations). */
    square: {
      liveUrl: (e.SQUARE_API_URL ?? 'https://connect.squareup.com').replace(/\/+$/, ''),
      testUrl: (e.SQUARE_API_URL ?? 'https://connect.squareupsandbox.com').replace(/\/+$/, ''),
    },
    /** The photos' object storage (modules/photos/storage.ts): a bucket, or files under DATA_DIR/photos. */
    photos: {
      storage: e.PHOTOS_S3_URL
        ? s3Bucket(e.PHOTOS_S3_URL, e.PHOTOS_S3_REGION)
        : ({ kind: 'file', dir: join(e.DATA_DIR, 'photos') } as const),
      linkTtlSeconds: e.PHOTO_LINK_TTL_SECONDS,
    },
    alertMinKg: e.ALERT_MIN_KG,
    retention: { eventDays: e.RETENTION_EVENT_DAYS, inboundDedupeDays: e.INBOUND_DEDUPE_DAYS, salesDays: e.RETENTION_SALES_DAYS },
    /** Configured encryption keys, current first; undefined: a key under DATA_DIR (not in production). */
    encryptionKeys: e.MERMA_ENCRYPTION_KEY,
    /** Set when traces are exported (an OTLP endpoint is configured and the SDK not disabled). */
    tracing:
      (e.OTEL_EXPORTER_OTLP_ENDPOINT || e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) && !e.OTEL_SDK_DISABLED
        ? { serviceName: e.OTEL_SERVICE_NAME }
        : undefined,
  };
}
