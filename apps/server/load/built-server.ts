import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Merma } from '@merma/sdk';
import { deadline } from '@merma/testing';

/**
 * What the load and failover suites share: the built server (`dist/main.js`, what the container
 * runs) started as a child process, and Redis stopped and started again as CI runs it.
 */
const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
/** The destination every load record goes to: donation for human consumption (a seeded destino). */
const DESTINO = '6ccf7d29-f6d9-403d-a9b0-2f907f15477b';

/**
 * Starts the built server on `port`: limits high enough for a load test, webhooks to a receiver
 * on loopback, the worker polling every 200 ms; its output is pushed to `log`.
 */
export function spawnBuiltServer(options: {
  databaseUrl: string;
  redisUrl: string;
  port: number;
  encryptionKey: string;
  requestTimeoutMs: number;
  log: string[];
}): ChildProcess {
  const child = spawn(process.execPath, [MAIN], {
    env: {
      ...process.env,
      NODE_ENV: 'development',
      MERMA_ENCRYPTION_KEY: options.encryptionKey,
      DATABASE_URL: options.databaseUrl,
      REDIS_URL: options.redisUrl,
      PORT: String(options.port),
      LOG_LEVEL: 'warn',
      RATE_LIMIT_RECORDS_PER_MINUTE: '1000000',
      RATE_LIMIT_GENERAL_PER_MINUTE: '1000000',
      REQUEST_TIMEOUT_MS: String(options.requestTimeoutMs),
      WEBHOOKS_ALLOW_PRIVATE: 'true',
      WORKER_POLL_INTERVAL_MS: '200',
      DATABASE_POOL_SIZE: '10',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d: Buffer) => options.log.push(d.toString()));
  child.stderr?.on('data', (d: Buffer) => options.log.push(d.toString()));
  return child;
}

/** Whether the Redis at `url` answers. */
export function redisUp(url: string): boolean {
  try {
    return execFileSync('redis-cli', ['-u', url, 'ping'], { encoding: 'utf8', timeout: deadline(2000) }).trim() === 'PONG';
  } catch {
    return false;
  }
}

/** Stops the Redis at `url` at once, keeping nothing. */
export function stopRedis(url: string) {
  execFileSync('redis-cli', ['-u', url, 'shutdown', 'nosave']);
}

/** Starts Redis on `url`'s port as CI runs it (nothing on disk), after a test stopped it. */
export function startRedis(url: string) {
  execFileSync('redis-server', [
    '--daemonize',
    'yes',
    '--bind',
    '127.0.0.1',
    '--port',
    new URL(url).port || '6379',
    '--save',
    '',
    '--appendonly',
    'no',
  ]);
}

/**
 * One SDK client writing records one after the other while `going()`, as an integration does: a
 * call per record, its Idempotency-Key kept across the SDK's retries. Each record's notes carry
 * its marker (`c<n>-<i>`), so that one stored twice shows; `acked` and `failed` hear of each call.
 */
export async function writeRecords(options: {
  n: number;
  apiKey: string | undefined;
  baseUrl: string;
  maxRetries: number;
  timeoutMs: number;
  fetch: typeof fetch;
  going: () => boolean;
  acked: (record: { id: string; record_hash: string }, marker: string) => void;
  failed: (marker: string, err: unknown) => void;
}) {
  const merma = new Merma({
    apiKey: options.apiKey,
    baseUrl: options.baseUrl,
    maxRetries: options.maxRetries,
    timeout: options.timeoutMs,
    fetch: options.fetch,
  });
  for (let i = 0; options.going(); i++) {
    const marker = `c${options.n}-${i}`;
    try {
      const r = await merma.records.create({
        food_category: 'bakery',
        weight_kg: 0.5 + ((i + 1) % 9) / 4,
        destino_id: DESTINO,
        notes: marker,
      });
      options.acked(r, marker);
    } catch (err) {
      options.failed(marker, err);
    }
  }
}

/** Answers that are neither a 201 nor a clean 503: the contract's error shape, with Retry-After. */
export function uncleanAnswers<T extends { status: number; retryAfter: string | null; body: string }>(seen: T[]): T[] {
  return seen.filter((s) => {
    if (s.status === 201) return false;
    if (s.status !== 503 || !s.retryAfter) return true;
    try {
      const body = JSON.parse(s.body);
      return body.status !== 503 || body.code !== 'service_unavailable' || typeof body.request_id !== 'string';
    } catch {
      return true;
    }
  });
}
