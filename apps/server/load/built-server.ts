import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { deadline } from '@merma/testing';

/**
 * What the load and failover suites share: the built server (`dist/main.js`, what the container
 * runs) started as a child process, and Redis stopped and started again as CI runs it.
 */
const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));

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
